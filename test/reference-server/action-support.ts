import { Keypair, Transaction } from '@solana/web3.js';
import { MINTS } from './quote-support.ts';
import { readsTenant, type ReadsUser } from './reads-support.ts';
import type { Answer, Target } from './support.ts';

/** Order actions on the reference server (actions.test.ts, the action probes): a funded user who can act on orders. */

export const TRIGGER_INTENT = {
  orderType: 'stop_loss',
  inputMint: MINTS.USDC,
  outputMint: MINTS.SOL,
  config: { amount: '12000000', triggerPrice: '1', priceDecimals: 18 },
};
export const SLICE_INTENT = {
  orderType: 'slice',
  inputMint: MINTS.USDC,
  outputMint: MINTS.SOL,
  config: { amount: '12000000', sliceCount: 3 },
};

export interface ActionUser extends ReadsUser {
  wallet: Keypair;
  /** The key of the user's own fresh tenant. */
  apiKey: string;
  post(path: string, json?: unknown, headers?: Record<string, string>): Promise<Answer>;
  patch(path: string, json: unknown): Promise<Answer>;
  /** GET /dca/{id} (or another detail path) `data`. */
  detail(id: string, path?: string): Promise<Record<string, unknown>>;
}

export async function actionUser(target: Target, sub = 'alice'): Promise<ActionUser> {
  const tenant = await readsTenant(target);
  const wallet = Keypair.generate();
  const onboarded = await target.onboard(tenant.apiKey, `${sub}-wallet`, wallet);
  await target.fund(wallet.publicKey.toBase58(), MINTS.USDC, '1000000000');
  await target.fund(wallet.publicKey.toBase58(), 'native', '1000000000');
  const base = await readsUserFor(target, tenant.apiKey, `${sub}-wallet`, onboarded, wallet);
  const headers = { 'x-service-key': tenant.apiKey, 'x-service-user': `${sub}-wallet` };
  return {
    ...base,
    wallet,
    apiKey: tenant.apiKey,
    post: (path, json = {}, extra = {}) => target.orders(path, { method: 'POST', headers: { ...headers, ...extra }, json }),
    patch: (path, json) => target.orders(path, { method: 'PATCH', headers, json }),
    detail: async (id, path = '/dca') =>
      ((await target.orders(`${path}/${id}`, { headers })).body as { data: Record<string, unknown> }).data,
  };
}

/** A ReadsUser for an already onboarded wallet (the reads helpers onboard their own wallets). */
async function readsUserFor(
  target: Target,
  apiKey: string,
  sub: string,
  onboarded: { userId: string; walletAddress: string },
  wallet: Keypair,
): Promise<ReadsUser> {
  const headers = { 'x-service-key': apiKey, 'x-service-user': sub };
  const post = (path: string, json: unknown) => target.orders(path, { method: 'POST', headers, json });
  const intent = async (json: unknown) => {
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
    order: async (json: unknown = DCA) => {
      const { pendingOrderId, transaction } = await intent(json);
      const answer = await post('/orders/confirm', { pendingOrderId, signedTransaction: sign(transaction, wallet) });
      if (answer.status !== 200) throw new Error(`confirm: ${answer.status} ${JSON.stringify(answer.body)}`);
      return (answer.body as { data: { order: Record<string, unknown> & { id: string } } }).data.order;
    },
  };
}

const DCA = {
  orderType: 'dca',
  inputMint: MINTS.USDC,
  outputMint: MINTS.SOL,
  config: { totalAmount: '36000000', amountPerCycle: '12000000', cycleFrequencySeconds: 3600 },
};

export function sign(base64: string, wallet: Keypair): string {
  const tx = Transaction.from(Buffer.from(base64, 'base64'));
  tx.partialSign(wallet);
  return tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');
}
