/**
 * The end-of-run cleanup (suites/orders/cleanup.ts): every order a run created is cancelled and its funds withdrawn,
 * after failing checks too, and what cannot be cleaned up is reported with its reason.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReferenceServer, type RunningServer } from '../../fixtures/server/index.ts';
import { allChecks } from '../../suites/index.ts';
import { clearLedger, createdOrders, noteCreated } from '../../suites/harness/ledger.ts';
import type { Exchange } from '../../suites/harness/exchange.ts';
import { runCheck } from '../../suites/harness/runner.ts';
import { prepareTarget } from '../../suites/harness/target.ts';
import type { TargetEnv } from '../../suites/harness/types.ts';
import { cleanUpCreatedOrders } from '../../suites/orders/cleanup.ts';

const confirmed = (body: unknown, headers: Record<string, string>, status = 200): Exchange => ({
  service: 'orders', request: { method: 'POST', url: 'http://target.invalid/orders/confirm', headers },
  response: { status, headers: {}, body, raw: Buffer.alloc(0) }, durationMs: 1, attempts: 1,
});

describe('the ledger of created orders', () => {
  test('records a 2xx confirm with its key and sub, and nothing else', () => {
    clearLedger();
    const headers = { 'X-Service-Key': 'k', 'X-Service-User': 'alice' };
    noteCreated(confirmed({ success: true, data: { order: { id: 'o-1', orderType: 'dca' } } }, headers));
    noteCreated(confirmed({ success: false, error: { code: 'EXPIRED' } }, headers, 400));
    noteCreated(confirmed({ success: true, data: { order: { id: 'o-2' } } }, { 'X-Service-Key': 'k' }));
    expect(createdOrders()).toEqual([{ orderId: 'o-1', orderType: 'dca', apiKey: 'k', sub: 'alice' }]);
    clearLedger();
  });
});

describe('cleanup at the end of a full run', () => {
  let server: RunningServer;
  let env: TargetEnv;
  beforeAll(async () => {
    server = await startReferenceServer({ port: 0 });
    env = await prepareTarget({
      ordersUrl: server.ordersUrl, quotesUrl: server.quotesUrl, controlUrl: server.controlUrl, profile: 'full', seed: 1, strict: false,
      numRuns: 5, timeoutMs: 10_000, maxRps: 0, expectedProviders: 2, credentials: {},
    });
  });
  afterAll(() => server.close());

  test('cancels what still runs and withdraws every order\'s funds; a second pass finds nothing to do', async () => {
    clearLedger();
    for (const check of allChecks.filter((c) => c.name.startsWith('two-cancels') || c.name.includes('wallet-withdrawal-confirmed') || c.name.startsWith('retries-of-one'))) {
      await runCheck(check, env);
    }
    const orders = createdOrders();
    expect(orders.length).toBeGreaterThan(0);
    const report = await cleanUpCreatedOrders(env);
    expect(report.left).toEqual([]);
    expect(report.orders).toBe(orders.length);
    expect(report.withdrawn).toBeGreaterThan(0);
    for (const o of orders) {
      const answer = await fetch(`${server.ordersUrl}/me/orders`, { headers: { 'x-service-key': o.apiKey, 'x-service-user': o.sub } });
      const row = ((await answer.json()) as { data: Array<{ id: string; status: string; withdrawalStatus: string }> }).data.find((r) => r.id === o.orderId);
      expect(row?.status, o.orderId).toMatch(/^(cancelled|completed|failed|expired)$/);
      expect(row?.withdrawalStatus, o.orderId).toBe('completed');
    }
    expect(await cleanUpCreatedOrders(env, orders)).toMatchObject({ cancelled: 0, withdrawn: 0, left: [] });
  });

  test('reports an order it cannot reach, with the reason, and cleans up the rest', async () => {
    clearLedger();
    const [check] = allChecks.filter((c) => c.name.startsWith('two-cancels'));
    await runCheck(check!, env);
    const [order] = createdOrders();
    const report = await cleanUpCreatedOrders(env, [{ ...order!, sub: 'a-sub-the-run-never-onboarded' }, order!]);
    expect(report.left.map((l) => l.reason)).toEqual([expect.stringMatching(/not listed/)]);
    clearLedger();
  });
});
