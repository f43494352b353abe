import type { Transaction } from '@solana/web3.js';
import { dataOf, is2xx } from '../../harness/answers.ts';
import type { CheckContext } from '../../harness/check.ts';
import type { Exchange } from '../../harness/exchange.ts';
import { SetupFailed } from '../../harness/failure.ts';
import { isObject } from '../../shared/values.ts';
import { decodeTransaction, type Funded, intentUser, signedWithdrawal, usdc } from '../orders.ts';
import { asUser } from '../users.ts';
import { cancelledDca } from './actions.ts';
import type { Row } from './balance.ts';
import { expectError } from './expect.ts';
import type { RuleId } from '../../../generators/vocabulary.ts';

/**
 * Withdrawals as steps of other checks (areas WDW, OWD): users with funded managers, orders to withdraw from, the
 * wallet-level and order-level builds and their transactions (balance rows: balance.ts).
 *
 * The response fields of the four withdrawal endpoints and the body of the order-level confirm are not shown
 * (UNKNOWNS.md O12): the unsigned transaction is read from `data.transaction` (CONFORMANCE_WITHDRAWAL_TRANSACTION_FIELD
 * names another field of `data`) and confirms send `{signedTransaction}`. Effects are verified through GET /me/balance
 * and the order detail, never through response fields.
 */

const TRANSACTION_FIELD = process.env.CONFORMANCE_WITHDRAWAL_TRANSACTION_FIELD ?? 'transaction';

/**
 * A user with a funded external wallet and a funded manager: `managerUsdc` beyond any order through the control API.
 * Without `funding` the partner's user, whose manager gets available USDC beyond any order from a DCA order cancelled
 * without withdrawal (its whole deposit stays, unlocked): only for checks that read the amounts they judge.
 */
export async function withdrawUser(t: CheckContext, managerUsdc = '5000000'): Promise<Funded> {
  const user = await intentUser(t, true);
  if (managerUsdc === '0') return user;
  if (t.control.has('funding')) {
    await t.control.fund(user.walletAddress, usdc(), managerUsdc);
    return user;
  }
  await cancelledDca(t, user);
  t.note(`the manager's available ${usdc()} comes from a DCA order cancelled without withdrawal (no funding capability)`);
  return user;
}

export async function walletWithdraw(t: CheckContext, user: Funded, body: Record<string, unknown>): Promise<Exchange> {
  return await asUser(t, user.sub, {
    method: 'POST',
    path: '/withdraw/transaction',
    json: { userPubkey: user.userPubkey, tokenMint: usdc(), ...body },
  });
}

function transactionOf(ex: Exchange): string | undefined {
  const value = dataOf(ex)?.[TRANSACTION_FIELD];
  return typeof value === 'string' ? value : undefined;
}

/** The built transaction, or setup-failed (the request was a precondition, not the rule judged). */
export function builtTransaction(ex: Exchange, what: string): { base64: string; tx: Transaction; ex: Exchange } {
  const base64 = is2xx(ex) ? transactionOf(ex) : undefined;
  const tx = base64 === undefined ? undefined : decodeTransaction(base64);
  if (!base64 || !tx)
    throw new SetupFailed(
      `${what} answered ${ex.response.status} without a transaction under data.${TRANSACTION_FIELD}: ${JSON.stringify(ex.response.body).slice(0, 300)}`,
      ex,
    );
  return { base64, tx, ex };
}

/**
 * The transaction of a withdrawal build, its place assumed (assumptions.ts `withdrawal-transaction`): a 2xx with a
 * transaction there confirms the assumption for this check; a 2xx without one rejects it (the check skips).
 */
export function confirmedBuild(t: CheckContext, ex: Exchange, what: string): { base64: string; tx: Transaction; ex: Exchange } {
  const base64 = transactionOf(ex);
  if (is2xx(ex) && (base64 === undefined || decodeTransaction(base64) === undefined)) {
    t.rejectAssumption(
      'withdrawal-transaction',
      `${what} answered ${ex.response.status} without a transaction under data.${TRANSACTION_FIELD} (UNKNOWNS.md O12; CONFORMANCE_WITHDRAWAL_TRANSACTION_FIELD names another field): ${JSON.stringify(ex.response.body).slice(0, 300)}`,
    );
  }
  const built = builtTransaction(ex, what);
  t.confirm('withdrawal-transaction');
  return built;
}

/** Sends the wallet-level confirm of `built`, signed by the user. */
export async function sendWalletWithdrawal(t: CheckContext, user: Funded, built: { ex: Exchange; base64: string }): Promise<Exchange> {
  return await asUser(t, user.sub, {
    method: 'POST',
    path: '/withdraw/confirm',
    json: { signedTransaction: signedWithdrawal(built, user) },
  });
}

/** The wallet-level confirm of `built` (of `what`) as a precondition: anything but a 2xx is setup-failed. */
export async function confirmWalletWithdrawal(
  t: CheckContext,
  user: Funded,
  built: { ex: Exchange; base64: string },
  what: string,
): Promise<void> {
  const confirm = await sendWalletWithdrawal(t, user, built);
  if (!is2xx(confirm))
    throw new SetupFailed(
      `POST /withdraw/confirm (${what}) answered ${confirm.response.status} ${JSON.stringify(confirm.response.body).slice(0, 300)}`,
      confirm,
    );
}

export async function orderWithdraw(t: CheckContext, user: Funded, orderId: string, action = ''): Promise<Exchange> {
  return await asUser(t, user.sub, { method: 'POST', path: `/orders/${orderId}/withdraw${action}`, json: {} });
}

export async function orderDetail(t: CheckContext, user: Funded, orderId: string): Promise<{ order: Row; ex: Exchange }> {
  const ex = await asUser(t, user.sub, { path: `/dca/${orderId}` });
  const order = dataOf(ex);
  if (!is2xx(ex) || !isObject(order)) throw new SetupFailed(`GET /dca/${orderId} answered ${ex.response.status}`, ex);
  return { order, ex };
}

/** A new order-level build once the order's funds left (`after` says how): 400 ALREADY_WITHDRAWN, under `rule`. */
export async function expectAlreadyWithdrawn(t: CheckContext, rule: RuleId, user: Funded, orderId: string, after: string): Promise<void> {
  expectError(t, rule, await orderWithdraw(t, user, orderId), {
    status: 400,
    codes: ['ALREADY_WITHDRAWN'],
    documented: `400 ALREADY_WITHDRAWN for a build after ${after}`,
  });
}

/** Releases a pending order-level withdrawal when the check ends (abandon is idempotent). */
export function abandonLater(t: CheckContext, user: Funded, orderId: string): void {
  t.defer(async () => {
    await orderWithdraw(t, user, orderId, '/abandon');
  });
}

/** A user with a DCA order cancelled with {withdraw: false}: its deposit waits in the manager for an order-level withdrawal. */
export async function withdrawableOrder(t: CheckContext): Promise<{ user: Funded; orderId: string }> {
  const user = await withdrawUser(t, '0');
  const { orderId } = await cancelledDca(t, user);
  return { user, orderId };
}

/** The order-level build of `orderId`, a transaction or a broken precondition, abandoned when the check ends. */
export async function pendingOrderWithdrawal(
  t: CheckContext,
  user: Funded,
  orderId: string,
): Promise<{ base64: string; tx: Transaction; ex: Exchange }> {
  const built = builtTransaction(await orderWithdraw(t, user, orderId), `POST /orders/${orderId}/withdraw`);
  abandonLater(t, user, orderId);
  return built;
}

/**
 * Withdraws everything available in the manager, mint by mint, at wallet level: terminal orders do not lock, so their
 * funds go too ("Balance row: availableToWithdraw ... the value for a withdraw-max action").
 */
export async function drainManager(t: CheckContext, user: Funded): Promise<void> {
  const ex = await asUser(t, user.sub, { path: '/me/balance' });
  const rows = Array.isArray(dataOf(ex)?.balances) ? (dataOf(ex)!.balances as unknown[]).filter(isObject) : [];
  for (const row of rows.filter((candidate) => /^[1-9][0-9]*$/.test(String(candidate.availableToWithdraw)))) {
    const build = await walletWithdraw(t, user, { tokenMint: row.mint });
    await confirmWalletWithdrawal(t, user, confirmedBuild(t, build, `POST /withdraw/transaction (${String(row.mint)})`), String(row.mint));
  }
}

/** The amount a preview gives for `mint`: an array of `{mint, amount}`-like entries, or an object keyed by mint. */
export function previewedAmount(preview: unknown, mint: string): bigint | undefined {
  const entry = Array.isArray(preview)
    ? preview.find((item) => isObject(item) && Object.values(item).includes(mint))
    : isObject(preview)
      ? preview[mint]
      : undefined;
  const amount = isObject(entry)
    ? Object.entries(entry).find(([key, value]) => key !== 'mint' && typeof value === 'string' && /^[0-9]+$/.test(value))?.[1]
    : entry;
  return typeof amount === 'string' && /^[0-9]+$/.test(amount) ? BigInt(amount) : undefined;
}
