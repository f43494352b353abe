import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { randomToken } from '../shared/values.ts';
import { act, failedDca, readOrder } from './actions.checks.ts';
import { dcaRequest, failureOf, intentUser, pendingIntent, postConfirm, postIntent, signed, skipIfTemplateRejected, type Funded } from './orders.ts';
import { asUser, dataOf, errorCode, is2xx } from './users.ts';
import { bucket, builtTransaction, usdcRow, walletWithdraw, withdrawUser } from './withdrawals.checks.ts';

/**
 * The concurrency facts: the same request sent a few times at once (Promise.all of a handful, within the run's
 * concurrency cap) has one effect; the other answers are errors the document gives, or for a keyed intent the replay.
 * A server that checks, then writes, with a pause between the two lets more than one through. Cancels and order-level
 * withdrawal confirms race in actions.checks.ts and withdrawals.checks.ts.
 */

/** How many copies of one request a race sends at once. */
const RACE_WIDTH = 3;

/** `send` RACE_WIDTH times at once. */
const race = (send: () => Promise<Exchange>) => Promise.all(Array.from({ length: RACE_WIDTH }, send));

/** The rows of a user-scoped list, or undefined when the target does not answer it with a list. */
async function rowsOf(t: CheckContext, user: Funded, path: string): Promise<unknown[] | undefined> {
  const ex = await t.orders.request({ path, headers: { 'X-Service-User': user.sub }, validate: false, retry: false });
  const data = (ex.response.body as { data?: unknown } | undefined)?.data;
  return is2xx(ex) && Array.isArray(data) ? data : undefined;
}
const orderIds = async (t: CheckContext, user: Funded) => (await rowsOf(t, user, '/me/orders'))?.map((row) => String((row as { id?: unknown }).id));
const pendingRows = async (t: CheckContext, user: Funded) => (await rowsOf(t, user, '/orders/pending'))?.length;

export const twoConfirmsAtOnceMakeOneOrder = defineCheck({
  name: 'two-confirms-of-one-pending-order-at-once-make-one-order',
  service: 'orders',
  rules: ['OA-CONF-023'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const intent = await pendingIntent(t, user);
    const body = { pendingOrderId: intent.pendingOrderId, signedTransaction: signed(intent.transaction, user.keypair) };
    const before = await orderIds(t, user);
    const answers = await Promise.all([postConfirm(t, user.sub, body), postConfirm(t, user.sub, body)]);
    const winners = answers.filter(is2xx);
    t.expect('OA-CONF-023', winners.length <= 1, {
      documented: 'of two confirms of one pending order sent at once, at most one answers 2xx',
      received: answers.map(failureOf), exchange: winners[1] ?? answers[0],
    });
    for (const ex of answers.filter((a) => !is2xx(a))) t.note(`a confirm of the race answered ${ex.response.status} ${String(errorCode(ex) ?? '')}`);
    const after = await orderIds(t, user);
    if (before !== undefined && after !== undefined) {
      const created = after.filter((id) => !before.includes(id));
      t.expect('OA-CONF-023', created.length === winners.length, {
        documented: 'two confirms of one pending order sent at once create one order, the one the 2xx answer returned (GET /me/orders)', received: { created, answered2xx: winners.length }, exchange: winners[0],
      });
    }
  },
});

export const sameKeyTwiceAtOnceMakesOnePendingOrder = defineCheck({
  name: 'the-same-idempotency-key-twice-at-once-makes-one-pending-order',
  service: 'orders',
  rules: ['OA-IDEM-014'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const headers = { 'X-Idempotency-Key': randomToken('race') };
    const before = await pendingRows(t, user);
    const answers = await Promise.all([postIntent(t, user.sub, dcaRequest(), headers), postIntent(t, user.sub, dcaRequest(), headers)]);
    for (const ex of answers) skipIfTemplateRejected(t, ex);
    const ids = new Set(answers.filter(is2xx).map((ex) => dataOf(ex)?.pendingOrderId));
    const others = answers.filter((ex) => !is2xx(ex));
    t.expect('OA-IDEM-014', ids.size === 1 && others.every((ex) => ex.response.status === 409 || ex.response.status >= 500), {
      documented: 'the same key and body sent twice at once: every 2xx carries one pendingOrderId (the replay), any other answer is a 409 or a retryable 5xx',
      received: answers.map((ex) => ({ status: ex.response.status, code: errorCode(ex), pendingOrderId: dataOf(ex)?.pendingOrderId })), exchange: answers[1],
    });
    const after = await pendingRows(t, user);
    if (before !== undefined && after !== undefined) {
      t.expect('OA-IDEM-014', after - before === 1, {
        documented: 'the same key and body sent twice at once create one pending order (GET /orders/pending)', received: { before, after }, exchange: answers[0],
      });
    }
  },
});

export const retriesAtOnceHaveOneEffect = defineCheck({
  name: 'retries-of-one-failed-order-at-once-have-one-effect',
  service: 'orders',
  rules: ['OA-RETRY-009'],
  profile: 'full',
  needs: ['funding', 'clock', 'faults'],
  async run(t: CheckContext) {
    const { user, created } = await failedDca(t);
    const answers = await race(() => act(t, user, created.orderId, 'retry'));
    const others = answers.filter((ex) => !is2xx(ex));
    t.expect('OA-RETRY-009', answers.length - others.length === 1 && others.every((ex) => ex.response.status === 400 && ['ORDER_NOT_FAILED', 'INVALID_STATE'].includes(String(errorCode(ex)))), {
      documented: `of ${RACE_WIDTH} retries of one failed DCA order sent at once, exactly one answers 2xx and the others 400 ORDER_NOT_FAILED or INVALID_STATE`,
      received: answers.map(failureOf), exchange: others[0] ?? answers[1],
    });
    const order = await readOrder(t, user, created);
    t.expect('OA-RETRY-009', order.status === 'active', { documented: 'the order reads back as active after the race', received: order.status });
  },
});

export const walletConfirmsAtOnceMoveFundsOnce = defineCheck({
  name: 'one-wallet-withdrawal-confirmed-several-times-at-once-moves-the-funds-once',
  service: 'orders',
  rules: ['OA-WDW-014'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await withdrawUser(t);
    const amount = 2_000_000n;
    const { base64 } = builtTransaction(await walletWithdraw(t, user, { amount: amount.toString() }), 'POST /withdraw/transaction');
    const before = bucket((await usdcRow(t, user)).row, 'totalBalance');
    const body = { signedTransaction: signed(base64, user.keypair) };
    const answers = await race(() => asUser(t, user.sub, { method: 'POST', path: '/withdraw/confirm', json: body, retry: false }));
    const winners = answers.filter(is2xx);
    const others = answers.filter((ex) => !is2xx(ex));
    t.expect('OA-WDW-014', winners.length <= 1 && others.every((ex) => ex.response.status >= 400 && ex.response.status < 500), {
      documented: `of ${RACE_WIDTH} confirms of one signed withdrawal sent at once, at most one answers 2xx and the others a 4xx or 409`,
      received: answers.map(failureOf), exchange: winners[1] ?? others[0],
    });
    const after = bucket((await usdcRow(t, user)).row, 'totalBalance');
    t.expect('OA-WDW-014', before - after === (winners.length === 1 ? amount : 0n) && after >= 0n, {
      documented: `USDC totalBalance drops by ${amount} once (${winners.length} confirm answered 2xx)`, received: { before: before.toString(), after: after.toString() },
    });
  },
});
