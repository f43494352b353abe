import { randomUUID } from 'node:crypto';
import { dataOf, is2xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed } from '../harness/failure.ts';
import { isObject } from '../shared/values.ts';
import { expectOrderInvariants, expectRowInvariants } from './order-invariants.ts';
import {
  FIVE_MINUTES_MS,
  type Funded,
  ORDER_TYPES,
  type OrderType,
  pendingIntent,
  postConfirm,
  signedDeposit,
  TERMINAL_STATUSES,
} from './orders.ts';
import { cancelledDca } from './steps/actions.ts';
import { expectExecutionRows } from './steps/executions.ts';
import { expectError } from './steps/expect.ts';
import {
  DETAIL_PATHS,
  expectDepositRecord,
  idsIn,
  LIST_CAP,
  ordersOfEveryType,
  reader,
  recipients,
  rowsOf,
  TYPE_FIELDS,
} from './steps/reads.ts';
import { asUser, onboardedUser, unfundedWallet } from './users.ts';
import { ORDER_STATUSES, type RuleId } from '../../generators/vocabulary.ts';
import { USER_ORDER_RULES } from './steps/invariant-rules.ts';

/**
 * Orders: read (areas READ, DET; user-scoped, GET): the order lists and their filters, the pending-order lists, the five per-type
 * detail endpoints, executions and the deposit record; every order read also holds the passive order invariants
 * (order-invariants.ts). Orders come from the assumed intent templates (UNKNOWNS.md O7): DCA always; each other type
 * whose template the target rejects (400 VALIDATION_ERROR) or does not serve (404) is left out with a note.
 */

const get = (t: CheckContext, user: Funded, path: string) => asUser(t, user.sub, { path });

/** Filter values that match a status or type only inexactly: another case, a prefix (OA-READ-005, OA-READ-006). */
const INEXACT_FILTERS = [
  ['status=ACTIVE', 'OA-READ-005'],
  ['status=activ', 'OA-READ-005'],
  ['type=DCA', 'OA-READ-006'],
  ['type=dc', 'OA-READ-006'],
] as const;

/**
 * A list at its cap may leave out an order of the check (OA-READ-016 allows 500 rows, their order is not documented):
 * only the partner's shared wallet can hold that many (no `funding`), and the check skips rather than judge it.
 */
function capped(t: CheckContext, rows: readonly unknown[]): void {
  if (rows.length >= LIST_CAP && !t.control.has('funding'))
    t.skip(
      `the partner's wallet lists ${rows.length} orders, the cap: an order of the check may be beyond it; a wallet with fewer orders judges it`,
    );
}

export const userListsShowTheOrders = defineCheck({
  name: 'user-order-lists-and-their-filters-show-each-created-order-where-it-belongs',
  service: 'orders',
  rules: [
    'OA-READ-001',
    'OA-READ-003',
    'OA-READ-004',
    'OA-READ-005',
    'OA-READ-006',
    'OA-READ-007',
    'OA-READ-008',
    'OA-READ-009',
    'OA-READ-016',
    ...USER_ORDER_RULES,
  ],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await reader(t, true);
    // One order of each type, and a cancelled DCA order: the lists below then have a terminal order to keep out.
    const created = [...(await ordersOfEveryType(t, user)), await cancelledDca(t, user, { fund: true })];
    const terminalId = created[created.length - 1]!.orderId;
    const c = { scope: 'user' as const, owner: user.owner, created: recipients(created) };
    for (const o of created) expectOrderInvariants(t, o.order, { ...c, exchange: o.confirm });
    const list = async (path: string, rule: RuleId) => {
      const ex = await get(t, user, path);
      const rows = rowsOf(t, rule, ex);
      expectRowInvariants(t, rows, { ...c, exchange: ex });
      t.expect('OA-READ-016', rows.length <= LIST_CAP, { documented: `at most ${LIST_CAP} rows`, received: rows.length, exchange: ex });
      return { ex, rows };
    };

    const all = await list('/me/orders', 'OA-READ-001');
    const missing = created.filter((o) => !idsIn(all.rows).includes(o.orderId)).map((o) => o.orderId);
    if (missing.length > 0) capped(t, all.rows);
    t.expect('OA-READ-001', missing.length === 0, {
      documented: 'GET /me/orders lists every order of the user',
      received: { missing, listed: idsIn(all.rows) },
      exchange: all.ex,
    });
    const statusOf = new Map(all.rows.map((r) => [r.id, r.status]));
    if (!TERMINAL_STATUSES.includes(String(statusOf.get(terminalId))))
      throw new SetupFailed(`the cancelled order ${terminalId} reads ${String(statusOf.get(terminalId))} on GET /me/orders`, all.ex);
    for (const status of ORDER_STATUSES) {
      // Statuses move on their own (a DCA cycle runs), so only "only rows in S" is judged, not which orders are in S.
      const { ex, rows } = await list(`/me/orders?status=${status}`, 'OA-READ-003');
      t.expect(
        'OA-READ-003',
        rows.every((r) => r.status === status),
        {
          documented: `status=${status}: 2xx with only orders in ${status}`,
          received: rows.map((r) => ({ id: r.id, status: r.status })),
          exchange: ex,
        },
      );
    }
    for (const type of ORDER_TYPES) {
      const { ex, rows } = await list(`/me/orders?type=${type}`, 'OA-READ-004');
      const expected = created.filter((o) => o.order.orderType === type).map((o) => o.orderId);
      if (!expected.every((id) => idsIn(rows).includes(id))) capped(t, rows);
      t.expect('OA-READ-004', rows.every((r) => r.orderType === type) && expected.every((id) => idsIn(rows).includes(id)), {
        documented: `type=${type}: only and all of the user's ${type} orders`,
        received: { rows: rows.map((r) => ({ id: r.id, orderType: r.orderType })), expected },
        exchange: ex,
      });
    }
    // The filters match exactly: a value in another case or a prefix names no status or type (the user has a DCA
    // order, and an active one unless every order moved on).
    if (![...statusOf.values()].includes('active'))
      t.note('no order of the user is active: status=ACTIVE / activ only judged as unknown values');
    for (const [query, rule] of [['status=not-a-status', 'OA-READ-005'], ['type=not-a-type', 'OA-READ-006'], ...INEXACT_FILTERS] as const) {
      const ex = await get(t, user, `/me/orders?${query}`);
      const data = isObject(ex.response.body) ? ex.response.body.data : undefined;
      t.expect(rule, is2xx(ex) && Array.isArray(data) && data.length === 0, {
        documented: `${query}: 2xx with data [] (filters match exactly and are not validated)`,
        received: { status: ex.response.status, body: ex.response.body },
        exchange: ex,
      });
    }

    const active = await list('/me/orders/active', 'OA-READ-007');
    t.expect(
      'OA-READ-007',
      active.rows.every((r) => !TERMINAL_STATUSES.includes(String(r.status))) && !idsIn(active.rows).includes(terminalId),
      {
        documented: `no terminal order among the running ones (the cancelled order ${terminalId} among them)`,
        received: active.rows.map((r) => ({ id: r.id, status: r.status })),
        exchange: active.ex,
      },
    );
    // A slice order starts executing at once and may finish between two reads: only DCA and armed trigger orders are judged.
    const running = created
      .filter((o) => o.order.orderType !== 'slice' && !TERMINAL_STATUSES.includes(String(statusOf.get(o.orderId))))
      .map((o) => o.orderId);
    t.expect(
      'OA-READ-008',
      running.every((id) => idsIn(active.rows).includes(id)),
      {
        documented: 'every freshly confirmed, running order is listed by /me/orders/active',
        received: { running, listed: idsIn(active.rows) },
        exchange: active.ex,
      },
    );
    const history = await list('/me/orders/history', 'OA-READ-009');
    t.expect(
      'OA-READ-009',
      history.rows.every((r) => TERMINAL_STATUSES.includes(String(r.status))),
      {
        documented: `only orders in ${TERMINAL_STATUSES.join(', ')}`,
        received: history.rows.map((r) => ({ id: r.id, status: r.status })),
        exchange: history.ex,
      },
    );
  },
});

/** The orderIds of the lockedBreakdown entries of a GET /me/balance answer. */
const lockedOrderIds = (ex: Exchange) => {
  const balances = dataOf(ex)?.balances;
  return (Array.isArray(balances) ? balances.filter(isObject) : [])
    .flatMap((row) => (Array.isArray(row.lockedBreakdown) ? row.lockedBreakdown.filter(isObject) : []))
    .map((entry) => entry.orderId);
};

export const otherUsersOrdersAreInvisible = defineCheck({
  name: 'another-users-orders-and-pending-orders-are-neither-listed-nor-readable',
  service: 'orders',
  rules: ['OA-READ-002', 'OA-READ-017', 'OA-BAL-018', 'OA-DET-006', 'OA-DET-011', 'OA-ERR-006'],
  profile: 'full',
  async run(t: CheckContext) {
    const owner = await reader(t, true);
    const created = [...(await ordersOfEveryType(t, owner)), await cancelledDca(t, owner, { fund: true })];
    const orderIds = created.map((o) => o.orderId);
    // An open pending order of the owner. One left past its window needs the clock, which every check shares: another
    // user's /orders/pending/failed is judged with one by timedOutPendingOrderIsFailed, which runs alone.
    const pendingIds = [(await pendingIntent(t, owner)).pendingOrderId];
    const other = await reader(t, true, 'second');

    // What each list shows the owner (the leak below is judged on these, so none may be empty) and the other user.
    const lists: [path: string, rule: RuleId, carries: (rows: Record<string, unknown>[], id: string) => boolean, ids: string[]][] = [
      ['/me/orders', 'OA-READ-002', (rows, id) => idsIn(rows).includes(id), orderIds],
      ['/me/orders/active', 'OA-READ-002', (rows, id) => idsIn(rows).includes(id), orderIds],
      ['/me/orders/history', 'OA-READ-002', (rows, id) => idsIn(rows).includes(id), orderIds],
      ['/orders/pending', 'OA-READ-017', listsPending, pendingIds],
      ['/orders/pending/history', 'OA-READ-017', listsPending, pendingIds],
    ];
    for (const [path, rule, carries, ids] of lists) {
      const own = rowsOf(t, rule, await get(t, owner, path));
      if (!ids.some((id) => carries(own, id))) {
        throw new SetupFailed(`${path} shows the owner none of their own ${ids.join(', ')}: no order to look for in another user's list`);
      }
      const ex = await get(t, other, path);
      const leaked = ids.filter((id) => carries(rowsOf(t, rule, ex), id));
      t.expect(rule, leaked.length === 0, {
        documented: `${path} of another user of the tenant shows none of the owner's ${rule === 'OA-READ-002' ? 'orders' : 'pending orders'}`,
        received: leaked,
        exchange: ex,
      });
    }
    const ownLocks = lockedOrderIds(await get(t, owner, '/me/balance'));
    if (!orderIds.some((id) => ownLocks.includes(id)))
      throw new SetupFailed("the owner's GET /me/balance names none of their running orders in a lockedBreakdown entry");
    const balance = await get(t, other, '/me/balance');
    const leakedLocks = lockedOrderIds(balance).filter((id) => orderIds.includes(String(id)));
    t.expect('OA-BAL-018', is2xx(balance) && leakedLocks.length === 0, {
      documented: "the lockedBreakdown of another user of the tenant names none of the owner's orders",
      received: { status: balance.response.status, leakedLocks },
      exchange: balance,
    });

    for (const o of created) {
      expectError(t, 'OA-DET-006', await get(t, other, `${DETAIL_PATHS[o.order.orderType as OrderType]}/${o.orderId}`), {
        status: 404,
        codes: ['NOT_FOUND'],
        documented: `404 NOT_FOUND for another user's ${String(o.order.orderType)} order`,
      });
      expectError(t, 'OA-DET-011', await get(t, other, `/orders/${o.orderId}/deposit`), {
        status: 404,
        codes: ['NOT_FOUND'],
        documented: "404 NOT_FOUND for the deposit of another user's order",
      });
      expectError(t, 'OA-ERR-006', await get(t, other, `/orders/${o.orderId}/executions`), {
        status: 404,
        codes: ['NOT_FOUND'],
        documented: "404 NOT_FOUND for the executions of another user's order",
      });
    }
  },
});

/** The trigger orders' legacy fields (Versioning 3, OA-VER-004, OA-TRIG-022). */
const LEGACY_FIELDS = ['entryPrice', 'minProfitBps', 'scaleSteps'];

export const detailEndpointsServeTheirType = defineCheck({
  name: 'per-type-detail-answers-the-order-of-its-type-and-404-at-the-other-four',
  service: 'orders',
  rules: [
    'OA-DET-001',
    'OA-DET-002',
    'OA-DET-003',
    'OA-DET-004',
    'OA-DET-007',
    'OA-SLICE-001',
    'OA-SLICE-002',
    'OA-VER-004',
    ...USER_ORDER_RULES,
  ],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await reader(t, true);
    const created = await ordersOfEveryType(t, user);
    const c = { scope: 'user' as const, owner: user.owner, created: recipients(created) };
    const detailRule: Record<OrderType, RuleId> = {
      dca: 'OA-DET-001',
      stop_loss: 'OA-DET-002',
      take_profit: 'OA-DET-003',
      oco: 'OA-DET-004',
      slice: 'OA-SLICE-001',
    };
    for (const o of created) {
      const type = o.order.orderType as OrderType;
      const rule = detailRule[type];
      const ex = await get(t, user, `${DETAIL_PATHS[type]}/${o.orderId}`);
      const data = dataOf(ex);
      const order = type === 'slice' ? data?.order : data;
      t.expect(rule, is2xx(ex) && isObject(order), {
        documented: `2xx with the ${type} order${type === 'slice' ? ' under data.order' : ''}`,
        received: { status: ex.response.status, body: ex.response.body },
        exchange: ex,
      });
      const missing = TYPE_FIELDS[type].filter((k) => !(k in order));
      t.expect(
        rule,
        order.id === o.orderId &&
          order.orderType === type &&
          missing.length === 0 &&
          (type !== 'take_profit' || typeof order.trailingActivated === 'boolean'),
        {
          documented: `the order ${o.orderId} of type ${type} with ${TYPE_FIELDS[type].join(', ') || 'the base fields'}${type === 'take_profit' ? ' (trailingActivated a boolean)' : ''}`,
          received: { id: order.id, orderType: order.orderType, missing, trailingActivated: order.trailingActivated },
          exchange: ex,
        },
      );
      expectOrderInvariants(t, order, { ...c, exchange: ex });
      // Versioning 3: the legacy fields "appear only on older orders"; on one the suite just created it is recorded.
      const legacy = LEGACY_FIELDS.filter((k) => k in order);
      if (legacy.length > 0)
        t.note(
          `OA-VER-004: the ${type} order ${o.orderId} the suite created carries ${legacy.map((k) => `${k}=${JSON.stringify(order[k])}`).join(', ')}`,
        );
      if (type === 'slice')
        t.expect('OA-SLICE-002', Array.isArray(data?.chunks), {
          documented: 'data.chunks is an array',
          received: data?.chunks,
          exchange: ex,
        });
      for (const other of ORDER_TYPES.filter((x) => x !== type)) {
        expectError(t, 'OA-DET-007', await get(t, user, `${DETAIL_PATHS[other]}/${o.orderId}`), {
          status: 404,
          codes: ['NOT_FOUND'],
          documented: `404 NOT_FOUND for the ${type} order at ${DETAIL_PATHS[other]}`,
        });
      }
    }
  },
});

export const unknownOrderIdsAreNotFound = defineCheck({
  name: 'unknown-order-id-is-404-not-found-at-every-order-read',
  service: 'orders',
  rules: ['OA-DET-005', 'OA-DET-010', 'OA-ERR-005', 'OA-DET-008'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await reader(t, false);
    const unknown = randomUUID();
    for (const path of Object.values(DETAIL_PATHS))
      expectError(t, 'OA-DET-005', await get(t, user, `${path}/${unknown}`), {
        status: 404,
        codes: ['NOT_FOUND'],
        documented: `404 NOT_FOUND for ${path} of an unknown id`,
      });
    expectError(t, 'OA-DET-010', await get(t, user, `/orders/${unknown}/deposit`), {
      status: 404,
      codes: ['NOT_FOUND'],
      documented: '404 NOT_FOUND for the deposit of an unknown order',
    });
    expectError(t, 'OA-ERR-005', await get(t, user, `/orders/${unknown}/executions`), {
      status: 404,
      codes: ['NOT_FOUND'],
      documented: '404 NOT_FOUND for the executions of an unknown order',
    });
    for (const path of ['/dca/not-a-uuid', '/orders/not-a-uuid/deposit']) {
      const ex = await get(t, user, path);
      t.expect('OA-DET-008', ex.response.status === 400 || ex.response.status === 404, {
        documented: 'a non-UUID order id answers 400 or 404',
        received: ex.response.status,
        exchange: ex,
      });
    }
  },
});

export const depositRecordOfAnOrder = defineCheck({
  name: 'deposit-record-of-every-order-type-is-txsignature-and-submittedat',
  service: 'orders',
  rules: ['OA-DET-009'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await reader(t, true);
    for (const o of await ordersOfEveryType(t, user)) {
      expectDepositRecord(t, 'OA-DET-009', await get(t, user, `/orders/${o.orderId}/deposit`), o);
    }
  },
});

export const orderExecutionsList = defineCheck({
  name: 'order-executions-are-rows-of-that-order-most-recent-first',
  service: 'orders',
  rules: ['OA-EXEC-001', 'OA-EXEC-002', 'OA-EXEC-003', 'OA-EXEC-004', 'OA-EXEC-005', 'OA-EXEC-006', 'OA-EXEC-007'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await reader(t, true);
    for (const o of await ordersOfEveryType(t, user)) {
      const ex = await get(t, user, `/orders/${o.orderId}/executions`);
      const rows = rowsOf(t, 'OA-EXEC-001', ex);
      t.expect(
        'OA-EXEC-001',
        rows.every((r) => r.orderId === o.orderId),
        { documented: `every row's orderId is ${o.orderId}`, received: rows.map((r) => r.orderId), exchange: ex },
      );
      t.expect('OA-EXEC-002', rows.length <= LIST_CAP, { documented: `at most ${LIST_CAP} rows`, received: rows.length, exchange: ex });
      if (rows.length === 0)
        t.note(`the ${String(o.order.orderType)} order has no execution row yet: the row facts (OA-EXEC-003..007) were not judged on it`);
      expectExecutionRows(t, rows, ex);
    }
  },
});

/** Does a pending-order row carry `id` in some field (row fields not shown, UNKNOWNS.md O4)? */
const rowCarries = (row: Record<string, unknown>, id: string) => Object.values(row).includes(id);
const listsPending = (rows: readonly Record<string, unknown>[], id: string) => rows.some((r) => rowCarries(r, id));

export const pendingListsFollowTheIntent = defineCheck({
  name: 'pending-order-lists-show-an-intent-until-it-is-confirmed-latest-first',
  service: 'orders',
  rules: ['OA-READ-011', 'OA-READ-012', 'OA-READ-014'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await reader(t, true);
    await pendingIntent(t, user);
    const intent = await pendingIntent(t, user);
    const id = intent.pendingOrderId;
    const before = await get(t, user, '/orders/pending');
    t.expect('OA-READ-011', listsPending(rowsOf(t, 'OA-READ-011', before), id), {
      documented: `a row of /orders/pending carries ${id}`,
      received: before.response.body,
      exchange: before,
    });
    const history = await get(t, user, '/orders/pending/history');
    const first = rowsOf(t, 'OA-READ-014', history)[0];
    t.expect('OA-READ-014', first !== undefined && rowCarries(first, id), {
      documented: `the first row of /orders/pending/history is the latest intent ${id}`,
      received: history.response.body,
      exchange: history,
    });
    const confirm = await postConfirm(t, user.sub, { pendingOrderId: id, signedTransaction: signedDeposit(intent, user) });
    if (!is2xx(confirm)) throw new SetupFailed(`POST /orders/confirm answered ${confirm.response.status}`, confirm);
    const after = await get(t, user, '/orders/pending');
    t.expect('OA-READ-012', !listsPending(rowsOf(t, 'OA-READ-012', after), id), {
      documented: `${id} is no longer listed once confirmed`,
      received: after.response.body,
      exchange: after,
    });
  },
});

export const timedOutPendingOrderIsFailed = defineCheck({
  name: 'pending-order-left-past-its-window-is-listed-as-failed',
  service: 'orders',
  rules: ['OA-READ-013', 'OA-READ-017'],
  profile: 'full',
  needs: ['clock'],
  async run(t: CheckContext) {
    const user = await reader(t, false);
    const { pendingOrderId } = await pendingIntent(t, user);
    await t.control.advanceClock(FIVE_MINUTES_MS / 1000 + 5);
    const ex = await get(t, user, '/orders/pending/failed');
    t.expect('OA-READ-013', listsPending(rowsOf(t, 'OA-READ-013', ex), pendingOrderId), {
      documented: `${pendingOrderId}, unconfirmed past its 5-minute window, is listed by /orders/pending/failed`,
      received: ex.response.body,
      exchange: ex,
    });
    // Another user of the tenant never sees it (the other lists: otherUsersOrdersAreInvisible).
    const other = await onboardedUser(t, unfundedWallet());
    const theirs = await asUser(t, other.sub, { path: '/orders/pending/failed' });
    t.expect('OA-READ-017', !listsPending(rowsOf(t, 'OA-READ-017', theirs), pendingOrderId), {
      documented: `/orders/pending/failed of another user of the tenant does not list ${pendingOrderId}, the owner's timed-out pending order`,
      received: theirs.response.body,
      exchange: theirs,
    });
  },
});

const PENDING_HISTORY_CAP = 50;

export const pendingHistoryIsCapped = defineCheck({
  name: 'pending-order-history-returns-at-most-50-rows',
  service: 'orders',
  rules: ['OA-READ-015'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await reader(t, false);
    for (let i = 0; i <= PENDING_HISTORY_CAP; i++) await pendingIntent(t, user);
    const ex = await get(t, user, '/orders/pending/history');
    const rows = rowsOf(t, 'OA-READ-015', ex);
    t.expect('OA-READ-015', rows.length <= PENDING_HISTORY_CAP, {
      documented: `at most ${PENDING_HISTORY_CAP} rows after ${PENDING_HISTORY_CAP + 1} intents`,
      received: rows.length,
      exchange: ex,
    });
  },
});
