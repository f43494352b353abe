import { Keypair } from '@solana/web3.js';
import { sign } from '../../action-support.ts';
import { MINTS } from '../../quote-support.ts';
import { dataOf } from '../../reads-support.ts';
import type { Answer, Target } from '../../support.ts';
import { failure, type Probe, type Row, status } from '../probe.ts';
import {
  actionScene,
  confirmBody,
  DCA,
  failedDca,
  fundedUser,
  IDEM_DCA,
  keyedUser,
  pending,
  raised,
  statuses,
  withdrawalScene,
} from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/orders/idempotency.ts (OA-IDEM): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

const KEY = { 'x-idempotency-key': 'probe-replay' };
const transactionOf = (a: Answer) => String((a.body as { data: { transaction: unknown } }).data.transaction);

/** The second answer of two keyed posts of `json` to `path`. */
async function actedTwice(
  post: (path: string, json: unknown, headers: Record<string, string>) => Promise<Answer>,
  path: string,
  json: unknown = {},
): Promise<unknown> {
  await post(path, json, KEY);
  return failure(await post(path, json, KEY));
}

/** Two keyed withdrawal confirms of `transaction` at `path` by the withdrawal scene's user: the second answer and the USDC left. */
async function confirmedTwice(
  t: Target,
  s: Awaited<ReturnType<typeof withdrawalScene>>,
  path: string,
  transaction: string,
): Promise<unknown> {
  const post = () =>
    t.orders(path, {
      method: 'POST',
      json: { signedTransaction: sign(transaction, s.user.wallet) },
      headers: { 'x-service-key': s.apiKey, 'x-service-user': 'withdraw-probe', ...KEY },
    });
  await post();
  return { second: failure(await post()), usdc: (await s.usdc()).totalBalance };
}

const IDEM_OTHER_DCA = { ...IDEM_DCA, config: { ...IDEM_DCA.config, totalAmount: '24000000' } };
const pendingIdOf = (a: Answer) => (a.body as { data?: { pendingOrderId?: unknown } }).data?.pendingOrderId;

async function sameIntentTwice(a: Awaited<ReturnType<typeof keyedUser>>, b = a) {
  return pendingIdOf(await a.post('/orders/intent', IDEM_DCA, 'k')) === pendingIdOf(await b.post('/orders/intent', IDEM_DCA, 'k'));
}

export const IDEMPOTENCY_PROBES: Record<string, Probe> = {
  'cancel-ignores-the-idempotency-key': async (t) => {
    const { alice, id } = await actionScene(t);
    const send = () => alice.post(`/orders/${id}/cancel`, { withdraw: false }, { 'x-idempotency-key': 'probe-cancel' });
    await send();
    return failure(await send());
  },
  'order-withdraw-ignores-the-idempotency-key': async (t) => {
    const { alice, id } = await actionScene(t);
    await alice.post(`/orders/${id}/cancel`, { withdraw: false });
    const first = transactionOf(await alice.post(`/orders/${id}/withdraw`, {}, KEY));
    await alice.post(`/orders/${id}/withdraw/abandon`);
    return transactionOf(await alice.post(`/orders/${id}/withdraw`, {}, KEY)) === first;
  },
  'pause-ignores-the-idempotency-key': async (t) => {
    const { alice, id } = await actionScene(t);
    return await actedTwice(alice.post, `/orders/${id}/pause`);
  },
  'resume-ignores-the-idempotency-key': async (t) => {
    const { alice, id } = await actionScene(t);
    await alice.post(`/orders/${id}/pause`);
    return await actedTwice(alice.post, `/orders/${id}/resume`);
  },
  'retry-ignores-the-idempotency-key': async (t) => {
    const { alice, id } = await failedDca(t);
    return await actedTwice(alice.post, `/orders/${id}/retry`);
  },
  'modify-confirm-ignores-the-idempotency-key': async (t) => {
    const { alice, id, signedTransaction } = await raised(t);
    return await actedTwice(alice.post, `/dca/${id}/modify/confirm`, confirmBody(signedTransaction));
  },
  'wallet-withdrawal-confirm-ignores-the-idempotency-key': async (t) => {
    const s = await withdrawalScene(t);
    return await confirmedTwice(t, s, '/withdraw/confirm', transactionOf(await s.wallet({ amount: '2000000' })));
  },
  'order-withdrawal-confirm-ignores-the-idempotency-key': async (t) => {
    const s = await withdrawalScene(t, '0');
    const { id, transaction } = await pending(s);
    return await confirmedTwice(t, s, `/orders/${id}/withdraw/confirm`, transaction);
  },
  'withdraw-transaction-ignores-the-idempotency-key': async (t) => {
    const s = await withdrawalScene(t);
    const send = () =>
      t.orders('/withdraw/transaction', {
        method: 'POST',
        json: { userPubkey: s.pubkey, tokenMint: MINTS.USDC, amount: '1000000' },
        headers: { 'x-service-key': s.apiKey, 'x-service-user': 'withdraw-probe', 'x-idempotency-key': 'probe-key' },
      });
    const first = dataOf<Row>(await send()).transaction;
    return first === dataOf<Row>(await send()).transaction;
  },
  'intent-with-an-idempotency-key-rejected': async (t) => status(await (await keyedUser(t)).post('/orders/intent', IDEM_DCA, 'k')),
  'idempotent-replay-answers-201': async (t) => {
    const u = await keyedUser(t);
    await u.post('/orders/intent', IDEM_DCA, 'k');
    return status(await u.post('/orders/intent', IDEM_DCA, 'k'));
  },
  'idempotent-replay-creates-a-second-pending-order': async (t) => sameIntentTwice(await keyedUser(t)),
  'confirm-ignores-the-idempotency-key': async (t) => {
    const u = await keyedUser(t);
    const body = await u.confirmBody();
    await u.post('/orders/confirm', body, 'k');
    return failure(await u.post('/orders/confirm', body, 'k'));
  },
  'reused-key-with-another-body-replays': async (t) => {
    const u = await keyedUser(t);
    await u.post('/orders/intent', IDEM_DCA, 'k');
    return failure(await u.post('/orders/intent', IDEM_OTHER_DCA, 'k'));
  },
  'client-errors-cached-under-an-idempotency-key': async (t) => {
    const u = await keyedUser(t);
    await u.post('/orders/intent', { ...IDEM_DCA, orderType: 'limit' }, 'k');
    return failure(await u.post('/orders/intent', IDEM_DCA, 'k'));
  },
  'server-errors-cached-under-an-idempotency-key': async (t) => {
    const u = await keyedUser(t);
    const body = await u.confirmBody();
    await t.faults({ rpc: 'down' });
    try {
      await u.post('/orders/confirm', body, 'k');
    } finally {
      await t.faults({ rpc: 'up' });
    }
    return failure(await u.post('/orders/confirm', body, 'k'));
  },
  'idempotency-key-shared-by-the-users-of-a-tenant': async (t) => {
    const a = await keyedUser(t);
    return sameIntentTwice(a, await keyedUser(t, a.apiKey, 'probe-sub-2'));
  },
  'idempotency-key-shared-across-tenants-by-sub': async (t) => sameIntentTwice(await keyedUser(t), await keyedUser(t)),
  'idempotency-window-12-hours': async (t) => {
    const u = await keyedUser(t);
    const first = pendingIdOf(await u.post('/orders/intent', IDEM_DCA, 'k'));
    await t.advanceClock(13 * 3600);
    return pendingIdOf(await u.post('/orders/intent', IDEM_DCA, 'k')) === first;
  },
  'idempotency-window-7-days': async (t) => {
    const u = await keyedUser(t);
    await u.post('/orders/intent', IDEM_DCA, 'k');
    await t.advanceClock(25 * 3600);
    return failure(await u.post('/orders/intent', IDEM_OTHER_DCA, 'k'));
  },
  'onboarding-honours-the-idempotency-key': async (t) => {
    const { apiKey } = await t.createTenant();
    const onboard = async (sub: string) =>
      t.orders('/partner/onboard', {
        method: 'POST',
        headers: { 'x-service-key': apiKey, 'x-idempotency-key': 'k' },
        json: await t.onboardBody(sub, Keypair.generate()),
      });
    await onboard('probe-sub-1');
    return failure(await onboard('probe-sub-2'));
  },
  'balance-read-honours-the-idempotency-key': async (t) => {
    const u = await keyedUser(t);
    await u.balance('', 'k');
    return failure(await u.balance('?hideZero=true', 'k'));
  },
  'idempotency-race-creates-two-pending-orders': async (t) => {
    const u = await fundedUser(t);
    const answers = await Promise.all([u.post('/orders/intent', DCA, 'same'), u.post('/orders/intent', DCA, 'same')]);
    return { statuses: statuses(answers), pending: await u.rows('/orders/pending') };
  },
};
