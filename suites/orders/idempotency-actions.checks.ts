import { randomUUID } from 'node:crypto';
import { failureOf, is2xx } from '../harness/answers.ts';
import { type Check, defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed } from '../harness/failure.ts';
import { type Funded, signedWithdrawal, usdc } from './orders.ts';
import { act, failedDca, readOrder, userWithOrder } from './steps/actions.ts';
import { bucket, usdcRow } from './steps/balance.ts';
import { othersBracket } from './steps/shared-wallet.ts';
import { RAISED_TOTAL, raiseTotal } from './steps/dca.ts';
import {
  abandonLater,
  builtTransaction,
  orderWithdraw,
  pendingOrderWithdrawal,
  walletWithdraw,
  withdrawableOrder,
  withdrawUser,
} from './steps/withdrawals.ts';
import { asUser } from './users.ts';

/**
 * Idempotent replay (area IDEM; Limits: Idempotency 1 and 4) of the listed POSTs whose replay is observably different
 * from running the action again: pause, cancel, resume and retry (run again they answer a 4xx: the order is already in
 * its new state), the DCA modify confirm (run again it fails: the modification lock is consumed), the two withdrawal
 * confirms (run again they would move the funds twice, or refuse) and the wallet-level build (run again it builds a new
 * transaction). Each sends the same key and body twice and expects the cached 2xx back, status and body, with no second
 * effect.
 *
 * Covered elsewhere: intent and confirm (idempotency.checks.ts). Not checked: POST /orders/{id}/withdraw/abandon
 * (idempotent by itself: running it again answers like the replay). POST /orders/{id}/withdraw is "safe to retry" (a
 * repeat returns the pending withdrawal), so its replay is told apart from a second run only once the withdrawal is
 * abandoned between the two: a second run then builds a new one.
 */

/** A POST of `json` to `path` that always carries the same fresh X-Idempotency-Key, without transport retries. */
function keyedPost(t: CheckContext, user: Funded, path: string, json: unknown): () => Promise<Exchange> {
  const headers = { 'X-Idempotency-Key': `conformance-replay-${randomUUID()}` };
  return async () => await asUser(t, user.sub, { method: 'POST', path, json, headers, retry: false });
}

/** The first, keyed answer: a 2xx or a broken precondition. */
async function firstAnswer(send: () => Promise<Exchange>, what: string): Promise<Exchange> {
  const first = await send();
  if (!is2xx(first))
    throw new SetupFailed(`${what} answered ${first.response.status} ${JSON.stringify(first.response.body).slice(0, 300)}`, first);
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
    received: failureOf(replay),
    exchange: replay,
  });
}

/** A keyed action to replay: its request, what it is, and what running it again would do instead. */
interface Replay {
  send: () => Promise<Exchange>;
  what: string;
  rerun: string;
}

/**
 * Keyed actions whose replay differs from a second run, one row per check: the state each needs is made first, then
 * each action is sent twice with one key and its first answer expected back.
 */
const REPLAYED: ReadonlyArray<Pick<Check, 'name' | 'needs' | 'pooledUser'> & { replays(t: CheckContext): Promise<Replay[]> }> = [
  {
    name: 'pause-and-cancel-repeated-with-the-same-idempotency-key-replay-their-answers',
    replays: async (t) => {
      const { user, created } = await userWithOrder(t);
      return [
        {
          send: keyedPost(t, user, `/orders/${created.orderId}/pause`, {}),
          what: 'pause of an active order',
          rerun: 'a pause of a paused order is a 4xx',
        },
        {
          send: keyedPost(t, user, `/orders/${created.orderId}/cancel`, { withdraw: false }),
          what: 'cancel of a paused order',
          rerun: 'a cancel of a cancelled order is NOT_CANCELLABLE',
        },
      ];
    },
  },
  {
    name: 'resume-repeated-with-the-same-idempotency-key-replays-its-answer',
    replays: async (t) => {
      const { user, created } = await userWithOrder(t);
      const paused = await act(t, user, created.orderId, 'pause');
      if (!is2xx(paused)) throw new SetupFailed(`POST /orders/${created.orderId}/pause answered ${paused.response.status}`, paused);
      return [
        {
          send: keyedPost(t, user, `/orders/${created.orderId}/resume`, {}),
          what: 'resume of a paused DCA order',
          rerun: 'a resume of an active order is a 4xx',
        },
      ];
    },
  },
  {
    name: 'retry-repeated-with-the-same-idempotency-key-replays-its-answer',
    needs: ['funding', 'clock', 'faults'],
    pooledUser: true,
    replays: async (t) => {
      const { user, created } = await failedDca(t);
      return [
        {
          send: keyedPost(t, user, `/orders/${created.orderId}/retry`, {}),
          what: 'retry of a failed DCA order',
          rerun: 'a retry of an active order is a 4xx',
        },
      ];
    },
  },
  {
    name: 'dca-modify-confirm-repeated-with-the-same-idempotency-key-replays-its-answer',
    replays: async (t) => {
      const { user, created } = await userWithOrder(t);
      const { signedTransaction } = await raiseTotal(t, user, created);
      const cyclesCompleted = Number((await readOrder(t, user, created)).cyclesCompleted ?? 0);
      const body = { signedTransaction, cyclesCompleted, config: { totalAmount: RAISED_TOTAL } };
      return [
        {
          send: keyedPost(t, user, `/dca/${created.orderId}/modify/confirm`, body),
          what: 'modify confirm of a raised totalAmount',
          rerun: 'its modification lock is consumed',
        },
      ];
    },
  },
  {
    name: 'wallet-withdrawal-build-repeated-with-the-same-idempotency-key-replays-its-answer',
    replays: async (t) => {
      const user = await withdrawUser(t);
      const body = { userPubkey: user.userPubkey, tokenMint: usdc(), amount: '1000000' };
      return [
        {
          send: keyedPost(t, user, '/withdraw/transaction', body),
          what: 'POST /withdraw/transaction of 1 USDC',
          rerun: 'it builds a new transaction',
        },
      ];
    },
  },
];

export const replayedActions = REPLAYED.map(({ name, needs, pooledUser, replays }) =>
  defineCheck({
    name,
    service: 'orders',
    rules: ['OA-IDEM-001'],
    profile: 'full',
    needs,
    pooledUser,
    async run(t: CheckContext) {
      for (const { send, what, rerun } of await replays(t)) await expectReplay(t, send, what, rerun);
    },
  }),
);

export const orderWithdrawReplayed = defineCheck({
  name: 'order-withdrawal-build-repeated-with-the-same-idempotency-key-after-an-abandon-replays-its-answer',
  service: 'orders',
  rules: ['OA-IDEM-001'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, orderId } = await withdrawableOrder(t);
    const send = keyedPost(t, user, `/orders/${orderId}/withdraw`, {});
    const first = await firstAnswer(send, `POST /orders/${orderId}/withdraw`);
    abandonLater(t, user, orderId);
    const abandon = await orderWithdraw(t, user, orderId, '/abandon');
    if (!is2xx(abandon)) throw new SetupFailed(`POST /orders/${orderId}/withdraw/abandon answered ${abandon.response.status}`, abandon);
    const replay = await send();
    t.expect('OA-IDEM-001', sameAnswer(first, replay), {
      documented: `POST /orders/${orderId}/withdraw repeated with the same key and body replays the cached answer (${first.response.status}), though the withdrawal was abandoned meanwhile (a second run builds a new one)`,
      received: failureOf(replay),
      exchange: replay,
    });
  },
});

/** Confirms twice with one key: the replay answers the first confirm again and moves no further USDC. */
async function expectConfirmReplay(t: CheckContext, user: Funded, send: () => Promise<Exchange>, what: string): Promise<void> {
  const first = await firstAnswer(send, what);
  const settled = await othersBracket(t, user);
  const before = bucket((await usdcRow(t, user)).row, 'totalBalance');
  const replay = await send();
  const after = bucket((await usdcRow(t, user)).row, 'totalBalance');
  await settled();
  t.expect('OA-IDEM-001', sameAnswer(first, replay) && after === before, {
    documented: `${what} repeated with the same key and body replays the cached answer (${first.response.status}) and leaves totalBalance at ${before}`,
    received: { ...failureOf(replay), totalBalanceAfter: after.toString() },
    exchange: replay,
  });
}

export const walletConfirmReplayed = defineCheck({
  name: 'wallet-withdrawal-confirm-repeated-with-the-same-idempotency-key-replays-and-moves-funds-once',
  service: 'orders',
  rules: ['OA-IDEM-001'],
  profile: 'full',
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
  async run(t: CheckContext) {
    const { user, orderId } = await withdrawableOrder(t);
    const built = await pendingOrderWithdrawal(t, user, orderId);
    const send = keyedPost(t, user, `/orders/${orderId}/withdraw/confirm`, { signedTransaction: signedWithdrawal(built, user) });
    await expectConfirmReplay(t, user, send, `POST /orders/${orderId}/withdraw/confirm`);
  },
});
