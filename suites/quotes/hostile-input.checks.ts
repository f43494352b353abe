import { listOperations, type OperationInfo } from '../../generators/index.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { normalizeMsgpack, type ServiceClient } from '../harness/client.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed } from '../harness/failure.ts';
import {
  generatedSampler,
  hostileValues,
  invalidRequests,
  type HostileValues,
  leakedInternals,
  mayServeAmount,
  rawQuery,
  runsPerOperation,
  sweep,
} from '../shared/hostile.ts';
import { isObject } from '../shared/values.ts';
import { MINIMAL_SWAP_QUERY } from './fixtures.ts';

/**
 * Hostile input on every endpoint of both REST access paths (Q-HOST-001..003): each documented parameter with
 * injection-looking, control-character, very long and repeated values, malformed amounts, integers and keys, unknown
 * parameters (alone and repeated), and the invalid requests the spec's arbitraries generate.
 *
 * Key path: every answer must be one the Errors section gives a malformed request: 400 (plain text naming the field,
 * or {code, message} out of bounds), 404 with code -7 (nothing routable), or 200 where a parameter is ignored. A
 * missing or malformed required parameter, and a negative, fractional, non-numeric or beyond-u64 value of `amount` or
 * of an integer parameter, gets 400 and nothing else ("out-of-type-range values: assert 400 only"); leading zeros,
 * a plus sign or whitespace may be read as the number. Distributor path (when the run has one): the same inputs,
 * judged by status alone (its error bodies are not shown): 400, 404 or 200, and 400 where the key path must give it.
 * The fee parameters are judged loosely on both paths (not listed for the key path, Q6). Never a 5xx, never a hang,
 * never internals in a body.
 */

type AccessPath = 'key' | 'distributor';

const KEY_PATH = (op: OperationInfo) => op.securityAlternatives.some((alt) => alt.includes('apiKey'));
const DISTRIBUTOR_PATH = (op: OperationInfo) => op.securityAlternatives.some((alt) => alt.includes('distributorBearer'));
/** The required parameters get every hostile string; the others a few, to keep the request count bounded. */
const REQUIRED = new Set(Object.keys(MINIMAL_SWAP_QUERY));
const FEE_PARAMETERS = new Set(['feeAccount', 'feeBps', 'feeFromInputMint']);

interface BadQuery {
  what: string;
  query: string;
  /** Only a 400 is documented for it. */
  strict: boolean;
}

/** The base query of an operation: the four required quote parameters, or nothing. */
const baseQuery = (op: OperationInfo): Record<string, string> =>
  op.parameters.some((p) => p.name === 'inputMint') ? { ...MINIMAL_SWAP_QUERY } : {};

function schemaOf(op: OperationInfo, name: string): { type?: string; $ref?: string } {
  const schema = op.parameters.find((p) => p.name === name)?.schema;
  return isObject(schema) ? (schema as { type?: string; $ref?: string }) : {};
}

function badQueries(op: OperationInfo, hostile: HostileValues): BadQuery[] {
  const base = baseQuery(op);
  const out: BadQuery[] = [];
  const withValue = (name: string, value: string) => rawQuery({ ...base, [name]: value });
  const joined = (extra: string) => [rawQuery(base), extra].filter(Boolean).join('&');
  for (const p of op.parameters.filter((q) => q.in === 'query')) {
    const schema = schemaOf(op, p.name);
    const loose = FEE_PARAMETERS.has(p.name);
    const integer = schema.type === 'integer' && !loose;
    const pubkey = schema.$ref?.endsWith('/Base58Pubkey') === true && !loose;
    const required = REQUIRED.has(p.name);
    // A hostile string is no amount, integer or key; empty, an optional parameter may be taken as omitted.
    const hostileStrict = (value: string) => required || ((integer || pubkey) && value !== '');
    const values: Array<[string, boolean]> = (required ? hostile.strings : hostile.strings.filter((_, i) => i % 3 === 0)).map((v) => [
      v,
      hostileStrict(v),
    ]);
    if (p.name === 'amount') {
      for (const m of hostile.amounts) if (typeof m.value === 'string') values.push([m.value, !mayServeAmount(m.reading)]);
    } else if (integer) {
      for (const m of hostile.amounts)
        if (typeof m.value === 'string' && m.reading !== 'readable' && m.reading !== 'absent') values.push([m.value, true]);
    }
    if (pubkey) {
      for (const k of hostile.keys) if (typeof k === 'string') values.push([k, required || k !== '']);
    }
    for (const [value, strict] of values)
      out.push({ what: `${p.name}=${JSON.stringify(value.slice(0, 30))}`, query: withValue(p.name, value), strict });
    out.push({ what: `${p.name} repeated`, query: joined(`${p.name}=1&${p.name}=2`), strict: false });
  }
  out.push({ what: 'unknown parameters', query: joined('conformanceUnknown=%3Cscript%3E&a%5Bb%5D=1&__proto__=x'), strict: false });
  out.push({ what: 'an unknown parameter repeated', query: joined('conformanceUnknown=1&conformanceUnknown=2'), strict: false });
  return out;
}

/** The text of an error body, whatever its encoding, for the leak check. */
function bodyText(ex: Exchange): string {
  const body = ex.response.body;
  if (typeof body === 'string') return body;
  if (isObject(body) && typeof body.message === 'string') return body.message;
  return JSON.stringify(normalizeMsgpack(body) ?? '') ?? '';
}

/** Q-HOST-001 (key path) or Q-HOST-003 (distributor path), and Q-HOST-002, on one answer. */
function judge(t: CheckContext, path: AccessPath, op: OperationInfo, input: Pick<BadQuery, 'what' | 'strict'>, ex: Exchange): void {
  const { status, body } = ex.response;
  if (status === 429) throw new SetupFailed('rate limited by the target (429): lower --max-rps or use a key with a larger plan', ex);
  const where = `GET ${op.path} (${path === 'key' ? 'key path' : 'distributor path'}) with ${input.what}`;
  const received = {
    status,
    contentType: ex.response.headers['content-type'],
    body: typeof body === 'string' ? body.slice(0, 300) : normalizeMsgpack(body),
  };
  if (path === 'key') {
    const text = ex.response.mediaType === 'text/plain' && typeof body === 'string';
    const bounds = isObject(body) && Number.isInteger(body.code) && typeof body.message === 'string';
    const noRoute = isObject(body) && body.code === -7;
    const rejected = status === 400 && (text || bounds);
    const documented = input.strict ? rejected : status === 200 || rejected || (status === 404 && noRoute);
    t.expect('Q-HOST-001', documented, {
      documented: input.strict
        ? `${where}: 400 (plain text naming the field, or {code, message}); a malformed or out-of-type-range value gets nothing else`
        : `${where}: 400 (plain text or {code, message}), 404 with code -7, or 200; never ${status >= 500 ? 'a 5xx' : 'this answer'}`,
      received,
      exchange: ex,
    });
  } else {
    const documented = input.strict ? status === 400 : status === 200 || status === 400 || status === 404;
    t.expect('Q-HOST-003', documented, {
      documented: input.strict
        ? `${where}: 400 (invalid parameter); a malformed or out-of-type-range value gets nothing else`
        : `${where}: 400, 404 or 200; never ${status >= 500 ? 'a 5xx' : 'this answer'}`,
      received,
      exchange: ex,
    });
  }
  if (status < 400) return;
  const url = new URL(ex.request.url);
  const message = bodyText(ex);
  const leak = leakedInternals(message, [ex.request.url, ...url.searchParams.values()]);
  t.expect('Q-HOST-002', leak === undefined, {
    documented: `${where}: an error body without internals`,
    received: { leaked: leak, body: message.slice(0, 300) },
    exchange: ex,
  });
}

/** Every bad query, then the generated invalid requests, on every endpoint of one access path. */
async function sweepPath(t: CheckContext, path: AccessPath, client: ServiceClient): Promise<void> {
  const rule = path === 'key' ? 'Q-HOST-001' : 'Q-HOST-003';
  const operations = listOperations('quotes')
    .filter(KEY_PATH)
    .filter((op) => path === 'key' || DISTRIBUTOR_PATH(op));
  const hostile = hostileValues(t.env);
  const sampled = generatedSampler(t.env);
  await sweep(t, async (s) => {
    const send = async (op: OperationInfo, input: Pick<BadQuery, 'what' | 'strict'>, query: string): Promise<void> => {
      const ex = await s.send(t, client, rule, path === 'key' ? op.operationId : `${op.operationId} (distributor)`, {
        path: op.path,
        query,
        operationId: op.operationId,
      });
      judge(t, path, op, input, ex);
    };
    for (const op of operations) {
      for (const input of badQueries(op, hostile)) await s.attempt(() => send(op, input, input.query));
      const generated = invalidRequests('quotes', op);
      if (!generated) continue;
      await s.attempt(() =>
        t.property(
          rule,
          generated,
          async (sample) => {
            if (!sampled(op.operationId, sample)) return;
            // A missing required parameter is documented as 400; what else the arbitraries make may be read leniently.
            const strict = sample.violation.keyword === 'required' && !sample.violation.assumed;
            await send(op, { what: `a generated invalid ${sample.target} (${sample.violation.message})`, strict }, rawQuery(sample.query));
          },
          runsPerOperation(t),
        ),
      );
    }
  });
}

export const hostileQuoteRequests = defineCheck({
  name: 'malformed-key-path-requests-get-documented-errors-without-internals',
  service: 'quotes',
  rules: ['Q-HOST-001', 'Q-HOST-002'],
  profile: 'readonly',
  async run(t: CheckContext) {
    await sweepPath(t, 'key', t.quotes);
  },
});

export const hostileDistributorRequests = defineCheck({
  name: 'malformed-distributor-path-requests-get-documented-statuses-without-internals',
  service: 'quotes',
  rules: ['Q-HOST-003', 'Q-HOST-002'],
  profile: 'readonly',
  async run(t: CheckContext) {
    if (!t.gateway)
      t.skip('no distributor path in this run (QUOTES_JWT with --gateway-url, or a control API that issues JWTs with a gateway URL)');
    await sweepPath(t, 'distributor', t.gateway);
  },
});
