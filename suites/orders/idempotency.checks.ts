import fc from 'fast-check';
import { dataOf, errorCode, failureOf, is2xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { ConformanceFailure, SetupFailed } from '../harness/failure.ts';
import { deepEqual, isObject, randomToken } from '../shared/values.ts';
import {
  createOrder,
  dcaRequest,
  type Funded,
  fundUser,
  type Intent,
  intentRequest,
  type IntentRequest,
  intentUser,
  ORDER_TYPES,
  type OrderType,
  pendingIntent,
  postConfirm,
  postIntent,
  signedDeposit,
  skipIfTemplateRejected,
} from './orders.ts';
import type { SiwsEnvironment } from './siws.ts';
import { type Generated, requestOf, userWithIntent, validConfig } from './steps/create.ts';
import { expectAccepted, expectError, expectErrorEnvelope } from './steps/expect.ts';
import { LIST_CAP } from './steps/reads.ts';
import { asUser, correctBody, onboardedUser, servedRequest, testWallet, otherTenantKey } from './users.ts';
import type { RuleId } from '../../generators/vocabulary.ts';

/**
 * X-Idempotency-Key (Limits: Idempotency; Errors: 422 IDEMPOTENCY_KEY_REUSED) on the two listed POSTs this suite can
 * drive today, POST /orders/intent (generated bodies of all five order types) and POST /orders/confirm. The other ten listed POSTs (modify confirm, cancel,
 * order-level withdraw and its confirm and abandon, pause, resume, retry, /withdraw/transaction, /withdraw/confirm)
 * are not exercised here yet. "Same body" is left open by the document (byte-identical or the same JSON value): a
 * replay here always sends the very same bytes, and a "different body" always differs in value.
 */

const IDEMPOTENCY_KEY = 'X-Idempotency-Key';
const keyed = (key: string) => ({ [IDEMPOTENCY_KEY]: key });
/** A key no earlier request of the run used: a generated key with a fresh prefix (fast-check may repeat values). */
const fresh = (generated: string) => `${randomToken('idem')}-${generated}`;

const KEYS = fc.stringMatching(/^[A-Za-z0-9._~-]{1,32}$/);
/** DCA intents from the assumed template (UNKNOWNS O7): 11 to 20 USDC per cycle, 1 to 4 cycles, at least 60 s apart. */
const DCA_INTENTS = fc
  .record({
    perCycle: fc.integer({ min: 11, max: 20 }),
    cycles: fc.integer({ min: 1, max: 4 }),
    frequency: fc.integer({ min: 60, max: 7 * 24 * 3600 }),
  })
  .map(({ perCycle, cycles, frequency }) =>
    dcaRequest({
      totalAmount: String(perCycle * cycles * 1_000_000),
      amountPerCycle: String(perCycle * 1_000_000),
      cycleFrequencySeconds: frequency,
    }),
  );
/** Bounded: each run creates pending orders (and, on confirm, deposits). */
const runs = (t: CheckContext, most: number) => Math.min(t.env.numRuns, most);

/**
 * t.property, where a broken precondition inside a run (setup-failed, skipped) ends the property and is rethrown as
 * itself after it, instead of counting as a counterexample of the rule.
 */
async function property<T>(
  t: CheckContext,
  rule: RuleId,
  arb: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<boolean | void>,
  numRuns: number,
): Promise<void> {
  let broken: unknown;
  await t.property(
    rule,
    arb,
    async (value) => {
      if (broken !== undefined) return true;
      try {
        return await predicate(value);
      } catch (e) {
        if (e instanceof ConformanceFailure) throw e;
        broken = e;
        return true;
      }
    },
    numRuns,
  );
  if (broken !== undefined) throw broken;
}

/** A generated intent the target did not accept cannot be replayed: recorded, and the run holds vacuously. */
function notAccepted(t: CheckContext, ex: Exchange): true {
  t.note(`a generated intent answered ${ex.response.status} ${String(errorCode(ex) ?? '')}: nothing to replay for it`);
  return true;
}

/** Rows of a user-scoped or partner list, or undefined when the target does not serve it. */
async function listRows(
  t: CheckContext,
  path: string,
  sub?: string,
  query?: Record<string, string>,
): Promise<Array<Record<string, unknown>> | undefined> {
  const ex = await t.orders.request({ path, query, headers: sub ? { 'X-Service-User': sub } : {}, validate: false, retry: false });
  const d = isObject(ex.response.body) ? ex.response.body.data : undefined;
  return is2xx(ex) && Array.isArray(d) ? d.filter(isObject) : undefined;
}
const pendingRows = (t: CheckContext, user: Funded) => listRows(t, '/orders/pending', user.sub);
const orderIdsOf = async (t: CheckContext, user: Funded) =>
  (await listRows(t, '/partners/me/orders', undefined, { userId: user.userId }))?.map((row) => String(row.id));

/**
 * The rows of `after` that were not in `before`, told apart by the field in which a row of `after` carries `id` (the
 * pending order's id; row fields not shown, UNKNOWNS.md O4); undefined when no row carries it. By identity, not by
 * count: the user's other pending orders may leave the list meanwhile (their 5-minute window ends: on a partner's
 * staging every check's intents are the run's one wallet's).
 */
function newRows(
  before: ReadonlyArray<Record<string, unknown>>,
  after: ReadonlyArray<Record<string, unknown>>,
  id: unknown,
): Array<Record<string, unknown>> | undefined {
  const field = Object.entries(after.find((row) => Object.values(row).includes(id)) ?? {}).find(([, v]) => v === id)?.[0];
  if (field === undefined) return undefined;
  const old = new Set(before.map((row) => row[field]));
  return after.filter((row) => !old.has(row[field]));
}

/** A generated valid intent of `orderType` (steps/create.ts validConfig), made into a body at request time. */
const intentsOf = (orderType: OrderType) => validConfig(orderType).map((generated) => ({ orderType, generated }));
type GeneratedIntent = { orderType: OrderType; generated: Generated };
const bodyOf = (t: CheckContext, intent: GeneratedIntent) => requestOf(t, intent.orderType, intent.generated);

const intentReplay = defineCheck({
  name: 'intent-replayed-with-the-same-key-and-body-returns-the-same-pending-order',
  service: 'orders',
  rules: ['OA-IDEM-001', 'OA-IDEM-003', 'OA-IDEM-002'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    await pendingIntent(t, user);
    const first = await postIntent(t, user.sub, dcaRequest(), keyed(fresh('accepted')));
    expectAccepted(
      t,
      'OA-IDEM-001',
      first,
      'POST /orders/intent accepts X-Idempotency-Key: the template accepted without a key is accepted with one',
    );
    if ((await pendingRows(t, user)) === undefined)
      t.note('GET /orders/pending is not served: "no second pending order" is judged by the replayed pendingOrderId only');
    // Every order type, each with its own generated bodies.
    for (const orderType of ORDER_TYPES) {
      await property(
        t,
        'OA-IDEM-003',
        fc.record({ intent: intentsOf(orderType), key: KEYS }),
        async ({ intent, key }) => {
          const k = fresh(key);
          const request = await bodyOf(t, intent);
          const before = await pendingRows(t, user);
          const original = await postIntent(t, user.sub, request, keyed(k));
          if (!is2xx(original)) return notAccepted(t, original);
          const replay = await postIntent(t, user.sub, request, keyed(k));
          t.expect('OA-IDEM-003', dataOf(replay)?.pendingOrderId === dataOf(original)?.pendingOrderId, {
            documented: `the ${orderType} intent's replay (same key ${k}, same body) returns the same pendingOrderId ${String(dataOf(original)?.pendingOrderId)}`,
            received: failureOf(replay),
            exchange: replay,
          });
          t.expect(
            'OA-IDEM-002',
            replay.response.status === original.response.status && deepEqual(replay.response.body, original.response.body),
            {
              documented: `the replay answers the original status ${original.response.status} and body`,
              received: { status: replay.response.status, body: replay.response.body },
              exchange: replay,
            },
          );
          const after = await pendingRows(t, user);
          if (before !== undefined && after !== undefined) {
            const id = dataOf(original)?.pendingOrderId;
            const added = newRows(before, after, id);
            // Without a row carrying the id, by count: exactly one more for a fresh user (`funding`); on the partner's
            // wallet others' rows may leave meanwhile, so there only more than one new is judged.
            const whole = t.control.has('funding');
            const grew = after.length - before.length;
            t.expect('OA-IDEM-003', added ? added.length === 1 : whole ? grew === 1 : grew <= 1, {
              documented: added
                ? `a ${orderType} intent and its replay leave exactly one new row in GET /orders/pending, the one of ${String(id)}`
                : `a ${orderType} intent and its replay leave ${whole ? 'exactly' : 'at most'} one new row in GET /orders/pending (no row carries ${String(id)})`,
              received: added ? { newRows: added } : { before: before.length, after: after.length },
              exchange: replay,
            });
          }
        },
        runs(t, 3),
      );
    }
  },
});

/** The confirm body of a pending order, signed by its user. */
const confirmBody = (intent: Intent, user: Funded) => ({
  pendingOrderId: intent.pendingOrderId,
  signedTransaction: signedDeposit(intent, user),
});

const confirmReplay = defineCheck({
  name: 'confirm-replayed-with-the-same-key-and-body-returns-the-same-order',
  service: 'orders',
  rules: ['OA-IDEM-001', 'OA-IDEM-004'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    await fundUser(t, user.userPubkey, '500000000');
    await createOrder(t, user);
    await property(
      t,
      'OA-IDEM-004',
      KEYS,
      async (key) => {
        const k = fresh(key);
        const intent = await pendingIntent(t, user);
        const body = confirmBody(intent, user);
        const before = await orderIdsOf(t, user);
        const original = await postConfirm(t, user.sub, body, keyed(k));
        const order = dataOf(original)?.order;
        t.expect('OA-IDEM-001', is2xx(original) && isObject(order), {
          documented:
            'POST /orders/confirm accepts X-Idempotency-Key: a signed, unchanged deposit confirmed without a key is confirmed with one',
          received: failureOf(original),
          exchange: original,
        });
        const replay = await postConfirm(t, user.sub, body, keyed(k));
        const again = dataOf(replay);
        t.expect(
          'OA-IDEM-004',
          is2xx(replay) && isObject(again?.order) && again.order.id === order.id && again.txSignature === dataOf(original)?.txSignature,
          {
            documented: `the replay (same key, same body) returns order ${String(order.id)} and txSignature ${String(dataOf(original)?.txSignature)}`,
            received: failureOf(replay),
            exchange: replay,
          },
        );
        const after = await orderIdsOf(t, user);
        if (before !== undefined && after !== undefined) {
          // By identity, not by count: on the partner's wallet the list may be at its cap (500 rows), an old row
          // leaving as the new one comes; one not listed there is not judged.
          const created = after.filter((id) => !before.includes(id));
          if (after.length >= LIST_CAP && !created.includes(String(order.id)))
            t.note(
              `GET /partners/me/orders lists ${after.length} orders (the cap), the new one not among them: the orders created are not counted`,
            );
          else
            t.expect('OA-IDEM-004', created.length === 1 && created[0] === String(order.id), {
              documented: `a confirm and its replay create exactly one order, ${String(order.id)} (GET /partners/me/orders?userId=${user.userId})`,
              received: { created },
              exchange: replay,
            });
        }
      },
      runs(t, 5),
    );
  },
});

/** Order types whose confirms never race with each other (a second running slice would answer ACTIVE_BURST_EXISTS). */
const CONFIRMABLE_TYPES = ORDER_TYPES.filter((type) => type !== 'slice');

const differentBodyRejected = defineCheck({
  name: 'a-key-reused-with-a-different-body-answers-422-idempotency-key-reused',
  service: 'orders',
  rules: ['OA-IDEM-005', 'OA-ENV-002'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    await fundUser(t, user.userPubkey, '500000000');
    const expect422 = (ex: Exchange, what: string) => {
      expectError(t, 'OA-IDEM-005', ex, {
        status: 422,
        codes: ['IDEMPOTENCY_KEY_REUSED'],
        documented: `422 IDEMPOTENCY_KEY_REUSED for ${what}`,
      });
      expectErrorEnvelope(t, ex);
    };
    // Intents: a first body of each order type, then under its key a body of any type that differs from it.
    const anyIntent = fc.constantFrom(...ORDER_TYPES).chain(intentsOf);
    for (const orderType of ORDER_TYPES) {
      const pairs = fc.tuple(intentsOf(orderType), anyIntent, KEYS).filter(([a, b]) => !deepEqual(a, b));
      await property(
        t,
        'OA-IDEM-005',
        pairs,
        async ([a, b, key]) => {
          const k = fresh(key);
          const original = await postIntent(t, user.sub, await bodyOf(t, a), keyed(k));
          if (!is2xx(original)) return notAccepted(t, original);
          expect422(
            await postIntent(t, user.sub, await bodyOf(t, b), keyed(k)),
            `a ${b.orderType} intent with key ${k} of a ${orderType} intent with another body`,
          );
        },
        runs(t, 2),
      );
    }
    // Confirms: a confirmed pending order's key, then another pending order, or the same one with another transaction.
    const confirms = fc.record({
      key: KEYS,
      types: fc.tuple(fc.constantFrom(...CONFIRMABLE_TYPES), fc.constantFrom(...CONFIRMABLE_TYPES)),
      other: fc.constantFrom('another pending order', 'the same pending order with another signed transaction'),
    });
    await property(
      t,
      'OA-IDEM-005',
      confirms,
      async ({ key, types: [first, second], other }) => {
        const k = fresh(key);
        const [one, two] = [await pendingIntent(t, user, intentRequest(first)), await pendingIntent(t, user, intentRequest(second))];
        const original = await postConfirm(t, user.sub, confirmBody(one, user), keyed(k));
        if (!is2xx(original))
          throw new SetupFailed(`a keyed confirm of a signed, unchanged ${first} deposit answered ${original.response.status}`, original);
        const changed =
          other === 'another pending order' ? confirmBody(two, user) : { ...confirmBody(two, user), pendingOrderId: one.pendingOrderId };
        expect422(
          await postConfirm(t, user.sub, changed, keyed(k)),
          `a confirm under the key ${k} of a confirmed ${first} order, with ${other} (${second})`,
        );
      },
      runs(t, 4),
    );
  },
});

const INVALID_ORDER_TYPES = fc.constantFrom('limit', 'market', 'DCA', 'stop-loss', 'twap');

const clientErrorsNotCached = defineCheck({
  name: 'a-4xx-answer-is-not-cached-under-its-idempotency-key',
  service: 'orders',
  rules: ['OA-IDEM-006'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    await pendingIntent(t, user);
    await property(
      t,
      'OA-IDEM-006',
      fc.record({ request: DCA_INTENTS, orderType: INVALID_ORDER_TYPES, key: KEYS }),
      async ({ request, orderType, key }) => {
        const k = fresh(key);
        const rejected = await postIntent(t, user.sub, { ...request, orderType }, keyed(k));
        if (rejected.response.status < 400 || rejected.response.status >= 500) {
          t.note(`an intent with orderType ${orderType} answered ${rejected.response.status}, not a 4xx`);
          return true;
        }
        const fixed = await postIntent(t, user.sub, request, keyed(k));
        // Another 400 than the first one's is the generated body's own rejection; the same 400 again would be the cached one.
        if (fixed.response.status === 400 && errorCode(fixed) !== errorCode(rejected)) return notAccepted(t, fixed);
        expectAccepted(
          t,
          'OA-IDEM-006',
          fixed,
          `after ${rejected.response.status} ${String(errorCode(rejected))} under key ${k}, the fixed body with the same key runs the handler (2xx)`,
        );
      },
      runs(t, 10),
    );
    const intent = await pendingIntent(t, user);
    const k = fresh('confirm');
    const missing = await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId }, keyed(k));
    if (missing.response.status < 400 || missing.response.status >= 500)
      throw new SetupFailed(`a confirm without signedTransaction answered ${missing.response.status}`, missing);
    const fixed = await postConfirm(t, user.sub, confirmBody(intent, user), keyed(k));
    expectAccepted(
      t,
      'OA-IDEM-006',
      fixed,
      `after ${missing.response.status} ${String(errorCode(missing))} under key ${k}, the complete confirm with the same key runs the handler (2xx)`,
    );
  },
});

const serverErrorsNotCached = defineCheck({
  name: 'a-5xx-answer-is-not-cached-under-its-idempotency-key',
  service: 'orders',
  rules: ['OA-IDEM-007'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'faults'],
  async run(t: CheckContext) {
    const { user, intent } = await userWithIntent(t);
    const body = confirmBody(intent, user);
    const k = fresh('rpc-down');
    t.defer(() => t.control.setFaults({ rpc: 'up' }));
    await t.control.setFaults({ rpc: 'down' });
    const down = await asUser(t, user.sub, { method: 'POST', path: '/orders/confirm', json: body, headers: keyed(k), retry: false });
    if (down.response.status < 500)
      throw new SetupFailed(`a confirm with the chain down answered ${down.response.status}, not a 5xx`, down);
    await t.control.setFaults({ rpc: 'up' });
    const again = await postConfirm(t, user.sub, body, keyed(k));
    expectAccepted(
      t,
      'OA-IDEM-007',
      again,
      `after ${down.response.status} ${String(errorCode(down))} under key ${k}, the same confirm with the same key runs the handler once the chain is back (2xx with the order)`,
      isObject(dataOf(again)?.order),
    );
  },
});

/** `b` sends what `a` sent under the same key, and a different body under a key `a` used: fresh keys both times. */
async function expectFreshKeysFor(
  t: CheckContext,
  rule: RuleId,
  a: { sub: string; headers?: Record<string, string> },
  b: { sub: string; headers?: Record<string, string> },
  who: string,
) {
  const send = (as: typeof a, request: IntentRequest, k: string) => postIntent(t, as.sub, request, { ...as.headers, ...keyed(k) });
  await property(
    t,
    rule,
    fc.tuple(DCA_INTENTS, DCA_INTENTS, KEYS),
    async ([request, other, key]) => {
      const k = fresh(key);
      const original = await send(a, request, k);
      if (!is2xx(original)) return notAccepted(t, original);
      const same = await send(b, request, k);
      expectAccepted(
        t,
        rule,
        same,
        `${who} sending the same key ${k} and body gets its own pending order (2xx, not ${String(dataOf(original)?.pendingOrderId)})`,
        dataOf(same)?.pendingOrderId !== dataOf(original)?.pendingOrderId,
      );
      const k2 = fresh(key);
      if (!is2xx(await send(a, request, k2))) return true;
      const differing = await send(b, other, k2);
      t.expect(rule, differing.response.status !== 422, {
        documented: `${who} sending key ${k2} with another body is no reuse: no 422`,
        received: failureOf(differing),
        exchange: differing,
      });
    },
    runs(t, 5),
  );
}

const keysScopedPerUser = defineCheck({
  name: 'an-idempotency-key-is-scoped-per-end-user',
  service: 'orders',
  rules: ['OA-IDEM-008'],
  profile: 'full',
  async run(t: CheckContext) {
    const a = await intentUser(t, true);
    const b = await intentUser(t, true, 'second');
    await pendingIntent(t, b);
    await expectFreshKeysFor(t, 'OA-IDEM-008', a, b, `another end user (${b.sub}) of the tenant`);
  },
});

const keysScopedPerTenant = defineCheck({
  name: 'an-idempotency-key-is-scoped-per-tenant',
  service: 'orders',
  rules: ['OA-IDEM-009'],
  profile: 'full',
  async run(t: CheckContext) {
    const a = await intentUser(t, true);
    const tenant = await otherTenantKey(t);
    const wallet = testWallet(t);
    const onboard = await servedRequest(t, {
      method: 'POST',
      path: '/partner/onboard',
      headers: { 'X-Service-User': undefined, 'X-Service-Key': tenant.apiKey },
      json: await correctBody(t, a.sub, wallet.keypair, tenant.environment ? { environment: tenant.environment as SiwsEnvironment } : {}),
    });
    if (!is2xx(onboard)) throw new SetupFailed(`onboarding ${a.sub} on a second tenant answered ${onboard.response.status}`, onboard);
    await fundUser(t, wallet.keypair.publicKey.toBase58());
    const b = { sub: a.sub, headers: { 'X-Service-Key': tenant.apiKey } };
    const probe = await postIntent(t, b.sub, dcaRequest(), b.headers);
    skipIfTemplateRejected(t, probe);
    if (!is2xx(probe)) throw new SetupFailed(`an intent on the second tenant answered ${probe.response.status}`, probe);
    await expectFreshKeysFor(t, 'OA-IDEM-009', a, b, `the same sub ${a.sub} under another tenant`);
  },
});

const onboardingIgnoresKey = defineCheck({
  name: 'partner-onboard-ignores-the-idempotency-key',
  service: 'orders',
  rules: ['OA-IDEM-012'],
  profile: 'full',
  async run(t: CheckContext) {
    const wallet = testWallet(t);
    const k = fresh('onboard');
    const send = async (nonce: string) =>
      await servedRequest(t, {
        method: 'POST',
        path: '/partner/onboard',
        headers: { 'X-Service-User': undefined, ...keyed(k) },
        json: await correctBody(t, wallet.sub, wallet.keypair, { nonce }),
      });
    const first = await send(randomToken('n').replace(/-/g, ''));
    if (!is2xx(first)) throw new SetupFailed(`onboarding with an idempotency key answered ${first.response.status}`, first);
    t.confirm('siws-form');
    const second = await send(randomToken('n').replace(/-/g, ''));
    expectAccepted(
      t,
      'OA-IDEM-012',
      second,
      `POST /partner/onboard repeated for sub ${wallet.sub} with another SIWS nonce and the same key: 2xx with the same userId (idempotent by sub, never 422)`,
      dataOf(second)?.userId === dataOf(first)?.userId,
    );
  },
});

const readsIgnoreKey = defineCheck({
  name: 'gets-and-partner-only-endpoints-ignore-the-idempotency-key',
  service: 'orders',
  rules: ['OA-IDEM-013'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await onboardedUser(t);
    const k = fresh('reads');
    const balance = (query: Record<string, string> = {}, key?: string) =>
      asUser(t, user.sub, { path: '/me/balance', query, headers: key ? keyed(key) : {} });
    await balance({}, k);
    const hidden = await balance({ hideZero: 'true' }, k);
    const plain = await balance({ hideZero: 'true' });
    expectAccepted(
      t,
      'OA-IDEM-013',
      hidden,
      `GET /me/balance?hideZero=true under key ${k} (already sent on GET /me/balance) answers as without the key`,
      deepEqual(hidden.response.body, plain.response.body),
    );
    const reports = [];
    for (const query of [{}, { status: 'active' }]) {
      reports.push(await servedRequest(t, { path: '/partners/me/orders', query, headers: { 'X-Service-User': undefined, ...keyed(k) } }));
    }
    t.expect('OA-IDEM-013', reports.every(is2xx), {
      documented: `GET /partners/me/orders twice under key ${k} with different queries: both 2xx`,
      received: reports.map(failureOf),
      exchange: reports[1],
    });
    if (!t.control.has('funding')) return t.note('no funding capability: stale replays of GET /me/balance are not probed');
    const before = await balance({}, k);
    await t.control.fund(user.walletAddress, 'native', '1000');
    const after = await balance({}, k);
    t.expect('OA-IDEM-013', !deepEqual(after.response.body, before.response.body), {
      documented: `GET /me/balance under key ${k} after 1000 lamports reached the manager shows the new balance, not a replay`,
      received: after.response.body,
      exchange: after,
    });
  },
});

const DAY_SECONDS = 24 * 60 * 60;

/**
 * Last of the group on purpose: it moves the target's virtual clock 24 hours and a minute forward, shared time for
 * every later check (they read the service's time from the clock where they need it).
 */
const replayWindow = defineCheck({
  name: 'a-replay-still-happens-just-before-24-hours-and-the-key-is-fresh-after',
  service: 'orders',
  rules: ['OA-IDEM-010', 'OA-IDEM-011'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const k = fresh('window');
    const original = await pendingIntent(t, user, dcaRequest(), keyed(k));
    await t.control.advanceClock(DAY_SECONDS - 60);
    t.note("the target's virtual clock was advanced by 24 hours and 1 minute in all (shared time)");
    const replay = await postIntent(t, user.sub, original.request, keyed(k));
    t.expect(
      'OA-IDEM-010',
      replay.response.status === original.ex.response.status && deepEqual(replay.response.body, original.ex.response.body),
      {
        documented: `23h59m after the first intent, the same key ${k} and body replay the cached answer (pendingOrderId ${original.pendingOrderId})`,
        received: failureOf(replay),
        exchange: replay,
      },
    );
    await t.control.advanceClock(120);
    const other = dcaRequest({ totalAmount: '24000000' });
    const afresh = await postIntent(t, user.sub, other, keyed(k));
    expectAccepted(
      t,
      'OA-IDEM-011',
      afresh,
      `24h01m after the first intent, key ${k} with another body is fresh: the handler runs (2xx, a new pendingOrderId), no 422`,
      dataOf(afresh)?.pendingOrderId !== original.pendingOrderId,
    );
  },
});

/** The group in running order (a module namespace lists its exports alphabetically, an array keeps this order). */
export const idempotencyChecks = [
  intentReplay,
  confirmReplay,
  differentBodyRejected,
  clientErrorsNotCached,
  serverErrorsNotCached,
  keysScopedPerUser,
  keysScopedPerTenant,
  onboardingIgnoresKey,
  readsIgnoreKey,
  replayWindow,
];
