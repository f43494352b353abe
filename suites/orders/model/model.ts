import { Keypair, Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { findOperation } from '../../../generators/index.ts';
import { dataOf, errorCode, is2xx } from '../../harness/answers.ts';
import type { CheckContext } from '../../harness/check.ts';
import type { Exchange } from '../../harness/exchange.ts';
import { isObject } from '../../shared/values.ts';
import {
  atOnce,
  createOrder,
  DCA_PER_CYCLE,
  type Funded,
  fundUser,
  intentRequest,
  type IntentRequest,
  NATIVE_MINT,
  type OrderType,
  postConfirm,
  postIntent,
  signedDeposit,
  TERMINAL_STATUSES,
  usdc,
} from '../orders.ts';
import { expectOrderInvariants, isSignature } from '../order-invariants.ts';
import { withdrawAvailable } from '../steps/partner-balance.ts';
import { previewedAmount } from '../steps/withdrawals.ts';
import { onboardedUser, rateLimited, testWallet, validateAgainstSpec } from '../users.ts';
import type { RuleId } from '../../../generators/vocabulary.ts';

/**
 * The model of the model-based tests (STYLE.md 8): deliberately simpler than the service. Per order it remembers
 * what the last read showed (status, the cumulative counters, withdrawalStatus), what the last accepted move
 * promised, and what its pending order-level withdrawal holds of the balance's withdrawalPending; of the user it
 * remembers withdrawalPending per mint. After every command every order is read again (the passive invariants of
 * order-invariants.ts, on every read) and the reads are judged against the model:
 * - OA-STATE-002: a terminal status never changes (failed -> active only after a retry answered 2xx);
 * - OA-STATE-013: amountSpent, amountReceived and cyclesCompleted never decrease;
 * - OA-STATE-015: a completed withdrawal (order-level or the automatic return) stays completed;
 * - OA-STATE-014: a move answered 2xx is followed by that move's state (pause -> paused, resume -> active,
 *   retry -> active, cancel -> cancelled), or executing showing it as previousStatus, or after resume and retry a
 *   state an active order reaches by itself; OA-RESUME-001 for the resume of an order the model read paused;
 * - order-level withdrawals answered 2xx: a build -> withdrawalStatus pending with withdrawalRequestedAt
 *   (OA-OWD-002) and withdrawalPending up by the previewed amounts (OA-OWD-003); a confirm -> completed with
 *   withdrawalCompletedAt (OA-OWD-005), withdrawalTxHash the submitted signature (OA-OWD-006) and the reservation
 *   released (OA-OWD-007); an abandon -> the reservation released (OA-OWD-011);
 * - OA-BAL-007: every balance row keeps availableToWithdraw = max(total - locked - withdrawalPending, 0), and
 *   OA-BAL-014: withdrawalPending is 0 on every row while no order reads withdrawalStatus pending (nor has a
 *   withdrawal built by a cancel with withdraw in flight).
 * What an order's withdrawal holds is measured (the rise of withdrawalPending at the read after it was built, by
 * the order-level build or a cancel with withdraw) and forgotten when the clock moves (a stuck lock clears by itself
 * within about 8 minutes) or a move of the order is accepted: a release is judged only against a known reservation.
 * Every answer is validated against the spec (its status and error code are ones the document gives the operation;
 * a violation fails the command, suites/harness/model-run.ts).
 * An operation that answers 404 NOT_FOUND is not served by this target: its commands stop applying, never fail.
 */

export type Family = 'dca' | 'trigger' | 'slice';
export type Move = 'pause' | 'resume' | 'retry' | 'cancel';
/** An order-level withdrawal step answered 2xx, with the withdrawalStatus the model held before it (`from`). */
export type WithdrawalMove =
  | { kind: 'build'; from: string; preview: unknown }
  | { kind: 'confirm'; from: string; signedTransaction: string }
  | { kind: 'abandon'; from: string }
  | { kind: 'cancel-with-withdraw'; from: string };

export interface OrderModel {
  readonly id: string;
  readonly type: OrderType;
  status: string;
  amountSpent?: bigint;
  amountReceived?: bigint;
  cyclesCompleted?: number;
  withdrawalStatus: string;
  inputMint?: string;
  outputMint?: string;
  /** What its pending order-level withdrawal holds of withdrawalPending, per mint; undefined when not known. */
  reserved?: Map<string, bigint>;
  /**
   * A withdrawal built by a cancel with withdraw, not since confirmed, abandoned or read completed: whether it marks
   * the order pending is not stated, so while the order does not read pending the model holds it `in flight`
   * (heldWithdrawal): not nothing (OA-BAL-014 waits), and not a pending build whose release it could judge.
   */
  inFlight?: boolean;
  /** The last move answered as accepted since the previous read: the next read must show its state. */
  promised?: Move;
  /** The order-level withdrawal step answered 2xx since the previous read: the next reads must show its effect. */
  withdrawal?: WithdrawalMove;
}

export interface Model {
  readonly family: Family;
  readonly orders: OrderModel[];
  /** Operations (`METHOD /path/{template}`) answered 404 NOT_FOUND: not served, their commands no longer apply. */
  readonly unserved: Set<string>;
  /** The control capabilities the target offers (commands needing one apply only with it). */
  readonly can: { readonly clock: boolean; readonly prices: boolean; readonly faults: boolean };
  /** outputRecipientAddress of each order as its creation answered it (OA-SHAPE-007). */
  readonly created: Map<string, string>;
  /** withdrawalPending per mint at the last read of GET /me/balance (a mint without a row: 0); unknown before it. */
  withdrawalPending?: Map<string, bigint>;
}

export interface Real {
  readonly t: CheckContext;
  readonly user: Funded;
  /**
   * The user is the partner's shared wallet (no `funding`, users.ts testWallet): other orders of the wallet (the run's
   * other checks', the partner's own) move its balance rows too, so withdrawalPending is not the model's alone.
   */
  readonly shared: boolean;
  /** The output mint of the run's orders: a mint of its own when the target prices mints, so moving it disturbs nobody. */
  readonly outputMint: string;
}

/** At most this many orders per sequence (the setup's one included). */
export const MAX_ORDERS = 3;
const DETAIL: Record<OrderType, string> = {
  dca: '/dca',
  stop_loss: '/stop-loss',
  take_profit: '/take-profit',
  oco: '/oco',
  slice: '/slice',
};
const MOVED_TO: Record<Move, string> = { pause: 'paused', resume: 'active', retry: 'active', cancel: 'cancelled' };
/** States an active order reaches by itself (a cycle, a fill, a failed swap, expiry). */
const BY_ITSELF = ['completed', 'failed', 'expired'];
const INT = /^(0|[1-9][0-9]*)$/;

/**
 * The DCA orders run six cycles (of the default amount per cycle), one every 10 minutes: a clock move of ten minutes
 * runs one, of half an hour three, of an hour all six, so reads see them part-way as well as finished.
 */
export const DCA_FREQUENCY = 600;
const DCA_CONFIG = { cycleFrequencySeconds: DCA_FREQUENCY, totalAmount: String(6n * BigInt(DCA_PER_CYCLE)) };
/** On the partner's wallet (no clock: no cycle falls due within a run) the smallest DCA order of two cycles. */
const SHARED_DCA_CONFIG = { cycleFrequencySeconds: DCA_FREQUENCY, totalAmount: String(2n * BigInt(DCA_PER_CYCLE)) };
/**
 * Trigger prices scaled by 6 decimals (output per input, whole tokens). With USDC in and the run's own mint out at
 * 1 USD the pair is 1.0: the stop at 0.5 fires once the mint is worth 2 USD, the take-profit at 2.0 once it is worth
 * 0.5 USD; MovePrice crosses either. Into the native asset (a target without prices) the templates' defaults stand:
 * triggers no market reaches.
 */
const OWN_MINT_CONFIG: Record<OrderType, Record<string, unknown>> = {
  dca: DCA_CONFIG,
  stop_loss: { triggerPrice: '500000', priceDecimals: 6 },
  take_profit: { triggerPrice: '2000000', priceDecimals: 6 },
  oco: { stopLossPrice: '500000', takeProfitPrice: '2000000', priceDecimals: 6 },
  slice: {},
};

function requestFor(type: OrderType, r: Pick<Real, 'outputMint' | 'shared'>): IntentRequest {
  const dca = r.shared ? SHARED_DCA_CONFIG : DCA_CONFIG;
  const config = r.outputMint === NATIVE_MINT ? (type === 'dca' ? dca : {}) : OWN_MINT_CONFIG[type];
  return intentRequest(type, { outputMint: r.outputMint, config });
}

export const served = (m: Readonly<Model>, operation: string) => !m.unserved.has(operation);
export const orderAt = (m: Readonly<Model>, index: number) => m.orders[index % m.orders.length] as OrderModel;
/** The index-th of the orders the model holds `wanted` (a paused order to resume), or of all orders when none is. */
export function orderPreferring(m: Readonly<Model>, index: number, wanted: (o: OrderModel) => boolean): OrderModel {
  const preferred = m.orders.filter(wanted);
  return (preferred.length > 0 ? preferred : m.orders)[index % (preferred.length || m.orders.length)] as OrderModel;
}
export const isTerminal = (o: OrderModel) => TERMINAL_STATUSES.includes(o.status);

/** A user-scoped call of the run's user; undefined when the operation is not served (404 NOT_FOUND). */
export async function call(m: Model, r: Real, method: string, path: string, json?: unknown): Promise<Exchange | undefined> {
  const op = findOperation('orders', method, path);
  if (!op) throw new Error(`${method} ${path} is no operation of the orders spec`);
  const ex = await r.t.orders.request({
    method,
    path,
    json,
    headers: { 'X-Service-User': r.user.sub },
    retry: false,
    validate: false,
    operationId: op.operationId,
  });
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
  if (!is2xx(ex) && !buildFailed) return;
  order.promised = move;
  order.reserved = undefined;
}

/** The withdrawal the model holds: withdrawalStatus as last read, or `in flight` for a cancel's withdrawal read none. */
export const heldWithdrawal = (o: OrderModel) => (o.inFlight && o.withdrawalStatus === 'none' ? 'in flight' : o.withdrawalStatus);
export const withdrawing = (o: OrderModel) => ['pending', 'in flight'].includes(heldWithdrawal(o));

/** Records an order-level withdrawal step answered 2xx (the next read judges it). */
export function withdrew(order: OrderModel, move: WithdrawalMove): void {
  order.withdrawal = move;
  order.inFlight = move.kind === 'cancel-with-withdraw' || (move.kind === 'build' && order.inFlight);
}

/** The clock moved: a pending withdrawal's lock may have cleared by itself, what it holds is no longer known. */
export function forgetReservations(m: Model): void {
  for (const o of m.orders) o.reserved = undefined;
}

/** The run's user (funded), its output mint, and a first order of the family. */
export async function setup(t: CheckContext, family: Family): Promise<{ model: Model; real: Real }> {
  const can = { clock: t.control.has('clock'), prices: t.control.has('prices'), faults: t.control.has('faults') };
  const wallet = testWallet(t);
  const userPubkey = wallet.keypair.publicKey.toBase58();
  const outputMint = can.prices ? Keypair.generate().publicKey.toBase58() : NATIVE_MINT;
  // The onboarding, the user's funds and the output mint (made by funding it, then priced) need nothing of each other
  // (the control API funds a wallet, onboarded or not): sent at once; the first failure in this order is thrown.
  const [onboarded] = await atOnce(
    t,
    () => onboardedUser(t, wallet),
    () => fundUser(t, userPubkey, '500000000'),
    async () => {
      if (!can.prices) return;
      await t.control.fund(userPubkey, outputMint, '1');
      await t.control.setPrice(outputMint, '1');
    },
  );
  const user: Funded = { ...onboarded, keypair: wallet.keypair };
  const model: Model = { family, orders: [], unserved: new Set(), can, created: new Map() };
  const real: Real = { t, user, outputMint, shared: !t.control.has('funding') };
  const first = family === 'trigger' ? 'stop_loss' : family;
  const created = await createOrder(t, user, requestFor(first, real));
  model.orders.push(modelOf(model, first, created.order));
  await observe(model, real);
  return { model, real };
}

/**
 * Between the runs of a model check on the partner's shared wallet (no `funding`): what the previous run left is
 * released, so that the wallet's funds in orders stay those of one run: its running orders cancelled without
 * withdrawal, its pending order-level withdrawals abandoned, then the manager's available USDC withdrawn to the wallet
 * at wallet level (one signature, counted against --budget-lamports). Best effort: the end-of-run cleanup withdraws
 * whatever stays (cleanup.ts). With `funding` each run has a fresh user of its own and nothing is released.
 */
export async function release(m: Model, r: Real): Promise<void> {
  if (!r.shared) return;
  // The orders at once; each order's cancel before its abandon.
  await Promise.all(
    m.orders.map(async (o) => {
      if (!isTerminal(o)) await call(m, r, 'POST', `/orders/${o.id}/cancel`, { withdraw: false });
      if (withdrawing(o)) await call(m, r, 'POST', `/orders/${o.id}/withdraw/abandon`, {});
    }),
  );
  await withdrawAvailable(r.t, r.user, usdc());
}

/** Intent -> sign -> confirm as a command: an order the target does not create (a lost slice race) is not added. */
export async function addOrder(m: Model, r: Real, type: OrderType): Promise<void> {
  const intent = await postIntent(r.t, r.user.sub, requestFor(type, r));
  const data = dataOf(intent);
  if (!is2xx(intent) || typeof data?.transaction !== 'string') return;
  const confirm = await postConfirm(r.t, r.user.sub, {
    pendingOrderId: data.pendingOrderId,
    signedTransaction: signedDeposit({ data, ex: intent }, r.user),
  });
  const order = dataOf(confirm)?.order;
  if (is2xx(confirm) && isObject(order) && typeof order.id === 'string') m.orders.push(modelOf(m, type, order));
}

function modelOf(m: Model, type: OrderType, order: Record<string, unknown>): OrderModel {
  const o: OrderModel = { id: String(order.id), type, status: String(order.status), withdrawalStatus: String(order.withdrawalStatus) };
  if (typeof order.outputRecipientAddress === 'string') m.created.set(o.id, order.outputRecipientAddress);
  remember(o, order);
  return o;
}

function remember(o: OrderModel, order: Record<string, unknown>): void {
  o.status = String(order.status);
  o.withdrawalStatus = String(order.withdrawalStatus);
  if (o.withdrawalStatus === 'completed') o.inFlight = false;
  o.amountSpent = amount(order.amountSpent) ?? o.amountSpent;
  o.amountReceived = amount(order.amountReceived) ?? o.amountReceived;
  o.cyclesCompleted = typeof order.cyclesCompleted === 'number' ? order.cyclesCompleted : o.cyclesCompleted;
  o.inputMint = typeof order.inputMint === 'string' ? order.inputMint : o.inputMint;
  o.outputMint = typeof order.outputMint === 'string' ? order.outputMint : o.outputMint;
  o.promised = undefined;
}

const amount = (value: unknown) => (typeof value === 'string' && INT.test(value) ? BigInt(value) : undefined);

/**
 * The read after every step: each order's detail and the balance rows, sent at once (an answer sent beside another is
 * as much a read of the state after the step as one sent after it), then judged: the details one after another in the
 * model's order, then the balance rows against what the orders read (judgeBalances).
 */
export async function observe(m: Model, r: Real): Promise<void> {
  const [details, balance] = await Promise.all([
    Promise.all(m.orders.map((o) => call(m, r, 'GET', `${DETAIL[o.type]}/${o.id}`))),
    call(m, r, 'GET', '/me/balance'),
  ]);
  let everyOrderRead = true;
  for (const [i, o] of m.orders.entries()) {
    const ex = details[i];
    const data = ex && is2xx(ex) ? dataOf(ex) : undefined;
    const order = o.type === 'slice' ? data?.order : data;
    if (!ex || !isObject(order)) {
      everyOrderRead = false;
      continue;
    }
    expectOrderInvariants(r.t, order, { scope: 'user', exchange: ex, owner: r.user, created: m.created });
    judge(r, o, order, ex);
    remember(o, order);
  }
  await judgeBalances(m, r, everyOrderRead, balance);
  for (const o of m.orders) o.withdrawal = undefined;
}

function judge(r: Real, o: OrderModel, order: Record<string, unknown>, ex: Exchange): void {
  const t: CheckContext = r.t;
  const status = String(order.status);
  const seen = { status, previousStatus: order.previousStatus, before: o.status, promised: o.promised ?? null };
  if (TERMINAL_STATUSES.includes(o.status) && !(o.status === 'failed' && o.promised === 'retry')) {
    t.expect('OA-STATE-002', status === o.status, {
      documented: `order ${o.id} was ${o.status}, a terminal status, and never changes status again`,
      received: seen,
      exchange: ex,
    });
  }
  if (o.withdrawalStatus === 'completed') {
    t.expect('OA-STATE-015', order.withdrawalStatus === 'completed', {
      documented: `order ${o.id} had withdrawalStatus completed, which stays completed`,
      received: { withdrawalStatus: order.withdrawalStatus },
      exchange: ex,
    });
  }
  if (o.promised) {
    const to = MOVED_TO[o.promised];
    const reached =
      status === to ||
      (status === 'executing' && order.previousStatus === to) ||
      ((o.promised === 'resume' || o.promised === 'retry') && BY_ITSELF.includes(status));
    t.expect(o.promised === 'resume' && o.status === 'paused' ? 'OA-RESUME-001' : 'OA-STATE-014', reached, {
      documented: `after ${o.promised} was accepted the order reads ${to} (or executing with previousStatus ${to})`,
      received: seen,
      exchange: ex,
    });
  }
  judgeWithdrawal(r, o, order, ex);
  const counters: Array<[string, bigint | number | undefined, bigint | number | undefined]> = [
    ['amountSpent', o.amountSpent, amount(order.amountSpent)],
    ['amountReceived', o.amountReceived, amount(order.amountReceived)],
    ['cyclesCompleted', o.cyclesCompleted, typeof order.cyclesCompleted === 'number' ? order.cyclesCompleted : undefined],
  ];
  for (const [name, before, now] of counters) {
    if (before === undefined || now === undefined) continue;
    t.expect('OA-STATE-013', now >= before, {
      documented: `${name} of order ${o.id} never decreases from one read to the next`,
      received: { before: String(before), now: String(now) },
      exchange: ex,
    });
  }
}

/** The order-level withdrawal step of `o` as its read shows it (OA-OWD-002, OA-OWD-005, OA-OWD-006). */
function judgeWithdrawal(r: Real, o: OrderModel, order: Record<string, unknown>, ex: Exchange): void {
  const move = o.withdrawal;
  const received = {
    withdrawalStatus: order.withdrawalStatus,
    withdrawalRequestedAt: order.withdrawalRequestedAt,
    withdrawalCompletedAt: order.withdrawalCompletedAt,
    withdrawalTxHash: order.withdrawalTxHash,
  };
  if (move?.kind === 'build') {
    r.t.expect('OA-OWD-002', order.withdrawalStatus === 'pending' && typeof order.withdrawalRequestedAt === 'string', {
      documented: `after POST /orders/${o.id}/withdraw answered 2xx the order reads withdrawalStatus pending with withdrawalRequestedAt set`,
      received,
      exchange: ex,
    });
  }
  if (move?.kind === 'confirm') {
    r.t.expect('OA-OWD-005', order.withdrawalStatus === 'completed' && typeof order.withdrawalCompletedAt === 'string', {
      documented: `after POST /orders/${o.id}/withdraw/confirm answered 2xx the order reads withdrawalStatus completed with withdrawalCompletedAt set`,
      received,
      exchange: ex,
    });
    const signature = feePayerSignature(move.signedTransaction, r.user.userPubkey);
    r.t.expect('OA-OWD-006', signature ? order.withdrawalTxHash === signature : isSignature(order.withdrawalTxHash), {
      documented: signature
        ? `withdrawalTxHash is the submitted transaction's signature ${signature}`
        : 'withdrawalTxHash a signature (the fee payer is not the user: its signature is not known to the suite)',
      received,
      exchange: ex,
    });
  }
}

/** The user's signature of a signed transaction the user pays the fee of (its transaction id), if so. */
function feePayerSignature(signedTransaction: string, userPubkey: string): string | undefined {
  const tx = Transaction.from(Buffer.from(signedTransaction, 'base64'));
  const own = tx.signatures.find((entry) => entry.publicKey.toBase58() === userPubkey)?.signature;
  return tx.feePayer?.toBase58() === userPubkey && own ? bs58.encode(own) : undefined;
}

/**
 * The balance rows read beside the orders: OA-BAL-007 on every row; OA-BAL-014 while no order reads a withdrawal in
 * flight; what each order's withdrawal step did to withdrawalPending (judgeReservation). OA-BAL-014 is the one
 * judgement that needs the balance read after the orders: a withdrawal that ends by itself (a stuck lock clears within
 * about 8 minutes) may read ended in its order yet still held in a balance answered a moment before. So before it
 * fails, the balance is read once more, after the orders, and everything from there on is judged on that read.
 */
async function judgeBalances(m: Model, r: Real, everyOrderRead: boolean, beside: Exchange | undefined): Promise<void> {
  let ex = beside;
  let pending = balanceRows(r, ex);
  if (!ex || !pending) return;
  // On the partner's shared wallet another order's withdrawal may hold withdrawalPending: judged on a user of its own.
  if (r.shared) {
    m.withdrawalPending = pending;
    return;
  }
  if (everyOrderRead && !m.orders.some(withdrawing)) {
    if (held(pending).length > 0) {
      ex = await call(m, r, 'GET', '/me/balance');
      pending = balanceRows(r, ex);
      if (!ex || !pending) return;
    }
    const rows = held(pending);
    r.t.expect('OA-BAL-014', rows.length === 0, {
      documented: 'withdrawalPending 0 on every row: no order of the user reads withdrawalStatus pending',
      received: {
        withdrawalPending: Object.fromEntries(rows.map(([mint, value]) => [mint, value.toString()])),
        orders: m.orders.map((o) => `${o.id} ${o.withdrawalStatus}`),
      },
      exchange: ex,
    });
  }
  const before = m.withdrawalPending;
  if (before) for (const o of m.orders) judgeReservation(r, o, before, pending, ex);
  m.withdrawalPending = pending;
}

const held = (pending: ReadonlyMap<string, bigint>) => [...pending].filter(([, value]) => value !== 0n);

/** OA-BAL-007 on every row of a read of GET /me/balance, and withdrawalPending per mint; undefined when not read. */
function balanceRows(r: Real, ex: Exchange | undefined): Map<string, bigint> | undefined {
  const rows = ex && is2xx(ex) ? dataOf(ex)?.balances : undefined;
  if (!ex || !Array.isArray(rows)) return undefined;
  const pending = new Map<string, bigint>();
  for (const row of rows) {
    if (!isObject(row)) continue;
    const [total, locked, withdrawalPending, available] = [
      row.totalBalance,
      row.lockedForFutureTxns,
      row.withdrawalPending,
      row.availableToWithdraw,
    ].map(amount);
    if (typeof row.mint === 'string' && withdrawalPending !== undefined) pending.set(row.mint, withdrawalPending);
    if (total === undefined || locked === undefined || withdrawalPending === undefined || available === undefined) continue;
    const free = total - locked - withdrawalPending;
    r.t.expect('OA-BAL-007', available === (free > 0n ? free : 0n), {
      documented: 'availableToWithdraw = max(totalBalance - lockedForFutureTxns - withdrawalPending, 0) in every balance row',
      received: row,
      exchange: ex,
    });
  }
  return pending;
}

/**
 * What the order-level withdrawal step of `o` did to withdrawalPending, from the read before the step to the read
 * after it (OA-OWD-003, OA-OWD-007, OA-OWD-011), and what the order's withdrawal holds from then on.
 */
function judgeReservation(
  r: Real,
  o: OrderModel,
  before: ReadonlyMap<string, bigint>,
  now: ReadonlyMap<string, bigint>,
  ex: Exchange,
): void {
  const move = o.withdrawal;
  if (!move) return;
  const was = (mint: string) => before.get(mint) ?? 0n;
  const is = (mint: string) => now.get(mint) ?? 0n;
  const rise = () => new Map([...now.keys()].filter((mint) => is(mint) > was(mint)).map((mint) => [mint, is(mint) - was(mint)]));
  const show = (mints: Iterable<string>, expected: (mint: string) => bigint) =>
    [...mints].map((mint) => ({ mint, before: was(mint).toString(), expected: expected(mint).toString(), now: is(mint).toString() }));
  const released = (rule: RuleId, what: string, held: ReadonlyMap<string, bigint>) => {
    const rows = show(held.keys(), (mint) => was(mint) - held.get(mint)!);
    r.t.expect(
      rule,
      rows.every((row) => row.now === row.expected),
      {
        documented: `${what} releases what the withdrawal of order ${o.id} held of withdrawalPending`,
        received: rows,
        exchange: ex,
      },
    );
  };
  /** Nothing pending before the step, so nothing held after it: withdrawalPending of the order's mints as before. */
  const nothing = new Map([o.inputMint, o.outputMint].flatMap((mint) => (mint ? [[mint, 0n] as const] : [])));
  switch (move.kind) {
    case 'build': {
      if (move.from !== 'none') return;
      const previewed = new Map(
        [o.inputMint, o.outputMint].flatMap((mint) => {
          const value = mint === undefined ? undefined : previewedAmount(move.preview, mint);
          return mint !== undefined && value !== undefined ? [[mint, value] as const] : [];
        }),
      );
      if (previewed.size === 0) {
        r.t.note(`withdrawalAmounts of order ${o.id} names neither of its mints: ${JSON.stringify(move.preview)} (OA-OWD-003 not judged)`);
        return;
      }
      const rows = show(previewed.keys(), (mint) => was(mint) + previewed.get(mint)!);
      r.t.expect(
        'OA-OWD-003',
        rows.every((row) => row.now === row.expected),
        {
          documented: `withdrawalPending of each mint of order ${o.id} rises by its previewed amount after the build`,
          received: { rows, preview: move.preview },
          exchange: ex,
        },
      );
      o.reserved = rise();
      return;
    }
    case 'confirm':
      if (move.from === 'none') released('OA-OWD-007', 'a build and its confirm', nothing);
      else if (move.from === 'pending' && o.reserved && o.reserved.size > 0) released('OA-OWD-007', 'the confirm', o.reserved);
      o.reserved = undefined;
      return;
    case 'abandon':
      if (move.from === 'none') released('OA-OWD-011', 'a build (if any) and its abandon', nothing);
      else if (move.from === 'pending' && o.reserved && o.reserved.size > 0) released('OA-OWD-011', 'abandon', o.reserved);
      o.reserved = undefined;
      return;
    case 'cancel-with-withdraw':
      o.reserved = rise();
  }
}
