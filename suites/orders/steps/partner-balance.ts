import { dataOf, is2xx } from '../../harness/answers.ts';
import type { CheckContext } from '../../harness/check.ts';
import { SetupFailed } from '../../harness/failure.ts';
import { isObject } from '../../shared/values.ts';
import { SIGNATURE_LAMPORTS, spendLamports } from '../lamports.ts';
import { USDT_MINT } from '../mints.ts';
import { type Created, createOrder, type Funded, intentRequest, usdc } from '../orders.ts';
import { asUser, onboardedUser, type OnboardedUser, partnerWalletOf, testWallet, unfundedWallet } from '../users.ts';
import { act } from './actions.ts';
import { balanceRow, bucket, type Row } from './balance.ts';
import { othersBracket } from './shared-wallet.ts';
import { confirmedBuild, confirmWalletWithdrawal, walletWithdraw } from './withdrawals.ts';

/**
 * Balances a client can know exactly without the `funding` capability (partner mode, issue 16):
 * - a fresh end user onboarded with a brand-new wallet nobody funds: its manager holds nothing (every row, if the
 *   target lists any, is all zero), which is enough for the rows' symbols and programs of the native asset;
 * - the partner's shared wallet (TEST_WALLET_SECRET_KEY) as its own deposits and withdrawals leave it: what a check's
 *   own step moves, read before and after within a bracket (settledOthers) that skips the check when anything else of
 *   the wallet moved meanwhile.
 * With `funding` the checks fund fresh users through the control API instead (each check says so).
 */

/** The USDT mint of the run (CONFORMANCE_USDT_MINT; the mainnet mint by default). */
export const usdt = () => process.env.CONFORMANCE_USDT_MINT ?? USDT_MINT;

/** A fresh end user on a brand-new wallet nobody funds (its manager holds nothing); generated on any target. */
export async function freshUser(t: CheckContext): Promise<OnboardedUser> {
  return await onboardedUser(t, t.control.has('funding') ? testWallet(t) : unfundedWallet());
}

/** The user's balance rows (GET /me/balance `data.balances`, objects only). */
export async function rowsOfUser(t: CheckContext, sub: string): Promise<Row[]> {
  const rows = dataOf(await asUser(t, sub, { path: '/me/balance' }))?.balances;
  return Array.isArray(rows) ? rows.filter(isObject) : [];
}

/** Every order of the user but `own`, as `id status withdrawalStatus` lines (GET /me/orders; its first 500 rows). */
async function otherOrders(t: CheckContext, user: Funded, own: readonly string[]): Promise<string> {
  const rows = dataOf(await asUser(t, user.sub, { path: '/me/orders' }));
  const orders = Array.isArray(rows) ? rows.filter(isObject) : [];
  return orders
    .filter((order) => !own.includes(String(order.id)))
    .map((order) => `${String(order.id)} ${String(order.status)} ${String(order.withdrawalStatus)}`)
    .sort()
    .join('\n');
}

/**
 * A bracket on the partner's shared wallet for a comparison of totals (totalBalance, availableToWithdraw), stricter
 * than steps/shared-wallet.ts othersBracket, which it extends: besides the other orders' locks (a cycle, a fill, a new
 * order, a cancel), the other orders' status and withdrawalStatus (an automatic return or an order-level withdrawal
 * moves a terminal order's funds without any lock changing). The function it returns ends it with the ids of the
 * orders the check made meanwhile, skipping the check when anything else moved. With `funding` (a fresh user of the
 * check's own) it reads nothing.
 */
export async function settledOthers(t: CheckContext, user: Funded): Promise<(own?: readonly string[]) => Promise<void>> {
  const locks = await othersBracket(t, user);
  if (t.control.has('funding')) return locks;
  const before = await otherOrders(t, user, []);
  return async (own = []) => {
    await locks(own);
    const after = await otherOrders(t, user, own);
    if (after !== before)
      t.skip(
        "another order of the partner's shared wallet changed status or withdrawalStatus during the check: a balance " +
          `comparison cannot tell its funds moving from the check's own effect; rerun it\nbefore:\n${before}\nafter:\n${after}`,
      );
  };
}

/**
 * A narrower bracket for a check whose verdict rests on a few buckets of one row only (a refusal judged against the
 * available amount or the total): the row of `mint` as read now (the check judges against it), and a function that
 * reads it again, skipping the check when one of `buckets` changed meanwhile (another order of the shared wallet moved
 * that mint). Cycles and fills that leave those buckets as they were do not matter to it. With `funding` (a user of
 * the check's own) the function reads nothing.
 */
export async function rowBracket(
  t: CheckContext,
  user: Funded,
  mint: string,
  buckets: readonly string[],
): Promise<{ row?: Row; settled: () => Promise<void> }> {
  const read = async () => (await balanceRow(t, user, mint)).row;
  const shown = (row: Row | undefined) => JSON.stringify(buckets.map((name) => row?.[name] ?? null));
  const row = await read();
  if (t.control.has('funding')) return { row, settled: async () => {} };
  const before = shown(row);
  return {
    row,
    settled: async () => {
      const after = shown(await read());
      if (after !== before)
        t.skip(
          `the ${mint} row of the partner's shared wallet moved during the check (${buckets.join(', ')}: ${before} -> ${after}), ` +
            'by another order of the wallet: the refusal cannot be judged against either; rerun it',
        );
    },
  };
}

/**
 * Withdraws all of `mint` available in the manager to the user's wallet (wallet-level, withdraw-max), if any; a
 * partner wallet's signature counts against --budget-lamports. Anything but a transaction and a 2xx confirm is a
 * broken precondition.
 */
export async function withdrawAvailable(t: CheckContext, user: Funded, mint: string): Promise<void> {
  const { row } = await balanceRow(t, user, mint);
  if (!row || bucket(row, 'availableToWithdraw') === 0n) return;
  const built = confirmedBuild(
    t,
    await walletWithdraw(t, user, { tokenMint: mint }),
    `POST /withdraw/transaction (withdraw-max of ${mint})`,
  );
  if (partnerWalletOf(user.userPubkey)) spendLamports(t, SIGNATURE_LAMPORTS, `a wallet-level withdrawal of ${mint}`);
  await confirmWalletWithdrawal(t, user, built, mint);
}

/**
 * The partner's wallet with its whole USDC balance locked (no `funding`): what the manager held available goes back to
 * the wallet (withdrawAvailable), then an armed stop-loss no market reaches locks its deposit. The USDC row then reads
 * availableToWithdraw 0 with a positive total, or the check skips (another order released a lock meanwhile); a
 * rowBracket on availableToWithdraw from that read.
 */
export async function wholeUsdcLocked(
  t: CheckContext,
  user: Funded,
): Promise<{ row: Row; created: Created; settled: () => Promise<void> }> {
  await withdrawAvailable(t, user, usdc());
  const created = await createOrder(t, user, intentRequest('stop_loss'));
  // Other orders' cycles and fills spend what they lock: available stays 0; only a released lock would move it.
  const { row, settled } = await rowBracket(t, user, usdc(), ['availableToWithdraw']);
  if (!row) throw new SetupFailed(`GET /me/balance has no ${usdc()} row after a deposit of it`);
  if (bucket(row, 'availableToWithdraw') !== 0n || bucket(row, 'totalBalance') === 0n)
    t.skip(`the partner's manager has ${usdc()} available again (another order released its lock): ${JSON.stringify(row)}; rerun it`);
  return { row, created, settled };
}

/**
 * A mint of the partner's manager with a positive balance and nothing locked or pending on its row (no `funding`): a
 * row that already is so (the output of an order, what a cancelled order left), else USDT from cancelledUsdtDca (no
 * check locks USDT).
 */
export async function unlockedRow(t: CheckContext, user: Funded): Promise<{ mint: string; row: Row }> {
  const free = (rows: Row[]) =>
    rows.find(
      (row) =>
        typeof row.mint === 'string' &&
        [row.totalBalance, row.lockedForFutureTxns, row.withdrawalPending].every((v) => typeof v === 'string' && /^[0-9]+$/.test(v)) &&
        bucket(row, 'totalBalance') > 0n &&
        bucket(row, 'lockedForFutureTxns') === 0n &&
        bucket(row, 'withdrawalPending') === 0n,
    );
  const held = free(await rowsOfUser(t, user.sub));
  if (held) return { mint: String(held.mint), row: held };
  await cancelledUsdtDca(t, user);
  const { row } = await balanceRow(t, user, usdt());
  if (!row || free([row]) === undefined)
    t.skip(`the ${usdt()} row of the partner's manager has a lock besides the cancelled order's deposit: ${JSON.stringify(row ?? null)}`);
  return { mint: usdt(), row };
}

/**
 * A DCA order of USDT (CONFORMANCE_USDT_MINT; no other check deposits it) cancelled without withdrawal: its deposit
 * waits in the manager, unlocked. A wallet that holds no USDT skips, naming it.
 */
export async function cancelledUsdtDca(t: CheckContext, user: Funded): Promise<Created> {
  const created = await createOrder(t, user, intentRequest('dca', { inputMint: usdt() })).catch((e: unknown) => {
    if (e instanceof SetupFailed)
      t.skip(
        `a DCA deposit of ${usdt()} (CONFORMANCE_USDT_MINT) from the partner's wallet was refused: ${e.message.slice(0, 300)}; ` +
          'a wallet holding 36 of it, or the funding capability, makes this judgeable',
      );
    throw e;
  });
  const cancel = await act(t, user, created.orderId, 'cancel', { withdraw: false });
  if (!is2xx(cancel)) throw new SetupFailed(`POST /orders/${created.orderId}/cancel answered ${cancel.response.status}`, cancel);
  return created;
}
