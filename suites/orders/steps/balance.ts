import { dataOf } from '../../harness/answers.ts';
import type { CheckContext } from '../../harness/check.ts';
import type { Exchange } from '../../harness/exchange.ts';
import { SetupFailed } from '../../harness/failure.ts';
import { isObject } from '../../shared/values.ts';
import { type Created, type Funded, usdc } from '../orders.ts';
import { asUser } from '../users.ts';

/** Balance rows as steps of other checks (area BAL: GET /me/balance, Balance row): a mint's row, its buckets, an order's lock. */

export type Row = Record<string, unknown>;

/** The user's GET /me/balance row of `mint`, if it has one. */
export async function balanceRow(t: CheckContext, user: Funded, mint: string): Promise<{ row?: Row; ex: Exchange }> {
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
export async function totalBalanceOf(t: CheckContext, user: Funded, mint: string): Promise<{ total: bigint; ex: Exchange }> {
  const { row, ex } = await balanceRow(t, user, mint);
  return { total: row ? bucket(row, 'totalBalance') : 0n, ex };
}

export const bucket = (row: Row, name: string) => BigInt(String(row[name]));

/** The order's lockedBreakdown entry on the balance row of its input mint (the intent's, unless `inputMint` names it). */
export async function orderLock(
  t: CheckContext,
  user: Funded,
  created: Created,
  inputMint: unknown = created.intent.data.inputMint,
): Promise<{ row?: Row; entry?: Row; ex: Exchange }> {
  const { row, ex } = await balanceRow(t, user, String(inputMint));
  const entry = Array.isArray(row?.lockedBreakdown)
    ? row.lockedBreakdown.filter(isObject).find((e) => e.orderId === created.orderId)
    : undefined;
  return { row, entry, ex };
}
