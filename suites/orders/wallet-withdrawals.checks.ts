import { failureOf, is2xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { SetupFailed } from '../harness/failure.ts';
import { createOrder, dcaRequest, depositedTo, type Funded, intentUser, usdc } from './orders.ts';
import { bucket, type Row, totalBalanceOf, usdcRow } from './steps/balance.ts';
import { cancelledDca } from './steps/actions.ts';
import { rowBracket, unlockedRow, wholeUsdcLocked } from './steps/partner-balance.ts';
import { expectAccepted, expectError } from './steps/expect.ts';
import { othersBracket } from './steps/shared-wallet.ts';
import { confirmedBuild, sendWalletWithdrawal, walletWithdraw, withdrawUser } from './steps/withdrawals.ts';
import { asUser, throwawayWallet } from './users.ts';
import { JUP_MINT } from './mints.ts';

/**
 * Wallet-level withdrawals (area WDW: "Wallet-level withdrawals", Balance row): POST /withdraw/transaction builds a
 * transfer of what is available to the user's own wallet, POST /withdraw/confirm moves it out. The transaction's
 * place in the answer is assumed (UNKNOWNS.md O12, steps/withdrawals.ts); effects are read from GET /me/balance.
 */

/**
 * A user whose USDC is partly locked by an active DCA order and partly available (5 USDC); the available amount, and
 * the end of a bracket begun before it was read (steps/shared-wallet.ts: the partner's other orders did not move it).
 */
async function partlyLocked(t: CheckContext): Promise<{ user: Funded; available: bigint; settled: () => Promise<void> }> {
  const user = await withdrawUser(t);
  const { orderId } = await createOrder(t, user, dcaRequest());
  const settled = await othersBracket(t, user, [orderId]);
  const { row } = await usdcRow(t, user);
  const available = bucket(row, 'availableToWithdraw');
  if (available === 0n || available === bucket(row, 'totalBalance'))
    throw new SetupFailed(`expected an order lock and 5 USDC available, got ${JSON.stringify(row)}`);
  return { user, available, settled };
}

/**
 * A user whose whole USDC balance is locked by an active order (availableToWithdraw 0, total above 0), and the end of a
 * bracket begun when it was read (availableToWithdraw still 0 at its end): a fresh funded user's DCA order with
 * `funding`; else the partner's wallet, its manager's available USDC withdrawn first (steps/partner-balance.ts
 * wholeUsdcLocked).
 */
async function wholeBalanceLocked(t: CheckContext): Promise<{ user: Funded; settled: () => Promise<void> }> {
  const user = await withdrawUser(t, '0');
  if (t.control.has('funding')) {
    await createOrder(t, user, dcaRequest());
    const { row } = await usdcRow(t, user);
    if (bucket(row, 'availableToWithdraw') !== 0n) throw new SetupFailed(`expected the whole balance locked, got ${JSON.stringify(row)}`);
    return { user, settled: async () => {} };
  }
  const { created, settled } = await wholeUsdcLocked(t, user);
  t.note(`no funding capability: the partner's available ${usdc()} went back to its wallet; order ${created.orderId} locks the rest`);
  return { user, settled };
}

/**
 * A user with a balance of `mint` and nothing locked or pending on its row, and the end of a bracket on that row: a
 * fresh funded user's USDC with `funding`; else the partner's wallet, whose USDC the run's orders lock: a row of another
 * mint (steps/partner-balance.ts unlockedRow), unchanged until the bracket ends.
 */
async function nothingLocked(t: CheckContext): Promise<{ user: Funded; mint: string; row: Row; settled: () => Promise<void> }> {
  if (t.control.has('funding')) {
    const user = await withdrawUser(t);
    const { row, ex } = await usdcRow(t, user);
    if (bucket(row, 'lockedForFutureTxns') !== 0n || bucket(row, 'withdrawalPending') !== 0n)
      throw new SetupFailed('a fresh user with no order already has a lock on its USDC row', ex);
    return { user, mint: usdc(), row, settled: async () => {} };
  }
  const user = await intentUser(t, true);
  const { mint, row: found } = await unlockedRow(t, user);
  const { row = found, settled } = await rowBracket(t, user, mint, ['totalBalance', 'lockedForFutureTxns', 'withdrawalPending']);
  if (bucket(row, 'lockedForFutureTxns') !== 0n || bucket(row, 'withdrawalPending') !== 0n)
    t.skip(`the ${mint} row of the partner's manager was locked meanwhile: ${JSON.stringify(row)}; rerun it`);
  t.note(`no funding capability: the partner's manager's ${mint} row, with nothing locked or pending`);
  return { user, mint, row, settled };
}

export const walletWithdrawalMax = defineCheck({
  name: 'wallet-withdrawal-without-amount-builds-the-available-amount',
  service: 'orders',
  rules: ['OA-WDW-003'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, available, settled } = await partlyLocked(t);
    confirmedBuild(t, await walletWithdraw(t, user, { amount: '1000000' }), 'POST /withdraw/transaction of 1 USDC');
    const max = await walletWithdraw(t, user, {});
    await settled();
    const maxTx = is2xx(max) ? confirmedBuild(t, max, 'POST /withdraw/transaction without amount').tx : undefined;
    const paid = maxTx ? depositedTo(maxTx, user.userPubkey, usdc()).amount : undefined;
    t.expect('OA-WDW-003', paid === available, {
      documented: `without amount: 2xx and a transaction paying the whole availableToWithdraw (${available}) of ${usdc()} to ${user.userPubkey}`,
      received: is2xx(max) ? { paid: paid?.toString() ?? '(no transaction)' } : failureOf(max),
      exchange: max,
    });
  },
});

export const walletWithdrawalBuilds = defineCheck({
  name: 'wallet-withdrawal-of-the-available-amount-pays-the-user',
  service: 'orders',
  rules: ['OA-WDW-001', 'OA-WDW-002'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, available, settled } = await partlyLocked(t);
    const exact = await walletWithdraw(t, user, { amount: available.toString() });
    await settled();
    expectAccepted(t, 'OA-WDW-001', exact, `2xx for amount ${available} = availableToWithdraw`);
    const { tx } = confirmedBuild(t, exact, 'POST /withdraw/transaction');
    const toUser = depositedTo(tx, user.userPubkey, usdc());
    t.expect('OA-WDW-002', toUser.amount === available && toUser.recognised === 1, {
      documented: `one transfer of ${available} ${usdc()} to the user's external wallet ${user.userPubkey}`,
      received: { paidToUser: toUser.amount.toString(), transfers: toUser.recognised },
      exchange: exact,
    });
  },
});

export const walletWithdrawalConfirm = defineCheck({
  name: 'wallet-withdrawal-confirm-moves-the-amount-out',
  service: 'orders',
  rules: ['OA-WDW-004', 'OA-WDW-015'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await withdrawUser(t);
    const settled = await othersBracket(t, user);
    const before = bucket((await usdcRow(t, user)).row, 'totalBalance');
    const built = confirmedBuild(t, await walletWithdraw(t, user, { amount: '2000000' }), 'POST /withdraw/transaction');
    const ex = await sendWalletWithdrawal(t, user, built);
    const after = bucket((await usdcRow(t, user)).row, 'totalBalance');
    await settled();
    t.expect('OA-WDW-004', is2xx(ex) && after === before - 2_000_000n, {
      documented: `2xx, and totalBalance drops by 2000000 (from ${before})`,
      received: { ...failureOf(ex), totalBalanceAfter: after.toString() },
      exchange: ex,
    });
  },
});

export const walletWithdrawalEmptyMint = defineCheck({
  name: 'wallet-withdrawal-of-a-mint-never-held-is-insufficient-available',
  service: 'orders',
  rules: ['OA-WDW-005'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await withdrawUser(t, '0');
    // The partner's manager (no `funding`) holds USDC: JUP, a mint the suite never deposits nor buys, stands in.
    const mint = t.control.has('funding') ? usdc() : JUP_MINT;
    if (mint !== usdc()) {
      const { total } = await totalBalanceOf(t, user, mint);
      if (total !== 0n) t.skip(`the partner's manager holds ${total} of ${mint}: no mint it never held to withdraw`);
    }
    const ex = await walletWithdraw(t, user, mint === usdc() ? {} : { tokenMint: mint });
    expectError(t, 'OA-WDW-005', ex, {
      status: 400,
      codes: ['INSUFFICIENT_AVAILABLE'],
      documented: `400 INSUFFICIENT_AVAILABLE: the manager holds no ${mint}`,
    });
  },
});

export const walletWithdrawalAllLocked = defineCheck({
  name: 'wallet-withdrawal-max-with-everything-locked-is-insufficient-available',
  service: 'orders',
  rules: ['OA-WDW-006'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, settled } = await wholeBalanceLocked(t);
    const ex = await walletWithdraw(t, user, {});
    await settled();
    expectError(t, 'OA-WDW-006', ex, {
      status: 400,
      codes: ['INSUFFICIENT_AVAILABLE'],
      documented: '400 INSUFFICIENT_AVAILABLE: the whole balance is locked by an active order',
    });
  },
});

export const walletWithdrawalFundsLocked = defineCheck({
  name: 'wallet-withdrawal-above-available-is-funds-locked-with-the-breakdown',
  service: 'orders',
  rules: ['OA-WDW-007', 'OA-WDW-008'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await withdrawUser(t);
    const { orderId } = await createOrder(t, user, dcaRequest());
    const settled = await othersBracket(t, user, [orderId]);
    const { row } = await usdcRow(t, user);
    const amount = bucket(row, 'availableToWithdraw') + 1n;
    if (amount > bucket(row, 'totalBalance')) throw new SetupFailed(`expected available below total, got ${JSON.stringify(row)}`);
    const ex = await walletWithdraw(t, user, { amount: amount.toString() });
    await settled();
    expectError(t, 'OA-WDW-007', ex, {
      status: 400,
      codes: ['FUNDS_LOCKED'],
      documented: `400 FUNDS_LOCKED for ${amount}: above availableToWithdraw, within totalBalance ${String(row.totalBalance)}`,
    });
    const details = (ex.response.body as { error?: { details?: unknown } }).error?.details;
    t.expect('OA-WDW-008', JSON.stringify(details ?? null).includes(orderId), {
      documented: `error.details carries the lock breakdown (naming the locking order ${orderId})`,
      received: details ?? '(no details)',
      exchange: ex,
    });
  },
});

export const walletWithdrawalForeignKey = defineCheck({
  name: 'wallet-withdrawal-never-pays-a-foreign-key',
  service: 'orders',
  rules: ['OA-WDW-011'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await withdrawUser(t);
    const foreign = throwawayWallet().publicKey.toBase58();
    const ex = await walletWithdraw(t, user, { userPubkey: foreign });
    const tx = is2xx(ex) ? confirmedBuild(t, ex, 'POST /withdraw/transaction (a foreign userPubkey)').tx : undefined;
    const ok =
      (ex.response.status >= 400 && ex.response.status < 500) ||
      (tx !== undefined && depositedTo(tx, foreign, usdc()).amount === 0n && depositedTo(tx, user.userPubkey, usdc()).amount > 0n);
    t.expect('OA-WDW-011', ok, {
      documented: `a 4xx, or a transaction paying the onboarded wallet ${user.userPubkey} and nothing to ${foreign}`,
      received: tx ? { paidToForeign: depositedTo(tx, foreign, usdc()).amount.toString() } : failureOf(ex),
      exchange: ex,
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
    expectError(t, 'OA-WDW-012', ex, { status: 400, codes: ['VALIDATION_ERROR'], documented: '400 VALIDATION_ERROR without tokenMint' });
  },
});

export const walletWithdrawalInvalidTransaction = defineCheck({
  name: 'wallet-withdrawal-confirm-of-garbage-is-invalid-transaction',
  service: 'orders',
  rules: ['OA-WDW-013'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    const ex = await asUser(t, user.sub, {
      method: 'POST',
      path: '/withdraw/confirm',
      json: { signedTransaction: Buffer.from('not a transaction').toString('base64') },
    });
    expectError(t, 'OA-WDW-013', ex, {
      status: 400,
      codes: ['INVALID_TRANSACTION'],
      documented: '400 INVALID_TRANSACTION for base64 that is no transaction',
    });
  },
});

export const walletWithdrawalAboveTheBalanceUnlocked = defineCheck({
  name: 'wallet-withdrawal-above-the-balance-with-nothing-locked-is-insufficient-balance',
  service: 'orders',
  rules: ['OA-WDW-016'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, mint, row, settled } = await nothingLocked(t);
    const total = bucket(row, 'totalBalance');
    const ex = await walletWithdraw(t, user, { tokenMint: mint, amount: (total + 1n).toString() });
    await settled();
    expectError(t, 'OA-WDW-016', ex, {
      status: 400,
      codes: ['INSUFFICIENT_BALANCE'],
      documented: `400 INSUFFICIENT_BALANCE for ${total + 1n} of ${mint}, above totalBalance ${total}, with nothing locked`,
    });
  },
});

export const walletWithdrawalOverlappingErrors = defineCheck({
  name: 'wallet-withdrawal-overlapping-errors-answer-a-matching-code',
  service: 'orders',
  rules: ['OA-WDW-010', 'OA-WDW-009'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, settled } = await wholeBalanceLocked(t);
    const locked = await walletWithdraw(t, user, { amount: '1' });
    await settled();
    expectError(t, 'OA-WDW-010', locked, {
      status: 400,
      codes: ['INSUFFICIENT_AVAILABLE', 'FUNDS_LOCKED'],
      documented: '400 INSUFFICIENT_AVAILABLE or FUNDS_LOCKED for amount 1 while availableToWithdraw is 0',
    });
    // Above the balance with some of it available: funded through the control API, else a DCA order cancelled without withdrawal.
    if (t.control.has('funding')) await t.control.fund(user.walletAddress, usdc(), '5000000');
    else await cancelledDca(t, user);
    const { row, settled: settledAbove } = await rowBracket(t, user, usdc(), ['totalBalance']);
    if (!row) throw new SetupFailed(`GET /me/balance has no ${usdc()} row`);
    const total = bucket(row, 'totalBalance');
    const above = await walletWithdraw(t, user, { amount: (total + 1n).toString() });
    await settledAbove();
    expectError(t, 'OA-WDW-009', above, {
      status: 400,
      codes: ['INSUFFICIENT_BALANCE', 'FUNDS_LOCKED'],
      documented: `400 INSUFFICIENT_BALANCE or FUNDS_LOCKED for ${total + 1n}, above totalBalance ${total}`,
    });
  },
});
