import { type OperationInfo } from '../../generators/index.ts';
import { errorCode } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { RequestSpec } from '../harness/client.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed, Skipped } from '../harness/failure.ts';
import { unavailableCode } from '../harness/outage.ts';
import {
  generatedMustBeRejected,
  generatedSampler,
  hostileValues,
  invalidRequests,
  leakedInternals,
  runsPerOperation,
  sampleRequest,
  sweep,
  type Sweep,
  type SweepInput,
} from '../shared/hostile.ts';
import { isObject, randomToken } from '../shared/values.ts';
import { ERROR_STATUSES } from './error-table.ts';
import { createOrder, intentRequest, intentUser, type OrderType } from './orders.ts';
import { onboardedUser, rateLimited, testWallet } from './users.ts';
import {
  badInputs,
  type BadInput,
  CODE_OPERATIONS,
  isHealth,
  key,
  operations,
  orderIdFor,
  type RealOrders,
  userScoped,
} from './steps/hostile-inputs.ts';

/**
 * Hostile input on every operation of the orders spec, GET /health included (OA-HOST-001..003): malformed path ids,
 * hostile, unknown and repeated query parameters, broken and oversized bodies, malformed amounts, prices and keys in
 * every field that carries one, and the invalid requests the spec's own arbitraries generate.
 *
 * Every answer must be a client error in the failure envelope, with a code the Errors tables give that status (and
 * that operation, where the table names one), never a 5xx, never a hang, never a message that leaks internals. A 2xx
 * is accepted only where the documents leave the input arguably valid or unvalidated: unknown or repeated query
 * parameters, the exact and unvalidated /me/orders filters, a body an operation without required fields may ignore,
 * an amount a lenient parser reads ("007", "+1", " 1"), an empty or null optional amount. Never for invalid JSON, a
 * body that is no object, a missing required field, a wrong JSON type, a negative or fractional amount or one beyond
 * u64. What status a malformed path id gets (400 or 404) is not shown (UNKNOWNS part B): any 4xx the tables allow.
 * Fields that exist only in the suite's assumed templates (intent `config`, PATCH and confirm bodies; O7-O10, O12)
 * are judged under OA-HOST-003 (assumed).
 *
 * Reads run in `readonly` (a user is onboarded only in `full`; otherwise user-scoped reads stop at the auth layer,
 * which must hold up too); writes run in `full`. In `full`, when the target can fund a wallet or TEST_WALLET_SECRET_KEY
 * names one, the check creates one DCA, one stop-loss and one slice order and sends the bad bodies and queries of the
 * order-level operations to their ids, so that they reach validation instead of a 404.
 */

/** The strings a request carried, so that an echo of them in a message is not taken for a leak. */
function sentStrings(ex: Exchange): string[] {
  const url = new URL(ex.request.url);
  return [
    ex.request.url,
    url.pathname,
    decodeURIComponent(url.pathname),
    ...url.searchParams.values(),
    ...url.searchParams.keys(),
    ex.request.body ?? '',
  ];
}

function received(ex: Exchange) {
  const { status, body } = ex.response;
  return { status, body: typeof body === 'string' ? body.slice(0, 300) : body };
}

/** GET /health, outside the envelope: a 2xx or a 4xx, a 503 only as its database state (environment). */
function judgeHealth(t: CheckContext, what: string, ex: Exchange): boolean {
  const { status, body } = ex.response;
  if (status === 503 && isObject(body) && body.status === 'error') return false;
  const where = `GET /health with ${what}`;
  t.expect('OA-HOST-001', (status >= 200 && status < 300) || (status >= 400 && status < 500), {
    documented: `${where}: ignored (2xx) or rejected (4xx), never ${status >= 500 ? 'a 5xx' : `HTTP ${status}`}`,
    received: received(ex),
    exchange: ex,
  });
  if (status >= 400) {
    const text = typeof body === 'string' ? body : JSON.stringify(body ?? '');
    const leak = leakedInternals(text, sentStrings(ex));
    t.expect('OA-HOST-002', leak === undefined, {
      documented: `${where}: an error body without internals`,
      received: { leaked: leak, body: text.slice(0, 300) },
      exchange: ex,
    });
  }
  return true;
}

/** OA-HOST-001..003 on one answer; returns false when the answer says nothing (environment trouble). */
function judge(t: CheckContext, op: OperationInfo, input: Pick<BadInput, 'what' | 'served' | 'rule'>, ex: Exchange): boolean {
  rateLimited(ex);
  if (isHealth(op)) return judgeHealth(t, input.what, ex);
  const { status, body } = ex.response;
  const code = errorCode(ex);
  if (unavailableCode(ex)) return false; // environment trouble, as the harness reads it (harness/outage.ts)
  const where = `${key(op)} with ${input.what}`;
  const documentedFiveHundred = key(op) === 'POST /orders/confirm' && status === 500 && code === 'SUBMIT_FAILED';
  t.expect('OA-HOST-001', (status >= 200 && status < 300) || (status >= 400 && status < 500) || documentedFiveHundred, {
    documented: `${where}: a client error (4xx), never ${status >= 500 ? 'a 5xx' : `HTTP ${status}`}`,
    received: received(ex),
    exchange: ex,
  });
  if (status < 400) {
    t.expect(input.rule ?? 'OA-HOST-001', input.served, {
      documented: `${where}: a client error (4xx); no reading of the documents${input.rule === 'OA-HOST-003' ? " (with the suite's assumed field names)" : ''} lets this input through`,
      received: received(ex),
      exchange: ex,
    });
    return true;
  }
  const error = isObject(body) ? body.error : undefined;
  const enveloped =
    isObject(body) && body.success === false && isObject(error) && typeof error.code === 'string' && typeof error.message === 'string';
  t.expect('OA-HOST-001', enveloped, {
    documented: `${where}: the failure envelope {success:false, error:{code, message}}`,
    received: received(ex),
    exchange: ex,
  });
  const statuses = ERROR_STATUSES[String(code)];
  t.expect('OA-HOST-001', statuses !== undefined, {
    documented: `${where}: an error.code of the Errors tables (${String(code)} is in none)`,
    received: received(ex),
    exchange: ex,
  });
  t.expect('OA-HOST-001', statuses.includes(status), {
    documented: `${where}: ${String(code)} comes with HTTP ${statuses.join(' or ')} (Errors tables)`,
    received: received(ex),
    exchange: ex,
  });
  const only = CODE_OPERATIONS[String(code)];
  t.expect('OA-HOST-001', !only || only.includes(key(op)), {
    documented: `${where}: ${String(code)} is the answer of ${only?.join(', ')} only (Errors tables)`,
    received: received(ex),
    exchange: ex,
  });
  const leak = leakedInternals(String((error as Record<string, unknown>).message), sentStrings(ex));
  t.expect('OA-HOST-002', leak === undefined, {
    documented: `${where}: error.message is for people, without internals`,
    received: { leaked: leak, message: (error as Record<string, unknown>).message },
    exchange: ex,
  });
  return true;
}

/** An order of `type` for the hostile inputs to reach, or undefined (with a note) when it cannot be made. */
async function realOrder(t: CheckContext, user: Parameters<typeof createOrder>[1], type: OrderType): Promise<string | undefined> {
  try {
    return (await createOrder(t, user, intentRequest(type))).orderId;
  } catch (e) {
    if (!(e instanceof Skipped) && !(e instanceof SetupFailed)) throw e;
    t.note(`no real ${type} order (${e.reason}): its operations got random ids`);
    return undefined;
  }
}

/**
 * The user hostile user-scoped requests carry, and the real orders they reach: an onboarded user with a DCA, a
 * stop-loss and (for the reads: no write has a slice order's path) a slice order in `full` when a wallet can be had;
 * else a never-onboarded user and random ids.
 */
async function hostileTarget(t: CheckContext, writes: boolean): Promise<{ sub: string; userPubkey: string; real: RealOrders }> {
  const funding = t.control.has('funding');
  if (t.env.profile !== 'full' || !(funding || t.env.credentials.walletSecretKey)) {
    t.note(
      'user-scoped operations were sent as a never-onboarded user, order-level ones with random ids: their answers come from the auth layer',
    );
    return { sub: randomToken('hostile-never-onboarded'), userPubkey: '11111111111111111111111111111111', real: {} };
  }
  let user;
  try {
    user = await intentUser(t, funding);
  } catch (e) {
    if (!(e instanceof Skipped)) throw e;
    t.note(`no funded user (${e.reason}): order-level operations got random ids`);
    const onboarded = await onboardedUser(t, testWallet(t));
    return { sub: onboarded.sub, userPubkey: onboarded.userPubkey, real: {} };
  }
  const real: RealOrders = {
    dca: await realOrder(t, user, 'dca'),
    trigger: await realOrder(t, user, 'stop_loss'),
    slice: writes ? undefined : await realOrder(t, user, 'slice'),
  };
  return { sub: user.sub, userPubkey: user.userPubkey, real };
}

async function tryHostileInput(t: CheckContext, writes: boolean): Promise<void> {
  const user = await hostileTarget(t, writes);
  const hostile = hostileValues(t.env);
  const sampled = generatedSampler(t.env);
  let inconclusive = 0;
  const judged = async (
    send: (spec: RequestSpec) => Promise<Exchange>,
    op: OperationInfo,
    input: Pick<BadInput, 'what' | 'served' | 'rule'>,
    spec: RequestSpec,
  ): Promise<void> => {
    const headers = { ...(spec.headers ?? {}), ...(userScoped(op) ? { 'X-Service-User': user.sub } : {}) };
    if (!judge(t, op, input, await send({ ...spec, headers }))) inconclusive++;
  };
  // A write a conforming server may serve changes what the inputs after it meet: the user's pending orders, limits and
  // idempotency keys, a real order's state (paused, modified), the tenant's users. It keeps its place among the inputs
  // of that state (SweepInput.alone), and so does the property of each write, whose generated requests may be served
  // too; the inputs no reading lets through, and the reads, run together.
  const inputs: SweepInput[] = [];
  for (const op of operations(writes)) {
    const state = !writes ? undefined : !userScoped(op) ? 'tenant' : op.path.includes('{') ? `order ${orderIdFor(op, user.real)}` : 'user';
    for (const input of badInputs(op, user.userPubkey, user.real, hostile))
      inputs.push({ operation: op.operationId, state, alone: input.served, run: (send) => judged(send, op, input, input.spec) });
    const generated = invalidRequests('orders', op);
    if (!generated) continue;
    inputs.push({
      operation: op.operationId,
      state,
      alone: true,
      run: (send) =>
        t.property(
          'OA-HOST-001',
          generated,
          async (sample) => {
            if (!sampled(op.operationId, sample)) return;
            const input = {
              what: `a generated invalid ${sample.target} (${sample.violation.message})`,
              served: !generatedMustBeRejected(sample),
            };
            await judged(
              send,
              op,
              input,
              sampleRequest(op, sample, () => orderIdFor(op, user.real)),
            );
          },
          runsPerOperation(t),
        ),
    });
  }
  await sweep(t, (s: Sweep) => s.inputs(t, t.orders, 'OA-HOST-001', inputs));
  if (inconclusive > 0)
    t.note(
      `${inconclusive} answer(s) were environment trouble (503 RPC_UNAVAILABLE, PRICE_ORACLE_UNAVAILABLE, or /health's database), not judged`,
    );
}

export const hostileReads = defineCheck({
  name: 'malformed-read-requests-get-client-errors-without-internals',
  service: 'orders',
  rules: ['OA-HOST-001', 'OA-HOST-002'],
  profile: 'readonly',
  async run(t: CheckContext) {
    await tryHostileInput(t, false);
  },
});

export const hostileWrites = defineCheck({
  name: 'malformed-write-requests-get-client-errors-without-internals',
  service: 'orders',
  rules: ['OA-HOST-001', 'OA-HOST-002', 'OA-HOST-003'],
  profile: 'full',
  async run(t: CheckContext) {
    await tryHostileInput(t, true);
  },
});
