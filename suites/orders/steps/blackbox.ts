import { Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { dataOf, detailsOf, errorCode, is2xx } from '../../harness/answers.ts';
import type { CheckContext } from '../../harness/check.ts';
import type { Exchange } from '../../harness/exchange.ts';
import { SetupFailed } from '../../harness/failure.ts';
import { isObject } from '../../shared/values.ts';
import { QUOTE_DEFAULTS, WSOL_MINT } from '../../quotes/fixtures.ts';
import { QUOTE_PATH, queryString, u64, winnerRoute } from '../../quotes/quote-support.ts';
import { expectOrderInvariants } from '../order-invariants.ts';
import {
  type Created,
  type Funded,
  INT,
  type Intent,
  type IntentRequest,
  intentUser,
  type OrderType,
  postConfirm,
  postIntent,
  signedDeposit,
  signedWithdrawal,
  skipIfTemplateRejected,
  usdc,
} from '../orders.ts';
import { SIGNATURE_LAMPORTS, spendLamports } from '../lamports.ts';
import { asUser, serviceNow as serviceTime } from '../users.ts';
import { judgedLater, readPath, type Row } from './dca.ts';
import { DETAIL_PATHS } from './reads.ts';
import { confirmedBuild } from './withdrawals.ts';

/**
 * Partner mode (issue 16): the behaviours the control-path checks judge with a virtual clock, set prices and funded
 * wallets, judged the way a partner's client sees them on a staging without a control API:
 * - time passes for real: the checks poll the service, with growing pauses, until it acted on its own, within the
 *   partner's budget (--budget-minutes, all black-box waits together). Time is read only from the service: the
 *   order's own schedule, and an intent's expiresAt ("Pending order lifetime: 5 minutes between intent and confirm").
 *   A positive event not seen is a failure only once the wait covered the documented time plus a grace in wall time,
 *   which holds for any service clock that runs no slower than the wall clock (a sandbox may run it faster);
 * - prices come from the market: the live pair price is read from the quote service, and triggers are placed
 *   relative to it (a stop-loss above it fires at once, a take-profit far above it never does);
 * - funds come from the partner's wallet (TEST_WALLET_SECRET_KEY), in the smallest amounts the documented minimum
 *   notional allows (10 USD, or the tenant's own minimum the service names in MIN_NOTIONAL_NOT_MET), fees counted
 *   against --budget-lamports; the end-of-run cleanup withdraws what the run created (cleanup.ts).
 * Where the target does offer a capability these checks stand in for, they use it (the clock advances instead of
 * waiting; generated wallets are funded): the results then say `judgedThrough: control` (runner.ts).
 */

export const DEFAULT_BUDGET_MINUTES = 8;
/** One wait at most: well below vitest's timeout of one check (300 s). */
const WAIT_CAP_MS = 240_000;
/** USDC has 6 decimals: one cent is 10^4 smallest units. */
const CENT = 10_000n;
/** The documented default minimum notional, 10 USD, in USDC (which counts as 1.00). */
const TEN_USD = 1000n * CENT;

/**
 * The wall-clock end of the black-box checks' wait budget in this process (set by the first wait, so that checks
 * waiting at once share it). Lamports are counted in ../lamports.ts, with every deposit of the partner's wallets.
 */
const spent = { waitsEndAt: undefined as number | undefined };

export function budgetMs(t: CheckContext): number {
  return (t.env.budgetMinutes ?? DEFAULT_BUDGET_MINUTES) * 60_000;
}

/** Wall time left of the wait budget, ms. */
function waitLeftMs(t: CheckContext): number {
  return spent.waitsEndAt === undefined ? budgetMs(t) : Math.max(0, spent.waitsEndAt - Date.now());
}

/**
 * Before a check that waits up to `seconds` of the service's time: without the clock capability, skip unless the
 * remaining wait budget covers it (in wall time), saying what would make it judgeable.
 */
export function reserveWait(t: CheckContext, seconds: number, what: string): void {
  if (t.control.has('clock')) return;
  const left = waitLeftMs(t);
  if (left < seconds * 1000)
    t.skip(
      `${what} takes up to ${seconds} s of real time; the black-box wait budget has ${Math.max(0, Math.floor(left / 1000))} s left ` +
        `(--budget-minutes ${t.env.budgetMinutes ?? DEFAULT_BUDGET_MINUTES}): raise --budget-minutes to judge it`,
    );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The service's time in ms (users.ts serviceNow), from its last answer: a wait reads it after every probe. */
export async function serviceNow(t: CheckContext): Promise<number> {
  return (await serviceTime(t, { lastAnswer: true })).now.getTime();
}

export interface Waited<T> {
  value: T;
  /** the condition held */
  done: boolean;
  /** the service's time reached `untilMs` (or the clock was advanced past it) */
  covered: boolean;
  /** wall time waited, ms (0 when the clock advanced instead) */
  waitedMs: number;
}

/**
 * Reads `probe` until `done` holds or the service's time reaches `untilMs` (a time of the service: its own schedule
 * plus a grace; a function is asked only when the first read does not hold, after it). With the clock capability the clock advances `stepSeconds` between reads; without it real time
 * passes, reads growing from 0.25 s to 5 s apart, within the budget and at most 240 s of wall time.
 */
export async function waitFor<T>(
  t: CheckContext,
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  { stepSeconds, untilMs }: { stepSeconds: number; untilMs: number | (() => Promise<number>) },
): Promise<Waited<T>> {
  let value = await probe();
  if (t.control.has('clock')) {
    // Nothing to wait for once the first read holds: no clock read, and a deadline given as a function never asked.
    if (done(value)) return { value, done: true, covered: true, waitedMs: 0 };
    untilMs = typeof untilMs === 'number' ? untilMs : await untilMs();
    let now = Date.parse(await t.control.clock());
    while (!done(value) && now < untilMs) {
      now = Date.parse(await t.control.advanceClock(stepSeconds));
      value = await probe();
    }
    return { value, done: done(value), covered: true, waitedMs: 0 };
  }
  untilMs = typeof untilMs === 'number' ? untilMs : await untilMs();
  const started = Date.now();
  spent.waitsEndAt ??= started + budgetMs(t);
  const deadline = started + Math.min(WAIT_CAP_MS, waitLeftMs(t));
  let pause = 250;
  while (!done(value) && (await serviceNow(t)) < untilMs && Date.now() + pause <= deadline) {
    await sleep(pause);
    pause = Math.min(pause * 2, 5000);
    value = await probe();
  }
  const waitedMs = Date.now() - started;
  return { value, done: done(value), covered: (await serviceNow(t)) >= untilMs, waitedMs };
}

/** Skips when a wait ended short of its time without seeing what it waited for: the budget, not the target, ended it. */
export function skipIfUncovered(t: CheckContext, waited: Waited<unknown>, what: string): void {
  if (waited.done || waited.covered) return;
  t.skip(
    `${what} was not seen when the wait ended after ${Math.round(waited.waitedMs / 1000)} s, before the service's time reached ` +
      `the end of its grace: raise --budget-minutes (now ${t.env.budgetMinutes ?? DEFAULT_BUDGET_MINUTES}) to judge it`,
  );
}

/** The run's wallet as a user (TEST_WALLET_SECRET_KEY), or a generated one funded through the control API when it can. */
export async function partnerUser(t: CheckContext): Promise<Funded> {
  return await intentUser(t, t.control.has('funding'));
}

/**
 * A pending order of the smallest size the minimum notional allows: `make(unit)` builds the request from one unit of
 * USDC (10 USD; the tenant's own minimum when the service names it in 400 MIN_NOTIONAL_NOT_MET details.requiredCents).
 */
export async function smallestIntent(t: CheckContext, user: Funded, make: (unit: bigint) => IntentRequest): Promise<Intent> {
  let unit = TEN_USD;
  for (;;) {
    const request = make(unit);
    const ex = await postIntent(t, user.sub, request);
    skipIfTemplateRejected(t, ex);
    const required = detailsOf(ex)?.requiredCents;
    const raised =
      (typeof required === 'number' || typeof required === 'string') && INT.test(String(required)) ? BigInt(required) * CENT : 0n;
    if (ex.response.status === 400 && errorCode(ex) === 'MIN_NOTIONAL_NOT_MET' && unit === TEN_USD && raised > unit) {
      t.note(`the tenant's minimum notional is ${String(required)} cents: orders sized to it`);
      unit = raised;
      continue;
    }
    const data = dataOf(ex);
    if (!is2xx(ex) || typeof data?.transaction !== 'string' || typeof data.pendingOrderId !== 'string')
      throw new SetupFailed(
        `POST /orders/intent (${String(request.orderType)}) answered ${ex.response.status} ${JSON.stringify(ex.response.body).slice(0, 300)}`,
        ex,
      );
    return { ex, request, data, transaction: data.transaction, pendingOrderId: data.pendingOrderId };
  }
}

/** Confirms `intent` with the deposit signed through the signing gate (a partner wallet's fees count: ../lamports.ts). */
export async function confirmIntent(t: CheckContext, user: Funded, intent: Intent): Promise<Created> {
  const confirm = await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction: signedDeposit(intent, user) });
  const d = dataOf(confirm);
  if (!is2xx(confirm) || !isObject(d?.order) || typeof d.order.id !== 'string')
    throw new SetupFailed(
      `POST /orders/confirm (${String(intent.request.orderType)}) answered ${confirm.response.status} ${JSON.stringify(confirm.response.body).slice(0, 300)}`,
      confirm,
    );
  return { intent, confirm, order: d.order, orderId: d.order.id, txSignature: String(d.txSignature) };
}

export async function createSmallest(t: CheckContext, user: Funded, make: (unit: bigint) => IntentRequest): Promise<Created> {
  return await confirmIntent(t, user, await smallestIntent(t, user, make));
}

/**
 * The order's detail read; with `held`, held to the passive order invariants too (the check then spreads
 * USER_ORDER_RULES; two checks do, so that a mutant of one invariant is not run through every black-box check).
 */
export async function readDetail(
  t: CheckContext,
  user: Funded,
  type: OrderType,
  orderId: string,
  held = false,
): Promise<{ ex: Exchange; order: Row }> {
  return (await fetchDetail(t, user, type, orderId, held))();
}

/** readDetail now, judged when the answer is called (steps/dca.ts fetchDca: reads sent at once, judged in turn). */
export function fetchDetail(
  t: CheckContext,
  user: Funded,
  type: OrderType,
  orderId: string,
  held = false,
): Promise<() => { ex: Exchange; order: Row }> {
  return judgedLater(async () => {
    const { ex, data } = await readPath(t, user, `${DETAIL_PATHS[type]}/${orderId}`);
    return () => {
      if (held) expectOrderInvariants(t, data, { scope: 'user', exchange: ex, owner: user });
      return { ex, order: data as Row };
    };
  });
}

/**
 * The live pair price of USDC into the native asset (native per USDC in whole tokens) scaled by 10^decimals, from the
 * quote service's best route for one unit; undefined when the quote service answers none.
 */
export async function livePairPrice(t: CheckContext, inputUnits: bigint, decimals: number): Promise<{ price?: bigint; ex: Exchange }> {
  const query = queryString({
    inputMint: usdc(),
    outputMint: WSOL_MINT,
    amount: inputUnits.toString(),
    userPublicKey: QUOTE_DEFAULTS.userPublicKey,
  });
  const ex = await t.quotes.request({ path: QUOTE_PATH, query });
  const out = is2xx(ex) ? u64(winnerRoute(ex.response.body)?.outAmount) : undefined;
  if (out === undefined || out === 0n) return { ex };
  // (out / 10^9 native) / (in / 10^6 USDC), scaled by 10^decimals.
  return { ex, price: (out * 10n ** BigInt(decimals)) / (inputUnits * 1000n) };
}

/**
 * Confirms the order-level withdrawal `build` answered: its transaction signed through the signing gate and sent with
 * the assumed body {signedTransaction} (UNKNOWNS.md O12; a 400 naming the body rejects the assumption: skip). The user's
 * signature comes back when the user pays the fee (the transaction's id on the chain).
 */
export async function confirmWithdrawal(
  t: CheckContext,
  user: Funded,
  orderId: string,
  build: Exchange,
): Promise<{ confirm: Exchange; userSignature?: string }> {
  const built = confirmedBuild(t, build, `POST /orders/${orderId}/withdraw`);
  spendLamports(t, SIGNATURE_LAMPORTS, 'an order-level withdrawal');
  const signedTransaction = signedWithdrawal(built, user);
  t.exercise('order-withdrawal-confirm');
  const confirm = await asUser(t, user.sub, { method: 'POST', path: `/orders/${orderId}/withdraw/confirm`, json: { signedTransaction } });
  if (confirm.response.status === 400 && ['VALIDATION_ERROR', 'BAD_REQUEST', 'MISSING_PARAMS'].includes(String(errorCode(confirm))))
    t.rejectAssumption(
      'order-withdrawal-confirm',
      `the target rejects the assumed order-level confirm body {signedTransaction} (UNKNOWNS.md O12) with 400 ${String(errorCode(confirm))}: ${JSON.stringify(confirm.response.body).slice(0, 300)}`,
    );
  if (!is2xx(confirm))
    throw new SetupFailed(
      `POST /orders/${orderId}/withdraw/confirm answered ${confirm.response.status} ${JSON.stringify(confirm.response.body).slice(0, 300)}`,
      confirm,
    );
  t.confirm('order-withdrawal-confirm');
  const tx = Transaction.from(Buffer.from(signedTransaction, 'base64'));
  const signature = tx.signatures.find((entry) => entry.publicKey.toBase58() === user.userPubkey)?.signature;
  const userPays = tx.feePayer?.toBase58() === user.userPubkey && signature;
  return { confirm, ...(userPays ? { userSignature: bs58.encode(signature) } : {}) };
}

/** A real transaction signature: base58 of 64 bytes, not all zero (never a placeholder). */
export function realSignature(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const bytes = bs58.decode(value);
    return bytes.length === 64 && bytes.some((byte) => byte !== 0);
  } catch {
    return false;
  }
}
