/**
 * What the rate-limit checks share (rate.checks.ts on keys of their own, blackbox-rate.checks.ts on the run's key):
 * a request to a key-path with the quote query where the path needs one, and the 429 the Errors section documents,
 * judged under the rule ids each check names.
 */
import type { RuleId } from '../../generators/vocabulary.ts';
import { errorCode } from '../harness/answers.ts';
import type { CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { QUOTE_PATH, queryString, quoteParams } from './quote-support.ts';

/** The query a key-path request carries: the default quote's parameters on the quote path, none elsewhere. */
export const queryFor = (path: string): string | undefined => (path === QUOTE_PATH ? queryString(quoteParams()) : undefined);

/**
 * A 429 as the Errors section gives it: status 429 with the platform body {error: {code: "rate_limited" |
 * "allowance_exhausted"}} (under `bodyRule`), and the x-edge-requestid header like every response (under `idRule`).
 */
export function expectDocumented429(t: CheckContext, ex: Exchange, bodyRule: RuleId, idRule: RuleId): void {
  const code = errorCode(ex);
  t.expect(bodyRule, ex.response.status === 429 && (code === 'rate_limited' || code === 'allowance_exhausted'), {
    documented: 'a 429 carries the platform body {error: {code: "rate_limited" | "allowance_exhausted"}}',
    received: { status: ex.response.status, body: ex.response.body },
    exchange: ex,
  });
  const id = ex.response.headers['x-edge-requestid'];
  t.expect(idRule, typeof id === 'string' && id.trim() !== '', {
    documented: 'a 429 carries the x-edge-requestid header like every response',
    received: ex.response.headers,
    exchange: ex,
  });
}

/** A rate_limited 429's retry-after, a whole number of seconds, under `rule`; what it said. */
export function expectRetryAfter(t: CheckContext, rule: RuleId, ex: Exchange): string | undefined {
  const after = ex.response.headers['retry-after'];
  t.expect(rule, typeof after === 'string' && /^(0|[1-9][0-9]*)$/.test(after.trim()), {
    documented: 'a rate_limited 429 carries retry-after, a whole number of seconds to wait',
    received: ex.response.headers,
    exchange: ex,
  });
  return typeof after === 'string' ? after : undefined;
}
