import { randomUUID } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import { dataOf, is2xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { RequestSpec } from '../harness/client.ts';
import type { Exchange } from '../harness/exchange.ts';
import { mapAtMost } from '../harness/pacer.ts';
import { sweepWidth } from '../shared/hostile.ts';
import { expectFeeSnapshotWhole, expectOrderInvariants, type InvariantContext, type OrderOwner } from './order-invariants.ts';
import { atOnce, createOrder, dcaRequest, type Created, type OrderType } from './orders.ts';
import type { Actor } from './steps/dca.ts';
import { actorOrder, expectExecutionRows, runCycles, tenantUser } from './steps/executions.ts';
import { expectError } from './steps/expect.ts';
import { ORDER_READ_RULES, PARTNER_ORDER_RULES } from './steps/invariant-rules.ts';
import { ownTenantCheck } from './steps/own-tenant.ts';
import { expectDepositRecord, idsIn, LIST_CAP, ordersOfEveryType, reader, recipients, rowsOf, TYPE_FIELDS } from './steps/reads.ts';
import { otherTenantKey, servedRequest } from './users.ts';

/**
 * Partner reporting (area REP; partner-only, GET, tenant-scoped, capped at 500 rows): `/partners/me/orders` (its filters:
 * reporting-filters.checks.ts), one order and its deposit, and the tenant's execution rows. Reporting is scoped by the key's tenant, never by
 * X-Service-User; `userId` in a query is the opaque id from onboarding. Rows have the per-type detail shape without
 * `tenantId` and `originatingPartner`.
 */

const partner = (t: CheckContext, path: string, headers: RequestSpec['headers'] = {}) => servedRequest(t, { path, headers });

/** OA-REP-002: no tenantId, no originatingPartner. */
function expectNoTenantFields(t: CheckContext, row: Record<string, unknown>, ex: Exchange): void {
  t.expect('OA-REP-002', !('tenantId' in row) && !('originatingPartner' in row), {
    documented: '/partners/me/* orders omit tenantId and originatingPartner',
    received: { id: row.id, tenantId: row.tenantId, originatingPartner: row.originatingPartner },
    exchange: ex,
  });
}

export const partnerOrdersCoverTheTenant = ownTenantCheck({
  name: 'partner-orders-list-every-user-of-the-tenant-in-the-per-type-shape-without-tenant-fields',
  service: 'orders',
  rules: ['OA-REP-001', 'OA-REP-002', 'OA-REP-003', 'OA-REP-004', 'OA-REP-013', ...PARTNER_ORDER_RULES],
  profile: 'full',
  async run(t: CheckContext) {
    const alice = await reader(t, true);
    const bob = await reader(t, true, 'second');
    const created = [...(await ordersOfEveryType(t, alice)), await createOrder(t, bob, dcaRequest())];
    const owners = new Map<unknown, OrderOwner>([
      [alice.owner.userId, alice.owner],
      [bob.owner.userId, bob.owner],
    ]);
    const c = (row: Record<string, unknown>, exchange: Exchange): InvariantContext => ({
      scope: 'partner',
      exchange,
      owner: owners.get(row.userId),
      created: recipients(created),
    });
    const ours = new Set(created.map((o) => o.orderId));

    // A tenant of many orders may reach the 500-row cap: then narrow to the time of this check (OA-REP-020).
    let ex = await partner(t, '/partners/me/orders');
    let rows = rowsOf(t, 'OA-REP-001', ex);
    if (rows.length >= LIST_CAP) {
      const since = created.map((o) => String(o.order.createdAt)).sort()[0]!;
      t.note(`the tenant's report is at the ${LIST_CAP}-row cap: narrowed with createdAtGte=${since}`);
      ex = await partner(t, `/partners/me/orders?createdAtGte=${encodeURIComponent(since)}`);
      rows = rowsOf(t, 'OA-REP-001', ex);
    }
    const missing = created.filter((o) => !idsIn(rows).includes(o.orderId)).map((o) => `${String(o.order.orderType)} ${o.orderId}`);
    t.expect('OA-REP-001', missing.length === 0, {
      documented: 'the report lists the orders of both users of the tenant',
      received: { missing },
      exchange: ex,
    });
    for (const row of rows.filter((r) => ours.has(String(r.id)))) {
      const type = row.orderType as OrderType;
      const absent = TYPE_FIELDS[type].filter((k) => !(k in row));
      t.expect('OA-REP-003', absent.length === 0, {
        documented: `a ${type} row carries its detail fields ${TYPE_FIELDS[type].join(', ')}`,
        received: { id: row.id, absent },
        exchange: ex,
      });
    }
    // The invariants of every row, after the report's own facts (a row without its detail fields is REP-003's).
    for (const row of rows) {
      expectOrderInvariants(t, row, c(row, ex));
      expectNoTenantFields(t, row, ex);
    }

    const asAlice = await partner(t, ex.request.url.replace(/^.*\/partners/, '/partners'), { 'X-Service-User': alice.sub });
    const withUser = rowsOf(t, 'OA-REP-004', asAlice);
    const bobs = created.filter((o) => o.order.userId === bob.owner.userId).map((o) => o.orderId);
    t.expect(
      'OA-REP-004',
      bobs.every((id) => idsIn(withUser).includes(id)),
      {
        documented: `X-Service-User ${alice.sub} does not narrow the report: bob's order is still listed`,
        received: { bobs, listed: idsIn(withUser) },
        exchange: asAlice,
      },
    );

    for (const o of [created[0]!, created[created.length - 1]!]) {
      const one = await partner(t, `/partners/me/orders/${o.orderId}`);
      const d = dataOf(one);
      t.expect('OA-REP-013', is2xx(one) && d?.id === o.orderId, {
        documented: `2xx with the order ${o.orderId}`,
        received: { status: one.response.status, body: one.response.body },
        exchange: one,
      });
      expectOrderInvariants(t, d, c(d, one));
      expectNoTenantFields(t, d, one);
    }
  },
});

export const partnerDepositAndUnknownIds = ownTenantCheck({
  name: 'partner-order-deposit-is-the-record-and-unknown-ids-are-404-not-found',
  service: 'orders',
  rules: ['OA-REP-014', 'OA-REP-016'],
  profile: 'full',
  async run(t: CheckContext) {
    const alice = await reader(t, true);
    for (const o of await ordersOfEveryType(t, alice)) {
      expectDepositRecord(t, 'OA-REP-016', await partner(t, `/partners/me/orders/${o.orderId}/deposit`), o);
    }
    const unknown = randomUUID();
    expectError(t, 'OA-REP-014', await partner(t, `/partners/me/orders/${unknown}`), {
      status: 404,
      codes: ['NOT_FOUND'],
      documented: '404 NOT_FOUND for an unknown order id',
    });
    expectError(t, 'OA-REP-014', await partner(t, `/partners/me/orders/${unknown}/deposit`), {
      status: 404,
      codes: ['NOT_FOUND'],
      documented: '404 NOT_FOUND for the deposit of an unknown order id',
    });
  },
});

export const partnerReportingIsTenantScoped = defineCheck({
  name: 'partner-reporting-of-another-tenant-never-shows-this-tenants-orders',
  service: 'orders',
  rules: ['OA-REP-005', 'OA-REP-015'],
  profile: 'full',
  needs: ['funding'],
  // It counts only the other tenant's report: with `tenants` a fresh tenant of its own (otherTenantKey).
  ownTenant: true,
  async run(t: CheckContext) {
    const alice = await reader(t, true);
    const created: Created[] = await ordersOfEveryType(t, alice);
    const { apiKey } = await otherTenantKey(t);
    const key = { 'X-Service-Key': apiKey };
    const ours = created.map((o) => o.orderId);
    const listed = await partner(t, '/partners/me/orders', key);
    const leaked = idsIn(rowsOf(t, 'OA-REP-005', listed)).filter((id) => ours.includes(String(id)));
    t.expect('OA-REP-005', leaked.length === 0, {
      documented: "another tenant's report lists none of this tenant's orders",
      received: leaked,
      exchange: listed,
    });
    for (const id of ours) {
      expectError(t, 'OA-REP-015', await partner(t, `/partners/me/orders/${id}`, key), {
        status: 404,
        codes: ['NOT_FOUND'],
        documented: '404 NOT_FOUND for an order of another partner',
      });
      expectError(t, 'OA-REP-015', await partner(t, `/partners/me/orders/${id}/deposit`, key), {
        status: 404,
        codes: ['NOT_FOUND'],
        documented: '404 NOT_FOUND for the deposit of an order of another partner',
      });
    }
  },
});

const FEE_FIELDS = ['platformFeeWallet', 'platformFeeBps', 'platformFeeMint', 'platformFeeAmount'];
const feeSnapshot = (row: Record<string, unknown>) => Object.fromEntries(FEE_FIELDS.map((k) => [k, row[k]]));
const rowSummary = (rows: readonly Record<string, unknown>[]) =>
  rows.map((r) => ({ orderId: r.orderId, status: r.status, executedAt: r.executedAt, ...feeSnapshot(r) }));

export const partnerExecutions = defineCheck({
  name: 'partner-executions-carry-the-fee-snapshot-most-recent-first-filter-by-user-and-stay-in-the-tenant',
  service: 'orders',
  rules: [
    'OA-REP-005',
    'OA-REP-017',
    'OA-REP-018',
    'OA-REP-019',
    'OA-REP-020',
    'OA-REP-021',
    'OA-EXEC-004',
    'OA-EXEC-005',
    'OA-EXEC-006',
    'OA-EXEC-007',
  ],
  profile: 'full',
  needs: ['funding', 'clock', 'tenants'],
  async run(t: CheckContext) {
    // A tenant that charges a fee (a fee wallet and 100 bps) with two users, and one without a fee wallet: every
    // user has a DCA order that runs two cycles.
    // The tenants, then each user and its order: independent of one another, so at once.
    const [charging, free] = await atOnce(
      t,
      () => t.control.createTenant({ platformFeeBps: 100, feeWallet: Keypair.generate().publicKey.toBase58() }),
      () => t.control.createTenant({ platformFeeBps: 100 }),
    );
    const userWithOrder = async (apiKey: string) => {
      const user = await tenantUser(t, apiKey);
      return { user, ...(await actorOrder(t, user)) };
    };
    const made = await atOnce(
      t,
      () => userWithOrder(charging.apiKey),
      () => userWithOrder(charging.apiKey),
      () => userWithOrder(free.apiKey),
    );
    const [alice, bob, carol] = [made[0].user, made[1].user, made[2].user];
    const orders = new Map<Actor, { orderId: string; order: Record<string, unknown> }>(made.map((m) => [m.user, m]));
    await runCycles(
      t,
      [...orders.values()].map((o) => o.order),
      1,
    );
    const orderOf = (user: Actor) => orders.get(user)!.orderId;

    const reportEx = (apiKey: string, query = '') => partner(t, `/partners/me/executions${query}`, { 'X-Service-Key': apiKey });
    const judged = (ex: Exchange) => ({ ex, rows: rowsOf(t, 'OA-REP-017', ex) });
    const report = async (apiKey: string, query = '') => judged(await reportEx(apiKey, query));
    const [charged, uncharged] = await atOnce(
      t,
      () => report(charging.apiKey),
      () => report(free.apiKey),
    );
    const of = (rows: Record<string, unknown>[], user: Actor) => rows.filter((r) => r.orderId === orderOf(user));
    for (const [user, list] of [
      [alice, charged],
      [bob, charged],
      [carol, uncharged],
    ] as const) {
      if (of(list.rows, user).length < 2)
        t.skip(
          `the tenant's /partners/me/executions shows ${of(list.rows, user).length} rows of the order ${orderOf(user)} after two cycle times, not 2: no rows to judge (${JSON.stringify(rowSummary(list.rows)).slice(0, 300)})`,
        );
    }

    // Each tenant sees its own rows and none of the other's.
    for (const [list, foreign] of [
      [charged, [carol]],
      [uncharged, [alice, bob]],
    ] as const) {
      const leaked = list.rows.filter((r) => foreign.some((user) => r.orderId === orderOf(user)));
      t.expect('OA-REP-005', leaked.length === 0, {
        documented: "a tenant's executions include none of another tenant's orders",
        received: rowSummary(leaked),
        exchange: list.ex,
      });
    }
    for (const { ex, rows } of [charged, uncharged]) {
      t.expect('OA-REP-020', rows.length <= LIST_CAP, {
        documented: `at most ${LIST_CAP} execution rows`,
        received: rows.length,
        exchange: ex,
      });
      expectExecutionRows(t, rows, ex, 'OA-REP-019');
    }
    // The fee snapshot: all four fields on every row, set on the success rows of the charging tenant, null on the other's.
    const feeRows = charged.rows.filter((r) => r.status === 'success');
    t.expect(
      'OA-REP-017',
      charged.rows.every((r) => FEE_FIELDS.every((k) => k in r)) &&
        feeRows.length > 0 &&
        feeRows.every((r) => FEE_FIELDS.every((k) => r[k] !== null && r[k] !== undefined)),
      {
        documented: `on a tenant with a fee wallet and 100 bps, the success rows carry ${FEE_FIELDS.join(', ')}, all set`,
        received: rowSummary(charged.rows),
        exchange: charged.ex,
      },
    );
    t.expect(
      'OA-REP-017',
      uncharged.rows.every((r) => FEE_FIELDS.every((k) => k in r && r[k] === null)),
      {
        documented: `on a tenant without a fee wallet, every row carries ${FEE_FIELDS.join(', ')}, all null`,
        received: rowSummary(uncharged.rows),
        exchange: uncharged.ex,
      },
    );

    // The user filter, and the time filter at the clock's time: independent reads, at once; judged in turn.
    const [mineEx, sinceEx] = await atOnce(
      t,
      () => reportEx(charging.apiKey, `?userId=${encodeURIComponent(alice.userId)}`),
      async () => reportEx(charging.apiKey, `?createdAtGte=${encodeURIComponent(await t.control.clock())}`),
    );
    const mine = judged(mineEx);
    const expected = of(charged.rows, alice).map((r) => r.id);
    t.expect('OA-REP-018', mine.rows.every((r) => r.orderId === orderOf(alice)) && expected.every((id) => idsIn(mine.rows).includes(id)), {
      documented: `userId=${alice.userId}: only, and all of, the rows of that user's order ${orderOf(alice)} (bob's ${orderOf(bob)} left out)`,
      received: rowSummary(mine.rows),
      exchange: mine.ex,
    });

    const since = judged(sinceEx);
    t.note(
      `OA-REP-021: createdAtGte=now on /partners/me/executions answered ${since.ex.response.status} with ${since.rows.length} rows of ${charged.rows.length}`,
    );
  },
});

/** At most this many orders of the tenant are read one by one by the passive check. */
const PASSIVE_DETAIL_READS = 20;

export const partnerReadsHoldTheInvariants = defineCheck({
  name: 'every-order-and-execution-the-tenant-already-has-holds-the-passive-invariants',
  service: 'orders',
  rules: [
    'OA-REP-001',
    'OA-REP-002',
    'OA-REP-013',
    'OA-REP-017',
    'OA-REP-019',
    'OA-REP-020',
    'OA-EXEC-004',
    'OA-EXEC-005',
    'OA-EXEC-006',
    'OA-EXEC-007',
    'OA-EXEC-017',
    ...ORDER_READ_RULES,
  ],
  profile: 'readonly',
  async run(t: CheckContext) {
    // Reads only, with the partner key: whatever orders and executions the tenant has are judged, nothing is created.
    const [listed, executions] = await atOnce(
      t,
      () => partner(t, '/partners/me/orders'),
      () => partner(t, '/partners/me/executions'),
    );
    const rows = rowsOf(t, 'OA-REP-001', listed);
    t.expect('OA-REP-020', rows.length <= LIST_CAP, {
      documented: `at most ${LIST_CAP} order rows`,
      received: rows.length,
      exchange: listed,
    });
    const executionRows = rowsOf(t, 'OA-REP-017', executions);
    if (rows.length === 0 && executionRows.length === 0)
      t.skip('the tenant has no order and no execution yet: no invariant to judge without creating one');
    for (const row of rows) {
      expectOrderInvariants(t, row, { scope: 'partner', exchange: listed });
      expectNoTenantFields(t, row, listed);
    }
    // The details are independent reads: up to the run's check slots at once, judged in the list's order.
    const details = rows.slice(0, PASSIVE_DETAIL_READS);
    const reads = await mapAtMost(details, sweepWidth(t.env), (row) => partner(t, `/partners/me/orders/${String(row.id)}`));
    for (const [i, row] of details.entries()) {
      const one = reads[i]!;
      const d = dataOf(one);
      t.expect('OA-REP-013', is2xx(one) && d?.id === row.id, {
        documented: `2xx with the listed order ${String(row.id)}`,
        received: { status: one.response.status, body: one.response.body },
        exchange: one,
      });
      expectOrderInvariants(t, d, { scope: 'partner', exchange: one });
      expectNoTenantFields(t, d, one);
    }
    t.note(
      `judged ${rows.length} order rows, ${Math.min(rows.length, PASSIVE_DETAIL_READS)} order details and ${executionRows.length} execution rows of the tenant`,
    );
    t.expect('OA-REP-020', executionRows.length <= LIST_CAP, {
      documented: `at most ${LIST_CAP} execution rows`,
      received: executionRows.length,
      exchange: executions,
    });
    for (const row of executionRows) {
      t.expect(
        'OA-REP-017',
        FEE_FIELDS.every((k) => k in row),
        { documented: `every row carries ${FEE_FIELDS.join(', ')}`, received: feeSnapshot(row), exchange: executions },
      );
      expectFeeSnapshotWhole(t, row, executions);
    }
    expectExecutionRows(t, executionRows, executions, 'OA-REP-019');
  },
});
