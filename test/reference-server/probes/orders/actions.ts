import { type ActionUser, sign, SLICE_INTENT, TRIGGER_INTENT } from '../../action-support.ts';
import { MINTS } from '../../quote-support.ts';
import { dataOf } from '../../reads-support.ts';
import type { Answer, Target } from '../../support.ts';
import { failure, type Probe, type Row } from '../probe.ts';
import { actionScene, failedDca } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/orders/actions.ts (OA-PAUSE, OA-RESUME, OA-RETRY, OA-CANCEL): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

const details = (a: Answer) => (a.body as { error?: { details?: unknown } }).error?.details;

/** The status of alice's DCA order after `action` (cancel with `body`). */
async function statusAfter(t: Target, action: string, body: unknown = {}, before?: string): Promise<unknown> {
  const { alice, id } = await actionScene(t);
  if (before) await alice.post(`/orders/${id}/${before}`);
  await alice.post(`/orders/${id}/${action}`, body);
  return (await alice.detail(id)).status;
}

/** Retry of a failed DCA order whose input alice took out with a wallet-level withdraw. */
async function retryWithoutFunds(t: Target): Promise<Answer> {
  const { alice, id } = await failedDca(t);
  const built = dataOf<Row>(await alice.post('/withdraw/transaction', { userPubkey: alice.userPubkey, tokenMint: MINTS.USDC }));
  await alice.post('/withdraw/confirm', { signedTransaction: sign(built.transaction as string, alice.wallet) });
  return await alice.post(`/orders/${id}/retry`);
}

/** A slice order of alice's whose first chunk failed (its chunks run a minute apart; swaps fail for the first). */
async function failedSlice(t: Target): Promise<{ alice: ActionUser; id: string }> {
  await t.faults({ swaps: 'fail' });
  const s = await actionScene(t, SLICE_INTENT);
  await t.advanceClock(60);
  await t.faults({ swaps: 'ok' });
  return s;
}

/** A stop_loss of alice's whose fill failed: its trigger is crossed from the start, and swaps fail at its first watch. */
async function failedStopLoss(t: Target): Promise<{ alice: ActionUser; id: string }> {
  await t.faults({ swaps: 'fail' });
  const s = await actionScene(t, {
    orderType: 'stop_loss',
    inputMint: MINTS.USDC,
    outputMint: MINTS.SOL,
    config: { amount: '12000000', triggerPrice: '1000000000000', priceDecimals: 6 },
  });
  await t.advanceClock(30);
  await t.faults({ swaps: 'ok' });
  return s;
}

/** Retry of a failed slice order once its funds were returned automatically. */
async function retryOfReturnedSlice(t: Target): Promise<Answer> {
  const { alice, id } = await failedSlice(t);
  await t.advanceClock(1800);
  return await alice.post(`/orders/${id}/retry`);
}

/** Cancel {withdraw:true} while the chain is down; `then` observes the aftermath. */
async function failedBuild(t: Target, then: (alice: ActionUser, id: string, answer: Answer) => Promise<unknown>): Promise<unknown> {
  const { alice, id } = await actionScene(t);
  await t.faults({ rpc: 'down' });
  const answer = await alice.post(`/orders/${id}/cancel`, { withdraw: true, userPubkey: alice.userPubkey });
  await t.faults({ rpc: 'up' });
  return await then(alice, id, answer);
}

export const ACTION_PROBES: Record<string, Probe> = {
  // ---- OA-PAUSE: POST /orders/{orderId}/pause ----
  // pause, resume
  'pause-answers-ok-without-pausing': (t) => statusAfter(t, 'pause'),
  'pause-of-a-slice-answers-invalid-state': async (t) => {
    const { alice, id } = await actionScene(t, SLICE_INTENT);
    return failure(await alice.post(`/orders/${id}/pause`));
  },

  // ---- OA-RESUME: POST /orders/{orderId}/resume ----
  'resume-answers-ok-without-resuming': (t) => statusAfter(t, 'resume', {}, 'pause'),

  // ---- OA-RETRY: POST /orders/{orderId}/retry ----
  // retry
  'retry-of-a-failed-dca-answers-order-not-failed': async (t) => {
    const { alice, id } = await failedDca(t);
    return failure(await alice.post(`/orders/${id}/retry`));
  },
  'retry-ignores-missing-input-funds': async (t) => failure(await retryWithoutFunds(t)),
  'insufficient-funds-details-without-gap': async (t) => Object.keys(details(await retryWithoutFunds(t)) as object).sort(),
  'retry-of-an-active-order-answers-invalid-state': async (t) => {
    const { alice, id } = await actionScene(t);
    return failure(await alice.post(`/orders/${id}/retry`));
  },
  'order-not-failed-details-without-status': async (t) => {
    const { alice, id } = await actionScene(t);
    return details(await alice.post(`/orders/${id}/retry`));
  },
  'retry-not-supported-checked-before-already-withdrawn': async (t) => failure(await retryOfReturnedSlice(t)),
  'retry-of-a-failed-slice-not-refused': async (t) => {
    const { alice, id } = await failedSlice(t);
    return failure(await alice.post(`/orders/${id}/retry`));
  },
  // Races: the same request three times at once.
  'concurrent-retries-all-succeed': async (t) => {
    const { alice, id } = await failedDca(t);
    return (await Promise.all([1, 2, 3].map(() => alice.post(`/orders/${id}/retry`)))).map(failure).sort((a, b) => a.status - b.status);
  },
  'dca-retry-after-the-automatic-return-not-refused': async (t) => {
    const { alice, id } = await failedDca(t);
    await t.advanceClock(24 * 3600);
    return failure(await alice.post(`/orders/${id}/retry`));
  },
  'failed-trigger-order-can-be-retried': async (t) => {
    const { alice, id } = await failedStopLoss(t);
    return failure(await alice.post(`/orders/${id}/retry`));
  },

  // ---- OA-CANCEL: POST /orders/{orderId}/cancel ----
  // cancel
  'cancel-answers-ok-without-cancelling': (t) => statusAfter(t, 'cancel', { withdraw: false }),
  'cancel-marks-the-order-returned': async (t) => {
    const { alice, id } = await actionScene(t);
    await alice.post(`/orders/${id}/cancel`, { withdraw: false });
    return dataOf<Row>(await alice.get(`/dca/${id}`)).withdrawalStatus;
  },
  'cancel-of-a-slice-answers-not-cancellable': async (t) => {
    const { alice, id } = await actionScene(t, SLICE_INTENT);
    return failure(await alice.post(`/orders/${id}/cancel`, { withdraw: false }));
  },
  'cancel-of-a-cancelled-order-answers-invalid-state': async (t) => {
    const { alice, id } = await actionScene(t);
    await alice.post(`/orders/${id}/cancel`, { withdraw: false });
    return failure(await alice.post(`/orders/${id}/cancel`, { withdraw: false }));
  },
  'cancel-with-withdraw-leaves-the-order-active': async (t) => {
    const { alice, id } = await actionScene(t, TRIGGER_INTENT);
    await alice.post(`/orders/${id}/cancel`, { withdraw: true, userPubkey: alice.userPubkey });
    return (await alice.detail(id, '/stop-loss')).status;
  },
  'withdrawal-build-failure-answers-internal-error': (t) => failedBuild(t, async (_alice, _id, answer) => failure(answer)),
  'withdrawal-build-failure-rolls-back-the-cancel': (t) => failedBuild(t, async (alice, id) => (await alice.detail(id)).status),
  'withdrawal-build-failure-marks-the-order-withdrawn': (t) =>
    failedBuild(t, async (alice, id) => failure(await alice.post(`/orders/${id}/withdraw`))),
  'cancel-with-withdraw-without-userpubkey-accepted': async (t) => {
    const { alice, id } = await actionScene(t);
    return failure(await alice.post(`/orders/${id}/cancel`, { withdraw: true }));
  },
  'cancel-withdraws-to-a-foreign-wallet': async (t) => {
    const { alice, id } = await actionScene(t);
    return failure(await alice.post(`/orders/${id}/cancel`, { withdraw: true, userPubkey: alice.walletAddress }));
  },
  'concurrent-cancels-both-succeed': async (t) => {
    const { alice, id } = await actionScene(t);
    return (await Promise.all([0, 1].map(() => alice.post(`/orders/${id}/cancel`, { withdraw: false })))).map((a) => a.status).sort();
  },
};
