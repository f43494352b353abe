/**
 * The end-of-run cleanup (suites/orders/cleanup.ts): every order a run created is cancelled and its funds withdrawn,
 * after failing checks too, and what cannot be cleaned up is reported with its reason.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReferenceServer, type RunningServer } from '../../fixtures/server/index.ts';
import { allChecks } from '../../suites/index.ts';
import { CheckContext } from '../../suites/harness/check.ts';
import { clearLedger, createdOrders, feesPaidBy, knownUsers, noteCreated, runFundings } from '../../suites/harness/ledger.ts';
import type { Exchange } from '../../suites/harness/exchange.ts';
import { runCheck } from '../../suites/harness/runner.ts';
import type { TargetEnv } from '../../suites/harness/types.ts';
import { cleanUpCreatedOrders, describeCleanup } from '../../suites/orders/cleanup.ts';
import { createOrder, dcaRequest, intentRequest, madeUser, postIntent } from '../../suites/orders/orders.ts';
import { cancelledDca } from '../../suites/orders/steps/actions.ts';
import { orderWithdraw, withdrawUser } from '../../suites/orders/steps/withdrawals.ts';
import { prepareSelfTest } from './sandbox-support.ts';
import { answerProxy } from '../cli/leak-support.ts';

const confirmed = (body: unknown, headers: Record<string, string>, status = 200): Exchange => ({
  service: 'orders',
  request: { method: 'POST', url: 'http://target.invalid/orders/confirm', headers },
  response: { status, headers: {}, body, raw: Buffer.alloc(0) },
  durationMs: 1,
  attempts: 1,
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

  test('records the users, the fundings and the fees of landed deposits', () => {
    clearLedger();
    const user = { 'X-Service-Key': 'k', 'X-Service-User': 'bob' };
    const exchange = (
      service: Exchange['service'],
      path: string,
      body: unknown,
      json: unknown,
      headers: Record<string, string> = {},
    ): Exchange => ({
      service,
      request: { method: 'POST', url: `http://target.invalid${path}`, headers, body: JSON.stringify(json) },
      response: { status: 200, headers: {}, body, raw: Buffer.alloc(0) },
      durationMs: 1,
      attempts: 1,
    });
    noteCreated(exchange('orders', '/partner/onboard', { success: true, data: {} }, { sub: 'carol' }, { 'X-Service-Key': 'k' }));
    noteCreated(exchange('orders', '/orders/intent', { success: true, data: { pendingOrderId: 'p-1', feeLamports: '5000000' } }, {}, user));
    noteCreated(exchange('orders', '/orders/intent', { success: true, data: { pendingOrderId: 'p-2', feeLamports: '5000000' } }, {}, user));
    noteCreated(exchange('orders', '/orders/confirm', { success: true, data: { order: { id: 'o-1' } } }, { pendingOrderId: 'p-1' }, user));
    noteCreated(exchange('orders', '/orders/confirm', { success: true, data: { order: { id: 'o-1' } } }, { pendingOrderId: 'p-1' }, user));
    noteCreated(exchange('control', '/__control/fund', { balance: '7' }, { wallet: 'w', mint: 'native', amount: '5' }));
    expect(knownUsers().map((u) => u.sub)).toEqual(['carol', 'bob']);
    expect(feesPaidBy({ apiKey: 'k', sub: 'bob' })).toBe(5000000n);
    expect(runFundings()).toEqual([{ wallet: 'w', mint: 'native', amount: 5n, balanceAfter: 7n }]);
    clearLedger();
  });
});

describe('cleanup at the end of a full run', () => {
  let server: RunningServer;
  let env: TargetEnv;
  beforeAll(async () => {
    server = await startReferenceServer({ port: 0 });
    env = await prepareSelfTest({
      ordersUrl: server.ordersUrl,
      quotesUrl: server.quotesUrl,
      controlUrl: server.controlUrl,
      seed: 1,
    });
  });
  afterAll(() => server.close());

  test("cancels what still runs and withdraws every order's funds; a second pass finds nothing to do", async () => {
    clearLedger();
    for (const check of allChecks.filter(
      (c) => c.name.startsWith('two-cancels') || c.name.includes('wallet-withdrawal-confirmed') || c.name.startsWith('retries-of-one'),
    )) {
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
      const row = ((await answer.json()) as { data: Array<{ id: string; status: string; withdrawalStatus: string }> }).data.find(
        (r) => r.id === o.orderId,
      );
      expect(row?.status, o.orderId).toMatch(/^(cancelled|completed|failed|expired)$/);
      expect(row?.withdrawalStatus, o.orderId).toBe('completed');
    }
    expect(report.balances.discrepancies).toEqual([]);
    expect(report.balances.wallets).not.toEqual([]);
    expect(await cleanUpCreatedOrders(env, orders)).toMatchObject({ cancelled: 0, withdrawn: 0, walletWithdrawals: 0, left: [] });
  });

  test('finds orders the ledger missed by listing, abandons a pending withdrawal, names the slices left running', async () => {
    clearLedger();
    const t = new CheckContext(allChecks[0]!, env);
    const user = await withdrawUser(t, '0');
    const { orderId: withdrawing } = await cancelledDca(t, user);
    expect((await orderWithdraw(t, user, withdrawing)).response.status).toBe(200);
    const slice = await createOrder(t, user, intentRequest('slice'));
    const report = await cleanUpCreatedOrders(env, [], knownUsers());
    expect(report).toMatchObject({ orders: 2, found: 2, abandoned: 1, withdrawn: 1 });
    expect(report.left).toEqual([
      { orderId: slice.orderId, orderType: 'slice', status: 'active', reason: 'left running (slice orders cannot be cancelled)' },
    ]);
    expect(report.balances.discrepancies).toEqual([]);
    expect(report.balances.managers).toEqual([
      expect.objectContaining({ walletAddress: user.walletAddress, withdrawable: {}, lockedBy: [expect.stringContaining(slice.orderId)] }),
    ]);
    expect(describeCleanup(report)).toMatch(/^cleanup: .*balances add up .*\n {2}1 × left running \(slice orders cannot be cancelled\)$/);
    clearLedger();
  });

  /** A proxy in front of the server that tallies the requests by method and path (order ids as {id}). */
  async function tallying() {
    const sent = new Map<string, number>();
    const proxy = await answerProxy(server.ordersUrl, (req, _body, answer) => {
      const path = (req.url ?? '').replace(/\?.*$/, '').replace(/^\/orders\/(?!intent|confirm|pending)[^/]+/, '/orders/{id}');
      sent.set(`${req.method} ${path}`, (sent.get(`${req.method} ${path}`) ?? 0) + 1);
      return answer;
    });
    return { sent, proxy };
  }

  test('a running order is cancelled, then each withdrawn; a manager with nothing left to withdraw is read once', async () => {
    const { sent, proxy } = await tallying();
    try {
      clearLedger();
      const t = new CheckContext(allChecks[0]!, env);
      const user = await withdrawUser(t, '0');
      await createOrder(t, user, intentRequest('dca'));
      await cancelledDca(t, user, { fund: true });
      const report = await cleanUpCreatedOrders({ ...env, ordersUrl: proxy.url }, createdOrders(), knownUsers(), () => {});
      clearLedger();
      expect(report).toMatchObject({ orders: 2, cancelled: 1, withdrawn: 2, abandoned: 0, walletWithdrawals: 0, left: [] });
      expect(report.balances.discrepancies).toEqual([]);
      expect(report.balances.managers).toEqual([]);
      expect(Object.fromEntries(sent)).toEqual({
        'GET /me/orders': 1,
        'POST /orders/{id}/cancel': 1,
        'POST /orders/{id}/withdraw': 2,
        'POST /orders/{id}/withdraw/confirm': 2,
        'GET /me/balance': 1,
      });
    } finally {
      await proxy.close();
    }
  });

  test('a user no intent handed a deposit is not listed; a manager nothing of the run reached is not read; one funded, or whose user an intent was handed, is', async () => {
    const { sent, proxy } = await tallying();
    try {
      clearLedger();
      const t = new CheckContext(allChecks[0]!, env);
      // Onboarded, its wallet funded, nothing more: it cannot have an order, its manager cannot hold anything of the run.
      const idle = await madeUser(t, true);
      // Its manager funded through the control API: not listed; read, emptied by a withdraw-max, read again.
      const funded = await withdrawUser(t, '5000000');
      // Handed a deposit it never confirmed: listed and read (a confirm whose answer was lost could have landed it).
      const handed = await madeUser(t, true);
      expect((await postIntent(t, handed.sub, dcaRequest())).response.status).toBe(200);
      const report = await cleanUpCreatedOrders({ ...env, ordersUrl: proxy.url }, [], knownUsers(), () => {});
      expect(report).toMatchObject({ orders: 0, walletWithdrawals: 1, left: [] });
      expect(report.balances).toMatchObject({ unread: 1, discrepancies: [], unreadable: {} });
      expect(Object.fromEntries(sent)).toEqual({
        'GET /me/orders': 1,
        'GET /me/balance': 3,
        'POST /withdraw/transaction': 1,
        'POST /withdraw/confirm': 1,
      });
      // The idle user's funded wallet is still audited, its manager counted as holding nothing.
      const wallets = report.balances.wallets as Array<{ wallet: string; mints: Array<{ inManagers: string; discrepancy?: string }> }>;
      expect(wallets.map((w) => w.wallet).sort()).toEqual([idle.userPubkey, funded.userPubkey, handed.userPubkey].sort());
      expect(wallets.find((w) => w.wallet === idle.userPubkey)?.mints.every((m) => m.inManagers === '0' && !m.discrepancy)).toBe(true);
      expect(describeCleanup(report)).toMatch(
        /balances add up \(managers hold nothing withdrawable, 1 of them known empty without a read, /,
      );
      // Where the target simulates no chain (partner mode: the partner's wallet, a sub reused across runs), every user
      // is listed and read.
      sent.clear();
      const partner = { ...env, ordersUrl: proxy.url, capabilities: env.capabilities.filter((c) => c !== 'funding') };
      expect((await cleanUpCreatedOrders(partner, [], knownUsers(), () => {})).balances.unread).toBeUndefined();
      expect(sent.get('GET /me/orders')).toBe(3);
      expect(sent.get('GET /me/balance')).toBe(3);
      clearLedger();
    } finally {
      await proxy.close();
    }
  });

  test('reports loudly a funded wallet that does not add up, without touching verdicts', async () => {
    clearLedger();
    const t = new CheckContext(allChecks[0]!, env);
    const user = await withdrawUser(t, '0');
    await cancelledDca(t, user);
    // Funds the run's ledger never saw: the wallet ends with more than it started with and was funded.
    await fetch(`${server.controlUrl}/fund`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ wallet: user.userPubkey, mint: 'native', amount: '7' }),
    });
    const report = await cleanUpCreatedOrders(env);
    expect(report.balances.discrepancies).toEqual([
      expect.stringMatching(new RegExp(`^wallet ${user.userPubkey}, So11111111111111111111111111111111111111112: holds 1000000007 `)),
    ]);
    expect(describeCleanup(report)).toMatch(/BALANCE DISCREPANCY \(1, see cleanup.json; verdicts unchanged\)[\s\S]*\n {2}!! wallet /);
    clearLedger();
  });

  test("users of a test tenant the run suspended or deleted are counted apart, not as leftovers; the run's own key's still are; progress by phase", async () => {
    clearLedger();
    const t = new CheckContext(allChecks[0]!, env);
    const suspended = await t.control.createTenant();
    await t.control.setTenantState(suspended.tenantId, 'suspended');
    const deleted = await t.control.createTenant();
    await t.control.setTenantState(deleted.tenantId, 'deleted');
    const users = [
      { apiKey: suspended.apiKey, sub: 'someone' },
      { apiKey: deleted.apiKey, sub: 'someone' },
      { apiKey: env.credentials.ordersApiKey!, sub: 'a-sub-the-run-never-onboarded' },
    ];
    const lines: string[] = [];
    const report = await cleanUpCreatedOrders(env, [], users, (line) => lines.push(line));
    expect(report.balances.retiredTenantUsers).toBe(2);
    expect(Object.keys(report.balances.unreadable)).toEqual([expect.stringMatching(/^GET \/me\/balance answered 4\d\d/)]);
    const said = describeCleanup(report);
    expect(said).not.toMatch(/TENANT_(SUSPENDED|DELETED) *$/m);
    expect(said).toMatch(/\n {2}1 × user not cleaned: GET \/me\/balance answered 4\d\d/);
    expect(said).toMatch(
      /\n {2}2 user\(s\) skipped, as expected: their tenant, provisioned by this run, was suspended or deleted by a check/,
    );
    // Each phase once, with its counts (a line every 20 s besides, while orders and managers are cleaned).
    expect(lines.filter((l) => !/^\d+ of /.test(l) || l.startsWith('0 of 0 order(s) and 3 of 3'))).toEqual([
      'listing the orders of 3 user(s) the run onboarded or acted for',
      '0 order(s) to cancel and withdraw (0 found by listing), then 3 manager(s) to empty',
      expect.stringMatching(/^0 of 0 order\(s\) and 3 of 3 manager\(s\) done, \d+ s$/),
      "comparing the funded wallets' balances with what they started with",
      expect.stringMatching(/^done in \d+ s$/),
    ]);
    // A suspended tenant holding the run's own key is no test tenant of the run: a leftover, said so.
    const own = await cleanUpCreatedOrders(
      { ...env, credentials: { ...env.credentials, ordersApiKey: suspended.apiKey } },
      [],
      users.slice(0, 1),
      () => {},
    );
    expect(own.balances.retiredTenantUsers).toBeUndefined();
    expect(describeCleanup(own)).toMatch(/\n {2}1 × user not cleaned: GET \/me\/balance answered 403 TENANT_SUSPENDED$/);
    clearLedger();
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
