/**
 * The checks marked `ownQuoteKey` (suites/quotes/rate.checks.ts, blackbox-rate.checks.ts) meter only quote keys of an
 * organization they made themselves where the control API offers `quote-keys` and `rate-limits`, so they run beside
 * other checks (suites/harness/schedule.ts runsAlone). Proven against the reference server: all of them at once pass
 * and leave the run's own key, whose plan has a single credit, with that credit unspent.
 */
import { describe, expect, test } from 'vitest';
import { startReferenceServer } from '../../fixtures/server/index.ts';
import { runCheck } from '../../suites/harness/runner.ts';
import { OWN_QUOTE_KEY_NEEDS, runsAlone } from '../../suites/harness/schedule.ts';
import { allChecks } from '../../suites/index.ts';
import { call } from '../reference-server/support.ts';
import { describeResults } from './run.ts';
import { prepareSelfTest } from './sandbox-support.ts';

describe('rate-limit checks on quote keys of their own', () => {
  test("run at once, they pass and spend nothing of the run's own key", async () => {
    const server = await startReferenceServer({ port: 0 });
    try {
      const prepared = await prepareSelfTest({ ordersUrl: server.ordersUrl, quotesUrl: server.quotesUrl, controlUrl: server.controlUrl });
      expect(OWN_QUOTE_KEY_NEEDS.every((c) => prepared.capabilities.includes(c))).toBe(true);
      // The run's key, minted after the preparation (which sends requests on it): one credit for the month.
      const minted = await call(`${server.controlUrl}/quote-keys`, { method: 'POST', json: { monthlyAllowance: 1 } });
      const runsKey = (minted.body as { apiKey: string }).apiKey;
      const env = { ...prepared, credentials: { ...prepared.credentials, quotesApiKey: runsKey } };

      const checks = allChecks.filter((c) => c.ownQuoteKey);
      expect(checks.length).toBeGreaterThanOrEqual(5);
      for (const c of checks) expect(runsAlone(c, env.capabilities), c.name).toBe(false);
      const results = await Promise.all(checks.map((c) => runCheck(c, env)));
      expect(
        results.map((r) => [r.check, r.verdict]),
        describeResults(results),
      ).toEqual(checks.map((c) => [c.name, 'pass']));

      const info = (key: string) => call(`${server.quotesUrl}/api/v1/info`, { headers: { 'x-api-key': key } });
      expect((await info(runsKey)).status, 'the credit of the run’s key is unspent').toBe(200);
      // ... and it was its only one: a check that had sent one request on the run's key would have met this 429.
      expect((await info(runsKey)).status).toBe(429);
    } finally {
      await server.close();
    }
  }, 60_000);
});
