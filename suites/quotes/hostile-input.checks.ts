import { listOperations, type OperationInfo } from '../../generators/index.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { RequestSpec } from '../harness/client.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed } from '../harness/failure.ts';
import {
  HOSTILE_STRINGS, MALFORMED_AMOUNTS, MALFORMED_KEYS, Tally, invalidRequests, leakedInternals, rawQuery, runsPerOperation, sendHostile,
} from '../shared/hostile.ts';
import { isObject } from '../shared/values.ts';
import { MINIMAL_SWAP_QUERY } from './fixtures.ts';

/**
 * Hostile input on every key-path endpoint (Q-HOST-001, Q-HOST-002): each documented parameter with injection-looking,
 * control-character, very long and repeated values, malformed amounts and keys, unknown parameters, and the invalid
 * requests the spec's arbitraries generate. Every answer must be one the Errors section gives a malformed request: 400
 * (plain text naming the field, or {code, message} out of bounds), 404 with code -7 (nothing routable), or 200 where a
 * parameter is ignored; never a 5xx, never a hang, never internals in the body.
 */

const KEY_PATH = (op: OperationInfo) => op.securityAlternatives.some((alt) => alt.includes('apiKey'));
const AMOUNT = new Set(['amount']);
const KEYS = new Set(['inputMint', 'outputMint', 'userPublicKey', 'outputAccount', 'payer', 'positiveSlippageFeeReceiver']);
/** The required parameters get every hostile string; the others a few, to keep the request count bounded. */
const REQUIRED = new Set(Object.keys(MINIMAL_SWAP_QUERY));

/** The base query of an operation: the four required quote parameters, or nothing. */
const baseQuery = (op: OperationInfo): Record<string, string> => (op.parameters.some((p) => p.name === 'inputMint') ? { ...MINIMAL_SWAP_QUERY } : {});

function badQueries(op: OperationInfo): Array<{ what: string; query: string }> {
  const base = baseQuery(op);
  const out: Array<{ what: string; query: string }> = [];
  const withValue = (name: string, value: unknown) => rawQuery({ ...base, [name]: String(value) });
  for (const p of op.parameters.filter((q) => q.in === 'query')) {
    const values: unknown[] = [
      ...(REQUIRED.has(p.name) ? HOSTILE_STRINGS : HOSTILE_STRINGS.filter((_, i) => i % 3 === 0)),
      ...(AMOUNT.has(p.name) ? MALFORMED_AMOUNTS.filter((v) => v !== null) : []),
      ...(KEYS.has(p.name) ? MALFORMED_KEYS.filter((v) => v !== null) : []),
    ];
    for (const value of values) out.push({ what: `${p.name}=${JSON.stringify(String(value).slice(0, 30))}`, query: withValue(p.name, value) });
    out.push({ what: `${p.name} repeated`, query: `${rawQuery(base)}&${p.name}=1&${p.name}=2` });
  }
  out.push({ what: 'unknown parameters', query: `${rawQuery(base)}&conformanceUnknown=%3Cscript%3E&a%5Bb%5D=1&__proto__=x`.replace(/^&/, '') });
  return out;
}

/** Q-HOST-001 and Q-HOST-002 on one answer. */
function judge(t: CheckContext, op: OperationInfo, what: string, ex: Exchange): void {
  const { status, body } = ex.response;
  if (status === 429) throw new SetupFailed('rate limited by the target (429): lower --max-rps or use a key with a larger plan', ex);
  const where = `GET ${op.path} with ${what}`;
  const received = { status, contentType: ex.response.headers['content-type'], body: typeof body === 'string' ? body.slice(0, 300) : body };
  const text = ex.response.mediaType === 'text/plain' && typeof body === 'string';
  const bounds = isObject(body) && Number.isInteger(body.code) && typeof body.message === 'string';
  const noRoute = isObject(body) && body.code === -7;
  const documented = status === 200 || (status === 400 && (text || bounds)) || (status === 404 && noRoute);
  t.expect('Q-HOST-001', documented, {
    documented: `${where}: 400 (plain text or {code, message}), 404 with code -7, or 200; never ${status >= 500 ? 'a 5xx' : `this answer`}`, received, exchange: ex,
  });
  if (status < 400) return;
  const message = text ? body : isObject(body) && typeof body.message === 'string' ? body.message : JSON.stringify(body ?? '');
  const url = new URL(ex.request.url);
  const leak = leakedInternals(message, [ex.request.url, ...url.searchParams.values()]);
  t.expect('Q-HOST-002', leak === undefined, { documented: `${where}: an error body without internals`, received: { leaked: leak, body: message.slice(0, 300) }, exchange: ex });
}

export const hostileQuoteRequests = defineCheck({
  name: 'malformed-key-path-requests-get-documented-errors-without-internals',
  service: 'quotes',
  rules: ['Q-HOST-001', 'Q-HOST-002'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const tally = new Tally();
    const send = async (op: OperationInfo, what: string, spec: RequestSpec): Promise<void> => {
      const ex = await sendHostile(t, t.quotes, 'Q-HOST-001', spec);
      tally.add(`GET ${op.path}`);
      judge(t, op, what, ex);
    };
    for (const op of listOperations('quotes').filter(KEY_PATH)) {
      for (const { what, query } of badQueries(op)) await send(op, what, { path: op.path, query, operationId: op.operationId });
      const generated = invalidRequests('quotes', op);
      if (!generated) continue;
      await t.property('Q-HOST-001', generated, async (sample) => {
        await send(op, `a generated invalid ${sample.target} (${sample.violation.message})`, { path: op.path, query: rawQuery(sample.query), operationId: op.operationId });
      }, runsPerOperation(t));
    }
    t.note(`${tally.total} bad inputs tried: ${tally}`);
  },
});
