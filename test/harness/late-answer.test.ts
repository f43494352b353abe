/**
 * An answer late only against the run's own --timeout (neither document sets a response time): the check is not judged,
 * the run INCOMPLETE with "raise --timeout"; a hostile-input sweep, whose rules ask for an answer in time, still fails;
 * a dropped connection still fails the rule its request checks.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { defineCheck, type CheckContext } from '../../suites/harness/check.ts';
import { buildMatrix, gatingLine, preconditionLines } from '../../suites/harness/matrix.ts';
import { runCheck } from '../../suites/harness/runner.ts';
import type { TargetEnv } from '../../suites/harness/types.ts';
import { sendHostile } from '../../suites/shared/hostile.ts';
import { OFFLINE_ENV, OFFLINE_RUN } from './offline-target.ts';

describe('a late answer', () => {
  let server: Server;
  let env: TargetEnv;
  beforeAll(async () => {
    // /health answers after 2 s (a slow, conforming target under --timeout 200), /drop drops every connection.
    server = createServer((req, res) => {
      if (req.url?.startsWith('/drop')) return req.socket.destroy();
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'), 2000).unref();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    env = { ...OFFLINE_ENV, ordersUrl: url, quotesUrl: url, timeoutMs: 200 };
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });

  const health = defineCheck({
    name: 'a-read-of-health',
    service: 'orders',
    rules: ['OA-HEALTH-001'],
    profile: 'readonly',
    run: async (t: CheckContext) => {
      await t.orders.request({ path: '/health' });
    },
  });

  test('is not judged: precondition `timeout`, "raise --timeout (now 200 ms)"; the run is INCOMPLETE, counted under a broken precondition', async () => {
    const result = await runCheck(health, env);
    expect(result).toMatchObject({
      verdict: 'setup-failed',
      gating: false,
      notJudged: 'precondition',
      unjudged: { id: 'timeout', fix: 'raise --timeout (now 200 ms)' },
    });
    expect(result.message).toMatch(/no whole answer to GET \/health within --timeout 200 ms: no answer within 200 ms/);
    const m = buildMatrix([result], [health], OFFLINE_RUN, 'test');
    expect(m.summary.verdict).toBe('incomplete');
    expect(m.summary.gating.notJudged.precondition).toBe(m.summary.gating.rules);
    expect(gatingLine(m)).toMatch(/^0 of \d+ gating rules judged \(0%\); not judged: \d+ for a broken precondition/);
    // (then `nothing-judged`: this run of one check judged no rule at all)
    expect(preconditionLines(m).slice(0, 2)).toEqual([
      expect.stringMatching(
        /^timeout \(1 gating check not judged: a-read-of-health\): a request got no whole answer within --timeout \(200 ms\)/,
      ),
      '  fix: raise --timeout (now 200 ms)',
    ]);
  });

  test('a skip that passes the reason on is counted under `timeout` too', async () => {
    const skipping = defineCheck({
      ...health,
      name: 'a-check-that-skips-on-it',
      run: async (t: CheckContext) => {
        try {
          await t.orders.request({ path: '/health' });
        } catch (e) {
          t.skip(`no health to read: ${(e as Error).message}`);
        }
      },
    });
    expect(await runCheck(skipping, env)).toMatchObject({ verdict: 'skipped', notJudged: 'precondition', unjudged: { id: 'timeout' } });
  });

  test('fails a hostile-input rule ("answered in time"): sendHostile still fails its rule on it', async () => {
    const hostile = defineCheck({
      name: 'a-malformed-request-answered-in-time',
      service: 'orders',
      rules: ['OA-HOST-001'],
      profile: 'readonly',
      run: async (t: CheckContext) => {
        await sendHostile(t, t.orders, 'OA-HOST-001', { path: '/health', query: 'x=%00' });
      },
    });
    const result = await runCheck(hostile, env);
    expect(result).toMatchObject({ verdict: 'fail', rule: 'OA-HOST-001', gating: true });
    expect(result.message).toMatch(/documented: GET \/health with a malformed request is answered within the suite's timeout/);
    expect(result.message).toMatch(/received: +no whole answer to GET \/health within --timeout 2000 ms/);
  });

  test('a dropped connection stays a failure of the rule its request checks', async () => {
    const dropped = defineCheck({ ...health, name: 'a-read-dropped', run: async (t) => void (await t.orders.request({ path: '/drop' })) });
    const result = await runCheck(dropped, env);
    expect(result).toMatchObject({ verdict: 'fail', gating: true });
    expect(result.message).toMatch(/the target dropped the connection; no answer was received/);
  });
});
