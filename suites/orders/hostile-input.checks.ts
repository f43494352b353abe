import { randomUUID } from 'node:crypto';
import { listOperations, type JsonSchema, type OperationInfo } from '../../generators/index.ts';
import { schemaRoot } from '../../generators/arbitraries.ts';
import { errorCode } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { RequestSpec } from '../harness/client.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed, Skipped } from '../harness/failure.ts';
import { unavailableCode } from '../harness/outage.ts';
import {
  HOSTILE_STRINGS,
  fillPath,
  generatedMustBeRejected,
  generatedSampler,
  hostileValues,
  type HostileValues,
  invalidRequests,
  leakedInternals,
  mayServeAmount,
  runsPerOperation,
  sampleRequest,
  sweep,
  type Sweep,
  type SweepInput,
} from '../shared/hostile.ts';
import { isObject, randomToken } from '../shared/values.ts';
import { ERROR_STATUSES } from './error-table.ts';
import { createOrder, defaultConfig, intentRequest, intentUser, ORDER_TYPES, usdc, type OrderType } from './orders.ts';
import { onboardedUser, rateLimited, testWallet } from './users.ts';
import type { RuleId } from '../../generators/vocabulary.ts';

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

const ONE_MIB = 1 << 20;

/** Codes whose row in the Errors tables names the operations that give them. */
const CODE_OPERATIONS: Readonly<Record<string, readonly string[]>> = {
  MISSING_PARAMS: ['POST /orders/confirm'],
  INVALID_REQUEST: ['POST /dca/{orderId}/modify/confirm'],
  INVALID_TRANSACTION: ['POST /withdraw/confirm', 'POST /dca/{orderId}/modify/confirm', 'POST /orders/{orderId}/withdraw/confirm'],
  EXPIRED: ['POST /orders/confirm'],
  MIN_OUTPUT_UNSATISFIABLE: ['POST /orders/intent'],
  PAUSE_NOT_SUPPORTED: ['POST /orders/{orderId}/pause'],
  CANCEL_NOT_SUPPORTED: ['POST /orders/{orderId}/cancel'],
  ORDER_NOT_FAILED: ['POST /orders/{orderId}/retry'],
  RETRY_NOT_SUPPORTED: ['POST /orders/{orderId}/retry'],
  LOCK_FAILED: ['PATCH /dca/{orderId}'],
  LOCK_EXPIRED: ['POST /dca/{orderId}/modify/confirm'],
};

/** Amount- and price-carrying fields of each intent template (the placeholders of specs/order-templates.yaml). */
const INTENT_AMOUNT_FIELDS: Readonly<Record<OrderType, ReadonlyArray<{ name: string; price?: boolean; optional?: boolean }>>> = {
  dca: [{ name: 'totalAmount' }, { name: 'amountPerCycle' }],
  stop_loss: [{ name: 'amount' }, { name: 'triggerPrice', price: true }, { name: 'minOutputAmount', optional: true }],
  take_profit: [{ name: 'amount' }, { name: 'triggerPrice', price: true }],
  oco: [{ name: 'amount' }, { name: 'stopLossPrice', price: true }, { name: 'takeProfitPrice', price: true }],
  slice: [{ name: 'amount' }],
};

/** Amount- and price-carrying fields of the assumed PATCH bodies `{config: {...}}` (UNKNOWNS O8, O10). */
const PATCH_AMOUNT_FIELDS: Readonly<Record<string, ReadonlyArray<{ name: string; price?: boolean }>>> = {
  'PATCH /dca/{orderId}': [{ name: 'totalAmount' }, { name: 'amountPerCycle' }],
  'PATCH /stop-loss/{orderId}': [{ name: 'triggerPrice', price: true }],
  'PATCH /take-profit/{orderId}': [{ name: 'triggerPrice', price: true }],
  'PATCH /oco/{orderId}': [
    { name: 'stopLossPrice', price: true },
    { name: 'takeProfitPrice', price: true },
  ],
};

interface BadInput {
  what: string;
  spec: RequestSpec;
  /** A conforming server may serve it (2xx): the documents leave it arguably valid or unvalidated. */
  served: boolean;
  /** The rule a 2xx breaks (OA-HOST-003 for fields of the assumed templates). */
  rule?: RuleId;
}

/** The real orders whose ids the order-level operations get (by the kind of path). */
interface RealOrders {
  dca?: string;
  trigger?: string;
  slice?: string;
}

const key = (op: OperationInfo) => `${op.method} ${op.path}`;

/** Reads (GET /health included) or writes. */
function operations(writes: boolean): OperationInfo[] {
  return listOperations('orders').filter((op) => (op.method !== 'GET') === writes);
}

const userScoped = (op: OperationInfo) => op.securityAlternatives.some((alt) => alt.includes('serviceUser'));
const isHealth = (op: OperationInfo) => op.security.length === 0;

/** The top-level fields every documented shape of the operation's body requires (none for an open body). */
function requiredFields(op: OperationInfo): string[] {
  const schemas = (schemaRoot('orders') as { components: { schemas: Record<string, JsonSchema> } }).components.schemas;
  const resolve = (s: JsonSchema): Record<string, unknown> => {
    const ref = isObject(s) && typeof s.$ref === 'string' ? s.$ref : undefined;
    return ref ? resolve(schemas[ref.split('/').pop()!]!) : (s as Record<string, unknown>);
  };
  const required = (s: JsonSchema): string[] => {
    const schema = resolve(s);
    const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
    if (branches) return branches.map(required).reduce((a, b) => a.filter((name) => b.includes(name)));
    return Array.isArray(schema.required) ? (schema.required as string[]) : [];
  };
  const schema = op.requestBody?.mediaTypes['application/json']?.schema;
  return schema ? required(schema) : [];
}

/** The id an order-level operation gets: a real order of the matching kind, else a fresh UUID (a 404 then). */
function orderIdFor(op: OperationInfo, real: RealOrders): string {
  if (op.path.startsWith('/slice/')) return real.slice ?? randomUUID();
  if (/^\/(stop-loss|take-profit|oco)\//.test(op.path)) return real.trigger ?? randomUUID();
  return real.dca ?? randomUUID();
}

/** A JSON body of exactly 1 MiB. */
function oneMebibyteBody(): string {
  const shell = JSON.stringify({ padding: '' });
  return JSON.stringify({ padding: 'x'.repeat(ONE_MIB - shell.length) });
}

/** GET /health: unknown and repeated parameters and bodies on a GET, which it must ignore or reject. */
function healthInputs(op: OperationInfo, hostile: HostileValues): BadInput[] {
  const at = (extra: Omit<RequestSpec, 'path'>): RequestSpec => ({
    method: 'GET',
    path: op.path,
    operationId: op.operationId,
    ...extra,
    headers: { 'X-Service-Key': undefined, ...(extra.headers ?? {}) },
  });
  return [
    {
      what: 'unknown query parameters',
      spec: at({ query: { conformanceUnknown: '<script>alert(1)</script>', 'a[b]': '1', __proto__: 'x' } }),
      served: true,
    },
    { what: 'an unknown parameter repeated', spec: at({ query: 'conformanceUnknown=a&conformanceUnknown=b' }), served: true },
    ...hostile.strings
      .filter((_, i) => i % 3 === 0)
      .map((value) => ({
        what: `unknown parameter ${JSON.stringify(value.slice(0, 30))}`,
        spec: at({ query: { status: value } }),
        served: true,
      })),
    {
      what: 'a JSON body on a GET',
      spec: at({ body: '{"status":"error"}', headers: { 'content-type': 'application/json' } }),
      served: true,
    },
    { what: 'invalid JSON on a GET', spec: at({ body: '{"a":', headers: { 'content-type': 'application/json' } }), served: true },
  ];
}

/** Hostile path ids, query parameters and (for writes) bodies of one keyed operation. */
function badInputs(op: OperationInfo, userPubkey: string, real: RealOrders, hostile: HostileValues): BadInput[] {
  if (isHealth(op)) return healthInputs(op, hostile);
  const inputs: BadInput[] = [];
  const at = (path: string, extra: Omit<RequestSpec, 'path'> = {}): RequestSpec => ({
    method: op.method,
    path,
    operationId: op.operationId,
    ...extra,
  });
  const required = requiredFields(op);
  const openBody = required.length === 0;
  const basePath = fillPath(op.path, () => orderIdFor(op, real));
  const emptyObject = op.method === 'GET' ? {} : { body: '{}', headers: { 'content-type': 'application/json' } };
  // Path ids: malformed ones keep failing lookups, whatever the body (random and malformed ids are no real order).
  if (op.path.includes('{')) {
    for (const id of hostile.pathIds)
      inputs.push({
        what: `path id ${id.slice(0, 40)}`,
        spec: at(
          fillPath(op.path, () => id),
          emptyObject,
        ),
        served: false,
      });
  }
  // Query parameters: each documented one with hostile values and repeated; unknown ones, alone and repeated. The
  // /me/orders filters are exact and unvalidated, hideZero a boolean a lenient reader takes as false, the
  // /partners/me filters (status, orderType, userId) filter to nothing; only an invalid timestamp is a documented 400.
  for (const p of op.parameters.filter((q) => q.in === 'query')) {
    const timestamp = /^createdAt/.test(p.name);
    for (const value of hostile.strings) {
      inputs.push({
        what: `query ${p.name}=${JSON.stringify(value.slice(0, 30))}`,
        spec: at(basePath, { query: { [p.name]: value }, ...emptyObject }),
        served: !timestamp || value === '',
      });
    }
    inputs.push({
      what: `query ${p.name} repeated`,
      spec: at(basePath, { query: `${p.name}=a&${p.name}=b`, ...emptyObject }),
      served: !timestamp,
    });
  }
  inputs.push({
    what: 'unknown query parameters',
    spec: at(basePath, { query: { conformanceUnknown: '<script>alert(1)</script>', 'a[b]': '1', __proto__: 'x' }, ...emptyObject }),
    served: op.method === 'GET' || openBody,
  });
  inputs.push({
    what: 'an unknown query parameter repeated',
    spec: at(basePath, { query: 'conformanceUnknown=a&conformanceUnknown=b', ...emptyObject }),
    served: op.method === 'GET' || openBody,
  });
  if (op.method === 'GET') return inputs;
  // Bodies: what does not parse as JSON, or is no object, is never served; without required fields an operation may
  // ignore an object it does not know, or an empty body.
  const raw: Array<[string, string, string | undefined, boolean]> = [
    ['invalid JSON', '{"a":', 'application/json', false],
    ['not JSON at all', 'not json', 'application/json', false],
    ['an empty body', '', 'application/json', !op.requestBody?.required],
    ['JSON null', 'null', 'application/json', false],
    ['a JSON array', '[]', 'application/json', false],
    ['a JSON string', '"text"', 'application/json', false],
    ['a JSON number', '42', 'application/json', false],
    ['JSON nested 10000 deep', `${'['.repeat(10_000)}${']'.repeat(10_000)}`, 'application/json', false],
    ['a 1 MiB body', oneMebibyteBody(), 'application/json', openBody],
    ['a text/plain content type', '{}', 'text/plain', openBody],
    ['a form content type', 'a=b&c=d', 'application/x-www-form-urlencoded', openBody],
    ['no content type', '{}', undefined, openBody],
    [
      'control characters and unicode in values',
      JSON.stringify({ sub: HOSTILE_STRINGS[6], note: HOSTILE_STRINGS[7], withdraw: HOSTILE_STRINGS[0] }),
      'application/json',
      openBody,
    ],
  ];
  for (const [what, body, contentType, served] of raw)
    inputs.push({ what, spec: at(basePath, { body, headers: { 'content-type': contentType } }), served });
  for (const field of fieldValues(op, userPubkey, hostile))
    inputs.push({ ...field, what: `body ${JSON.stringify(field.json).slice(0, 80)}`, spec: at(basePath, { json: field.json }) });
  return inputs;
}

interface FieldBody {
  json: unknown;
  served: boolean;
  rule?: RuleId;
}

/** Each malformed amount in `place(value)`, judged as an amount or a price (prices have no documented bound). */
function amounts(
  hostile: HostileValues,
  place: (value: unknown) => unknown,
  field: { price?: boolean; optional?: boolean },
  rule?: RuleId,
): FieldBody[] {
  // A well-formed integer beyond u64 is no malformed price: not sent to price fields.
  return hostile.amounts
    .filter((m) => !(field.price && m.reading === 'beyond-u64'))
    .map((m) => ({
      json: place(m.value),
      served: mayServeAmount(m.reading, field),
      rule,
    }));
}

/** Malformed amounts, prices, keys and values in the fields the document (or an assumed template) names. */
function fieldValues(op: OperationInfo, userPubkey: string, hostile: HostileValues): FieldBody[] {
  const rejected = (json: unknown, rule?: RuleId): FieldBody => ({ json, served: false, rule });
  const patchFields = PATCH_AMOUNT_FIELDS[key(op)];
  if (patchFields) {
    const documentedConfig = op.path !== '/dca/{orderId}'; // trigger PATCH: `{config: {partial}}`; DCA PATCH: not shown (O8)
    return [
      ...patchFields.flatMap((field) => amounts(hostile, (value) => ({ config: { [field.name]: value } }), field, 'OA-HOST-003')),
      rejected({ config: 'not an object' }, documentedConfig ? undefined : 'OA-HOST-003'),
      ...(documentedConfig ? [rejected({ settings: {} })] : []),
    ];
  }
  switch (key(op)) {
    case 'POST /withdraw/transaction':
      return [
        ...amounts(hostile, (amount) => ({ userPubkey, tokenMint: usdc(), amount }), { optional: true }),
        ...hostile.keys.map((k) => rejected({ userPubkey: k, tokenMint: usdc() })),
        ...hostile.keys.map((k) => rejected({ userPubkey, tokenMint: k })),
      ];
    case 'POST /orders/intent':
      return [
        ...ORDER_TYPES.flatMap((type) =>
          INTENT_AMOUNT_FIELDS[type].flatMap((field) =>
            amounts(hostile, (value) => intentRequest(type, { config: { [field.name]: value } }), field, 'OA-HOST-003'),
          ),
        ),
        ...hostile.keys
          .filter((k) => typeof k === 'string')
          .map((k) => rejected(intentRequest('dca', { inputMint: k as string }), 'OA-HOST-003')),
        ...hostile.strings.map((orderType) => rejected({ orderType, config: {} })),
        rejected({ orderType: 'dca', config: 'not an object' }),
        rejected({ config: defaultConfig('dca') }),
        rejected({ orderType: 'dca' }),
      ];
    case 'POST /orders/confirm':
      return [
        ...hostile.strings.map((value) => rejected({ pendingOrderId: value, signedTransaction: value })),
        rejected({ pendingOrderId: randomUUID() }),
      ];
    case 'POST /partner/onboard':
      return [
        ...hostile.keys.map((k) => rejected({ sub: randomToken('hostile'), userPubkey: k, siws: { message: 'x', signature: k } })),
        ...hostile.strings.map((value) => rejected({ sub: value, userPubkey, siws: { message: value, signature: value } })),
      ];
    case 'POST /orders/{orderId}/cancel':
      return [
        rejected({ withdraw: 'yes' }),
        rejected({ withdraw: 1 }),
        ...hostile.keys.map((k) => rejected({ withdraw: true, userPubkey: k })),
      ];
    case 'POST /withdraw/confirm':
      return hostile.strings.slice(0, 6).map((value) => rejected({ signedTransaction: value }));
    case 'POST /dca/{orderId}/modify/confirm':
    case 'POST /orders/{orderId}/withdraw/confirm':
      // Nothing is pending on these orders, and no reading makes a garbage transaction confirmable (O9, O12).
      return hostile.strings
        .slice(0, 6)
        .map((value) => rejected({ signedTransaction: value, cyclesCompleted: value, config: {} }, 'OA-HOST-003'));
    default:
      // Pause, resume, retry, order-level withdraw and abandon: the body is not shown (O11); unknown fields may be ignored.
      return hostile.strings.slice(0, 4).map((value) => ({
        json: { signedTransaction: value, config: { totalAmount: value } },
        served: true,
      }));
  }
}

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
 * stop-loss and a slice order in `full` when a wallet can be had; else a never-onboarded user and random ids.
 */
async function hostileTarget(t: CheckContext): Promise<{ sub: string; userPubkey: string; real: RealOrders }> {
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
    slice: await realOrder(t, user, 'slice'),
  };
  return { sub: user.sub, userPubkey: user.userPubkey, real };
}

async function tryHostileInput(t: CheckContext, writes: boolean): Promise<void> {
  const user = await hostileTarget(t);
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
