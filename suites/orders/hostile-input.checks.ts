import { randomUUID } from 'node:crypto';
import { findOperation, listOperations, type OperationInfo } from '../../generators/index.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { RequestSpec } from '../harness/client.ts';
import type { Exchange } from '../harness/exchange.ts';
import {
  HOSTILE_STRINGS, MALFORMED_AMOUNTS, MALFORMED_KEYS, MALFORMED_PATH_IDS, Tally, fillPath, invalidRequests, leakedInternals,
  runsPerOperation, sampleRequest, sendHostile,
} from '../shared/hostile.ts';
import { isObject, randomToken } from '../shared/values.ts';
import { ERROR_STATUSES } from './error-table.ts';
import { NATIVE_MINT, usdc } from './orders.ts';
import { errorCode, onboardedUser, rateLimited, testWallet } from './users.ts';

/**
 * Hostile input on every operation of the orders spec (OA-HOST-001, OA-HOST-002): malformed path ids, hostile and
 * repeated query parameters, broken and oversized bodies, malformed amounts and keys, and the invalid requests the
 * spec's own arbitraries generate. Every answer must be a client error in the failure envelope (or a 2xx where the
 * input is not validated: the /me/orders filters, unknown query parameters), never a 5xx, never a hang, and never a
 * message that leaks internals. What status a malformed path id gets (400 or 404) is not shown (UNKNOWNS part B):
 * any 4xx whose code the Errors tables give that status is accepted.
 *
 * Reads run in `readonly` (a user is onboarded only in `full`; otherwise user-scoped reads stop at the auth layer,
 * which must hold up too); writes run in `full`, with an onboarded user so that the bodies reach the handlers.
 */

const CONFIRM = findOperation('orders', 'POST', '/orders/confirm')?.operationId;
/** Answers a healthy target may still give while its chain or oracle hiccups: the environment, not the input. */
const ENVIRONMENT_CODES = new Set(['RPC_UNAVAILABLE', 'PRICE_ORACLE_UNAVAILABLE']);
const ONE_MIB = 1 << 20;

interface BadInput {
  what: string;
  spec: RequestSpec;
}

/** The operations that take a key (GET /health is public and has its own body), reads or writes. */
function operations(writes: boolean): OperationInfo[] {
  return listOperations('orders').filter((op) => op.security.includes('serviceKey') && (op.method !== 'GET') === writes);
}

const userScoped = (op: OperationInfo) => op.securityAlternatives.some((alt) => alt.includes('serviceUser'));

/** A JSON body of exactly 1 MiB. */
function oneMebibyteBody(): string {
  const shell = JSON.stringify({ padding: '' });
  return JSON.stringify({ padding: 'x'.repeat(ONE_MIB - shell.length) });
}

/** Hostile path ids, query parameters and (for writes) bodies of one operation. */
function badInputs(op: OperationInfo, userPubkey: string): BadInput[] {
  const inputs: BadInput[] = [];
  const at = (path: string, extra: Omit<RequestSpec, 'path'> = {}) => ({ method: op.method, path, operationId: op.operationId, ...extra });
  const basePath = fillPath(op.path, () => randomUUID());
  // Path ids.
  if (op.path.includes('{')) {
    for (const id of MALFORMED_PATH_IDS) inputs.push({ what: `path id ${id.slice(0, 40)}`, spec: at(fillPath(op.path, () => id), bodyOf(op, '{}')) });
  }
  // Query parameters: each documented one with hostile values and repeated, and an unknown one.
  for (const p of op.parameters.filter((q) => q.in === 'query')) {
    for (const value of HOSTILE_STRINGS) inputs.push({ what: `query ${p.name}=${JSON.stringify(value.slice(0, 30))}`, spec: at(basePath, { query: { [p.name]: value }, ...bodyOf(op, '{}') }) });
    inputs.push({ what: `query ${p.name} repeated`, spec: at(basePath, { query: `${p.name}=a&${p.name}=b`, ...bodyOf(op, '{}') }) });
  }
  inputs.push({ what: 'unknown query parameters', spec: at(basePath, { query: { conformanceUnknown: '<script>alert(1)</script>', 'a[b]': '1', '__proto__': 'x' }, ...bodyOf(op, '{}') }) });
  if (op.method === 'GET') return inputs;
  // Bodies.
  const raw: Array<[string, string, string | undefined]> = [
    ['invalid JSON', '{"a":', 'application/json'],
    ['not JSON at all', 'not json', 'application/json'],
    ['an empty body', '', 'application/json'],
    ['JSON null', 'null', 'application/json'],
    ['a JSON array', '[]', 'application/json'],
    ['a JSON string', '"text"', 'application/json'],
    ['a JSON number', '42', 'application/json'],
    ['JSON nested 10000 deep', `${'['.repeat(10_000)}${']'.repeat(10_000)}`, 'application/json'],
    ['a 1 MiB body', oneMebibyteBody(), 'application/json'],
    ['a text/plain content type', '{}', 'text/plain'],
    ['a form content type', 'a=b&c=d', 'application/x-www-form-urlencoded'],
    ['no content type', '{}', undefined],
    ['control characters and unicode in values', JSON.stringify({ sub: HOSTILE_STRINGS[6], config: { note: HOSTILE_STRINGS[7] }, withdraw: HOSTILE_STRINGS[0] }), 'application/json'],
  ];
  for (const [what, body, contentType] of raw) inputs.push({ what, spec: at(basePath, { body, headers: { 'content-type': contentType } }) });
  for (const json of fieldValues(op, userPubkey)) inputs.push({ what: `body ${JSON.stringify(json).slice(0, 80)}`, spec: at(basePath, { json }) });
  return inputs;
}

function bodyOf(op: OperationInfo, body: string): Omit<RequestSpec, 'path'> {
  return op.method === 'GET' ? {} : { body, headers: { 'content-type': 'application/json' } };
}

/** Malformed amounts, keys and values in the fields the document names for this operation. */
function fieldValues(op: OperationInfo, userPubkey: string): unknown[] {
  const dca = (config: Record<string, unknown>) => ({ orderType: 'dca', inputMint: usdc(), outputMint: NATIVE_MINT, config: { totalAmount: '36000000', amountPerCycle: '12000000', cycleFrequencySeconds: 3600, ...config } });
  switch (`${op.method} ${op.path}`) {
    case 'POST /withdraw/transaction':
      return [
        ...MALFORMED_AMOUNTS.map((amount) => ({ userPubkey, tokenMint: usdc(), amount })),
        ...MALFORMED_KEYS.map((key) => ({ userPubkey: key, tokenMint: usdc() })),
        ...MALFORMED_KEYS.map((key) => ({ userPubkey, tokenMint: key })),
      ];
    case 'POST /orders/intent':
      return [
        ...MALFORMED_AMOUNTS.map((amount) => dca({ totalAmount: amount, amountPerCycle: amount })),
        ...MALFORMED_KEYS.map((key) => ({ ...dca({}), inputMint: key, config: { inputMint: key, totalAmount: '36000000', amountPerCycle: '12000000', cycleFrequencySeconds: 3600 } })),
        ...HOSTILE_STRINGS.map((orderType) => ({ orderType, config: {} })),
        { orderType: 'dca', config: 'not an object' },
      ];
    case 'POST /orders/confirm':
      return HOSTILE_STRINGS.map((value) => ({ pendingOrderId: value, signedTransaction: value }));
    case 'POST /partner/onboard':
      return [
        ...MALFORMED_KEYS.map((key) => ({ sub: randomToken('hostile'), userPubkey: key, siws: { message: 'x', signature: key } })),
        ...HOSTILE_STRINGS.map((value) => ({ sub: value, userPubkey, siws: { message: value, signature: value } })),
      ];
    case 'POST /orders/{orderId}/cancel':
      return [{ withdraw: 'yes' }, ...MALFORMED_KEYS.map((key) => ({ withdraw: true, userPubkey: key }))];
    default:
      return HOSTILE_STRINGS.slice(0, 4).map((value) => ({ signedTransaction: value, config: { totalAmount: value } }));
  }
}

/** The strings a request carried, so that an echo of them in a message is not taken for a leak. */
function sentStrings(ex: Exchange): string[] {
  const url = new URL(ex.request.url);
  return [ex.request.url, url.pathname, decodeURIComponent(url.pathname), ...url.searchParams.values(), ...url.searchParams.keys(), ex.request.body ?? ''];
}

/** OA-HOST-001 and OA-HOST-002 on one answer; returns false when the answer says nothing (environment trouble). */
function judge(t: CheckContext, op: OperationInfo, what: string, ex: Exchange): boolean {
  rateLimited(ex);
  const { status, body } = ex.response;
  const code = errorCode(ex);
  if (status === 503 && typeof code === 'string' && ENVIRONMENT_CODES.has(code)) return false;
  const where = `${op.method} ${op.path} with ${what}`;
  const received = { status, body: typeof body === 'string' ? body.slice(0, 300) : body };
  const documentedFiveHundred = op.operationId === CONFIRM && status === 500 && code === 'SUBMIT_FAILED';
  t.expect('OA-HOST-001', (status >= 200 && status < 300) || (status >= 400 && status < 500) || documentedFiveHundred, {
    documented: `${where}: a client error (4xx) or a 2xx, never ${status >= 500 ? 'a 5xx' : `HTTP ${status}`}`, received, exchange: ex,
  });
  if (status < 400) return true;
  const error = isObject(body) ? body.error : undefined;
  const enveloped = isObject(body) && body.success === false && isObject(error) && typeof error.code === 'string' && typeof error.message === 'string';
  t.expect('OA-HOST-001', enveloped, { documented: `${where}: the failure envelope {success:false, error:{code, message}}`, received, exchange: ex });
  const statuses = ERROR_STATUSES[String(code)];
  t.expect('OA-HOST-001', !statuses || statuses.includes(status), {
    documented: `${where}: ${String(code)} comes with HTTP ${statuses?.join(' or ')} (Errors tables)`, received, exchange: ex,
  });
  const leak = leakedInternals(String((error as Record<string, unknown>).message), sentStrings(ex));
  t.expect('OA-HOST-002', leak === undefined, { documented: `${where}: error.message is for people, without internals`, received: { leaked: leak, message: (error as Record<string, unknown>).message }, exchange: ex });
  return true;
}

/** The sub hostile user-scoped requests carry: an onboarded user (writes, or reads in `full`), else a never-onboarded one. */
async function hostileUser(t: CheckContext, onboard: boolean): Promise<{ sub: string; userPubkey: string }> {
  const canOnboard = onboard && (t.control.has('funding') || Boolean(t.env.credentials.walletSecretKey));
  if (!canOnboard) {
    t.note('user-scoped operations were sent as a never-onboarded user: their answers come from the auth layer');
    return { sub: randomToken('hostile-never-onboarded'), userPubkey: '11111111111111111111111111111111' };
  }
  const user = await onboardedUser(t, testWallet(t));
  return { sub: user.sub, userPubkey: user.userPubkey };
}

async function tryHostileInput(t: CheckContext, writes: boolean): Promise<void> {
  const user = await hostileUser(t, writes || t.env.profile === 'full');
  const tally = new Tally();
  let inconclusive = 0;
  const send = async (op: OperationInfo, what: string, spec: RequestSpec): Promise<void> => {
    const headers = { ...(spec.headers ?? {}), 'X-Service-User': userScoped(op) ? user.sub : undefined };
    const ex = await sendHostile(t, t.orders, 'OA-HOST-001', { ...spec, headers });
    tally.add(`${op.method} ${op.path}`);
    if (!judge(t, op, what, ex)) inconclusive++;
  };
  for (const op of operations(writes)) {
    for (const input of badInputs(op, user.userPubkey)) await send(op, input.what, input.spec);
    const generated = invalidRequests('orders', op);
    if (!generated) continue;
    await t.property('OA-HOST-001', generated, async (sample) => {
      await send(op, `a generated invalid ${sample.target} (${sample.violation.message})`, sampleRequest(op, sample, () => randomUUID()));
    }, runsPerOperation(t));
  }
  if (inconclusive > 0) t.note(`${inconclusive} answer(s) were 503 RPC_UNAVAILABLE or PRICE_ORACLE_UNAVAILABLE (environment, not judged)`);
  t.note(`${tally.total} bad inputs tried: ${tally}`);
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
  rules: ['OA-HOST-001', 'OA-HOST-002'],
  profile: 'full',
  async run(t: CheckContext) {
    await tryHostileInput(t, true);
  },
});
