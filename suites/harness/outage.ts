/**
 * A service that says it is unavailable is not an answer to a rule. The order document lists two 503 codes under
 * "Server and infrastructure", both "Retry shortly": RPC_UNAVAILABLE (chain access) and PRICE_ORACLE_UNAVAILABLE (the
 * oracle). The client retries them where it may (handling rule 3: a GET or HEAD, a POST with an X-Idempotency-Key,
 * client.ts); one still there on the answer a check judged (a deployment whose chain access is down for longer, or a
 * request the client may not resend) leaves the check not judged, naming the outage, as a 429 that cannot be waited
 * out does (preconditions.ts, RATE_LIMIT): a gating check left so makes the run INCOMPLETE, never FAIL.
 *
 * Except when the check made the outage itself: a check that set the target's faults or prices through the control API
 * (the chain or the oracle down, a mint without a price) judges the answers the service gives during it, 503s included
 * (OA-BAL-023: 500 RPC_ERROR and not 503, OA-ERR-009: the same intent succeeds once the chain is back, OA-LIM-027: a
 * stablecoin never 503). A 503 without one of these codes (`/health`'s documented `{status: "error"}`), or one the
 * spec does not give its operation (PRICE_ORACLE_UNAVAILABLE where no notional is priced), is judged as any answer.
 */
import { validateResponse } from '../../generators/index.ts';
import { errorCode } from './answers.ts';
import type { Exchange } from './exchange.ts';
import type { Unjudged } from './preconditions.ts';

/**
 * The order document's 503 codes ("Errors", "Server and infrastructure"); the one list of them in suites/ (the checks
 * read it through unavailableCode), tested against the error table and the spec in test/harness/outage.test.ts.
 */
export const UNAVAILABLE_CODES: readonly string[] = ['RPC_UNAVAILABLE', 'PRICE_ORACLE_UNAVAILABLE'];

/** The code of a 503 that says the service is unavailable (one of the document's 503 codes); undefined otherwise. */
export function unavailableCode(ex: Exchange): string | undefined {
  const code = errorCode(ex);
  return ex.response.status === 503 && typeof code === 'string' && UNAVAILABLE_CODES.includes(code) ? code : undefined;
}

/** The control API's operations that can make the order service answer 503 (specs/control.openapi.yaml). */
const OUTAGE_OPERATIONS = ['setFaults', 'setPrice'];

const UNAVAILABLE: Omit<Unjudged, 'problem'> = {
  id: 'unavailable',
  fix: 'run again once the service answers (its 503 says "Retry shortly"); if it lasts, ask the deployment\'s operators about its chain access or price oracle',
};

/** Did the check change the target's faults or prices at any point (so that a 503 may be its own doing)? */
function madeOutage(exchanges: readonly Exchange[]): boolean {
  return exchanges.some((e) => e.service === 'control' && OUTAGE_OPERATIONS.includes(e.operationId ?? ''));
}

/**
 * The outage that `judged` shows, when it is a documented 503 of the order service that the check did not make itself
 * (`exchanges`: every exchange of the check): the check is then not judged. Undefined for any other answer.
 */
export function outageShownBy(judged: Exchange | undefined, exchanges: readonly Exchange[]): Unjudged | undefined {
  if (judged?.service !== 'orders' || !judged.operationId) return undefined;
  const code = unavailableCode(judged);
  if (code === undefined || madeOutage(exchanges)) return undefined;
  // Only a 503 the spec gives this operation, with this code (PRICE_ORACLE_UNAVAILABLE only where a notional is priced).
  const { mediaType, body } = judged.response;
  const valid = validateResponse('orders', judged.operationId, 503, mediaType, body);
  if (!valid.documentedStatus || !valid.documentedMediaType || valid.errors.length > 0) return undefined;
  const { method, url } = judged.request;
  const tries = judged.attempts ?? 1;
  const answered = tries > 1 ? `on each of ${tries} attempts` : 'the one time it was sent (the client does not resend it)';
  return {
    ...UNAVAILABLE,
    problem: `the order service answered 503 ${code} to ${method} ${new URL(url).pathname} ${answered}: it was unavailable, not an answer to the rule`,
  };
}
