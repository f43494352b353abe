import { listOperations, type OperationInfo } from '../../generators/index.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { normalizeMsgpack, type RequestSpec, type ServiceClient } from '../harness/client.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed } from '../harness/failure.ts';
import {
  generatedSampler,
  hostileValues,
  invalidRequests,
  leakedInternals,
  rawQuery,
  runsPerOperation,
  sweep,
  type SweepInput,
} from '../shared/hostile.ts';
import { isObject } from '../shared/values.ts';
import { type BadQuery, badQueries } from './hostile-queries.ts';

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
  const judged = async (
    send: (spec: RequestSpec) => Promise<Exchange>,
    op: OperationInfo,
    input: Pick<BadQuery, 'what' | 'strict'>,
    query: string,
  ): Promise<void> => judge(t, path, op, input, await send({ path: op.path, query, operationId: op.operationId }));
  // Reads change nothing a later input meets: every input may run beside the others.
  const inputs: SweepInput[] = [];
  for (const op of operations) {
    const operation = path === 'key' ? op.operationId : `${op.operationId} (distributor)`;
    for (const input of badQueries(op, hostile, path === 'distributor'))
      inputs.push({ operation, run: (send) => judged(send, op, input, input.query) });
    const generated = invalidRequests('quotes', op);
    if (!generated) continue;
    inputs.push({
      operation,
      run: (send) =>
        t.property(
          rule,
          generated,
          async (sample) => {
            if (!sampled(op.operationId, sample)) return;
            // A missing required parameter is documented as 400; what else the arbitraries make may be read leniently.
            const strict = sample.violation.keyword === 'required' && !sample.violation.assumed;
            await judged(
              send,
              op,
              { what: `a generated invalid ${sample.target} (${sample.violation.message})`, strict },
              rawQuery(sample.query),
            );
          },
          runsPerOperation(t),
        ),
    });
  }
  await sweep(t, (s) => s.inputs(t, client, rule, inputs));
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
