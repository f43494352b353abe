/**
 * A target of one service (a service team or a partner with only one of the two): `--quotes-url` alone runs the quote
 * checks only and `--orders-url` alone the order checks only. No request reaches the other service (the reference
 * server's request log), its key is not asked for, and its selected checks are reported not judged, outside the run,
 * never dropped and never a pass; the run passes on what could be judged.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type RequestLogEntry, type RunningServer, startReferenceServer } from '../../fixtures/server/index.ts';
import { defineCheck, type CheckContext } from '../../suites/harness/check.ts';
import { runCheck } from '../../suites/harness/runner.ts';
import { OFFLINE_ENV } from '../harness/offline-target.ts';
import { expectValidMatrix } from './matrix-schema.ts';
import { cli, matrixOf, mintOn, reportDir } from './run-cli.ts';

// One check of each service at smoke: the key-less refusal of each.
const GREP = 'missing-(api|service)-key';

let server: RunningServer;
const log: RequestLogEntry[] = [];

beforeAll(async () => {
  server = await startReferenceServer({ port: 0, onRequest: (entry) => log.push(entry) });
});
afterAll(() => server.close());

/** The paths of the run: quote paths are under /api/v1, the control API under /__control, order paths elsewhere. */
const isQuotePath = (path: string) => path.startsWith('/api/v1');
const isControlPath = (path: string) => path.startsWith('/__control');

describe('a target of one service', () => {
  test('--quotes-url alone: the quote checks run, the order checks are outside the run, no order path is asked', async () => {
    const { apiKey } = await mintOn(server.controlUrl, '/quote-keys');
    log.length = 0;
    const dir = reportDir();
    const run = await cli(['--quotes-url', server.quotesUrl, '--profile', 'smoke', '--grep', GREP, '--report-dir', dir], {
      QUOTES_API_KEY: apiKey!,
    });
    expect(run.stderr).not.toMatch(/ORDERS_API_KEY/);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(log.length).toBeGreaterThan(0);
    expect(log.filter((e) => !isQuotePath(e.path)).map((e) => e.path)).toEqual([]);
    expect(run.stdout).toMatch(/Conformance PASS/);
    expect(run.stdout).toMatch(/orders none \(no --orders-url given: its checks are outside the run\)/);
    expect(run.stdout).toMatch(/gating: .*, \d+ outside the run \(no --orders-url given\)/);

    const m = matrixOf(dir);
    expectValidMatrix(m);
    expect(m.run.target.ordersUrl).toBeUndefined();
    expect(m.run.target.quotesUrl).toBe(server.quotesUrl);
    const quotes = m.checks.filter((r) => r.service === 'quotes');
    const orders = m.checks.filter((r) => r.service === 'orders');
    expect(quotes.length).toBeGreaterThan(0);
    expect(quotes.every((r) => r.verdict === 'pass')).toBe(true);
    // The order check the --grep selected is in the matrix, not judged for a reason it names.
    expect(orders.length).toBeGreaterThan(0);
    for (const r of orders) {
      expect(r).toMatchObject({ verdict: 'skipped', gating: false, notJudged: 'outside-run', requests: 0 });
      expect(r.message).toBe('not judged: outside the run: no --orders-url given');
    }
    expect(m.summary.gating.notJudged.outsideRun).toBeGreaterThan(0);
    // No order rule is a pass: the ones these checks cite are skipped.
    const orderRules = new Set(orders.flatMap((r) => r.rules));
    expect(m.rules.filter((row) => orderRules.has(row.id) && row.verdict === 'pass')).toEqual([]);
  });

  test('--orders-url alone: the order checks run, the quote checks are outside the run, no quote path is asked', async () => {
    const { apiKey } = await mintOn(server.controlUrl, '/tenants');
    log.length = 0;
    const dir = reportDir();
    const run = await cli(['--orders-url', server.ordersUrl, '--profile', 'smoke', '--grep', GREP, '--report-dir', dir], {
      ORDERS_API_KEY: apiKey!,
    });
    expect(run.stderr).not.toMatch(/QUOTES_API_KEY/);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(log.length).toBeGreaterThan(0);
    expect(log.filter((e) => isQuotePath(e.path) || isControlPath(e.path)).map((e) => e.path)).toEqual([]);
    expect(run.stdout).toMatch(/quotes none \(no --quotes-url given: its checks are outside the run\)/);
    expect(run.stdout).toMatch(/skipped \(\d+ outside the run\)/);

    const m = matrixOf(dir);
    expect(m.run.target.quotesUrl).toBeUndefined();
    expect(m.checks.filter((r) => r.service === 'orders').every((r) => r.verdict === 'pass')).toBe(true);
    const quotes = m.checks.filter((r) => r.service === 'quotes');
    expect(quotes.length).toBeGreaterThan(0);
    expect(quotes.every((r) => r.notJudged === 'outside-run' && r.verdict === 'skipped')).toBe(true);
    expect(m.summary.verdict).toBe('pass');
  });

  test('only the given service key is asked for, and a --grep of the other service alone selects nothing to run', async () => {
    const missing = await cli(['--quotes-url', server.quotesUrl, '--profile', 'smoke', '--grep', GREP, '--report-dir', reportDir()]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/missing credentials: QUOTES_API_KEY/);
    expect(missing.stderr).not.toMatch(/ORDERS_API_KEY/);

    const other = await cli(['--quotes-url', server.quotesUrl, '--profile', 'smoke', '--grep', 'missing-service-key'], {
      QUOTES_API_KEY: 'unused',
    });
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/selects no check; \d+ of the orders service, outside the run: no --orders-url given: nothing to run/);
  });

  test('an order check that also asks the quote service, in a run of the order service alone: skipped, outside the run', async () => {
    const { quotesUrl: _, ...ordersOnly } = { ...OFFLINE_ENV, ordersUrl: server.ordersUrl };
    const check = defineCheck({
      name: 'an-order-check-reading-a-live-price',
      service: 'orders',
      rules: ['OA-HEALTH-001'],
      profile: 'smoke',
      run: async (t: CheckContext) => {
        await t.quotes.request({ path: '/api/v1/info' });
      },
    });
    log.length = 0;
    const result = await runCheck(check, ordersOnly);
    expect(result).toMatchObject({ verdict: 'skipped', gating: false, notJudged: 'outside-run', requests: 0 });
    expect(result.message).toBe('needs the quote service, outside the run: no --quotes-url given');
    expect(log).toEqual([]);
  });
});
