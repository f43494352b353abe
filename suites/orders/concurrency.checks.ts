import { defineCheck, type CheckContext } from '../harness/check.ts';
import { randomToken } from '../shared/values.ts';
import { dcaRequest, failureOf, intentUser, pendingIntent, postConfirm, postIntent, signed, skipIfTemplateRejected, type Funded } from './orders.ts';
import { dataOf, errorCode, is2xx } from './users.ts';

/**
 * The concurrency facts of creation: two requests sent at once (Promise.all of two, nothing more) have one effect;
 * the other answer is an error the document gives (recorded), or for a keyed intent the replay. A server that checks,
 * then writes, with a pause between the two lets both through.
 */

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
