/**
 * A company member's windows (suites/harness/check.ts `window`, clock-gate.ts, schedule.ts): the requests of its
 * intent-to-confirm and of its sign-in reach the target while a window of the run's clock gate is open, so that no other
 * member's step of the clock lands between them; another check's are sent with no window (nothing moves the clock
 * beside it). Read from the gate at the moment the reference server (same process) answers each request.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReferenceServer } from '../../fixtures/server/index.ts';
import { CheckContext, defineCheck, type Check } from '../../suites/harness/check.ts';
import { clockGate } from '../../suites/harness/clock-gate.ts';
import { guardSharedState, runsInCompany } from '../../suites/harness/schedule.ts';
import type { TargetEnv } from '../../suites/harness/types.ts';
import { createOrder, intentUser } from '../../suites/orders/orders.ts';
import { prepareSelfTest } from '../self-test/sandbox-support.ts';

const member = defineCheck({
  name: 'a-company-member',
  service: 'orders',
  rules: ['OA-TRIG-024'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  ownMarket: true,
  async run() {},
});
const loner: Check = { ...member, name: 'a-check-that-runs-alone', ownMarket: undefined };

describe("a company member's windows, against the reference server", () => {
  let server: Awaited<ReturnType<typeof startReferenceServer>>;
  let env: TargetEnv;
  /** Each answered request, with whether a window of the gate was open as it was answered. */
  const answered: Array<{ request: string; window: boolean }> = [];
  beforeAll(async () => {
    server = await startReferenceServer({
      port: 0,
      onRequest: (e) => answered.push({ request: `${e.method} ${e.path}`, window: clockGate.underWay.kind === 'window' }),
    });
    env = await prepareSelfTest({ ordersUrl: server.ordersUrl, quotesUrl: server.quotesUrl, controlUrl: server.controlUrl });
  });
  afterAll(async () => await server.close());

  /** The sign-in, intent and confirm of one user and order of `check`, each with whether a window was open. */
  async function windowsOf(check: Check) {
    const t = new CheckContext(check, env);
    guardSharedState(t.control, check);
    answered.length = 0;
    await createOrder(t, await intentUser(t, true));
    return answered.filter((a) => ['POST /partner/onboard', 'POST /orders/intent', 'POST /orders/confirm'].includes(a.request));
  }

  test('a member signs in, and sends its intent and its confirm, inside windows', async () => {
    expect(runsInCompany(member, env.capabilities)).toBe(true);
    expect(await windowsOf(member)).toEqual([
      { request: 'POST /partner/onboard', window: true },
      { request: 'POST /orders/intent', window: true },
      { request: 'POST /orders/confirm', window: true },
    ]);
    expect(clockGate.underWay.count).toBe(0);
  });

  test('a check outside the company opens no window', async () => {
    expect(runsInCompany(loner, env.capabilities)).toBe(false);
    expect((await windowsOf(loner)).map((a) => a.window)).toEqual([false, false, false]);
  });
});
