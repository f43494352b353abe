import { afterAll, beforeAll } from 'vitest';
import { type ActionUser, actionUser } from './action-support.ts';
import { MINTS } from './quote-support.ts';
import { type Answer, errorCode, Target } from './support.ts';

/** One reference server and one tenant per describe block, funded users and answer helpers (order tests over HTTP). */

export const USDC = MINTS.USDC;
export const SOL = MINTS.SOL;

/** Status and error code of an answer, to compare with `toEqual`. */
export const failure = (a: Answer) => ({ status: a.status, code: errorCode(a) });

/** `data` of a success answer. */
export const dataOf = <T = Record<string, unknown>>(a: Answer) => (a.body as { data: T }).data;

/** A DCA intent from USDC to SOL, hourly. */
export const dcaIntent = (totalAmount: string, amountPerCycle: string) => ({
  orderType: 'dca',
  inputMint: USDC,
  outputMint: SOL,
  config: { totalAmount, amountPerCycle, cycleFrequencySeconds: 3600 },
});

export interface TenantServer {
  readonly target: Target;
  readonly apiKey: string;
}

/** A reference server with one tenant for the tests of the describe block that calls it: started before them, closed after. */
export function tenantServer(): TenantServer {
  const scene = {} as { target: Target; apiKey: string };
  beforeAll(async () => {
    scene.target = await Target.start();
    scene.apiKey = (await scene.target.createTenant()).apiKey;
  });
  afterAll(() => scene.target.close());
  return scene;
}

/** A user onboarded under `apiKey` whose wallet holds 500 USDC and 1 SOL. */
export async function fundedUser(target: Target, apiKey: string, sub: string) {
  const onboarded = await target.onboard(apiKey, sub);
  await target.fund(onboarded.wallet.publicKey.toBase58(), USDC, '500000000');
  await target.fund(onboarded.wallet.publicKey.toBase58(), 'native', '1000000000');
  return { sub, ...onboarded };
}

/** A reference server and alice, a funded user who acts on orders (action-support.ts), per describe block. */
export function actionServer(): { readonly target: Target; readonly alice: ActionUser } {
  const scene = {} as { target: Target; alice: ActionUser };
  beforeAll(async () => {
    scene.target = await Target.start();
    scene.alice = await actionUser(scene.target);
  });
  afterAll(() => scene.target.close());
  return scene;
}
