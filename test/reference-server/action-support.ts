import { Keypair } from '@solana/web3.js';
import { MINTS } from './quote-support.ts';
import { readsTenant, readsUserFor, type ReadsUser } from './reads-support.ts';
import type { Answer, Target } from './support.ts';

export { sign } from './reads-support.ts';

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
  const base = readsUserFor(target, tenant.apiKey, `${sub}-wallet`, onboarded, wallet);
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
