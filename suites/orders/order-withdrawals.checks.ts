import { Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { dataOf, errorCode, failureOf, is2xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed } from '../harness/failure.ts';
import {
  atOnce,
  createOrder,
  dcaRequest,
  depositedTo,
  type Funded,
  INT,
  intentRequest,
  intentUser,
  NATIVE_MINT,
  signedWithdrawal,
  usdc,
} from './orders.ts';
import { isObject } from '../shared/values.ts';
import { cancelledDca, failedDca } from './steps/actions.ts';
import { bucket, totalBalanceOf, usdcRow } from './steps/balance.ts';
import { realSignature } from './steps/blackbox.ts';
import { expectAccepted, expectError } from './steps/expect.ts';
import { cancelledUsdtDca, rowBracket, usdt, withdrawAvailable } from './steps/partner-balance.ts';
import { othersBracket } from './steps/shared-wallet.ts';
import {
  abandonLater,
  confirmedBuild,
  drainManager,
  expectAlreadyWithdrawn,
  orderDetail,
  orderWithdraw,
  pendingOrderWithdrawal,
  previewedAmount,
  withdrawableOrder,
  withdrawUser,
} from './steps/withdrawals.ts';
import { asUser } from './users.ts';

/**
 * Order-level withdrawals (area OWD: "Order-level withdrawals", "States and transitions", Balance row): the build, its
 * confirm and abandon, the stuck lock, and the automatic return of a failed or expired order's funds. Terminal orders
 * to withdraw from are DCA orders cancelled with `{withdraw: false}`; a target that does not serve cancel skips those
 * checks. The transaction's place and the confirm body are assumed (UNKNOWNS.md O12, steps/withdrawals.ts).
 */

/** "Clears by itself within about 8 minutes": judged after 9. */
const STUCK_LOCK_SECONDS = 9 * 60;
/** ASSUMED: the automatic return "runs by itself" within a day of the failure (the document gives no delay). */
const AUTO_RETURN_SECONDS = 24 * 60 * 60;

/**
 * The user's withdrawalPending of USDC before a check's build: 0 for a fresh user (funding); the partner's user may hold
 * another order's pending withdrawal, so the checks judge what their own build adds and its release back to this.
 */
async function pendingBefore(t: CheckContext, user: Funded): Promise<bigint> {
  return bucket((await usdcRow(t, user)).row, 'withdrawalPending');
}

export const orderWithdrawalBuild = defineCheck({
  name: 'order-withdrawal-build-previews-marks-pending-and-reserves',
  service: 'orders',
  rules: ['OA-OWD-010', 'OA-OWD-001', 'OA-OWD-002', 'OA-OWD-003', 'OA-BAL-007'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, orderId } = await withdrawableOrder(t);
    const { order: untouched, ex: first } = await orderDetail(t, user, orderId);
    t.expect(
      'OA-OWD-010',
      untouched.withdrawalStatus !== 'none' || (untouched.withdrawalRequestedAt === null && untouched.withdrawalCompletedAt === null),
      {
        documented: 'withdrawalRequestedAt and withdrawalCompletedAt null while withdrawalStatus is none',
        received: {
          withdrawalStatus: untouched.withdrawalStatus,
          withdrawalRequestedAt: untouched.withdrawalRequestedAt,
          withdrawalCompletedAt: untouched.withdrawalCompletedAt,
        },
        exchange: first,
      },
    );
    const before = bucket((await usdcRow(t, user)).row, 'withdrawalPending');
    const ex = await orderWithdraw(t, user, orderId);
    if (is2xx(ex)) abandonLater(t, user, orderId);
    const preview = dataOf(ex)?.withdrawalAmounts;
    t.expect('OA-OWD-001', is2xx(ex) && (Array.isArray(preview) || isObject(preview)), {
      documented: '2xx with data.withdrawalAmounts, a per-mint preview (object or array)',
      received: is2xx(ex) ? dataOf(ex) : failureOf(ex),
      exchange: ex,
    });
    const { order, ex: detail } = await orderDetail(t, user, orderId);
    t.expect('OA-OWD-002', order.withdrawalStatus === 'pending' && typeof order.withdrawalRequestedAt === 'string', {
      documented: 'withdrawalStatus pending and withdrawalRequestedAt set after the build',
      received: { withdrawalStatus: order.withdrawalStatus, withdrawalRequestedAt: order.withdrawalRequestedAt },
      exchange: detail,
    });
    t.expect('OA-OWD-010', order.withdrawalStatus !== 'pending' || order.withdrawalCompletedAt === null, {
      documented: 'withdrawalCompletedAt null while withdrawalStatus is pending',
      received: order.withdrawalCompletedAt,
      exchange: detail,
    });
    const { row, ex: balance } = await usdcRow(t, user);
    const previewed = previewedAmount(preview, usdc());
    t.expect('OA-OWD-003', previewed !== undefined && bucket(row, 'withdrawalPending') === before + previewed, {
      documented: `withdrawalPending of ${usdc()} rises by its previewed amount (${previewed?.toString() ?? 'not found in the preview'}) from ${before}`,
      received: row.withdrawalPending,
      exchange: balance,
    });
    const [total, locked, pending] = ['totalBalance', 'lockedForFutureTxns', 'withdrawalPending'].map((name) => bucket(row, name)) as [
      bigint,
      bigint,
      bigint,
    ];
    const expected = total - locked - pending > 0n ? total - locked - pending : 0n;
    t.expect('OA-BAL-007', bucket(row, 'availableToWithdraw') === expected, {
      documented: `availableToWithdraw = max(${total} - ${locked} - ${pending}, 0) = ${expected} while the withdrawal is pending`,
      received: row.availableToWithdraw,
      exchange: balance,
    });
  },
});

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
  async run(t: CheckContext) {
    const { user, orderId } = await withdrawableOrder(t);
    const { order } = await orderDetail(t, user, orderId);
    const { tx, ex: build } = await pendingOrderWithdrawal(t, user, orderId);
    const { transfers, elsewhere } = transfersOf(tx, user.userPubkey, [String(order.inputMint), String(order.outputMint)]);
    t.expect('OA-OWD-028', transfers > 0 && elsewhere === 0, {
      documented: `the order-level withdrawal transaction transfers the order's funds, every transfer to the user's wallet ${user.userPubkey}`,
      received: { transfers, toAnotherKey: elsewhere },
      exchange: build,
    });
  },
});

export const concurrentOrderWithdrawalBuilds = defineCheck({
  name: 'three-order-withdrawal-builds-at-once-reserve-once',
  service: 'orders',
  rules: ['OA-OWD-030'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, orderId } = await withdrawableOrder(t);
    const before = await pendingBefore(t, user);
    const answers = await Promise.all([0, 1, 2].map(() => orderWithdraw(t, user, orderId)));
    abandonLater(t, user, orderId);
    const built = answers.find(is2xx);
    const previewed = built && previewedAmount(dataOf(built)?.withdrawalAmounts, usdc());
    const { row, ex } = await usdcRow(t, user);
    const conflict = (answer: Exchange) =>
      answer.response.status === 409 && ['WITHDRAWAL_IN_PROGRESS', 'WITHDRAWAL_IN_FLIGHT'].includes(String(errorCode(answer)));
    t.expect(
      'OA-OWD-030',
      answers.every((answer) => is2xx(answer) || conflict(answer)) &&
        previewed !== undefined &&
        bucket(row, 'withdrawalPending') === before + previewed,
      {
        documented: `each build 2xx or 409 WITHDRAWAL_IN_PROGRESS/IN_FLIGHT, and withdrawalPending of ${usdc()} up by the previewed amount (${previewed?.toString() ?? 'no 2xx preview'}) from ${before}, counted once`,
        received: {
          answers: answers.map((answer) => ({ status: answer.response.status, code: errorCode(answer) ?? '(none)' })),
          withdrawalPending: row.withdrawalPending,
        },
        exchange: answers.find((answer) => !is2xx(answer) && !conflict(answer)) ?? ex,
      },
    );
  },
});

export const orderWithdrawalConfirm = defineCheck({
  name: 'order-withdrawal-confirm-completes-with-the-signature-and-releases',
  service: 'orders',
  rules: ['OA-OWD-005', 'OA-OWD-006', 'OA-OWD-007', 'OA-OWD-017', 'OA-OWD-031'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, orderId } = await withdrawableOrder(t);
    const before = await pendingBefore(t, user);
    const built = confirmedBuild(t, await orderWithdraw(t, user, orderId), `POST /orders/${orderId}/withdraw`);
    abandonLater(t, user, orderId);
    const signedTx = signedWithdrawal(built, user);
    const confirm = await asUser(t, user.sub, {
      method: 'POST',
      path: `/orders/${orderId}/withdraw/confirm`,
      json: { signedTransaction: signedTx },
    });
    if (confirm.response.status === 400 && ['VALIDATION_ERROR', 'BAD_REQUEST', 'MISSING_PARAMS'].includes(String(errorCode(confirm)))) {
      t.rejectAssumption(
        'order-withdrawal-confirm',
        `the target rejects the assumed order-level confirm body {signedTransaction} (UNKNOWNS.md O12) with 400 ${String(errorCode(confirm))}: ${JSON.stringify(confirm.response.body).slice(0, 300)}`,
      );
    }
    if (is2xx(confirm)) t.confirm('order-withdrawal-confirm');
    if (!is2xx(confirm))
      throw new SetupFailed(
        `POST /orders/${orderId}/withdraw/confirm answered ${confirm.response.status} ${JSON.stringify(confirm.response.body).slice(0, 300)}`,
        confirm,
      );
    const { order, ex: detail } = await orderDetail(t, user, orderId);
    t.expect('OA-OWD-005', order.withdrawalStatus === 'completed' && typeof order.withdrawalCompletedAt === 'string', {
      documented: 'withdrawalStatus completed and withdrawalCompletedAt set after the confirm',
      received: { withdrawalStatus: order.withdrawalStatus, withdrawalCompletedAt: order.withdrawalCompletedAt },
      exchange: detail,
    });
    const tx = Transaction.from(Buffer.from(signedTx, 'base64'));
    const userSignature = tx.signatures.find((entry) => entry.publicKey.toBase58() === user.userPubkey)?.signature;
    const userPaysFee = tx.feePayer?.toBase58() === user.userPubkey && userSignature;
    t.expect('OA-OWD-006', userPaysFee ? order.withdrawalTxHash === bs58.encode(userSignature) : realSignature(order.withdrawalTxHash), {
      documented: userPaysFee
        ? `withdrawalTxHash is the transaction's signature ${bs58.encode(userSignature)}`
        : 'withdrawalTxHash a signature (the fee payer is not the user: its signature is not known to the suite)',
      received: order.withdrawalTxHash,
      exchange: detail,
    });
    const { row, ex: balance } = await usdcRow(t, user);
    t.expect('OA-OWD-007', bucket(row, 'withdrawalPending') === before, {
      documented: `withdrawalPending released (back to ${before}, its value before the build) after the confirm`,
      received: row.withdrawalPending,
      exchange: balance,
    });
    await expectAlreadyWithdrawn(t, 'OA-OWD-017', user, orderId, 'the completed withdrawal');
  },
});

export const orderWithdrawalAbandon = defineCheck({
  name: 'order-withdrawal-abandon-releases-is-idempotent-and-allows-a-new-build',
  service: 'orders',
  rules: ['OA-OWD-011', 'OA-OWD-013', 'OA-OWD-012'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, orderId } = await withdrawableOrder(t);
    const before = await pendingBefore(t, user);
    await pendingOrderWithdrawal(t, user, orderId);
    const first = await orderWithdraw(t, user, orderId, '/abandon');
    const { row, ex: balance } = await usdcRow(t, user);
    t.expect('OA-OWD-011', is2xx(first) && bucket(row, 'withdrawalPending') === before, {
      documented: `2xx, and withdrawalPending released (back to ${before}, its value before the build)`,
      received: { ...failureOf(first), withdrawalPending: row.withdrawalPending },
      exchange: is2xx(first) ? balance : first,
    });
    const second = await orderWithdraw(t, user, orderId, '/abandon');
    expectAccepted(t, 'OA-OWD-013', second, 'a repeated abandon answers 2xx (idempotent)');
    t.note(
      `withdrawalStatus after abandon (not stated, OA-OWD-014): ${String((await orderDetail(t, user, orderId)).order.withdrawalStatus)}`,
    );
    const rebuilt = await orderWithdraw(t, user, orderId);
    expectAccepted(t, 'OA-OWD-012', rebuilt, '2xx for a fresh build after abandon');
  },
});

export const nothingToWithdraw = defineCheck({
  name: 'order-withdrawal-after-the-funds-left-is-nothing-to-withdraw',
  service: 'orders',
  rules: ['OA-OWD-016'],
  profile: 'full',
  async run(t: CheckContext) {
    if (!t.control.has('funding')) return await nothingLeftOfItsMint(t);
    const { user, orderId } = await withdrawableOrder(t);
    await drainManager(t, user);
    const ex = await orderWithdraw(t, user, orderId);
    if (is2xx(ex)) abandonLater(t, user, orderId);
    expectNothingToWithdraw(t, ex);
  },
});

function expectNothingToWithdraw(t: CheckContext, ex: Exchange): void {
  expectError(t, 'OA-OWD-016', ex, {
    status: 400,
    codes: ['NOTHING_TO_WITHDRAW'],
    documented: '400 NOTHING_TO_WITHDRAW: a wallet-level withdrawal took everything the cancelled order left in the manager',
  });
}

/**
 * OA-OWD-016 without `funding`: the manager is the partner's, whose USDC other orders lock, and a service may count what
 * the manager holds of a mint, locked or not, as what a terminal order of that mint can still be paid: only a mint the
 * manager holds nothing of is certain. So the order is a DCA order of USDT (no other check deposits it), cancelled; its
 * build previews what it holds (abandoned at once), its USDT goes back to the wallet at wallet level (never the native
 * asset, whose fee lamports may pay the executions of the wallet's other orders: a preview naming native skips), and
 * the build is judged while the manager holds no USDT (steps/partner-balance.ts rowBracket).
 */
async function nothingLeftOfItsMint(t: CheckContext): Promise<void> {
  const user = await intentUser(t, true);
  const { orderId } = await cancelledUsdtDca(t, user);
  const preview = await orderWithdraw(t, user, orderId);
  if (!is2xx(preview))
    throw new SetupFailed(`POST /orders/${orderId}/withdraw of a cancelled order answered ${preview.response.status}`, preview);
  const abandon = await orderWithdraw(t, user, orderId, '/abandon');
  if (!is2xx(abandon)) throw new SetupFailed(`POST /orders/${orderId}/withdraw/abandon answered ${abandon.response.status}`, abandon);
  const amounts = dataOf(preview)?.withdrawalAmounts;
  if ((previewedAmount(amounts, NATIVE_MINT) ?? 0n) > 0n)
    t.skip(
      `the order's preview names the native asset (${JSON.stringify(amounts)}): withdrawing the partner's manager's native balance could starve its other orders' fees; the funding capability judges this`,
    );
  t.note(`no funding capability: the partner's ${usdt()} goes back to its wallet at wallet level`);
  await withdrawAvailable(t, user, usdt());
  const { row, settled } = await rowBracket(t, user, usdt(), ['totalBalance']);
  if (row !== undefined && row.totalBalance !== '0')
    t.skip(
      `the partner's manager still holds ${String(row.totalBalance)} of ${usdt()} (another order locks it): no mint it holds nothing of`,
    );
  const ex = await orderWithdraw(t, user, orderId);
  await settled();
  if (is2xx(ex)) abandonLater(t, user, orderId);
  expectNothingToWithdraw(t, ex);
}

export const concurrentOrderWithdrawalConfirms = defineCheck({
  name: 'two-order-withdrawal-confirms-at-once-have-one-effect',
  service: 'orders',
  rules: ['OA-OWD-026'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, orderId } = await withdrawableOrder(t);
    const built = await pendingOrderWithdrawal(t, user, orderId);
    const build = built.ex;
    const expected = previewedAmount(dataOf(build)?.withdrawalAmounts, usdc());
    if (expected === undefined)
      throw new SetupFailed(`no ${usdc()} amount in the preview ${JSON.stringify(dataOf(build)?.withdrawalAmounts)}`, build);
    const settled = await othersBracket(t, user, [orderId]);
    const before = bucket((await usdcRow(t, user)).row, 'totalBalance');
    const body = { signedTransaction: signedWithdrawal(built, user) };
    const answers = await Promise.all(
      [0, 1].map(() => asUser(t, user.sub, { method: 'POST', path: `/orders/${orderId}/withdraw/confirm`, json: body })),
    );
    const after = bucket((await usdcRow(t, user)).row, 'totalBalance');
    await settled();
    const losers = answers.filter((ex) => !is2xx(ex));
    const documented = (ex: Exchange) =>
      (ex.response.status === 400 && ['ALREADY_WITHDRAWN', 'INVALID_STATE'].includes(String(errorCode(ex)))) ||
      (ex.response.status === 409 && ['WITHDRAWAL_IN_PROGRESS', 'WITHDRAWAL_IN_FLIGHT'].includes(String(errorCode(ex))));
    t.expect('OA-OWD-026', losers.length === 1 && documented(losers[0]!) && after === before - expected, {
      documented: `one 2xx, the other 400 ALREADY_WITHDRAWN/INVALID_STATE or 409 WITHDRAWAL_IN_PROGRESS/IN_FLIGHT, and totalBalance down by ${expected} once (from ${before})`,
      received: {
        answers: answers.map((ex) => ({ status: ex.response.status, code: errorCode(ex) ?? '(none)' })),
        totalBalanceAfter: after.toString(),
      },
      exchange: losers[0] ?? answers[1],
    });
  },
});

export const orderWithdrawalStuckLock = defineCheck({
  name: 'order-withdrawal-stuck-lock-clears-within-about-8-minutes',
  service: 'orders',
  rules: ['OA-OWD-015'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock'],
  async run(t: CheckContext) {
    const { user, orderId } = await withdrawableOrder(t);
    await pendingOrderWithdrawal(t, user, orderId);
    await t.control.advanceClock(STUCK_LOCK_SECONDS);
    const { row, ex } = await usdcRow(t, user);
    t.expect('OA-OWD-015', bucket(row, 'withdrawalPending') === 0n, {
      documented: `withdrawalPending released ${STUCK_LOCK_SECONDS / 60} minutes after an unconfirmed build`,
      received: row.withdrawalPending,
      exchange: ex,
    });
  },
});

export const orderWithdrawalInvalidTransaction = defineCheck({
  name: 'order-withdrawal-confirm-of-garbage-is-invalid-transaction',
  service: 'orders',
  rules: ['OA-OWD-024'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, orderId } = await withdrawableOrder(t);
    await pendingOrderWithdrawal(t, user, orderId);
    const ex = await asUser(t, user.sub, {
      method: 'POST',
      path: `/orders/${orderId}/withdraw/confirm`,
      json: { signedTransaction: Buffer.from('not a transaction').toString('base64') },
    });
    expectError(t, 'OA-OWD-024', ex, {
      status: 400,
      codes: ['INVALID_TRANSACTION'],
      documented: '400 INVALID_TRANSACTION for base64 that is no transaction',
    });
  },
});

export const automaticReturnOfAFailedOrder = defineCheck({
  name: 'failed-order-funds-are-returned-automatically',
  service: 'orders',
  rules: ['OA-OWD-018', 'OA-OWD-021', 'OA-OWD-020'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock', 'faults'],
  async run(t: CheckContext) {
    const {
      user,
      created: { orderId },
    } = await failedDca(t, { returned: true });
    await t.control.advanceClock(AUTO_RETURN_SECONDS);
    const { order, ex } = await orderDetail(t, user, orderId);
    t.expect('OA-OWD-018', order.withdrawalStatus === 'completed', {
      documented: `withdrawalStatus completed (the automatic return ran within ${AUTO_RETURN_SECONDS / 3600} hours of the failure)`,
      received: order.withdrawalStatus,
      exchange: ex,
    });
    t.expect('OA-OWD-021', realSignature(order.withdrawalTxHash), {
      documented: 'withdrawalTxHash a real signature (base58 of 64 bytes, not all zero): the deposit was returned',
      received: order.withdrawalTxHash,
      exchange: ex,
    });
    await expectAlreadyWithdrawn(t, 'OA-OWD-020', user, orderId, 'the automatic return');
  },
});

export const emptyAutomaticReturn = defineCheck({
  name: 'automatic-return-with-nothing-to-send-has-no-tx-hash',
  service: 'orders',
  rules: ['OA-OWD-022'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock', 'faults'],
  async run(t: CheckContext) {
    const {
      user,
      created: { orderId },
    } = await failedDca(t);
    await drainManager(t, user);
    await t.control.advanceClock(AUTO_RETURN_SECONDS);
    const { order, ex } = await orderDetail(t, user, orderId);
    if (order.withdrawalStatus !== 'completed')
      t.skip(`withdrawalStatus ${String(order.withdrawalStatus)}: the automatic return has not run`);
    t.expect('OA-OWD-022', order.withdrawalTxHash === null, {
      documented: 'withdrawalTxHash null: the automatic return found nothing to send (a wallet-level withdrawal took it first)',
      received: order.withdrawalTxHash,
      exchange: ex,
    });
  },
});

export const automaticReturnOfAnExpiredTrigger = defineCheck({
  name: 'expired-trigger-order-funds-are-returned-automatically',
  service: 'orders',
  rules: ['OA-OWD-019', 'OA-OWD-021', 'OA-OWD-027'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock'],
  async run(t: CheckContext) {
    // The user and the clock's time at once (the clock only moves forward: the advance below still passes expiresAt).
    const [user, now] = await atOnce(
      t,
      () => withdrawUser(t, '0'),
      () => t.control.clock(),
    );
    const expiresAt = Math.floor(Date.parse(now) / 1000) + 3600;
    const { orderId, intent } = await createOrder(t, user, intentRequest('stop_loss', { config: { expiresAt } }));
    const inputMint = String(intent.data.inputMint);
    const { total: before } = await totalBalanceOf(t, user, inputMint);
    await t.control.advanceClock(3601);
    const ex = await asUser(t, user.sub, { path: `/stop-loss/${orderId}` });
    const order = dataOf(ex);
    if (order?.status !== 'expired')
      t.skip(`the stop_loss order is ${String(order?.status)}, not expired, a second after its expiresAt: its return cannot be observed`);
    t.expect('OA-OWD-019', order?.withdrawalStatus === 'completed', {
      documented: 'withdrawalStatus completed once the trigger order expired (auto-return fires at expiry)',
      received: order?.withdrawalStatus,
      exchange: ex,
    });
    // The unfired order still held its whole amount in the manager: the return sent something.
    t.expect('OA-OWD-021', realSignature(order?.withdrawalTxHash), {
      documented: `withdrawalTxHash a real signature (base58 of 64 bytes, not all zero): the order's amount ${String(order?.amount)} was returned`,
      received: order?.withdrawalTxHash,
      exchange: ex,
    });
    const amount = INT.test(String(order?.amount)) ? BigInt(String(order?.amount)) : undefined;
    if (amount === undefined) throw new SetupFailed(`the stop_loss has no integer amount: ${String(order?.amount)}`, ex);
    const { total: after, ex: balance } = await totalBalanceOf(t, user, inputMint);
    t.expect('OA-OWD-027', after === before - amount, {
      documented: `the returned funds left the manager: totalBalance of ${inputMint} drops by the order's amount ${amount} (from ${before})`,
      received: { totalBalanceAfter: after.toString() },
      exchange: balance,
    });
  },
});

export const orderWithdrawalRepeatAndActive = defineCheck({
  name: 'order-withdrawal-repeat-reserves-once-and-active-orders-are-refused',
  service: 'orders',
  rules: ['OA-OWD-023', 'OA-OWD-029', 'OA-OWD-004'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await withdrawUser(t, '0');
    const { orderId: active } = await createOrder(t, user, dcaRequest());
    const refused = await orderWithdraw(t, user, active);
    if (is2xx(refused)) abandonLater(t, user, active);
    const { order: after } = await orderDetail(t, user, active);
    t.expect('OA-OWD-023', refused.response.status >= 400 && refused.response.status < 500 && after.withdrawalStatus === 'none', {
      documented: 'a 4xx for an order-level withdraw on an active order, its withdrawalStatus still none',
      received: { ...failureOf(refused), withdrawalStatus: after.withdrawalStatus },
      exchange: refused,
    });
    t.note(`order-level withdraw on an active order answered ${refused.response.status} ${String(errorCode(refused) ?? '')}`);
    const { orderId } = await cancelledDca(t, user);
    const before = await pendingBefore(t, user);
    const { ex: build } = await pendingOrderWithdrawal(t, user, orderId);
    const previewed = previewedAmount(dataOf(build)?.withdrawalAmounts, usdc());
    const repeat = await orderWithdraw(t, user, orderId);
    const { row, ex: balance } = await usdcRow(t, user);
    const pending = bucket(row, 'withdrawalPending') - before;
    if (previewed === undefined)
      throw new SetupFailed(
        `no ${usdc()} amount in the preview ${JSON.stringify(dataOf(build)?.withdrawalAmounts)}: OA-OWD-003 judges it`,
        build,
      );
    t.expect('OA-OWD-029', pending === previewed, {
      documented: `after a repeated build withdrawalPending of ${usdc()} is up by the previewed amount ${previewed} from ${before}, counted once`,
      received: { repeat: failureOf(repeat), withdrawalPending: pending.toString() },
      exchange: balance,
    });
    const conflict =
      repeat.response.status === 409 && ['WITHDRAWAL_IN_PROGRESS', 'WITHDRAWAL_IN_FLIGHT'].includes(String(errorCode(repeat)));
    t.expect('OA-OWD-004', conflict || (is2xx(repeat) && pending === previewed), {
      documented: `2xx with withdrawalPending reserved once (${previewed?.toString() ?? '?'}), or 409 WITHDRAWAL_IN_PROGRESS/IN_FLIGHT`,
      received: { ...failureOf(repeat), withdrawalPending: pending.toString() },
      exchange: repeat,
    });
  },
});

export const withdrawalInProgressRefusal = defineCheck({
  name: 'a-withdrawal-in-progress-refusal-leaves-the-withdrawal-and-clears-after-abandon',
  service: 'orders',
  rules: ['OA-OWD-025'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock', 'faults'],
  async run(t: CheckContext) {
    const {
      user,
      created: { orderId },
    } = await failedDca(t);
    await pendingOrderWithdrawal(t, user, orderId);
    // The order and the balance, each read at once (two reads after the same step).
    const [{ order: pending }, before] = await atOnce(
      t,
      () => orderDetail(t, user, orderId),
      () => usdcRow(t, user),
    );
    const reserved = before.row.withdrawalPending;
    // The Errors table does not say which requests get the 409: retry of the failed order is the one tried here.
    const refused = await asUser(t, user.sub, { method: 'POST', path: `/orders/${orderId}/retry`, json: {}, retry: false });
    if (refused.response.status !== 409 || !['WITHDRAWAL_IN_PROGRESS', 'WITHDRAWAL_IN_FLIGHT'].includes(String(errorCode(refused)))) {
      t.skip(
        `retry with an order-level withdrawal pending answered ${refused.response.status} ${String(errorCode(refused))}, not 409 WITHDRAWAL_IN_PROGRESS/IN_FLIGHT: nothing to judge`,
      );
    }
    const [{ order: kept, ex: detail }, { row }] = await atOnce(
      t,
      () => orderDetail(t, user, orderId),
      () => usdcRow(t, user),
    );
    t.expect(
      'OA-OWD-025',
      kept.status === pending.status &&
        kept.withdrawalStatus === 'pending' &&
        kept.withdrawalRequestedAt === pending.withdrawalRequestedAt &&
        row.withdrawalPending === reserved,
      {
        documented: `after the 409 the withdrawal is as it was: status ${String(pending.status)}, withdrawalStatus pending since ${String(pending.withdrawalRequestedAt)}, withdrawalPending ${String(reserved)}`,
        received: {
          status: kept.status,
          withdrawalStatus: kept.withdrawalStatus,
          withdrawalRequestedAt: kept.withdrawalRequestedAt,
          withdrawalPending: row.withdrawalPending,
        },
        exchange: detail,
      },
    );
    const abandoned = await orderWithdraw(t, user, orderId, '/abandon');
    if (!is2xx(abandoned))
      throw new SetupFailed(`POST /orders/${orderId}/withdraw/abandon answered ${abandoned.response.status}`, abandoned);
    const again = await asUser(t, user.sub, { method: 'POST', path: `/orders/${orderId}/retry`, json: {}, retry: false });
    expectAccepted(t, 'OA-OWD-025', again, 'once the pending withdrawal is abandoned, the refused retry succeeds (2xx)');
  },
});
