import { errorCode, failureOf, is2xx } from '../../harness/answers.ts';
import type { CheckContext } from '../../harness/check.ts';
import type { Exchange } from '../../harness/exchange.ts';
import { isObject } from '../../shared/values.ts';
import type { RuleId } from '../../../generators/vocabulary.ts';

/** The error answer a rule documents: its status and the codes it allows (one, or the alternatives an open point leaves). */
export interface ErrorAnswer {
  status: number;
  codes: readonly string[];
  /** What the document gives, in the failure message (default: "STATUS CODE or CODE"). */
  documented?: string;
}

/** The answer is `status` with one of `codes` (error.code), asserted under `rule`. */
export function expectError(t: CheckContext, rule: RuleId, ex: Exchange, { status, codes, documented }: ErrorAnswer): void {
  t.expect(rule, ex.response.status === status && codes.includes(String(errorCode(ex))), {
    documented: documented ?? `${status} ${codes.join(' or ')}`,
    received: failureOf(ex),
    exchange: ex,
  });
}

/** The answer is 2xx and `holds` (what else the rule wants of it), asserted under `rule`; a failure shows status and code. */
export function expectAccepted(t: CheckContext, rule: RuleId, ex: Exchange, documented: string, holds: unknown = true): void {
  t.expect(rule, is2xx(ex) && holds, { documented, received: failureOf(ex), exchange: ex });
}

/** The answer is a 4xx (any code), asserted under `rule`. */
export function expectRefused(t: CheckContext, rule: RuleId, ex: Exchange, documented: string): void {
  t.expect(rule, ex.response.status >= 400 && ex.response.status < 500, { documented, received: failureOf(ex), exchange: ex });
}

/** OA-ENV-002: {success: false, error: {code: string, message: string, details?: object}}. */
export function expectErrorEnvelope(t: CheckContext, ex: Exchange): void {
  const b = ex.response.body;
  const e = isObject(b) ? b.error : undefined;
  t.expect(
    'OA-ENV-002',
    isObject(b) &&
      b.success === false &&
      isObject(e) &&
      typeof e.code === 'string' &&
      typeof e.message === 'string' &&
      (!('details' in e) || e.details === undefined || isObject(e.details)),
    {
      documented: 'the failure body {success: false, error: {code: string, message: string, details?: object}}',
      received: b,
      exchange: ex,
    },
  );
}
