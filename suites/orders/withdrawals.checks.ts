import { Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed } from '../harness/failure.ts';
import { isObject } from '../shared/values.ts';
import { createOrder, DCA_FREQUENCY, dcaRequest, decodeTransaction, depositedTo, failureOf, type Funded, INT, intentRequest, intentUser, signedWithdrawal, usdc } from './orders.ts';
import { asUser, dataOf, errorCode, is2xx, throwawayWallet } from './users.ts';

/**
 * Withdrawals ("Wallet-level withdrawals", "Order-level withdrawals", "States and transitions", Balance row).
 *
 * The response fields of the four withdrawal endpoints and the body of the order-level confirm are not shown
 * (UNKNOWNS.md O12): the unsigned transaction is read from `data.transaction` (CONFORMANCE_WITHDRAWAL_TRANSACTION_FIELD
 * names another field of `data`) and confirms send `{signedTransaction}`. Effects are verified through GET /me/balance
 * and the order detail, never through response fields. Terminal orders to withdraw from are DCA orders cancelled with
 * `{withdraw: false}`; a target that does not serve cancel skips those checks.
 */

const TRANSACTION_FIELD = process.env.CONFORMANCE_WITHDRAWAL_TRANSACTION_FIELD ?? 'transaction';
/** "Clears by itself within about 8 minutes": judged after 9. */
const STUCK_LOCK_SECONDS = 9 * 60;
/** ASSUMED: the automatic return "runs by itself" within a day of the failure (the document gives no delay). */
const AUTO_RETURN_SECONDS = 24 * 60 * 60;

type Row = Record<string, unknown>;

/** A user with a funded external wallet and (through the control API) a funded manager: 5 USDC beyond any order. */
export async function withdrawUser(t: CheckContext, managerUsdc = '5000000'): Promise<Funded> {
  const user = await intentUser(t, true);
  if (managerUsdc !== '0') await t.control.fund(user.walletAddress, usdc(), managerUsdc);
  return user;
}

/** The user's GET /me/balance row of `mint`, if it has one. */
async function balanceRow(t: CheckContext, user: Funded, mint: string): Promise<{ row?: Row; ex: Exchange }> {
  const ex = await asUser(t, user.sub, { path: '/me/balance' });
  const rows = dataOf(ex)?.balances;
  const row = Array.isArray(rows) ? rows.find((candidate) => isObject(candidate) && candidate.mint === mint) : undefined;
  return { row: isObject(row) ? row : undefined, ex };
}

export async function usdcRow(t: CheckContext, user: Funded): Promise<{ row: Row; ex: Exchange }> {
  const { row, ex } = await balanceRow(t, user, usdc());
  if (!row) throw new SetupFailed(`GET /me/balance has no ${usdc()} row: ${JSON.stringify(ex.response.body).slice(0, 300)}`, ex);
  return { row, ex };
}

/** The manager's totalBalance of `mint` (0 when /me/balance has no row for it). */
async function totalBalanceOf(t: CheckContext, user: Funded, mint: string): Promise<{ total: bigint; ex: Exchange }> {
  const { row, ex } = await balanceRow(t, user, mint);
  return { total: row ? bucket(row, 'totalBalance') : 0n, ex };
}

export const bucket = (row: Row, name: string) => BigInt(String(row[name]));

export async function walletWithdraw(t: CheckContext, user: Funded, body: Record<string, unknown>): Promise<Exchange> {
  return await asUser(t, user.sub, { method: 'POST', path: '/withdraw/transaction', json: { userPubkey: user.userPubkey, tokenMint: usdc(), ...body } });
}

function transactionOf(ex: Exchange): string | undefined {
  const value = dataOf(ex)?.[TRANSACTION_FIELD];
  return typeof value === 'string' ? value : undefined;
}

/** The built transaction, or setup-failed (the request was a precondition, not the rule judged). */
export function builtTransaction(ex: Exchange, what: string): { base64: string; tx: Transaction; ex: Exchange } {
  const base64 = is2xx(ex) ? transactionOf(ex) : undefined;
  const tx = base64 === undefined ? undefined : decodeTransaction(base64);
  if (!base64 || !tx) throw new SetupFailed(`${what} answered ${ex.response.status} without a transaction under data.${TRANSACTION_FIELD}: ${JSON.stringify(ex.response.body).slice(0, 300)}`, ex);
  return { base64, tx, ex };
}

/**
 * The transaction of a withdrawal build, its place assumed (assumptions.ts `withdrawal-transaction`): a 2xx with a
 * transaction there confirms the assumption for this check; a 2xx without one rejects it (the check skips).
 */
export function confirmedBuild(t: CheckContext, ex: Exchange, what: string): { base64: string; tx: Transaction; ex: Exchange } {
  const base64 = transactionOf(ex);
  if (is2xx(ex) && (base64 === undefined || decodeTransaction(base64) === undefined)) {
    t.rejectAssumption('withdrawal-transaction', `${what} answered ${ex.response.status} without a transaction under data.${TRANSACTION_FIELD} (UNKNOWNS.md O12; CONFORMANCE_WITHDRAWAL_TRANSACTION_FIELD names another field): ${JSON.stringify(ex.response.body).slice(0, 300)}`);
  }
  const built = builtTransaction(ex, what);
  t.confirm('withdrawal-transaction');
  return built;
}

/** A cancelled DCA order of `user` whose deposit (its 36 USDC) is still in the manager. */
export async function cancelledOrder(t: CheckContext, user: Funded): Promise<string> {
  const { orderId } = await createOrder(t, user, dcaRequest());
  const ex = await asUser(t, user.sub, { method: 'POST', path: `/orders/${orderId}/cancel`, json: { withdraw: false } });
  if (!is2xx(ex)) throw new SetupFailed(`POST /orders/${orderId}/cancel {withdraw: false} answered ${ex.response.status} ${JSON.stringify(ex.response.body).slice(0, 300)}`, ex);
  return orderId;
}

export async function orderWithdraw(t: CheckContext, user: Funded, orderId: string, action = ''): Promise<Exchange> {
  return await asUser(t, user.sub, { method: 'POST', path: `/orders/${orderId}/withdraw${action}`, json: {} });
}

async function orderDetail(t: CheckContext, user: Funded, orderId: string): Promise<{ order: Row; ex: Exchange }> {
  const ex = await asUser(t, user.sub, { path: `/dca/${orderId}` });
  const order = dataOf(ex);
  if (!is2xx(ex) || !isObject(order)) throw new SetupFailed(`GET /dca/${orderId} answered ${ex.response.status}`, ex);
  return { order, ex };
}

/** Releases a pending order-level withdrawal when the check ends (abandon is idempotent). */
export function abandonLater(t: CheckContext, user: Funded, orderId: string): void {
  t.defer(async () => { await orderWithdraw(t, user, orderId, '/abandon'); });
}

/**
 * Withdraws everything available in the manager, mint by mint, at wallet level: terminal orders do not lock, so their
 * funds go too ("Balance row: availableToWithdraw ... the value for a withdraw-max action").
 */
async function drainManager(t: CheckContext, user: Funded): Promise<void> {
  const ex = await asUser(t, user.sub, { path: '/me/balance' });
  const rows = Array.isArray(dataOf(ex)?.balances) ? (dataOf(ex)!.balances as unknown[]).filter(isObject) : [];
  for (const row of rows.filter((candidate) => /^[1-9][0-9]*$/.test(String(candidate.availableToWithdraw)))) {
    const build = await asUser(t, user.sub, { method: 'POST', path: '/withdraw/transaction', json: { userPubkey: user.userPubkey, tokenMint: row.mint } });
    const built = confirmedBuild(t, build, `POST /withdraw/transaction (${String(row.mint)})`);
    const confirm = await asUser(t, user.sub, { method: 'POST', path: '/withdraw/confirm', json: { signedTransaction: signedWithdrawal(built, user) } });
    if (!is2xx(confirm)) throw new SetupFailed(`POST /withdraw/confirm (${String(row.mint)}) answered ${confirm.response.status} ${JSON.stringify(confirm.response.body).slice(0, 300)}`, confirm);
  }
}

/** A real signature: base58 of 64 bytes, not all zero. */
function realSignature(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const bytes = bs58.decode(value);
    return bytes.length === 64 && bytes.some((byte) => byte !== 0);
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------- wallet level

/** A user whose USDC is partly locked by an active DCA order and partly available (5 USDC); the available amount. */
async function partlyLocked(t: CheckContext): Promise<{ user: Funded; available: bigint }> {
  const user = await withdrawUser(t);
  await createOrder(t, user, dcaRequest());
  const { row } = await usdcRow(t, user);
  const available = bucket(row, 'availableToWithdraw');
  if (available === 0n || available === bucket(row, 'totalBalance')) throw new SetupFailed(`expected an order lock and 5 USDC available, got ${JSON.stringify(row)}`);
  return { user, available };
}

export const walletWithdrawalMax = defineCheck({
  name: 'wallet-withdrawal-without-amount-builds-the-available-amount',
  service: 'orders',
  rules: ['OA-WDW-003'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const { user, available } = await partlyLocked(t);
    confirmedBuild(t, await walletWithdraw(t, user, { amount: '1000000' }), 'POST /withdraw/transaction of 1 USDC');
    const max = await walletWithdraw(t, user, {});
    const maxTx = is2xx(max) ? confirmedBuild(t, max, 'POST /withdraw/transaction without amount').tx : undefined;
    const paid = maxTx ? depositedTo(maxTx, user.userPubkey, usdc()).amount : undefined;
    t.expect('OA-WDW-003', paid === available, {
      documented: `without amount: 2xx and a transaction paying the whole availableToWithdraw (${available}) of ${usdc()} to ${user.userPubkey}`,
      received: is2xx(max) ? { paid: paid?.toString() ?? '(no transaction)' } : failureOf(max), exchange: max,
    });
  },
});

export const walletWithdrawalBuilds = defineCheck({
  name: 'wallet-withdrawal-of-the-available-amount-pays-the-user',
  service: 'orders',
  rules: ['OA-WDW-001', 'OA-WDW-002'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const { user, available } = await partlyLocked(t);
    const exact = await walletWithdraw(t, user, { amount: available.toString() });
    t.expect('OA-WDW-001', is2xx(exact), { documented: `2xx for amount ${available} = availableToWithdraw`, received: failureOf(exact), exchange: exact });
    const { tx } = confirmedBuild(t, exact, 'POST /withdraw/transaction');
    const toUser = depositedTo(tx, user.userPubkey, usdc());
    t.expect('OA-WDW-002', toUser.amount === available && toUser.recognised === 1, {
      documented: `one transfer of ${available} ${usdc()} to the user's external wallet ${user.userPubkey}`,
      received: { paidToUser: toUser.amount.toString(), transfers: toUser.recognised }, exchange: exact,
    });
  },
});

export const walletWithdrawalReplayed = defineCheck({
  name: 'wallet-withdrawal-build-repeated-with-the-same-idempotency-key-replays-its-answer',
  service: 'orders',
  rules: ['OA-IDEM-001'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t);
    const headers = { 'X-Idempotency-Key': `conformance-withdraw-${user.userId}` };
    const send = () => asUser(t, user.sub, { method: 'POST', path: '/withdraw/transaction', json: { userPubkey: user.userPubkey, tokenMint: usdc(), amount: '1000000' }, headers, retry: false });
    const first = await send();
    if (!is2xx(first)) throw new SetupFailed(`POST /withdraw/transaction answered ${first.response.status}`, first);
    const replay = await send();
    t.expect('OA-IDEM-001', replay.response.status === first.response.status && JSON.stringify(replay.response.body) === JSON.stringify(first.response.body), {
      documented: `the same key and body replay the cached answer (${first.response.status}, the same transaction) instead of building a new one`, received: failureOf(replay), exchange: replay,
    });
  },
});

export const walletWithdrawalConfirm = defineCheck({
  name: 'wallet-withdrawal-confirm-moves-the-amount-out',
  service: 'orders',
  rules: ['OA-WDW-004', 'OA-WDW-015'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t);
    const before = bucket((await usdcRow(t, user)).row, 'totalBalance');
    const built = confirmedBuild(t, await walletWithdraw(t, user, { amount: '2000000' }), 'POST /withdraw/transaction');
    const ex = await asUser(t, user.sub, { method: 'POST', path: '/withdraw/confirm', json: { signedTransaction: signedWithdrawal(built, user) } });
    const after = bucket((await usdcRow(t, user)).row, 'totalBalance');
    t.expect('OA-WDW-004', is2xx(ex) && after === before - 2_000_000n, {
      documented: `2xx, and totalBalance drops by 2000000 (from ${before})`, received: { ...failureOf(ex), totalBalanceAfter: after.toString() }, exchange: ex,
    });
  },
});

export const walletWithdrawalEmptyMint = defineCheck({
  name: 'wallet-withdrawal-of-a-mint-never-held-is-insufficient-available',
  service: 'orders',
  rules: ['OA-WDW-005'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t, '0');
    const ex = await walletWithdraw(t, user, {});
    t.expect('OA-WDW-005', ex.response.status === 400 && errorCode(ex) === 'INSUFFICIENT_AVAILABLE', {
      documented: `400 INSUFFICIENT_AVAILABLE: the manager holds no ${usdc()}`, received: failureOf(ex), exchange: ex,
    });
  },
});

export const walletWithdrawalAllLocked = defineCheck({
  name: 'wallet-withdrawal-max-with-everything-locked-is-insufficient-available',
  service: 'orders',
  rules: ['OA-WDW-006'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t, '0');
    await createOrder(t, user, dcaRequest());
    const { row } = await usdcRow(t, user);
    if (bucket(row, 'availableToWithdraw') !== 0n) throw new SetupFailed(`expected the whole balance locked, got ${JSON.stringify(row)}`);
    const ex = await walletWithdraw(t, user, {});
    t.expect('OA-WDW-006', ex.response.status === 400 && errorCode(ex) === 'INSUFFICIENT_AVAILABLE', {
      documented: '400 INSUFFICIENT_AVAILABLE: the whole balance is locked by an active order', received: failureOf(ex), exchange: ex,
    });
  },
});

export const walletWithdrawalFundsLocked = defineCheck({
  name: 'wallet-withdrawal-above-available-is-funds-locked-with-the-breakdown',
  service: 'orders',
  rules: ['OA-WDW-007', 'OA-WDW-008'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t);
    const { orderId } = await createOrder(t, user, dcaRequest());
    const { row } = await usdcRow(t, user);
    const amount = bucket(row, 'availableToWithdraw') + 1n;
    if (amount > bucket(row, 'totalBalance')) throw new SetupFailed(`expected available below total, got ${JSON.stringify(row)}`);
    const ex = await walletWithdraw(t, user, { amount: amount.toString() });
    t.expect('OA-WDW-007', ex.response.status === 400 && errorCode(ex) === 'FUNDS_LOCKED', {
      documented: `400 FUNDS_LOCKED for ${amount}: above availableToWithdraw, within totalBalance ${String(row.totalBalance)}`, received: failureOf(ex), exchange: ex,
    });
    const details = (ex.response.body as { error?: { details?: unknown } }).error?.details;
    t.expect('OA-WDW-008', JSON.stringify(details ?? null).includes(orderId), {
      documented: `error.details carries the lock breakdown (naming the locking order ${orderId})`, received: details ?? '(no details)', exchange: ex,
    });
  },
});

export const walletWithdrawalForeignKey = defineCheck({
  name: 'wallet-withdrawal-never-pays-a-foreign-key',
  service: 'orders',
  rules: ['OA-WDW-011'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t);
    const foreign = throwawayWallet().publicKey.toBase58();
    const ex = await walletWithdraw(t, user, { userPubkey: foreign });
    const tx = is2xx(ex) ? confirmedBuild(t, ex, 'POST /withdraw/transaction (a foreign userPubkey)').tx : undefined;
    const ok = (ex.response.status >= 400 && ex.response.status < 500) ||
      (tx !== undefined && depositedTo(tx, foreign, usdc()).amount === 0n && depositedTo(tx, user.userPubkey, usdc()).amount > 0n);
    t.expect('OA-WDW-011', ok, {
      documented: `a 4xx, or a transaction paying the onboarded wallet ${user.userPubkey} and nothing to ${foreign}`,
      received: tx ? { paidToForeign: depositedTo(tx, foreign, usdc()).amount.toString() } : failureOf(ex), exchange: ex,
    });
  },
});

export const walletWithdrawalValidation = defineCheck({
  name: 'wallet-withdrawal-without-token-mint-is-a-validation-error',
  service: 'orders',
  rules: ['OA-WDW-012'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    const ex = await asUser(t, user.sub, { method: 'POST', path: '/withdraw/transaction', json: { userPubkey: user.userPubkey } });
    t.expect('OA-WDW-012', ex.response.status === 400 && errorCode(ex) === 'VALIDATION_ERROR', {
      documented: '400 VALIDATION_ERROR without tokenMint', received: failureOf(ex), exchange: ex,
    });
  },
});

export const walletWithdrawalInvalidTransaction = defineCheck({
  name: 'wallet-withdrawal-confirm-of-garbage-is-invalid-transaction',
  service: 'orders',
  rules: ['OA-WDW-013'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    const ex = await asUser(t, user.sub, { method: 'POST', path: '/withdraw/confirm', json: { signedTransaction: Buffer.from('not a transaction').toString('base64') } });
    t.expect('OA-WDW-013', ex.response.status === 400 && errorCode(ex) === 'INVALID_TRANSACTION', {
      documented: '400 INVALID_TRANSACTION for base64 that is no transaction', received: failureOf(ex), exchange: ex,
    });
  },
});

// ---------------------------------------------------------------- order level

export const orderWithdrawalBuild = defineCheck({
  name: 'order-withdrawal-build-previews-marks-pending-and-reserves',
  service: 'orders',
  rules: ['OA-OWD-010', 'OA-OWD-001', 'OA-OWD-002', 'OA-OWD-003', 'OA-BAL-007'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t, '0');
    const orderId = await cancelledOrder(t, user);
    const { order: untouched, ex: first } = await orderDetail(t, user, orderId);
    t.expect('OA-OWD-010', untouched.withdrawalStatus !== 'none' || (untouched.withdrawalRequestedAt === null && untouched.withdrawalCompletedAt === null), {
      documented: 'withdrawalRequestedAt and withdrawalCompletedAt null while withdrawalStatus is none',
      received: { withdrawalStatus: untouched.withdrawalStatus, withdrawalRequestedAt: untouched.withdrawalRequestedAt, withdrawalCompletedAt: untouched.withdrawalCompletedAt }, exchange: first,
    });
    const before = bucket((await usdcRow(t, user)).row, 'withdrawalPending');
    const ex = await orderWithdraw(t, user, orderId);
    if (is2xx(ex)) abandonLater(t, user, orderId);
    const preview = dataOf(ex)?.withdrawalAmounts;
    t.expect('OA-OWD-001', is2xx(ex) && (Array.isArray(preview) || isObject(preview)), {
      documented: '2xx with data.withdrawalAmounts, a per-mint preview (object or array)', received: is2xx(ex) ? dataOf(ex) : failureOf(ex), exchange: ex,
    });
    const { order, ex: detail } = await orderDetail(t, user, orderId);
    t.expect('OA-OWD-002', order.withdrawalStatus === 'pending' && typeof order.withdrawalRequestedAt === 'string', {
      documented: 'withdrawalStatus pending and withdrawalRequestedAt set after the build',
      received: { withdrawalStatus: order.withdrawalStatus, withdrawalRequestedAt: order.withdrawalRequestedAt }, exchange: detail,
    });
    t.expect('OA-OWD-010', order.withdrawalStatus !== 'pending' || order.withdrawalCompletedAt === null, {
      documented: 'withdrawalCompletedAt null while withdrawalStatus is pending', received: order.withdrawalCompletedAt, exchange: detail,
    });
    const { row, ex: balance } = await usdcRow(t, user);
    const previewed = previewedAmount(preview, usdc());
    t.expect('OA-OWD-003', previewed !== undefined && bucket(row, 'withdrawalPending') === before + previewed, {
      documented: `withdrawalPending of ${usdc()} rises by its previewed amount (${previewed?.toString() ?? 'not found in the preview'}) from ${before}`,
      received: row.withdrawalPending, exchange: balance,
    });
    const [total, locked, pending] = ['totalBalance', 'lockedForFutureTxns', 'withdrawalPending'].map((name) => bucket(row, name)) as [bigint, bigint, bigint];
    const expected = total - locked - pending > 0n ? total - locked - pending : 0n;
    t.expect('OA-BAL-007', bucket(row, 'availableToWithdraw') === expected, {
      documented: `availableToWithdraw = max(${total} - ${locked} - ${pending}, 0) = ${expected} while the withdrawal is pending`, received: row.availableToWithdraw, exchange: balance,
    });
  },
});

/** The amount a preview gives for `mint`: an array of `{mint, amount}`-like entries, or an object keyed by mint. */
export function previewedAmount(preview: unknown, mint: string): bigint | undefined {
  const entry = Array.isArray(preview) ? preview.find((item) => isObject(item) && Object.values(item).includes(mint)) : isObject(preview) ? preview[mint] : undefined;
  const amount = isObject(entry) ? Object.entries(entry).find(([key, value]) => key !== 'mint' && typeof value === 'string' && /^[0-9]+$/.test(value))?.[1] : entry;
  return typeof amount === 'string' && /^[0-9]+$/.test(amount) ? BigInt(amount) : undefined;
}

/** The transfers of `tx` of `mints`, and how many of them do not pay `owner` (its token account of the mint). */
function transfersOf(tx: Transaction, owner: string, mints: readonly string[]): { transfers: number; elsewhere: number } {
  let transfers = 0;
  let elsewhere = 0;
  for (const instruction of tx.instructions) {
    const alone = new Transaction().add(instruction);
    const seen = mints.map((mint) => depositedTo(alone, owner, mint));
    if (!seen.some((one) => one.recognised > 0)) continue;
    transfers++;
    if (!seen.some((one) => one.amount > 0n)) elsewhere++;
  }
  return { transfers, elsewhere };
}

export const orderWithdrawalPaysTheUser = defineCheck({
  name: 'order-withdrawal-transaction-pays-only-the-users-wallet',
  service: 'orders',
  rules: ['OA-OWD-028'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t, '0');
    const orderId = await cancelledOrder(t, user);
    const { order } = await orderDetail(t, user, orderId);
    const build = await orderWithdraw(t, user, orderId);
    const { tx } = builtTransaction(build, `POST /orders/${orderId}/withdraw`);
    abandonLater(t, user, orderId);
    const { transfers, elsewhere } = transfersOf(tx, user.userPubkey, [String(order.inputMint), String(order.outputMint)]);
    t.expect('OA-OWD-028', transfers > 0 && elsewhere === 0, {
      documented: `the order-level withdrawal transaction transfers the order's funds, every transfer to the user's wallet ${user.userPubkey}`,
      received: { transfers, toAnotherKey: elsewhere }, exchange: build,
    });
  },
});

export const concurrentOrderWithdrawalBuilds = defineCheck({
  name: 'three-order-withdrawal-builds-at-once-reserve-once',
  service: 'orders',
  rules: ['OA-OWD-030'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t, '0');
    const orderId = await cancelledOrder(t, user);
    const answers = await Promise.all([0, 1, 2].map(() => orderWithdraw(t, user, orderId)));
    abandonLater(t, user, orderId);
    const built = answers.find(is2xx);
    const previewed = built && previewedAmount(dataOf(built)?.withdrawalAmounts, usdc());
    const { row, ex } = await usdcRow(t, user);
    const conflict = (answer: Exchange) => answer.response.status === 409 && ['WITHDRAWAL_IN_PROGRESS', 'WITHDRAWAL_IN_FLIGHT'].includes(String(errorCode(answer)));
    t.expect('OA-OWD-030', answers.every((answer) => is2xx(answer) || conflict(answer)) && previewed !== undefined && bucket(row, 'withdrawalPending') === previewed, {
      documented: `each build 2xx or 409 WITHDRAWAL_IN_PROGRESS/IN_FLIGHT, and withdrawalPending of ${usdc()} the previewed amount (${previewed?.toString() ?? 'no 2xx preview'}) counted once`,
      received: { answers: answers.map((answer) => ({ status: answer.response.status, code: errorCode(answer) ?? '(none)' })), withdrawalPending: row.withdrawalPending },
      exchange: answers.find((answer) => !is2xx(answer) && !conflict(answer)) ?? ex,
    });
  },
});

export const orderWithdrawalConfirm = defineCheck({
  name: 'order-withdrawal-confirm-completes-with-the-signature-and-releases',
  service: 'orders',
  rules: ['OA-OWD-005', 'OA-OWD-006', 'OA-OWD-007', 'OA-OWD-017', 'OA-OWD-031'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t, '0');
    const orderId = await cancelledOrder(t, user);
    const built = confirmedBuild(t, await orderWithdraw(t, user, orderId), `POST /orders/${orderId}/withdraw`);
    abandonLater(t, user, orderId);
    const signedTx = signedWithdrawal(built, user);
    const confirm = await asUser(t, user.sub, { method: 'POST', path: `/orders/${orderId}/withdraw/confirm`, json: { signedTransaction: signedTx } });
    if (confirm.response.status === 400 && ['VALIDATION_ERROR', 'BAD_REQUEST', 'MISSING_PARAMS'].includes(String(errorCode(confirm)))) {
      t.rejectAssumption('order-withdrawal-confirm', `the target rejects the assumed order-level confirm body {signedTransaction} (UNKNOWNS.md O12) with 400 ${String(errorCode(confirm))}: ${JSON.stringify(confirm.response.body).slice(0, 300)}`);
    }
    if (is2xx(confirm)) t.confirm('order-withdrawal-confirm');
    if (!is2xx(confirm)) throw new SetupFailed(`POST /orders/${orderId}/withdraw/confirm answered ${confirm.response.status} ${JSON.stringify(confirm.response.body).slice(0, 300)}`, confirm);
    const { order, ex: detail } = await orderDetail(t, user, orderId);
    t.expect('OA-OWD-005', order.withdrawalStatus === 'completed' && typeof order.withdrawalCompletedAt === 'string', {
      documented: 'withdrawalStatus completed and withdrawalCompletedAt set after the confirm',
      received: { withdrawalStatus: order.withdrawalStatus, withdrawalCompletedAt: order.withdrawalCompletedAt }, exchange: detail,
    });
    const tx = Transaction.from(Buffer.from(signedTx, 'base64'));
    const userSignature = tx.signatures.find((entry) => entry.publicKey.toBase58() === user.userPubkey)?.signature;
    const userPaysFee = tx.feePayer?.toBase58() === user.userPubkey && userSignature;
    t.expect('OA-OWD-006', userPaysFee ? order.withdrawalTxHash === bs58.encode(userSignature) : realSignature(order.withdrawalTxHash), {
      documented: userPaysFee ? `withdrawalTxHash is the transaction's signature ${bs58.encode(userSignature)}` : 'withdrawalTxHash a signature (the fee payer is not the user: its signature is not known to the suite)',
      received: order.withdrawalTxHash, exchange: detail,
    });
    const { row, ex: balance } = await usdcRow(t, user);
    t.expect('OA-OWD-007', bucket(row, 'withdrawalPending') === 0n, {
      documented: 'withdrawalPending released (0) after the confirm', received: row.withdrawalPending, exchange: balance,
    });
    const again = await orderWithdraw(t, user, orderId);
    t.expect('OA-OWD-017', again.response.status === 400 && errorCode(again) === 'ALREADY_WITHDRAWN', {
      documented: '400 ALREADY_WITHDRAWN for a build after the completed withdrawal', received: failureOf(again), exchange: again,
    });
  },
});

export const orderWithdrawalAbandon = defineCheck({
  name: 'order-withdrawal-abandon-releases-is-idempotent-and-allows-a-new-build',
  service: 'orders',
  rules: ['OA-OWD-011', 'OA-OWD-013', 'OA-OWD-012'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t, '0');
    const orderId = await cancelledOrder(t, user);
    builtTransaction(await orderWithdraw(t, user, orderId), `POST /orders/${orderId}/withdraw`);
    abandonLater(t, user, orderId);
    const first = await orderWithdraw(t, user, orderId, '/abandon');
    const { row, ex: balance } = await usdcRow(t, user);
    t.expect('OA-OWD-011', is2xx(first) && bucket(row, 'withdrawalPending') === 0n, {
      documented: '2xx, and withdrawalPending released (0)', received: { ...failureOf(first), withdrawalPending: row.withdrawalPending }, exchange: is2xx(first) ? balance : first,
    });
    const second = await orderWithdraw(t, user, orderId, '/abandon');
    t.expect('OA-OWD-013', is2xx(second), { documented: 'a repeated abandon answers 2xx (idempotent)', received: failureOf(second), exchange: second });
    t.note(`withdrawalStatus after abandon (not stated, OA-OWD-014): ${String((await orderDetail(t, user, orderId)).order.withdrawalStatus)}`);
    const rebuilt = await orderWithdraw(t, user, orderId);
    t.expect('OA-OWD-012', is2xx(rebuilt), { documented: '2xx for a fresh build after abandon', received: failureOf(rebuilt), exchange: rebuilt });
  },
});

export const nothingToWithdraw = defineCheck({
  name: 'order-withdrawal-after-the-funds-left-is-nothing-to-withdraw',
  service: 'orders',
  rules: ['OA-OWD-016'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t, '0');
    const orderId = await cancelledOrder(t, user);
    await drainManager(t, user);
    const ex = await orderWithdraw(t, user, orderId);
    if (is2xx(ex)) abandonLater(t, user, orderId);
    t.expect('OA-OWD-016', ex.response.status === 400 && errorCode(ex) === 'NOTHING_TO_WITHDRAW', {
      documented: '400 NOTHING_TO_WITHDRAW: a wallet-level withdrawal took everything the cancelled order left in the manager', received: failureOf(ex), exchange: ex,
    });
  },
});

export const concurrentOrderWithdrawalConfirms = defineCheck({
  name: 'two-order-withdrawal-confirms-at-once-have-one-effect',
  service: 'orders',
  rules: ['OA-OWD-026'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t, '0');
    const orderId = await cancelledOrder(t, user);
    const build = await orderWithdraw(t, user, orderId);
    const built = builtTransaction(build, `POST /orders/${orderId}/withdraw`);
    abandonLater(t, user, orderId);
    const expected = previewedAmount(dataOf(build)?.withdrawalAmounts, usdc());
    if (expected === undefined) throw new SetupFailed(`no ${usdc()} amount in the preview ${JSON.stringify(dataOf(build)?.withdrawalAmounts)}`, build);
    const before = bucket((await usdcRow(t, user)).row, 'totalBalance');
    const body = { signedTransaction: signedWithdrawal(built, user) };
    const answers = await Promise.all([0, 1].map(() => asUser(t, user.sub, { method: 'POST', path: `/orders/${orderId}/withdraw/confirm`, json: body })));
    const after = bucket((await usdcRow(t, user)).row, 'totalBalance');
    const losers = answers.filter((ex) => !is2xx(ex));
    const documented = (ex: Exchange) => (ex.response.status === 400 && ['ALREADY_WITHDRAWN', 'INVALID_STATE'].includes(String(errorCode(ex)))) ||
      (ex.response.status === 409 && ['WITHDRAWAL_IN_PROGRESS', 'WITHDRAWAL_IN_FLIGHT'].includes(String(errorCode(ex))));
    t.expect('OA-OWD-026', losers.length === 1 && documented(losers[0]!) && after === before - expected, {
      documented: `one 2xx, the other 400 ALREADY_WITHDRAWN/INVALID_STATE or 409 WITHDRAWAL_IN_PROGRESS/IN_FLIGHT, and totalBalance down by ${expected} once (from ${before})`,
      received: { answers: answers.map((ex) => ({ status: ex.response.status, code: errorCode(ex) ?? '(none)' })), totalBalanceAfter: after.toString() },
      exchange: losers[0] ?? answers[1],
    });
  },
});

export const orderWithdrawalStuckLock = defineCheck({
  name: 'order-withdrawal-stuck-lock-clears-within-about-8-minutes',
  service: 'orders',
  rules: ['OA-OWD-015'],
  profile: 'full',
  needs: ['funding', 'clock'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t, '0');
    const orderId = await cancelledOrder(t, user);
    builtTransaction(await orderWithdraw(t, user, orderId), `POST /orders/${orderId}/withdraw`);
    abandonLater(t, user, orderId);
    await t.control.advanceClock(STUCK_LOCK_SECONDS);
    const { row, ex } = await usdcRow(t, user);
    t.expect('OA-OWD-015', bucket(row, 'withdrawalPending') === 0n, {
      documented: `withdrawalPending released ${STUCK_LOCK_SECONDS / 60} minutes after an unconfirmed build`, received: row.withdrawalPending, exchange: ex,
    });
  },
});

export const orderWithdrawalInvalidTransaction = defineCheck({
  name: 'order-withdrawal-confirm-of-garbage-is-invalid-transaction',
  service: 'orders',
  rules: ['OA-OWD-024'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t, '0');
    const orderId = await cancelledOrder(t, user);
    builtTransaction(await orderWithdraw(t, user, orderId), `POST /orders/${orderId}/withdraw`);
    abandonLater(t, user, orderId);
    const ex = await asUser(t, user.sub, {
      method: 'POST', path: `/orders/${orderId}/withdraw/confirm`, json: { signedTransaction: Buffer.from('not a transaction').toString('base64') },
    });
    t.expect('OA-OWD-024', ex.response.status === 400 && errorCode(ex) === 'INVALID_TRANSACTION', {
      documented: '400 INVALID_TRANSACTION for base64 that is no transaction', received: failureOf(ex), exchange: ex,
    });
  },
});

export const automaticReturnOfAFailedOrder = defineCheck({
  name: 'failed-order-funds-are-returned-automatically',
  service: 'orders',
  rules: ['OA-OWD-018', 'OA-OWD-021', 'OA-OWD-020'],
  profile: 'full',
  needs: ['funding', 'clock', 'faults'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t, '0');
    const { orderId } = await createOrder(t, user, dcaRequest());
    t.defer(() => t.control.setFaults({ swaps: 'ok' }));
    await t.control.setFaults({ swaps: 'fail' });
    // The first cycle may run at creation; the next one is due a cycle later and fails.
    await t.control.advanceClock(DCA_FREQUENCY);
    await t.control.setFaults({ swaps: 'ok' });
    if ((await orderDetail(t, user, orderId)).order.status !== 'failed') t.skip('the order did not fail on a failing swap: the automatic return of a failed order cannot be observed');
    await t.control.advanceClock(AUTO_RETURN_SECONDS);
    const { order, ex } = await orderDetail(t, user, orderId);
    t.expect('OA-OWD-018', order.withdrawalStatus === 'completed', {
      documented: `withdrawalStatus completed (the automatic return ran within ${AUTO_RETURN_SECONDS / 3600} hours of the failure)`, received: order.withdrawalStatus, exchange: ex,
    });
    t.expect('OA-OWD-021', realSignature(order.withdrawalTxHash), {
      documented: 'withdrawalTxHash a real signature (base58 of 64 bytes, not all zero): the deposit was returned', received: order.withdrawalTxHash, exchange: ex,
    });
    const again = await orderWithdraw(t, user, orderId);
    t.expect('OA-OWD-020', again.response.status === 400 && errorCode(again) === 'ALREADY_WITHDRAWN', {
      documented: '400 ALREADY_WITHDRAWN for a build after the automatic return', received: failureOf(again), exchange: again,
    });
  },
});

export const emptyAutomaticReturn = defineCheck({
  name: 'automatic-return-with-nothing-to-send-has-no-tx-hash',
  service: 'orders',
  rules: ['OA-OWD-022'],
  profile: 'full',
  needs: ['funding', 'clock', 'faults'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t, '0');
    const { orderId } = await createOrder(t, user, dcaRequest());
    t.defer(() => t.control.setFaults({ swaps: 'ok' }));
    await t.control.setFaults({ swaps: 'fail' });
    await t.control.advanceClock(DCA_FREQUENCY);
    await t.control.setFaults({ swaps: 'ok' });
    const failed = (await orderDetail(t, user, orderId)).order;
    if (failed.status !== 'failed' || failed.withdrawalStatus !== 'none') {
      t.skip(`the order is ${String(failed.status)} with withdrawalStatus ${String(failed.withdrawalStatus)}: no automatic return still to come to starve`);
    }
    await drainManager(t, user);
    await t.control.advanceClock(AUTO_RETURN_SECONDS);
    const { order, ex } = await orderDetail(t, user, orderId);
    if (order.withdrawalStatus !== 'completed') t.skip(`withdrawalStatus ${String(order.withdrawalStatus)}: the automatic return has not run`);
    t.expect('OA-OWD-022', order.withdrawalTxHash === null, {
      documented: 'withdrawalTxHash null: the automatic return found nothing to send (a wallet-level withdrawal took it first)', received: order.withdrawalTxHash, exchange: ex,
    });
  },
});

export const automaticReturnOfAnExpiredTrigger = defineCheck({
  name: 'expired-trigger-order-funds-are-returned-automatically',
  service: 'orders',
  rules: ['OA-OWD-019', 'OA-OWD-021', 'OA-OWD-027'],
  profile: 'full',
  needs: ['funding', 'clock'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t, '0');
    const expiresAt = Math.floor(Date.parse(await t.control.clock()) / 1000) + 3600;
    const { orderId, intent } = await createOrder(t, user, intentRequest('stop_loss', { config: { expiresAt } }));
    const inputMint = String(intent.data.inputMint);
    const { total: before } = await totalBalanceOf(t, user, inputMint);
    await t.control.advanceClock(3601);
    const ex = await asUser(t, user.sub, { path: `/stop-loss/${orderId}` });
    const order = dataOf(ex);
    if (order?.status !== 'expired') t.skip(`the stop_loss order is ${String(order?.status)}, not expired, a second after its expiresAt: its return cannot be observed`);
    t.expect('OA-OWD-019', order?.withdrawalStatus === 'completed', {
      documented: 'withdrawalStatus completed once the trigger order expired (auto-return fires at expiry)', received: order?.withdrawalStatus, exchange: ex,
    });
    // The unfired order still held its whole amount in the manager: the return sent something.
    t.expect('OA-OWD-021', realSignature(order?.withdrawalTxHash), {
      documented: `withdrawalTxHash a real signature (base58 of 64 bytes, not all zero): the order's amount ${String(order?.amount)} was returned`, received: order?.withdrawalTxHash, exchange: ex,
    });
    const amount = INT.test(String(order?.amount)) ? BigInt(String(order?.amount)) : undefined;
    if (amount === undefined) throw new SetupFailed(`the stop_loss has no integer amount: ${String(order?.amount)}`, ex);
    const { total: after, ex: balance } = await totalBalanceOf(t, user, inputMint);
    t.expect('OA-OWD-027', after === before - amount, {
      documented: `the returned funds left the manager: totalBalance of ${inputMint} drops by the order's amount ${amount} (from ${before})`, received: { totalBalanceAfter: after.toString() }, exchange: balance,
    });
  },
});

// ---------------------------------------------------------------- where the document allows several answers

export const walletWithdrawalOverlappingErrors = defineCheck({
  name: 'wallet-withdrawal-overlapping-errors-answer-a-matching-code',
  service: 'orders',
  rules: ['OA-WDW-010', 'OA-WDW-009'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t, '0');
    await createOrder(t, user, dcaRequest());
    const locked = await walletWithdraw(t, user, { amount: '1' });
    t.expect('OA-WDW-010', locked.response.status === 400 && ['INSUFFICIENT_AVAILABLE', 'FUNDS_LOCKED'].includes(String(errorCode(locked))), {
      documented: '400 INSUFFICIENT_AVAILABLE or FUNDS_LOCKED for amount 1 while availableToWithdraw is 0', received: failureOf(locked), exchange: locked,
    });
    await t.control.fund(user.walletAddress, usdc(), '5000000');
    const total = bucket((await usdcRow(t, user)).row, 'totalBalance');
    const above = await walletWithdraw(t, user, { amount: (total + 1n).toString() });
    t.expect('OA-WDW-009', above.response.status === 400 && ['INSUFFICIENT_BALANCE', 'FUNDS_LOCKED'].includes(String(errorCode(above))), {
      documented: `400 INSUFFICIENT_BALANCE or FUNDS_LOCKED for ${total + 1n}, above totalBalance ${total}`, received: failureOf(above), exchange: above,
    });
  },
});

export const orderWithdrawalRepeatAndActive = defineCheck({
  name: 'order-withdrawal-repeat-reserves-once-and-active-orders-are-refused',
  service: 'orders',
  rules: ['OA-OWD-023', 'OA-OWD-029', 'OA-OWD-004'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t, '0');
    const { orderId: active } = await createOrder(t, user, dcaRequest());
    const refused = await orderWithdraw(t, user, active);
    if (is2xx(refused)) abandonLater(t, user, active);
    const { order: after } = await orderDetail(t, user, active);
    t.expect('OA-OWD-023', refused.response.status >= 400 && refused.response.status < 500 && after.withdrawalStatus === 'none', {
      documented: 'a 4xx for an order-level withdraw on an active order, its withdrawalStatus still none', received: { ...failureOf(refused), withdrawalStatus: after.withdrawalStatus }, exchange: refused,
    });
    t.note(`order-level withdraw on an active order answered ${refused.response.status} ${String(errorCode(refused) ?? '')}`);
    const orderId = await cancelledOrder(t, user);
    const build = await orderWithdraw(t, user, orderId);
    builtTransaction(build, `POST /orders/${orderId}/withdraw`);
    abandonLater(t, user, orderId);
    const previewed = previewedAmount(dataOf(build)?.withdrawalAmounts, usdc());
    const repeat = await orderWithdraw(t, user, orderId);
    const { row, ex: balance } = await usdcRow(t, user);
    const pending = bucket(row, 'withdrawalPending');
    if (previewed === undefined) throw new SetupFailed(`no ${usdc()} amount in the preview ${JSON.stringify(dataOf(build)?.withdrawalAmounts)}: OA-OWD-003 judges it`, build);
    t.expect('OA-OWD-029', pending === previewed, {
      documented: `after a repeated build withdrawalPending of ${usdc()} is the previewed amount ${previewed}, counted once`, received: { repeat: failureOf(repeat), withdrawalPending: pending.toString() }, exchange: balance,
    });
    const conflict = repeat.response.status === 409 && ['WITHDRAWAL_IN_PROGRESS', 'WITHDRAWAL_IN_FLIGHT'].includes(String(errorCode(repeat)));
    t.expect('OA-OWD-004', conflict || (is2xx(repeat) && pending === previewed), {
      documented: `2xx with withdrawalPending reserved once (${previewed?.toString() ?? '?'}), or 409 WITHDRAWAL_IN_PROGRESS/IN_FLIGHT`,
      received: { ...failureOf(repeat), withdrawalPending: pending.toString() }, exchange: repeat,
    });
  },
});

export const withdrawalInProgressRefusal = defineCheck({
  name: 'a-withdrawal-in-progress-refusal-leaves-the-withdrawal-and-clears-after-abandon',
  service: 'orders',
  rules: ['OA-OWD-025'],
  profile: 'full',
  needs: ['funding', 'clock', 'faults'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t, '0');
    const { orderId } = await createOrder(t, user, dcaRequest());
    t.defer(() => t.control.setFaults({ swaps: 'ok' }));
    await t.control.setFaults({ swaps: 'fail' });
    // The first cycle may run at creation; the next one is due a cycle later and fails.
    await t.control.advanceClock(DCA_FREQUENCY);
    await t.control.setFaults({ swaps: 'ok' });
    const failed = (await orderDetail(t, user, orderId)).order;
    if (failed.status !== 'failed' || failed.withdrawalStatus !== 'none') {
      t.skip(`the order is ${String(failed.status)} with withdrawalStatus ${String(failed.withdrawalStatus)}: no failed order to hold a pending withdrawal`);
    }
    builtTransaction(await orderWithdraw(t, user, orderId), `POST /orders/${orderId}/withdraw`);
    abandonLater(t, user, orderId);
    const { order: pending } = await orderDetail(t, user, orderId);
    const reserved = (await usdcRow(t, user)).row.withdrawalPending;
    // The Errors table does not say which requests get the 409: retry of the failed order is the one tried here.
    const refused = await asUser(t, user.sub, { method: 'POST', path: `/orders/${orderId}/retry`, json: {}, retry: false });
    if (refused.response.status !== 409 || !['WITHDRAWAL_IN_PROGRESS', 'WITHDRAWAL_IN_FLIGHT'].includes(String(errorCode(refused)))) {
      t.skip(`retry with an order-level withdrawal pending answered ${refused.response.status} ${String(errorCode(refused))}, not 409 WITHDRAWAL_IN_PROGRESS/IN_FLIGHT: nothing to judge`);
    }
    const { order: kept, ex: detail } = await orderDetail(t, user, orderId);
    const { row } = await usdcRow(t, user);
    t.expect('OA-OWD-025', kept.status === pending.status && kept.withdrawalStatus === 'pending' && kept.withdrawalRequestedAt === pending.withdrawalRequestedAt &&
      row.withdrawalPending === reserved, {
      documented: `after the 409 the withdrawal is as it was: status ${String(pending.status)}, withdrawalStatus pending since ${String(pending.withdrawalRequestedAt)}, withdrawalPending ${String(reserved)}`,
      received: { status: kept.status, withdrawalStatus: kept.withdrawalStatus, withdrawalRequestedAt: kept.withdrawalRequestedAt, withdrawalPending: row.withdrawalPending }, exchange: detail,
    });
    const abandoned = await orderWithdraw(t, user, orderId, '/abandon');
    if (!is2xx(abandoned)) throw new SetupFailed(`POST /orders/${orderId}/withdraw/abandon answered ${abandoned.response.status}`, abandoned);
    const again = await asUser(t, user.sub, { method: 'POST', path: `/orders/${orderId}/retry`, json: {}, retry: false });
    t.expect('OA-OWD-025', is2xx(again), {
      documented: 'once the pending withdrawal is abandoned, the refused retry succeeds (2xx)', received: failureOf(again), exchange: again,
    });
  },
});
