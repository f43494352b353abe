import { errorCode, is2xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { RequestSpec } from '../harness/client.ts';
import { isObject } from '../shared/values.ts';
import { createOrder, dcaRequest, ORDER_TYPES } from './orders.ts';
import { expectError } from './steps/expect.ts';
import { ownTenantCheck } from './steps/own-tenant.ts';
import { createIfAccepted, idsIn, reader, rowsOf } from './steps/reads.ts';
import { servedRequest } from './users.ts';
import type { RuleId } from '../../generators/vocabulary.ts';

/**
 * The filters of GET /partners/me/orders (area REP: Partner reporting): status (comma-separated; the statuses that
 * cannot be filtered), orderType, userId and the createdAt bounds, and an invalid timestamp refused.
 */

const partner = (t: CheckContext, path: string, headers: RequestSpec['headers'] = {}) => servedRequest(t, { path, headers });
const FILTERABLE = ['active', 'paused', 'completed', 'failed', 'cancelled'];
const UNFILTERABLE = ['expired', 'executing', 'pending', 'pending_modification'];

export const partnerOrderFilters = ownTenantCheck({
  name: 'partner-orders-filters-status-ordertype-userid-and-created-range-narrow-the-rows',
  service: 'orders',
  rules: ['OA-REP-006', 'OA-REP-007', 'OA-REP-008', 'OA-REP-009', 'OA-REP-010', 'OA-REP-011', 'OA-REP-023'],
  profile: 'full',
  async run(t: CheckContext) {
    const alice = await reader(t, true);
    const a = await createOrder(t, alice, dcaRequest());
    const query = async (rule: RuleId, q: string) => {
      const ex = await partner(t, `/partners/me/orders?${q}`);
      return { ex, rows: rowsOf(t, rule, ex) };
    };
    const user = `userId=${encodeURIComponent(alice.owner.userId)}`;
    const lists = (rows: Record<string, unknown>[]) => idsIn(rows).includes(a.orderId);
    /** `field=value` of the user's orders lists only rows whose `field` is `value`. */
    const onlyRowsOf = async (rule: RuleId, field: 'orderType' | 'status', value: string) => {
      const only = await query(rule, `${field}=${value}&${user}`);
      t.expect(
        rule,
        only.rows.every((row) => row[field] === value),
        {
          documented: `${field}=${value}: only ${value} rows`,
          received: only.rows.map((row) => ({ id: row.id, [field]: row[field] })),
          exchange: only.ex,
        },
      );
    };

    let r = await query('OA-REP-010', user);
    t.expect('OA-REP-010', r.rows.every((row) => row.userId === alice.owner.userId) && lists(r.rows), {
      documented: `${user}: only and all of that user's orders (${a.orderId})`,
      received: r.rows.map((row) => ({ id: row.id, userId: row.userId })),
      exchange: r.ex,
    });
    r = await query('OA-REP-009', `orderType=dca&${user}`);
    t.expect('OA-REP-009', r.rows.every((row) => row.orderType === 'dca') && lists(r.rows), {
      documented: `orderType=dca: only dca rows, ${a.orderId} among them`,
      received: r.rows.map((row) => ({ id: row.id, orderType: row.orderType })),
      exchange: r.ex,
    });
    for (const other of ORDER_TYPES.filter((x) => x !== 'dca')) await onlyRowsOf('OA-REP-009', 'orderType', other);
    r = await query('OA-REP-006', `status=active,paused&${user}`);
    const aStatus = String(a.order.status);
    t.expect(
      'OA-REP-006',
      r.rows.every((row) => row.status === 'active' || row.status === 'paused') &&
        (!['active', 'paused'].includes(aStatus) || lists(r.rows)),
      {
        documented: `status=active,paused: only active or paused rows${['active', 'paused'].includes(aStatus) ? `, the ${aStatus} order ${a.orderId} among them` : ''}`,
        received: r.rows.map((row) => ({ id: row.id, status: row.status })),
        exchange: r.ex,
      },
    );
    for (const status of FILTERABLE) await onlyRowsOf('OA-REP-006', 'status', status);

    // Timestamps may carry more precision than they show: bounds one millisecond either side of createdAt.
    const at = (ms: number) => encodeURIComponent(new Date(Date.parse(String(a.order.createdAt)) + ms).toISOString());
    for (const [q, listed] of [
      [`createdAtGte=${at(-1)}`, true],
      [`createdAtGte=${at(1)}`, false],
      [`createdAtLte=${at(1)}`, true],
      [`createdAtLte=${at(-1)}`, false],
      // The bound at createdAt exactly, as shown: inclusive (a shown timestamp is never later than the stored one).
      [`createdAtGte=${encodeURIComponent(String(a.order.createdAt))}`, true],
    ] as const) {
      r = await query('OA-REP-011', `${q}&${user}`);
      t.expect('OA-REP-011', lists(r.rows) === listed, {
        documented: `${decodeURIComponent(q)}: the order created at ${String(a.order.createdAt)} is ${listed ? '' : 'not '}listed`,
        received: idsIn(r.rows),
        exchange: r.ex,
      });
    }

    // OA-REP-023: createdAtLte at createdAt exactly, recorded (hidden precision excludes it rightly).
    r = await query('OA-REP-011', `createdAtLte=${encodeURIComponent(String(a.order.createdAt))}&${user}`);
    t.note(`OA-REP-023: createdAtLte=${String(a.order.createdAt)} (the order's createdAt) ${lists(r.rows) ? 'lists' : 'does not list'} it`);

    // A DCA order waiting for a future startAt is pending (assumed template field, UNKNOWNS.md O7).
    const pending = await createIfAccepted(t, alice, 'dca', {
      startAt: new Date(Date.parse(String(a.order.createdAt)) + 86_400_000).toISOString(),
    });
    if (pending?.order.status === 'pending') {
      r = await query('OA-REP-008', user);
      t.expect('OA-REP-008', lists(r.rows) && idsIn(r.rows).includes(pending.orderId), {
        documented: `without a status filter the pending order ${pending.orderId} and the ${aStatus} order are listed`,
        received: r.rows.map((row) => ({ id: row.id, status: row.status })),
        exchange: r.ex,
      });
    } else {
      t.note(
        `no pending DCA order (future startAt) could be created: OA-REP-008 not judged (${pending ? `status ${String(pending.order.status)}` : 'template rejected'})`,
      );
    }

    for (const status of UNFILTERABLE) {
      const ex = await partner(t, `/partners/me/orders?status=${status}&${user}`);
      const body = ex.response.body;
      t.expect(
        'OA-REP-007',
        (ex.response.status === 400 && errorCode(ex) === 'VALIDATION_ERROR') || (is2xx(ex) && isObject(body) && Array.isArray(body.data)),
        {
          documented: `status=${status} (not filterable): 400 VALIDATION_ERROR or 2xx`,
          received: { status: ex.response.status, code: errorCode(ex) },
          exchange: ex,
        },
      );
    }
  },
});

export const partnerRejectsInvalidTimestamps = defineCheck({
  name: 'partner-orders-reject-an-invalid-created-at-timestamp-with-400-validation-error',
  service: 'orders',
  rules: ['OA-REP-012'],
  profile: 'readonly',
  async run(t: CheckContext) {
    for (const q of ['createdAtGte=not-a-timestamp', 'createdAtLte=2024-13-45T99:00:00Z']) {
      const ex = await partner(t, `/partners/me/orders?${q}`);
      expectError(t, 'OA-REP-012', ex, { status: 400, codes: ['VALIDATION_ERROR'], documented: `${q}: 400 VALIDATION_ERROR` });
    }
  },
});

export const partnerStatusFiltersKeepToTheirStatus = ownTenantCheck({
  name: 'partner-orders-status-filters-never-list-rows-of-another-status-unfilterable-ones-included',
  service: 'orders',
  rules: ['OA-REP-022'],
  profile: 'full',
  async run(t: CheckContext) {
    const alice = await reader(t, true);
    const active = await createOrder(t, alice, dcaRequest());
    // A DCA order waiting for a future startAt is pending (assumed template field, UNKNOWNS.md O7).
    const waiting = await createIfAccepted(t, alice, 'dca', {
      startAt: new Date(Date.parse(String(active.order.createdAt)) + 86_400_000).toISOString(),
    });
    const pending = waiting?.order.status === 'pending' ? waiting.orderId : undefined;
    if (!pending) t.note('no pending DCA order (future startAt) could be created: status=active is judged without a pending row to leak');
    const user = `userId=${encodeURIComponent(alice.owner.userId)}`;
    for (const status of UNFILTERABLE) {
      const ex = await partner(t, `/partners/me/orders?status=${status}&${user}`);
      if (ex.response.status === 400 && errorCode(ex) === 'VALIDATION_ERROR') continue;
      const rows = rowsOf(t, 'OA-REP-022', ex);
      t.expect(
        'OA-REP-022',
        rows.every((row) => row.status === status),
        {
          documented: `status=${status} (cannot be filtered) answers 400 VALIDATION_ERROR or only ${status} rows, never the ${String(active.order.status)} order ${active.orderId}`,
          received: rows.map((row) => ({ id: row.id, status: row.status })),
          exchange: ex,
        },
      );
    }
    const ex = await partner(t, `/partners/me/orders?status=active&${user}`);
    const rows = rowsOf(t, 'OA-REP-022', ex);
    t.expect('OA-REP-022', rows.every((row) => row.status === 'active') && (!pending || !idsIn(rows).includes(pending)), {
      documented: `status=active lists only active rows${pending ? `, not the pending order ${pending}` : ''}`,
      received: rows.map((row) => ({ id: row.id, status: row.status })),
      exchange: ex,
    });
  },
});
