import { type Keypair, Transaction } from '@solana/web3.js';
import { MINTS } from './quote-support.ts';
import type { Answer, Target } from './support.ts';

/** Order reads on the reference server: a tenant, funded users, confirmed DCA orders (reads.test.ts, mutant probes). */

export const DCA_INTENT = {
  orderType: 'dca',
  inputMint: MINTS.USDC,
  outputMint: MINTS.SOL,
  config: { totalAmount: '36000000', amountPerCycle: '12000000', cycleFrequencySeconds: 3600 },
};

export interface ReadsUser {
  sub: string;
  userId: string;
  walletAddress: string;
  userPubkey: string;
  /** A user-scoped GET as this user. */
  get(path: string): Promise<Answer>;
  /** POST /orders/intent; the pending order's id and unsigned transaction. */
  intent(json?: unknown): Promise<{ pendingOrderId: string; transaction: string }>;
  /** intent -> sign -> confirm; the confirmed order. */
  order(json?: unknown): Promise<Record<string, unknown> & { id: string }>;
}

export interface ReadsTenant {
  apiKey: string;
  /** A partner-only GET with this tenant's key. */
  partner(path: string): Promise<Answer>;
  user(sub: string): Promise<ReadsUser>;
}

export async function readsTenant(target: Target): Promise<ReadsTenant> {
  const { apiKey } = await target.createTenant();
  return {
    apiKey,
    partner: (path) => target.orders(path, { headers: { 'x-service-key': apiKey } }),
    user: async (sub) => {
      const onboarded = await target.onboard(apiKey, sub);
      await target.fund(onboarded.wallet.publicKey.toBase58(), MINTS.USDC, '1000000000');
      await target.fund(onboarded.wallet.publicKey.toBase58(), 'native', '1000000000');
      return readsUserFor(target, apiKey, sub, onboarded, onboarded.wallet);
    },
  };
}

/** A ReadsUser for a wallet onboarded under `apiKey` as `sub`. */
export function readsUserFor(
  target: Target,
  apiKey: string,
  sub: string,
  onboarded: { userId: string; walletAddress: string },
  wallet: Keypair,
): ReadsUser {
  const headers = { 'x-service-key': apiKey, 'x-service-user': sub };
  const post = (path: string, json: unknown) => target.orders(path, { method: 'POST', headers, json });
  const intent = async (json: unknown = DCA_INTENT) => {
    const answer = await post('/orders/intent', json);
    if (answer.status !== 200) throw new Error(`intent: ${answer.status} ${JSON.stringify(answer.body)}`);
    return (answer.body as { data: { pendingOrderId: string; transaction: string } }).data;
  };
  return {
    sub,
    userId: onboarded.userId,
    walletAddress: onboarded.walletAddress,
    userPubkey: wallet.publicKey.toBase58(),
    get: (path) => target.orders(path, { headers }),
    intent,
    order: async (json: unknown = DCA_INTENT) => {
      const { pendingOrderId, transaction } = await intent(json);
      const answer = await post('/orders/confirm', { pendingOrderId, signedTransaction: sign(transaction, wallet) });
      if (answer.status !== 200) throw new Error(`confirm: ${answer.status} ${JSON.stringify(answer.body)}`);
      return (answer.body as { data: { order: Record<string, unknown> & { id: string } } }).data.order;
    },
  };
}

/** The transaction signed by `wallet` (other signatures may be missing). */
export function sign(base64: string, wallet: Keypair): string {
  const tx = Transaction.from(Buffer.from(base64, 'base64'));
  tx.partialSign(wallet);
  return tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');
}

/** `data` of a success answer. */
export function dataOf<T = unknown>(answer: Answer): T {
  return (answer.body as { data: T }).data;
}

/** Ids of the rows of a list answer. */
export function idsOf(answer: Answer, field = 'id'): unknown[] {
  return dataOf<Record<string, unknown>[]>(answer).map((row) => row[field]);
}

/** The platform fee wallet of a tenant created with platform fees (lifecycle.test.ts, the execution-row probes). */
export const FEE_WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

/** A funded user of a fresh tenant created with these POST /tenants options, and the tenant's key. */
export async function lifecycleUser(
  target: Target,
  sub: string,
  tenant: Record<string, unknown> = {},
): Promise<ReadsUser & { apiKey: string }> {
  const withOptions = Object.assign(Object.create(target) as Target, { createTenant: () => target.createTenant(tenant) });
  const reads = await readsTenant(withOptions);
  return { ...(await reads.user(sub)), apiKey: reads.apiKey };
}
