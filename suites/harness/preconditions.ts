/**
 * Preconditions of a run: what must hold before a check can judge the target at all (the SIWS form and the intent
 * templates the target reads, the run's keys, a wallet with funds, a rate budget and time). A check that could not be
 * judged because one of them broke is not a verdict on the target: it is reported "not judged" naming the
 * precondition, never as a failure of the rule it was after, and a run where a gating check was left so ends
 * INCOMPLETE (exit 4) with each broken precondition and its fix said once (matrix.ts, bin/conformance.ts).
 *
 * What does not make a run incomplete: a capability the target does not offer (`unsupported`), a check the profile
 * excludes, and a check that found nothing to judge on this target (an opportunistic rule, an optional path absent).
 */
import { ASSUMPTIONS, isAssumption } from './assumptions.ts';
import type { Exchange } from './exchange.ts';
import type { BrokenPrecondition, TargetEnv } from './types.ts';

/**
 * Why a check was not judged (skipped, unsupported, setup-failed): outside the profile, a capability the target lacks,
 * a broken precondition of the run, nothing to judge on this target (its state, an optional path it does not have),
 * a run interrupted before it, or outside the run (a run given one service's URL alone: the other service's checks).
 * Only `precondition` makes a run INCOMPLETE.
 */
export type NotJudgedBy = 'profile' | 'capability' | 'precondition' | 'target' | 'interrupted' | 'outside-run';

/** The broken precondition that left a check unjudged, as reports show it. */
export interface Unjudged {
  id: string;
  problem: string;
  fix: string;
}

const REPORT = "tell the suite's maintainers which shape this deployment reads (UNKNOWNS.md)";

/** The fix for an assumption of the suite the target rejected (assumptions.ts). */
const ASSUMPTION_FIXES: Record<keyof typeof ASSUMPTIONS, string> = {
  'siws-form':
    "set CONFORMANCE_SIWS_DOMAIN, CONFORMANCE_SIWS_URI, CONFORMANCE_SIWS_CHAIN_ID or CONFORMANCE_SIWS_STATEMENT (or CONFORMANCE_SIWS_CONFIG) to this deployment's SIWS form",
  'intent-template':
    "write this deployment's POST /orders/intent bodies into a templates file and set CONFORMANCE_ORDER_TEMPLATES=path (README, intent templates)",
  'inline-onboarding': `none in the suite: the wallet of an inline onboarding is a top-level userPubkey; ${REPORT}`,
  'dca-patch': `none in the suite: the PATCH /dca/{orderId} bodies are not shown (O8); ${REPORT}`,
  'dca-modify-confirm': `none in the suite: the modify confirm body is not shown (O9); ${REPORT}`,
  'trigger-patch': `none in the suite: the trigger PATCH body is not shown (O10); ${REPORT}`,
  'withdrawal-transaction':
    'set CONFORMANCE_WITHDRAWAL_TRANSACTION_FIELD to the field of data that carries the unsigned withdrawal transaction',
  'order-withdrawal-confirm': `none in the suite: the order-level withdrawal confirm body is not shown (O12); ${REPORT}`,
};

/** Settings a skip reason may name as the thing to set: each is a misconfiguration of the run, with its fix. */
const SETTINGS: Array<{ pattern: RegExp; id: string; fix: string }> = [
  {
    pattern: /TEST_WALLET_SECRET_KEY/,
    id: 'wallet',
    fix: "set TEST_WALLET_SECRET_KEY to a funded wallet of this deployment's cluster (base58), or give a control URL offering funding",
  },
  {
    pattern: /CONFORMANCE_USDC_MINT|CONFORMANCE_USDT_MINT|CONFORMANCE_OTHER_MINT/,
    id: 'mints',
    fix: 'set CONFORMANCE_USDC_MINT (and CONFORMANCE_USDT_MINT, CONFORMANCE_OTHER_MINT) to mints this deployment knows and can fund',
  },
  {
    pattern: /CONFORMANCE_QUOTE_/,
    id: 'quote-pair',
    fix: 'set CONFORMANCE_QUOTE_INPUT_MINT, CONFORMANCE_QUOTE_OUTPUT_MINT and CONFORMANCE_QUOTE_AMOUNT to a pair this quote service routes',
  },
];

const RATE_LIMIT: Omit<Unjudged, 'problem'> = {
  id: 'rate-limit',
  fix: 'raise --max-retry-after or --max-retry-wait (the waits a 429 asks for), lower --max-rps, or use a key with a larger plan',
};

const FUNDING: Omit<Unjudged, 'problem'> = {
  id: 'funding',
  fix: "fund the wallet of TEST_WALLET_SECRET_KEY (SOL for fees, and USDC) on this deployment's cluster, or give a control URL offering funding",
};

/** A setup that broke for a reason the suite does not recognise: each check's message says what. */
export const SETUP: Omit<Unjudged, 'problem'> = {
  id: 'setup',
  fix: "see each check's SETUP-FAILED message (matrix.md): a control call, provisioning or a step before the rule broke",
};

/** The suite itself failed on a healthy answer: a bug to report, never a verdict on the target. */
export const SUITE_ERROR: Omit<Unjudged, 'problem'> = {
  id: 'suite-error',
  fix: "report it with the check's message; --grep can leave the check out meanwhile",
};

function errorCode(body: unknown): string | undefined {
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : (body as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

const CREDENTIAL_HEADER = { ordersApiKey: 'x-service-key', quotesApiKey: 'x-api-key' } as const;

function header(ex: Exchange, name: string): string | undefined {
  return Object.entries(ex.request.headers).find(([k]) => k.toLowerCase() === name)?.[1];
}

/** The broken precondition of the run (found by the preflight) that `ex`'s answer shows, if any. */
export function explainedBy(env: TargetEnv, ex: Exchange | undefined): BrokenPrecondition | undefined {
  if (!ex) return undefined;
  return env.preconditions?.find(
    ({ answer }) =>
      answer.service === ex.service &&
      answer.status === ex.response.status &&
      (answer.code === undefined || answer.code === errorCode(ex.response.body)) &&
      (answer.credential === undefined || header(ex, CREDENTIAL_HEADER[answer.credential]) === env.credentials[answer.credential]),
  );
}

function fromBroken(p: BrokenPrecondition): Unjudged {
  return { id: p.id, problem: p.problem, fix: p.fix };
}

const OUTSIDE_RUN = /outside the run: no --(orders|quotes)-url given/;

/** Why a check that stopped with a skip was not judged. */
export function skipCause(
  env: TargetEnv,
  reason: string,
  rejected: readonly string[],
  last: Exchange | undefined,
): { by: NotJudgedBy; unjudged?: Unjudged } {
  // A check that needs the service a run given one URL alone was not given (client.ts): outside the run.
  if (OUTSIDE_RUN.test(reason)) return { by: 'outside-run' };
  const assumption = rejected.map((label) => label.split(':')[0]!).find(isAssumption);
  if (assumption) {
    const broken = env.preconditions?.find((p) => p.id === assumption);
    return {
      by: 'precondition',
      unjudged: broken
        ? fromBroken(broken)
        : {
            id: assumption,
            problem: `the target rejected the suite's assumption ${assumption}: ${ASSUMPTIONS[assumption]}`,
            fix: ASSUMPTION_FIXES[assumption],
          },
    };
  }
  const late = lateAnswerIn(reason);
  if (late) return { by: 'precondition', unjudged: late };
  if (last?.response.status === 429) return { by: 'precondition', unjudged: { ...RATE_LIMIT, problem: firstLine(reason) } };
  const setting = SETTINGS.find((s) => s.pattern.test(reason));
  if (setting) return { by: 'precondition', unjudged: { id: setting.id, problem: firstLine(reason), fix: setting.fix } };
  // An answer the preflight already explained (401 on the run's own quote key): that precondition, not the target.
  const broken = explainedBy(env, last);
  if (broken) return { by: 'precondition', unjudged: fromBroken(broken) };
  return { by: 'target' };
}

/** Why a check whose setup broke was not judged: a precondition the run found broken, a recognised one, or its own. */
export function setupCause(env: TargetEnv, reason: string, carried: Exchange | undefined, last: Exchange | undefined): Unjudged {
  const late = lateAnswerIn(reason);
  if (late) return late;
  const broken = explainedBy(env, carried ?? last);
  if (broken) return fromBroken(broken);
  if ((carried ?? last)?.response.status === 429) return { ...RATE_LIMIT, problem: firstLine(reason) };
  if (/INSUFFICIENT_FUNDS|insufficient (funds|balance)/i.test(reason)) return { ...FUNDING, problem: firstLine(reason) };
  return { ...SETUP, problem: 'a step before the rule broke' };
}

function firstLine(text: string): string {
  const line = text.split('\n')[0]!;
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/**
 * The reason of a LateAnswer (failure.ts): no whole answer to `what` within --timeout. Made and read here only, so a
 * check that passes the reason on in a skip of its own is still counted under `timeout` (skipCause, setupCause).
 */
export function lateAnswerReason(what: string, timeoutMs: number, message: string): string {
  return `no whole answer to ${what} within --timeout ${timeoutMs} ms: ${message}`;
}

const LATE_ANSWER = /no whole answer to .* within --timeout (\d+) ms/;

/** A request left without a whole answer within --timeout: the documents set no response time, so not a verdict. */
export function timeoutUnjudged(timeoutMs: number | string): Unjudged {
  return {
    id: 'timeout',
    problem: `a request got no whole answer within --timeout (${timeoutMs} ms); neither document sets a response time, so the rule it was sent for was not judged`,
    fix: `raise --timeout (now ${timeoutMs} ms)`,
  };
}

export function lateAnswerIn(reason: string): Unjudged | undefined {
  const late = LATE_ANSWER.exec(reason);
  return late ? timeoutUnjudged(late[1]!) : undefined;
}

/**
 * An error of the suite outside any check (a file of the suite that did not load, a hook, an unhandled error): the
 * suite's own bug, never a verdict on the target. The checks it left unrun are not judged for it (INCOMPLETE, exit 4;
 * a gating failure besides still makes the run a FAIL).
 */
export function suiteErrorUnjudged(errors: readonly string[]): Unjudged {
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more: the ERROR lines below)` : '';
  return {
    id: 'suite-error-outside-checks',
    problem: `the suite's own error, not the target: ${firstLine(errors[0] ?? 'an error outside any check')}${more}`,
    fix: 'report it with the ERROR line (a bug of the suite); run again, and meanwhile leave the failing part out with --grep',
  };
}

/** The run stopped at its --max-duration deadline before these checks ran. */
export function deadlineUnjudged(maxDurationS: number | undefined): Unjudged {
  return {
    id: 'deadline',
    problem: `the run reached its deadline (--max-duration ${maxDurationS ?? '?'} s) before every check had run`,
    fix: 'raise --max-duration (CONFORMANCE_MAX_DURATION; 0 = none), or split the run with --shard (readonly, smoke, or the embedded server)',
  };
}
