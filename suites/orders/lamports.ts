import type { CheckContext } from '../harness/check.ts';

/**
 * The partner's lamport budget (--budget-lamports): the fees the partner's wallets (TEST_WALLET_SECRET_KEY and _ALT)
 * pay where the target cannot fund generated wallets: 5000 lamports a signature, plus the `feeLamports` of each deposit
 * where fees are not sponsored. Counted before the wallet signs or a signed deposit is sent; a check that would pass
 * the budget skips, saying so. Wallets the control API funded cost the partner nothing and are not counted.
 */

export const DEFAULT_BUDGET_LAMPORTS = 50_000_000;
/** What one signature costs the fee payer on Solana. */
export const SIGNATURE_LAMPORTS = 5000n;

/** Lamports spent by the checks of this process. */
let spent = 0n;

const budgetLamports = (t: CheckContext) => BigInt(t.env.budgetLamports ?? DEFAULT_BUDGET_LAMPORTS);

/** Counts `lamports` of fees against --budget-lamports before the wallet signs; skips when they would exceed it. */
export function spendLamports(t: CheckContext, lamports: bigint, what: string): void {
  if (spent + lamports > budgetLamports(t))
    t.skip(
      `${what} would cost ${lamports} lamports; the run's checks spent ${spent} of --budget-lamports ` +
        `${budgetLamports(t)}: raise --budget-lamports to judge it`,
    );
  spent += lamports;
  t.note(`lamports: ${lamports} (${what})`);
}

/** Signed deposits of a partner's wallet not sent yet, by their base64: the lamports sending one costs. */
const unsentDeposits = new Map<string, { lamports: bigint; what: string }>();

/** A deposit the partner's wallet signed: its fees are counted when it is first sent (spendOnSend). */
export function noteSignedDeposit(signedTransaction: string, lamports: bigint, what: string): void {
  unsentDeposits.set(signedTransaction, { lamports, what });
}

/**
 * Before a confirm carrying `signedTransaction`: a deposit the partner's wallet signed counts its fees, once (the
 * races send one deposit three times; one lands).
 */
export function spendOnSend(t: CheckContext, signedTransaction: unknown): void {
  if (typeof signedTransaction !== 'string') return;
  const deposit = unsentDeposits.get(signedTransaction);
  if (!deposit) return;
  spendLamports(t, deposit.lamports, deposit.what);
  unsentDeposits.delete(signedTransaction);
}
