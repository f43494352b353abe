import { Keypair } from '@solana/web3.js';
import { findOperation } from '../../../generators/index.ts';
import type { CheckContext } from '../../harness/check.ts';
import type { Exchange } from '../../harness/exchange.ts';
import { isObject } from '../../shared/values.ts';
import { createOrder, fundUser, intentRequest, intentUser, NATIVE_MINT, postConfirm, postIntent, signed, TERMINAL_STATUSES, type Funded, type IntentRequest, type OrderType } from '../orders.ts';
import { dataOf, errorCode, is2xx, rateLimited, validateAgainstSpec } from '../users.ts';

/**
 * The model of the model-based tests (STYLE.md 8): deliberately simpler than the service. Per order it remembers
 * what the last read showed (status, the cumulative counters, withdrawalStatus) and what the last accepted move
 * promised; after every command every order is read again and the read is judged against the model:
 * - OA-STATE-002: a terminal status never changes (failed -> active only after a retry answered 2xx);
 * - OA-STATE-013: amountSpent, amountReceived and cyclesCompleted never decrease;
 * - OA-STATE-015: a completed withdrawal (order-level or the automatic return) stays completed;
 * - OA-STATE-014: a move answered 2xx is followed by that move's state (pause -> paused, resume -> active,
 *   retry -> active, cancel -> cancelled), or executing showing it as previousStatus, or after resume and retry a
 *   state an active order reaches by itself;
 * - OA-BAL-007: every balance row keeps availableToWithdraw = max(total - locked - withdrawalPending, 0).
 * Every answer is validated against the spec (its status and error code are ones the document gives the operation).
 * An operation that answers 404 NOT_FOUND is not served by this target: its commands stop applying, never fail.
 */

export type Family = 'dca' | 'trigger' | 'slice';
export type Move = 'pause' | 'resume' | 'retry' | 'cancel';

export interface OrderModel {
  readonly id: string;
  readonly type: OrderType;
  status: string;
  amountSpent?: bigint;
  amountReceived?: bigint;
  cyclesCompleted?: number;
  withdrawalStatus: string;
  /** The last move answered as accepted since the previous read: the next read must show its state. */
  promised?: Move;
}

export interface Model {
  readonly family: Family;
  readonly orders: OrderModel[];
  /** Operations (`METHOD /path/{template}`) answered 404 NOT_FOUND: not served, their commands no longer apply. */
  readonly unserved: Set<string>;
  /** The control capabilities the target offers (commands needing one apply only with it). */
  readonly can: { readonly clock: boolean; readonly prices: boolean; readonly faults: boolean };
}

export interface Real {
  readonly t: CheckContext;
  readonly user: Funded;
  /** The output mint of the run's orders: a mint of its own when the target prices mints, so moving it disturbs nobody. */
  readonly outputMint: string;
}

/** At most this many orders per sequence (the setup's one included). */
export const MAX_ORDERS = 3;
const DETAIL: Record<OrderType, string> = { dca: '/dca', stop_loss: '/stop-loss', take_profit: '/take-profit', oco: '/oco', slice: '/slice' };
const MOVED_TO: Record<Move, string> = { pause: 'paused', resume: 'active', retry: 'active', cancel: 'cancelled' };
/** States an active order reaches by itself (a cycle, a fill, a failed swap, expiry). */
const BY_ITSELF = ['completed', 'failed', 'expired'];
const INT = /^(0|[1-9][0-9]*)$/;

/** The DCA orders run a cycle every 10 minutes: a clock move of half an hour completes their three cycles. */
export const DCA_FREQUENCY = 600;
/**
 * Trigger prices scaled by 6 decimals (output per input, whole tokens). With USDC in and the run's own mint out at
 * 1 USD the pair is 1.0: the stop at 0.5 fires once the mint is worth 2 USD, the take-profit at 2.0 once it is worth
 * 0.5 USD; MovePrice crosses either. Into the native asset (a target without prices) the templates' defaults stand:
 * triggers no market reaches.
 */
const OWN_MINT_CONFIG: Record<OrderType, Record<string, unknown>> = {
  dca: { cycleFrequencySeconds: DCA_FREQUENCY },
  stop_loss: { triggerPrice: '500000', priceDecimals: 6 },
  take_profit: { triggerPrice: '2000000', priceDecimals: 6 },
  oco: { stopLossPrice: '500000', takeProfitPrice: '2000000', priceDecimals: 6 },
  slice: {},
};

function requestFor(type: OrderType, outputMint: string): IntentRequest {
  const config = outputMint === NATIVE_MINT ? { cycleFrequencySeconds: type === 'dca' ? DCA_FREQUENCY : undefined } : OWN_MINT_CONFIG[type];
  return intentRequest(type, { outputMint, config });
}

export const served = (m: Readonly<Model>, operation: string) => !m.unserved.has(operation);
export const orderAt = (m: Readonly<Model>, index: number) => m.orders[index % m.orders.length] as OrderModel;

/** A user-scoped call of the run's user; undefined when the operation is not served (404 NOT_FOUND). */
export async function call(m: Model, r: Real, method: string, path: string, json?: unknown): Promise<Exchange | undefined> {
  const op = findOperation('orders', method, path);
  if (!op) throw new Error(`${method} ${path} is no operation of the orders spec`);
  const ex = await r.t.orders.request({ method, path, json, headers: { 'X-Service-User': r.user.sub }, retry: false, validate: false, operationId: op.operationId });
  rateLimited(ex);
  if (ex.response.status === 404 && errorCode(ex) === 'NOT_FOUND') {
    m.unserved.add(`${method} ${op.path}`);
    return undefined;
  }
  validateAgainstSpec(r.t, op.operationId, ex);
  return ex;
}

/** Records that `move` was answered as accepted for `order` (the next read judges it, OA-STATE-014). */
export function accepted(order: OrderModel, move: Move, ex: Exchange | undefined): void {
  if (!ex) return;
  const buildFailed = move === 'cancel' && ex.response.status === 500 && errorCode(ex) === 'WITHDRAWAL_BUILD_FAILED';
  if (is2xx(ex) || buildFailed) order.promised = move;
}

/** The run's user (funded), its output mint, and a first order of the family. */
export async function setup(t: CheckContext, family: Family): Promise<{ model: Model; real: Real }> {
  const can = { clock: t.control.has('clock'), prices: t.control.has('prices'), faults: t.control.has('faults') };
  const user = await intentUser(t, false);
  await fundUser(t, user.userPubkey, '500000000');
  let outputMint = NATIVE_MINT;
  if (can.prices) {
    outputMint = Keypair.generate().publicKey.toBase58();
    await t.control.fund(user.userPubkey, outputMint, '1');
    await t.control.setPrice(outputMint, '1');
  }
  const model: Model = { family, orders: [], unserved: new Set(), can };
  const real: Real = { t, user, outputMint };
  const first = family === 'trigger' ? 'stop_loss' : family;
  const created = await createOrder(t, user, requestFor(first, outputMint));
  model.orders.push(modelOf(first, created.order));
  return { model, real };
}

/** Intent -> sign -> confirm as a command: an order the target does not create (a lost slice race) is not added. */
export async function addOrder(m: Model, r: Real, type: OrderType): Promise<void> {
  const intent = await postIntent(r.t, r.user.sub, requestFor(type, r.outputMint));
  const data = dataOf(intent);
  if (!is2xx(intent) || typeof data?.transaction !== 'string') return;
  const confirm = await postConfirm(r.t, r.user.sub, { pendingOrderId: data.pendingOrderId, signedTransaction: signed(data.transaction, r.user.keypair) });
  const order = dataOf(confirm)?.order;
  if (is2xx(confirm) && isObject(order) && typeof order.id === 'string') m.orders.push(modelOf(type, order));
}

function modelOf(type: OrderType, order: Record<string, unknown>): OrderModel {
  const o: OrderModel = { id: String(order.id), type, status: String(order.status), withdrawalStatus: String(order.withdrawalStatus) };
  remember(o, order);
  return o;
}

function remember(o: OrderModel, order: Record<string, unknown>): void {
  o.status = String(order.status);
  o.withdrawalStatus = String(order.withdrawalStatus);
  o.amountSpent = amount(order.amountSpent) ?? o.amountSpent;
  o.amountReceived = amount(order.amountReceived) ?? o.amountReceived;
  o.cyclesCompleted = typeof order.cyclesCompleted === 'number' ? order.cyclesCompleted : o.cyclesCompleted;
  o.promised = undefined;
}

const amount = (value: unknown) => (typeof value === 'string' && INT.test(value) ? BigInt(value) : undefined);

/** The read after every step: each order's detail judged against the model, then the balance rows. */
export async function observe(m: Model, r: Real): Promise<void> {
  for (const o of m.orders) {
    const ex = await call(m, r, 'GET', `${DETAIL[o.type]}/${o.id}`);
    const data = ex && is2xx(ex) ? dataOf(ex) : undefined;
    const order = o.type === 'slice' ? data?.order : data;
    if (!ex || !isObject(order)) continue;
    judge(r.t, o, order, ex);
    remember(o, order);
  }
  await judgeBalances(m, r);
}

function judge(t: CheckContext, o: OrderModel, order: Record<string, unknown>, ex: Exchange): void {
  const status = String(order.status);
  const seen = { status, previousStatus: order.previousStatus, before: o.status, promised: o.promised ?? null };
  if (TERMINAL_STATUSES.includes(o.status) && !(o.status === 'failed' && o.promised === 'retry')) {
    t.expect('OA-STATE-002', status === o.status, {
      documented: `order ${o.id} was ${o.status}, a terminal status, and never changes status again`, received: seen, exchange: ex,
    });
  }
  if (o.withdrawalStatus === 'completed') {
    t.expect('OA-STATE-015', order.withdrawalStatus === 'completed', {
      documented: `order ${o.id} had withdrawalStatus completed, which stays completed`, received: { withdrawalStatus: order.withdrawalStatus }, exchange: ex,
    });
  }
  if (o.promised) {
    const to = MOVED_TO[o.promised];
    const reached = status === to || (status === 'executing' && order.previousStatus === to) ||
      ((o.promised === 'resume' || o.promised === 'retry') && BY_ITSELF.includes(status));
    t.expect('OA-STATE-014', reached, {
      documented: `after ${o.promised} was accepted the order reads ${to} (or executing with previousStatus ${to})`, received: seen, exchange: ex,
    });
  }
  const counters: Array<[string, bigint | number | undefined, bigint | number | undefined]> = [
    ['amountSpent', o.amountSpent, amount(order.amountSpent)],
    ['amountReceived', o.amountReceived, amount(order.amountReceived)],
    ['cyclesCompleted', o.cyclesCompleted, typeof order.cyclesCompleted === 'number' ? order.cyclesCompleted : undefined],
  ];
  for (const [name, before, now] of counters) {
    if (before === undefined || now === undefined) continue;
    t.expect('OA-STATE-013', now >= before, {
      documented: `${name} of order ${o.id} never decreases from one read to the next`, received: { before: String(before), now: String(now) }, exchange: ex,
    });
  }
}

async function judgeBalances(m: Model, r: Real): Promise<void> {
  const ex = await call(m, r, 'GET', '/me/balance');
  const rows = ex && is2xx(ex) ? dataOf(ex)?.balances : undefined;
  if (!ex || !Array.isArray(rows)) return;
  for (const row of rows) {
    if (!isObject(row)) continue;
    const [total, locked, pending, available] = [row.totalBalance, row.lockedForFutureTxns, row.withdrawalPending, row.availableToWithdraw].map(amount);
    if (total === undefined || locked === undefined || pending === undefined || available === undefined) continue;
    const free = total - locked - pending;
    r.t.expect('OA-BAL-007', available === (free > 0n ? free : 0n), {
      documented: 'availableToWithdraw = max(totalBalance - lockedForFutureTxns - withdrawalPending, 0) in every balance row', received: row, exchange: ex,
    });
  }
}
