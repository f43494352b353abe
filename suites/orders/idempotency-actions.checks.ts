import { randomUUID } from 'node:crypto';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed } from '../harness/failure.ts';
import { act, failedDca, readOrder, userWithOrder } from './actions.checks.ts';
import { dcaUser, raiseTotal, RAISED_TOTAL } from './dca-modify.checks.ts';
import { failureOf, type Funded, signedWithdrawal } from './orders.ts';
import { asUser, is2xx } from './users.ts';
import { abandonLater, bucket, builtTransaction, cancelledOrder, orderWithdraw, usdcRow, walletWithdraw, withdrawUser } from './withdrawals.checks.ts';

/**
 * Idempotent replay (Limits: Idempotency 1 and 4) of the listed POSTs whose replay is observably different from running
 * the action again: pause, cancel, resume and retry (run again they answer a 4xx: the order is already in its new state), the DCA modify
 * confirm (run again it fails: the modification lock is consumed), and the two withdrawal confirms (run again they
 * would move the funds twice, or refuse). Each sends the same key and body twice and expects the cached 2xx back,
 * status and body, with no second effect.
 *
 * Covered elsewhere: intent and confirm (idempotency.checks.ts), POST
 * /withdraw/transaction (withdrawals.checks.ts). Not checked: POST /orders/{id}/withdraw/abandon (idempotent by
 * itself: running it again answers like the replay) and POST /orders/{id}/withdraw (the order-level build is "safe to
 * retry": a repeat returns the pending withdrawal), where a replay and a second run cannot be told apart.
 */

/** A POST of `json` to `path` that always carries the same fresh X-Idempotency-Key, without transport retries. */
function keyedPost(t: CheckContext, user: Funded, path: string, json: unknown): () => Promise<Exchange> {
  const headers = { 'X-Idempotency-Key': `conformance-replay-${randomUUID()}` };
  return async () => await asUser(t, user.sub, { method: 'POST', path, json, headers, retry: false });
}

/** The first, keyed answer: a 2xx or a broken precondition. */
async function firstAnswer(send: () => Promise<Exchange>, what: string): Promise<Exchange> {
  const first = await send();
  if (!is2xx(first)) throw new SetupFailed(`${what} answered ${first.response.status} ${JSON.stringify(first.response.body).slice(0, 300)}`, first);
  return first;
}

const sameAnswer = (first: Exchange, replay: Exchange) =>
  replay.response.status === first.response.status && JSON.stringify(replay.response.body) === JSON.stringify(first.response.body);

/** Sends the keyed action twice and expects the second answer to be the first one replayed. */
async function expectReplay(t: CheckContext, send: () => Promise<Exchange>, what: string, rerun: string): Promise<void> {
  const first = await firstAnswer(send, what);
  const replay = await send();
  t.expect('OA-IDEM-001', sameAnswer(first, replay), {
    documented: `${what} repeated with the same key and body replays the cached answer (${first.response.status}) instead of running again (${rerun})`,
    received: failureOf(replay), exchange: replay,
  });
}

export const pauseAndCancelReplayed = defineCheck({
  name: 'pause-and-cancel-repeated-with-the-same-idempotency-key-replay-their-answers',
  service: 'orders',
  rules: ['OA-IDEM-001'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const { user, created } = await userWithOrder(t);
    await expectReplay(t, keyedPost(t, user, `/orders/${created.orderId}/pause`, {}), 'pause of an active order', 'a pause of a paused order is a 4xx');
    await expectReplay(t, keyedPost(t, user, `/orders/${created.orderId}/cancel`, { withdraw: false }), 'cancel of a paused order', 'a cancel of a cancelled order is NOT_CANCELLABLE');
  },
});

export const resumeReplayed = defineCheck({
  name: 'resume-repeated-with-the-same-idempotency-key-replays-its-answer',
  service: 'orders',
  rules: ['OA-IDEM-001'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const { user, created } = await userWithOrder(t);
    const paused = await act(t, user, created.orderId, 'pause');
    if (!is2xx(paused)) throw new SetupFailed(`POST /orders/${created.orderId}/pause answered ${paused.response.status}`, paused);
    const send = keyedPost(t, user, `/orders/${created.orderId}/resume`, {});
    await expectReplay(t, send, 'resume of a paused DCA order', 'a resume of an active order is a 4xx');
  },
});

export const retryReplayed = defineCheck({
  name: 'retry-repeated-with-the-same-idempotency-key-replays-its-answer',
  service: 'orders',
  rules: ['OA-IDEM-001'],
  profile: 'full',
  needs: ['funding', 'clock', 'faults'],
  async run(t: CheckContext) {
    const { user, created } = await failedDca(t);
    const send = keyedPost(t, user, `/orders/${created.orderId}/retry`, {});
    await expectReplay(t, send, 'retry of a failed DCA order', 'a retry of an active order is a 4xx');
  },
});

export const modifyConfirmReplayed = defineCheck({
  name: 'dca-modify-confirm-repeated-with-the-same-idempotency-key-replays-its-answer',
  service: 'orders',
  rules: ['OA-IDEM-001'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const { user, created } = await dcaUser(t);
    const { signedTransaction } = await raiseTotal(t, user, created);
    const cyclesCompleted = Number((await readOrder(t, user, created)).cyclesCompleted ?? 0);
    const body = { signedTransaction, cyclesCompleted, config: { totalAmount: RAISED_TOTAL } };
    const send = keyedPost(t, user, `/dca/${created.orderId}/modify/confirm`, body);
    await expectReplay(t, send, 'modify confirm of a raised totalAmount', 'its modification lock is consumed');
  },
});

/** Confirms twice with one key: the replay answers the first confirm again and moves no further USDC. */
async function expectConfirmReplay(t: CheckContext, user: Funded, send: () => Promise<Exchange>, what: string): Promise<void> {
  const first = await firstAnswer(send, what);
  const before = bucket((await usdcRow(t, user)).row, 'totalBalance');
  const replay = await send();
  const after = bucket((await usdcRow(t, user)).row, 'totalBalance');
  t.expect('OA-IDEM-001', sameAnswer(first, replay) && after === before, {
    documented: `${what} repeated with the same key and body replays the cached answer (${first.response.status}) and leaves totalBalance at ${before}`,
    received: { ...failureOf(replay), totalBalanceAfter: after.toString() }, exchange: replay,
  });
}

export const walletConfirmReplayed = defineCheck({
  name: 'wallet-withdrawal-confirm-repeated-with-the-same-idempotency-key-replays-and-moves-funds-once',
  service: 'orders',
  rules: ['OA-IDEM-001'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t);
    const built = builtTransaction(await walletWithdraw(t, user, { amount: '2000000' }), 'POST /withdraw/transaction');
    const send = keyedPost(t, user, '/withdraw/confirm', { signedTransaction: signedWithdrawal(built, user) });
    await expectConfirmReplay(t, user, send, 'POST /withdraw/confirm');
  },
});

export const orderConfirmReplayed = defineCheck({
  name: 'order-withdrawal-confirm-repeated-with-the-same-idempotency-key-replays-and-moves-funds-once',
  service: 'orders',
  rules: ['OA-IDEM-001'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t, '0');
    const orderId = await cancelledOrder(t, user);
    const built = builtTransaction(await orderWithdraw(t, user, orderId), `POST /orders/${orderId}/withdraw`);
    abandonLater(t, user, orderId);
    const send = keyedPost(t, user, `/orders/${orderId}/withdraw/confirm`, { signedTransaction: signedWithdrawal(built, user) });
    await expectConfirmReplay(t, user, send, `POST /orders/${orderId}/withdraw/confirm`);
  },
});
