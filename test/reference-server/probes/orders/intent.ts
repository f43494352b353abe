import { Keypair, SystemProgram, Transaction } from '@solana/web3.js';
import { actionUser } from '../../action-support.ts';
import { MINTS } from '../../quote-support.ts';
import { dataOf, DCA_INTENT } from '../../reads-support.ts';
import { Target } from '../../support.ts';
import { failure, type Probe, type Row } from '../probe.ts';
import { creator, freshIntent, IDEM_DCA, instructionsOf, pendingDca, TEMPLATES } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/orders/intent.ts (OA-INT): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

/** The data of a raw DCA intent of a funded user. */
const intentData = async (t: Target) => dataOf<Row>((await freshIntent(t, IDEM_DCA, true)).answer);

/** A DCA intent of a sub never onboarded ('inline-sub'), asking to onboard it inline with the wallet `userPubkey`. */
const inlineOnboarding = (c: Awaited<ReturnType<typeof creator>>, userPubkey: string) =>
  c.post(
    '/orders/intent',
    { orderType: 'dca', inputMint: MINTS.USDC, outputMint: MINTS.SOL, config: TEMPLATES.dca, onboardIfNeeded: true, userPubkey },
    'inline-sub',
  );

export const INTENT_PROBES: Record<string, Probe> = {
  // POST /orders/intent: the pending order and its deposit transaction
  'intent-without-memo-id': async (t) => typeof dataOf<Row>(await (await creator(t)).intent('dca')).memoId,
  'intent-encoding-base58': async (t) => (await intentData(t)).encoding,
  'intent-transaction-carries-a-signature': async (t) =>
    Transaction.from(Buffer.from(String(dataOf<Row>(await (await creator(t)).intent('stop_loss')).transaction), 'base64')).signatures.map(
      (s) => s.signature === null,
    ),
  'intent-order-type-echoed-as-dca': async (t) => dataOf<Row>(await (await creator(t)).intent('oco')).orderType,
  'intent-expires-in-ten-minutes': async (t) => {
    const before = (await t.now()).getTime();
    return Math.round((Date.parse(String((await intentData(t)).expiresAt)) - before) / 60_000);
  },
  'intent-output-recipient-is-a-stranger': async (t) => {
    const c = await creator(t);
    return dataOf<Row>(await c.intent('slice')).outputRecipientAddress === c.user.walletAddress;
  },
  'intent-fee-lamports-5000': async (t) => (await intentData(t)).feeLamports,
  'fee-lamports-charged-on-a-sponsored-tenant': async (t) => dataOf<Row>(await (await creator(t)).intent('dca')).feeLamports,
  'fee-lamports-waived-on-an-unsponsored-tenant': async (t) =>
    dataOf<Row>(await (await creator(t, { feeSponsored: false })).intent('dca')).feeLamports,
  'fee-transfer-missing-from-the-deposit': async (t) => {
    const tx = Transaction.from(
      Buffer.from(String(dataOf<Row>(await (await creator(t, { feeSponsored: false })).intent('dca')).transaction), 'base64'),
    );
    return tx.instructions.filter((ix) => ix.programId.equals(SystemProgram.programId)).length;
  },
  'intent-already-creates-the-order': async (t) => {
    const c = await creator(t);
    await c.intent('take_profit');
    return (dataOf<Row>(await c.get('/me/orders')) as unknown as unknown[]).length;
  },
  // onboardIfNeeded
  'onboard-if-needed-ignored': async (t) => failure(await inlineOnboarding(await creator(t), Keypair.generate().publicKey.toBase58())),
  'inline-onboarding-binds-a-wallet-of-another-account': async (t) => {
    const c = await creator(t);
    return failure(await inlineOnboarding(c, c.wallet));
  },
  'never-onboarded-intent-user-answered-403': async (t) => {
    const c = await creator(t);
    return failure(
      await c.post('/orders/intent', { orderType: 'dca', inputMint: MINTS.USDC, outputMint: MINTS.SOL, config: TEMPLATES.dca }, 'nobody'),
    );
  },
  'unknown-order-type-answered-validation-error': async (t) => {
    const json = { orderType: 'teleport', inputMint: MINTS.USDC, outputMint: MINTS.SOL, config: {} };
    return failure((await freshIntent(t, json)).answer);
  },
  'deposit-moves-one-unit-more-than-input-amount': async (t) => {
    const p = await pendingDca(t);
    return p.tx.instructions.filter((ix) => ix.data.length === 10 && ix.data[0] === 12).map((ix) => ix.data.readBigUInt64LE(1).toString());
  },
  'intent-deposit-also-sends-1000-sol-to-a-stranger': async (t) =>
    instructionsOf(await (await actionUser(t)).post('/orders/intent', DCA_INTENT)),
};
