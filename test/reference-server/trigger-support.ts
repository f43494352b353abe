import { Keypair } from '@solana/web3.js';
import type { Answer, Target } from './support.ts';
import { dataOf, readsTenant, type ReadsUser } from './reads-support.ts';

/**
 * Trigger orders on the reference server (triggers.test.ts and the trigger probes). Each scene trades two fresh test
 * mints of its own, priced through the control API: the input at 1 USD, the output at `p` USD, so the pair price
 * (output per input) is 1/p, and with priceDecimals 6 a price of 1 is the pair 1000000, 0.8 is 1250000, 1.25 is
 * 800000, 2 is 500000.
 */

export type Row = Record<string, unknown>;
export type TriggerType = 'stop_loss' | 'take_profit' | 'oco';

const PATHS: Record<TriggerType, string> = { stop_loss: '/stop-loss', take_profit: '/take-profit', oco: '/oco' };
const FLAT = '1';

export interface TriggerScene {
  target: Target;
  user: ReadsUser;
  /** The user's headers (X-Service-Key, X-Service-User). */
  headers: Record<string, string>;
  input: string;
  output: string;
  /** Sets the output mint's USD price (the pair price becomes 1/p). */
  price(usd: string): Promise<void>;
  /** A confirmed order of `type` selling 12 input tokens, priceDecimals 6, with `config` over the defaults. */
  order(type: TriggerType, config: Row): Promise<string>;
  read(type: TriggerType, id: string): Promise<Row>;
  executions(id: string): Promise<Row[]>;
  patch(type: TriggerType, id: string, config: Row): Promise<Answer>;
}

export async function triggerScene(target: Target): Promise<TriggerScene> {
  const owner = await readsTenant(target);
  const user = await owner.user('trader');
  const input = Keypair.generate().publicKey.toBase58();
  const output = Keypair.generate().publicKey.toBase58();
  await target.fund(user.userPubkey, input, '100000000');
  await target.fund(Keypair.generate().publicKey.toBase58(), output, '1');
  await target.setPrice(input, FLAT);
  await target.setPrice(output, FLAT);
  const headers = { 'x-service-key': owner.apiKey, 'x-service-user': user.sub };
  return {
    target,
    user,
    headers,
    input,
    output,
    price: (usd) => target.setPrice(output, usd),
    order: async (orderType, config) =>
      (await user.order({ orderType, inputMint: input, outputMint: output, config: { amount: '12000000', priceDecimals: 6, ...config } }))
        .id,
    read: async (type, id) => dataOf<Row>(await user.get(`${PATHS[type]}/${id}`)),
    executions: async (id) => dataOf<Row[]>(await user.get(`/orders/${id}/executions`)),
    patch: (type, id, config) => target.orders(`${PATHS[type]}/${id}`, { method: 'PATCH', headers, json: { config } }),
  };
}
