/**
 * Fewer sequential round trips in a check's setup (issue 17): a plain onboarding dates its SIWS sign-in by what the
 * process last learned of the service's time (suites/harness/service-time.ts) instead of reading it, and sends it again
 * on an exact read when that is refused; the onboarding and the funding of a check's user go out at once; a restore of
 * faults already restored is not sent (suites/harness/control.ts).
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { startReferenceServer } from '../../fixtures/server/index.ts';
import { type CheckContext, defineCheck } from '../../suites/harness/check.ts';
import { ControlAdapter } from '../../suites/harness/control.ts';
import type { Exchange } from '../../suites/harness/exchange.ts';
import { runCheck } from '../../suites/harness/runner.ts';
import { estimatedServiceTime, forgetServiceTime, learnServiceTime, MAX_AGE_MS } from '../../suites/harness/service-time.ts';
import type { TargetEnv } from '../../suites/harness/types.ts';
import { intentUser } from '../../suites/orders/orders.ts';
import { onboardedUser } from '../../suites/orders/users.ts';
import { describeResults, SELF_TEST_SEED } from '../self-test/run.ts';
import { prepareSelfTest, sandboxCredentials } from '../self-test/sandbox-support.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

const requestOf = (e: Exchange) => `${e.request.method} ${new URL(e.request.url).pathname}`;

describe('what the process learned of a service time', () => {
  test('stands in for a read, plus the local time elapsed, for less than a minute; a failure forgets it', () => {
    let local = 1_000;
    vi.spyOn(performance, 'now').mockImplementation(() => local);
    expect(estimatedServiceTime('src')).toBeUndefined();
    learnServiceTime('src', 5_000_000);
    local += 2_500;
    expect(estimatedServiceTime('src')).toBe(5_002_500);
    expect(estimatedServiceTime('another')).toBeUndefined();
    local += MAX_AGE_MS;
    expect(estimatedServiceTime('src')).toBeUndefined();
    learnServiceTime('src', 7_000_000);
    expect(estimatedServiceTime('src')).toBe(7_000_000);
    forgetServiceTime('src');
    expect(estimatedServiceTime('src')).toBeUndefined();
    learnServiceTime('src', Number.NaN);
    expect(estimatedServiceTime('src')).toBeUndefined();
  });

  test('the control adapter learns every clock answer, an advance included, and forgets it when a clock call fails', async () => {
    const server = await startReferenceServer({ port: 0 });
    const control = new ControlAdapter(server.controlUrl, ['clock'], 5000);
    try {
      expect(control.knownClockMs()).toBeUndefined();
      const now = Date.parse(await control.clock());
      expect(control.knownClockMs()! - now).toBeGreaterThanOrEqual(0);
      expect(control.knownClockMs()! - now).toBeLessThan(5_000);
      const advanced = Date.parse(await control.advanceClock(3600));
      expect(advanced - now).toBeGreaterThanOrEqual(3_600_000);
      expect(control.knownClockMs()! - advanced).toBeGreaterThanOrEqual(0);
      expect(control.knownClockMs()! - advanced).toBeLessThan(5_000);
      // Without the clock capability nothing is known of a virtual clock.
      expect(new ControlAdapter(server.controlUrl, [], 5000).knownClockMs()).toBeUndefined();
    } finally {
      await server.close();
    }
    await expect(control.advanceClock(60)).rejects.toThrow();
    expect(control.knownClockMs()).toBeUndefined();
  });
});

describe('faults', () => {
  test('a restore to what this process last set is not sent; a fault always is; a failed call forgets what was set', async () => {
    const server = await startReferenceServer({ port: 0 });
    const sent: string[] = [];
    const control = new ControlAdapter(server.controlUrl, ['faults'], 5000, (e) => sent.push(e.request.body ?? ''));
    const set = async (faults: Parameters<ControlAdapter['setFaults']>[0]) => {
      const before = sent.length;
      await control.setFaults(faults);
      return sent.length > before;
    };
    try {
      expect(await set({ rpc: 'up' })).toBe(true); // nothing known yet
      expect(await set({ rpc: 'up' })).toBe(false);
      expect(await set({ rpc: 'down' })).toBe(true);
      expect(await set({ rpc: 'down' })).toBe(true); // a fault is always sent (outage.ts reads its exchange)
      expect(await set({ rpc: 'up' })).toBe(true);
      expect(await set({ swaps: 'ok', rpc: 'up' })).toBe(true); // swaps not known
      expect(await set({ swaps: 'ok' })).toBe(false);
      expect(await set({ rpc: 'up', swaps: 'ok' })).toBe(false);
      expect(await set({ quoteProviders: { titan: 'up' } })).toBe(true);
      expect(await set({ quoteProviders: { titan: 'up' } })).toBe(false);
      expect(await set({ quoteProviders: { titan: 'up', dflow: 'up' } })).toBe(true);
      // A refused call may have applied part of it: everything of the target is forgotten.
      await expect(control.setFaults({ rpc: 'sideways' as never })).rejects.toThrow(/400/);
      expect(await set({ swaps: 'ok' })).toBe(true);
      expect(await set({ swaps: 'ok' })).toBe(false);
      // Another target (another control URL) knows nothing of it.
      const other = await startReferenceServer({ port: 0 });
      try {
        const otherSent: string[] = [];
        await new ControlAdapter(other.controlUrl, ['faults'], 5000, (e) => otherSent.push(e.request.body ?? '')).setFaults({
          swaps: 'ok',
        });
        expect(otherSent).toHaveLength(1);
      } finally {
        await other.close();
      }
    } finally {
      await server.close();
    }
  });
});

/** A check that onboards a user (funded: `intentUser(t, true)`), its requests given to `seen`. */
const onboarding = (seen: string[][], funded: boolean) =>
  defineCheck({
    name: 'a-check-with-a-user',
    service: 'orders',
    rules: ['OA-ONB-001'],
    profile: 'full',
    async run(t: CheckContext) {
      try {
        const user = funded ? await intentUser(t, true) : await onboardedUser(t);
        t.expect('OA-ONB-001', typeof user.userId === 'string', { documented: 'a user' });
      } finally {
        seen.push(t.exchanges.map(requestOf));
      }
    },
  });

describe("a check's user", () => {
  test('with a virtual clock: onboarded on the last clock answer, funded at once; a refused sign-in is sent again on a fresh read', async () => {
    const server = await startReferenceServer({ port: 0 });
    try {
      const env: TargetEnv = await prepareSelfTest({
        ordersUrl: server.ordersUrl,
        quotesUrl: server.quotesUrl,
        controlUrl: server.controlUrl,
      });
      expect(env.capabilities).toEqual(expect.arrayContaining(['clock', 'funding']));
      const seen: string[][] = [];
      const check = onboarding(seen, true);
      const results = [await runCheck(check, env), await runCheck(check, env)];
      const onboard = 'POST /partner/onboard';
      const fund = 'POST /__control/fund';
      const clock = 'GET /__control/clock';
      // The first reads the clock (nothing learned yet), the second does not; the funding does not wait for the user.
      expect(seen[0]!.slice().sort()).toEqual([fund, fund, clock, onboard].sort());
      expect(seen[0]![0]).toBe(clock);
      expect(seen[1]!.slice().sort()).toEqual([fund, fund, onboard].sort());
      // --max-concurrency 1: one request at a time, the user onboarded before it is funded, as before.
      results.push(await runCheck(check, { ...env, maxConcurrency: 1 }));
      expect(seen.pop()).toEqual([onboard, fund, fund]);
      // The clock was moved behind the suite's back: the sign-in dated by the estimate is refused, then sent on a read.
      learnServiceTime(env.controlUrl!, Date.now() - 3_600_000);
      results.push(await runCheck(check, env));
      expect(seen[2]!.filter((r) => r !== fund)).toEqual([onboard, clock, onboard]);
      expect(results[3]!.notes.join('\n')).toMatch(/refused \(400 SIWS_INVALID\): sent again on a fresh read/);
      const notPassing = results.filter((r) => r.verdict !== 'pass');
      expect(notPassing, describeResults(notPassing)).toEqual([]);
    } finally {
      await server.close();
    }
  }, 60_000);

  test("without a clock: onboarded on the order service's last Date, read from /health only when none is recent", async () => {
    const server = await startReferenceServer({ port: 0, stagingLike: { timeScale: 1, seed: SELF_TEST_SEED } });
    try {
      const env = await prepareSelfTest({
        ordersUrl: server.ordersUrl,
        quotesUrl: server.quotesUrl,
        credentials: sandboxCredentials(server),
      });
      expect(env.capabilities).toEqual([]);
      const seen: string[][] = [];
      const check = onboarding(seen, false);
      const results = [await runCheck(check, env), await runCheck(check, env)];
      expect(seen).toEqual([['GET /health', 'POST /partner/onboard'], ['POST /partner/onboard']]);
      const notPassing = results.filter((r) => r.verdict !== 'pass');
      expect(notPassing, describeResults(notPassing)).toEqual([]);
    } finally {
      await server.close();
    }
  }, 60_000);
});
