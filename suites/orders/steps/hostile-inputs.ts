import { randomUUID } from 'node:crypto';
import { listOperations, type JsonSchema, type OperationInfo } from '../../../generators/index.ts';
import { schemaRoot } from '../../../generators/arbitraries.ts';
import type { RequestSpec } from '../../harness/client.ts';
import {
  DECODING_BRANCHES,
  HOSTILE_STRINGS,
  fillPath,
  type HostileValues,
  inTurn,
  mayServeAmount,
  pathIdBranch,
  rawQuery,
  stringsInTurn,
  unknownQueries,
} from '../../shared/hostile.ts';
import { isObject, randomToken } from '../../shared/values.ts';
import { defaultConfig, intentRequest, ORDER_TYPES, usdc, type OrderType } from '../orders.ts';
import type { RuleId } from '../../../generators/vocabulary.ts';

/**
 * The malformed inputs of the orders hostile-input checks (hostile-input.checks.ts), operation by operation: path ids,
 * query parameters and bodies, with whether a conforming server may serve each. Against the embedded server every
 * malformed value; on a given target one per validation branch (suites/shared/hostile.ts hostileValues).
 */

const ONE_MIB = 1 << 20;

/**
 * Bodies a given target does not get, each in the branch of one it gets: text that is no JSON does not parse, as a
 * cut-off object does; a number is a scalar, as a string is.
 */
const SAME_BRANCH_BODIES = new Set(['not JSON at all', 'a JSON number']);

/** Bodies the HTTP layer judges, the same for every operation (inTurn): how deep, how large, which content type. */
const BODY_TRANSPORT: readonly string[] = [
  'JSON nested 10000 deep',
  'a 1 MiB body',
  'a text/plain content type',
  'a form content type',
  'no content type',
  'control characters and unicode in values',
];

/** Unknown query parameters: markup, brackets. */
const UNKNOWN_QUERY = rawQuery({ conformanceUnknown: '<script>alert(1)</script>', 'a[b]': '1' });

/** Codes whose row in the Errors tables names the operations that give them. */
export const CODE_OPERATIONS: Readonly<Record<string, readonly string[]>> = {
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

export interface BadInput {
  what: string;
  spec: RequestSpec;
  /** A conforming server may serve it (2xx): the documents leave it arguably valid or unvalidated. */
  served: boolean;
  /** The rule a 2xx breaks (OA-HOST-003 for fields of the assumed templates). */
  rule?: RuleId;
}

/** The real orders whose ids the order-level operations get (by the kind of path). */
export interface RealOrders {
  dca?: string;
  trigger?: string;
  slice?: string;
}

export const key = (op: OperationInfo) => `${op.method} ${op.path}`;

/** Reads (GET /health included) or writes. */
export function operations(writes: boolean): OperationInfo[] {
  return listOperations('orders').filter((op) => (op.method !== 'GET') === writes);
}

export const userScoped = (op: OperationInfo) => op.securityAlternatives.some((alt) => alt.includes('serviceUser'));
export const isHealth = (op: OperationInfo) => op.security.length === 0;

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
export function orderIdFor(op: OperationInfo, real: RealOrders): string {
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
    ...unknownQueries(hostile, UNKNOWN_QUERY).map(({ what, query }) => ({ what, spec: at({ query }), served: true })),
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

/** Hostile path ids, query parameters and (for writes) bodies of one operation. */
export function badInputs(op: OperationInfo, userPubkey: string, real: RealOrders, hostile: HostileValues): BadInput[] {
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
  // Path ids: malformed ones keep failing lookups, whatever the body (random and malformed ids are no real order). On a
  // given target each operation gets an id that is no UUID and its share of the decoding branches (inTurn).
  if (op.path.includes('{')) {
    const withIds = operations(op.method !== 'GET').filter((o) => o.path.includes('{'));
    const decoding = hostile.pathIds.filter((id) => DECODING_BRANCHES.has(pathIdBranch(id)));
    const decoded = inTurn(hostile, decoding, withIds.indexOf(op), withIds.length);
    for (const id of hostile.pathIds.filter((id) => !decoding.includes(id) || decoded.includes(id)))
      inputs.push({
        what: `path id ${id.slice(0, 40)}`,
        spec: at(
          fillPath(op.path, () => id),
          emptyObject,
        ),
        served: false,
      });
  }
  // Query parameters: each documented one with hostile values (on a given target the decoding branches in turn:
  // stringsInTurn) and repeated; unknown ones, alone and repeated. The /me/orders filters are exact and unvalidated,
  // hideZero a boolean a lenient reader takes as false, the /partners/me filters (status, orderType, userId) filter to
  // nothing; only an invalid timestamp is a documented 400.
  const queryParameters = op.parameters.filter((q) => q.in === 'query');
  for (const [turn, p] of queryParameters.entries()) {
    const timestamp = /^createdAt/.test(p.name);
    for (const value of stringsInTurn(hostile, hostile.strings, turn, queryParameters.length)) {
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
  for (const { what, query } of unknownQueries(hostile, UNKNOWN_QUERY))
    inputs.push({ what, spec: at(basePath, { query, ...emptyObject }), served: op.method === 'GET' || openBody });
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
  const writes = operations(true);
  const transport = inTurn(hostile, BODY_TRANSPORT, writes.indexOf(op), writes.length);
  for (const [what, body, contentType, served] of raw)
    if (!(hostile.perBranch && SAME_BRANCH_BODIES.has(what)) && (!BODY_TRANSPORT.includes(what) || transport.includes(what)))
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

/**
 * The config schema of each order type's assumed template (specs/order-automation.openapi.yaml): stop_loss and
 * take_profit share AssumedTriggerConfig, so a validator of one is that of the other; the others have their own.
 */
const CONFIG_SCHEMA: Readonly<Record<OrderType, string>> = {
  dca: 'AssumedDcaConfig',
  stop_loss: 'AssumedTriggerConfig',
  take_profit: 'AssumedTriggerConfig',
  oco: 'AssumedOcoConfig',
  slice: 'AssumedSliceConfig',
};

/**
 * Malformed amounts and prices in the config of each intent template. On a given target each branch once per field of
 * each config schema: the order types whose templates share a schema and the field (stop_loss and take_profit) take
 * turns at it.
 */
function intentAmounts(hostile: HostileValues): FieldBody[] {
  return ORDER_TYPES.flatMap((type) =>
    INTENT_AMOUNT_FIELDS[type].flatMap((field) => {
      const all = amounts(hostile, (value) => intentRequest(type, { config: { [field.name]: value } }), field, 'OA-HOST-003');
      if (!hostile.perBranch) return all;
      const sharing = ORDER_TYPES.filter(
        (other) => CONFIG_SCHEMA[other] === CONFIG_SCHEMA[type] && INTENT_AMOUNT_FIELDS[other].some((f) => f.name === field.name),
      );
      const turn = sharing.indexOf(type);
      return all.filter((_, i) => i % sharing.length === turn);
    }),
  );
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
        ...intentAmounts(hostile),
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
      // Pause, resume, retry, order-level withdraw and abandon: the body is not shown (O11); unknown fields may be
      // ignored (on a given target one: every field is unknown, one branch).
      return hostile.strings.slice(0, hostile.perBranch ? 1 : 4).map((value) => ({
        json: { signedTransaction: value, config: { totalAmount: value } },
        served: true,
      }));
  }
}
