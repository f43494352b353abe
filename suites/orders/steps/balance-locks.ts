import { dataOf, errorCode, is2xx } from '../../harness/answers.ts';
import type { CheckContext } from '../../harness/check.ts';
import type { Exchange } from '../../harness/exchange.ts';
import { isObject } from '../../shared/values.ts';
import { createOrder, INT, intentRequest, intentUser, type Created, type Funded, type OrderType } from '../orders.ts';
import { asUser } from '../users.ts';
import { userSlice } from './reads.ts';
import type { RuleId } from '../../../generators/vocabulary.ts';

/**
 * GET /me/balance as the balance checks read it (area BAL: User session and balances; Balance row): the rows, an
 * active order of each type for a fresh funded user, and the lock it holds on its input mint.
 */

export const BUCKETS = ['totalBalance', 'lockedForFutureTxns', 'withdrawalPending', 'availableToWithdraw'] as const;

export type Row = Record<string, unknown>;

export async function getBalance(t: CheckContext, sub: string, hideZero?: boolean): Promise<Exchange> {
  return await asUser(t, sub, { path: '/me/balance', query: hideZero === undefined ? undefined : { hideZero } });
}

export function rowsOf(t: CheckContext, ex: Exchange): Row[] {
  const d = dataOf(ex);
  t.expect('OA-BAL-001', is2xx(ex) && typeof d?.walletAddress === 'string' && Array.isArray(d.balances), {
    documented: '2xx with data {walletAddress: string, balances: array}',
    received: { status: ex.response.status, body: ex.response.body },
    exchange: ex,
  });
  return (d.balances as unknown[]).filter(isObject);
}

/**
 * What an active order of each type locks on its input mint (Balance row: lockedForFutureTxns), and the rule saying
 * so: its input (DCA totalAmount, trigger orders amount; a slice's fields are not shown, UNKNOWNS O2, so its input is
 * the intent's documented inputAmount) less the base Order field amountSpent.
 */
export const LOCKS: Record<string, { rule: RuleId; input: (order: Row, created: Created) => unknown; what: string }> = {
  dca: { rule: 'OA-BAL-008', input: (order) => order.totalAmount, what: 'totalAmount - amountSpent' },
  stop_loss: { rule: 'OA-BAL-009', input: (order) => order.amount, what: 'the full unspent amount (amount - amountSpent)' },
  take_profit: { rule: 'OA-BAL-009', input: (order) => order.amount, what: 'the full unspent amount (amount - amountSpent)' },
  oco: { rule: 'OA-BAL-009', input: (order) => order.amount, what: 'the full unspent amount (amount - amountSpent)' },
  slice: {
    rule: 'OA-BAL-010',
    input: (_order, created) => created.intent.data.inputAmount,
    what: "its unspent input (the intent's inputAmount - amountSpent)",
  },
};

/**
 * Judges the lock of the user's one active (or running) order on its input mint: an entry for the order, and
 * lockedForFutureTxns equal to its unspent input when the fields needed are integer strings (a slice without
 * amountSpent: only the entry, UNKNOWNS O2). On the partner's shared wallet (no `funding`) the order is not the only
 * lock on its input mint: the order's own entry must carry that amount instead. Returns the row, the entry and the
 * unspent input it judged.
 */
export function expectUnspentInputLocked(
  t: CheckContext,
  ex: Exchange,
  rows: Row[],
  order: Row,
  created: Created,
): { input?: Row; lock?: Row; unspent?: bigint } {
  const type = String(order.orderType);
  const { rule, input: inputOf, what } = LOCKS[type]!;
  const input = rows.find((row) => row.mint === order.inputMint);
  const lock = lockEntriesOf(input, created.orderId)[0];
  const [base, spent] = [inputOf(order, created), order.amountSpent];
  if (type === 'slice' && !(typeof base === 'string' && INT.test(base) && typeof spent === 'string' && INT.test(spent))) {
    t.note(
      `the slice order reads back no integer-string amountSpent (${JSON.stringify(spent)}): only its lock entry is judged (UNKNOWNS O2)`,
    );
    t.expect(rule, lock !== undefined, {
      documented: `the running slice order has a lockedBreakdown entry on its input mint`,
      received: input ?? '(no row for its input mint)',
      exchange: ex,
    });
    return { input, lock };
  }
  const unspent = BigInt(String(base)) - BigInt(String(spent));
  const whole = t.control.has('funding');
  t.expect(rule, lock !== undefined && (whole ? input?.lockedForFutureTxns : lock.amount) === unspent.toString(), {
    documented: whole
      ? `while the ${String(order.status)} ${type} order is the only lock on ${String(order.inputMint)}, lockedForFutureTxns is ${what} = ${String(base)} - ${String(spent)} = ${unspent}, with an entry for the order`
      : `the ${String(order.status)} ${type} order's lockedBreakdown entry on ${String(order.inputMint)} locks ${what} = ${String(base)} - ${String(spent)} = ${unspent} (the partner's wallet holds other orders' locks there too)`,
    received: input ?? '(no row for its input mint)',
    exchange: ex,
  });
  return { input, lock, unspent };
}

/** The lockedBreakdown entries of a row that name `orderId`. */
export function lockEntriesOf(row: Row | undefined, orderId: string): Row[] {
  return (Array.isArray(row?.lockedBreakdown) ? row.lockedBreakdown : []).filter((e) => isObject(e) && e.orderId === orderId) as Row[];
}

export const DETAIL_PATHS: Record<string, string> = {
  dca: '/dca',
  stop_loss: '/stop-loss',
  take_profit: '/take-profit',
  oco: '/oco',
  slice: '/slice',
};

/** The order as its detail endpoint shows it now (slice: data.order), or as confirm returned it when that is not served. */
export async function currentOrder(t: CheckContext, sub: string, created: Created): Promise<Row> {
  const type = String(created.order.orderType);
  const ex = await t.orders.request({
    path: `${DETAIL_PATHS[type]}/${created.orderId}`,
    headers: { 'X-Service-User': sub },
    validate: false,
    retry: false,
  });
  const d = dataOf(ex);
  const order = type === 'slice' ? d?.order : d;
  return is2xx(ex) && isObject(order) ? order : created.order;
}

/**
 * An active order of `type` for a fresh funded user (or `user`); undefined when the target does not create the type
 * (404) or rejects its assumed template (400 VALIDATION_ERROR). Without `funding` the user is the partner's wallet,
 * whose slice order is the run's one (reads.ts userSlice: a user runs one slice at a time).
 */
export async function activeOrderOf(
  t: CheckContext,
  type: OrderType,
  user?: Funded,
): Promise<{ user: Funded; created: Created } | undefined> {
  user ??= await intentUser(t, true);
  const request = intentRequest(type);
  const probe = await t.orders.request({
    method: 'POST',
    path: '/orders/intent',
    json: request,
    headers: { 'X-Service-User': user.sub },
    validate: false,
    retry: false,
  });
  const code = errorCode(probe);
  if ((probe.response.status === 404 && code === 'NOT_FOUND') || (probe.response.status === 400 && code === 'VALIDATION_ERROR')) {
    t.note(
      `${type}: POST /orders/intent answered ${probe.response.status} ${String(code)} to the assumed template (UNKNOWNS O7): its locks are not judged`,
    );
    return undefined;
  }
  if (type === 'slice' && !t.control.has('funding')) {
    const created = await userSlice(t, user);
    return created && { user, created };
  }
  return { user, created: await createOrder(t, user, request) };
}

/** The user's order as GET /me/orders lists it (base Order fields, amountSpent among them), else as `fallback`. */
export async function listedOrder(t: CheckContext, sub: string, orderId: string, fallback: Row): Promise<Row> {
  const ex = await t.orders.request({ path: '/me/orders', headers: { 'X-Service-User': sub }, validate: false, retry: false });
  const data = (ex.response.body as { data?: unknown } | undefined)?.data;
  const row = Array.isArray(data) ? data.find((r) => isObject(r) && r.id === orderId) : undefined;
  return is2xx(ex) && isObject(row) ? row : fallback;
}
