/** The shape of matrix.json (specs/matrix.schema.json) and of the run it describes. */
import type { Rule } from '../rules.ts';
import type { Unjudged } from '../preconditions.ts';
import type { CheckResult, JudgedThrough } from '../runner.ts';
import type { BrokenPrecondition, Capability, Profile, Verdict } from '../types.ts';

/**
 * A rule's verdict: a check's verdict, `not-run`, `uncovered`, or `blocked`: its only failures are blocked by another
 * check's failure (the same refusal, root-cause.ts), which is the root cause; the rule was not judged on its own.
 */
export type RuleVerdict = Verdict | 'blocked' | 'not-run' | 'uncovered';

export interface RunInfo {
  startedAt: string;
  finishedAt: string;
  profile: Profile;
  seed: number;
  /** fast-check runs per property (--num-runs): a replay needs the same to reach the same counterexample */
  numRuns?: number;
  strict: boolean;
  shard?: string;
  target: {
    /** absent when the run was given the other service's URL alone (its checks outside the run) */
    ordersUrl?: string;
    quotesUrl?: string;
    controlUrl?: string;
    gatewayUrl?: string;
    capabilities: Capability[];
    embedded: boolean;
    mutant?: string;
    variant?: string;
    info?: unknown;
  };
  specHashes: Record<string, string>;
  /** the preconditions the preflight found broken before the checks (preflight.ts) */
  preconditions?: BrokenPrecondition[];
  /** --max-duration in seconds, when the run had a deadline */
  maxDurationS?: number;
}

/** How a run was cut short: Ctrl-C, or its --max-duration deadline. */
export type Stopped = 'interrupted' | 'deadline';

/** A broken precondition of the run, once: what broke, its fix, and the gating checks it left unjudged. */
export interface PreconditionRow extends Unjudged {
  checks: string[];
}

/**
 * Gating rules of the checks of this run (`must`, documented or --strict): how many were judged, and why not the rest.
 * `interrupted` and `deadline`: rules whose checks a cut-short run never ran (Ctrl-C; --max-duration), counted apart
 * from a broken precondition and from `other` (nothing to judge on this target). Absent in matrices written before them.
 */
export interface GatingCoverage {
  rules: number;
  judged: number;
  notJudged: {
    profile: number;
    capability: number;
    precondition: number;
    blocked: number;
    interrupted?: number;
    deadline?: number;
    /** rules whose checks are of a service the run was given no URL for (one URL alone); absent when there are none */
    outsideRun?: number;
    other: number;
  };
}

export interface RuleRow {
  id: string;
  service: string;
  area: string;
  level: Rule['level'];
  basis: Rule['basis'];
  /** the assumptions the rule's exercise rests on (assumptions.ts), when its exercise is assumed */
  assumes?: string[];
  observe: Rule['observe'];
  statement: string;
  /** the section of the document the rule comes from */
  source?: string;
  /**
   * the checks citing it: a failed one names the rule it failed (`rule`) and whether its own assertions held, so that
   * a check failed on another rule shows what it says of this one (checkVerdict)
   */
  checks: Array<{
    name: string;
    verdict: Verdict;
    gating: boolean;
    message?: string;
    blockedBy?: string;
    rule?: string;
    assertionsHeld?: boolean;
  }>;
  verdict: RuleVerdict;
  /**
   * How the checks that judged it reached the target (CheckResult.judgedThrough): `control` (its control API),
   * `black-box` (the services alone), `both`; `not-judgeable` when its only results are unsupported (see `needs`)
   */
  judgedThrough?: RuleJudgedThrough;
  /** for `not-judgeable`: what the target lacks that would make it judgeable (capabilities, keys, options) */
  needs?: string[];
}

export type RuleJudgedThrough = JudgedThrough | 'both' | 'not-judgeable';

/** Rules judged through the services alone (`black-box` or `both`), only through the control API, and not judgeable. */
export interface JudgedThroughCounts {
  services: number;
  controlOnly: number;
  notJudgeable: number;
}

export interface CoverageRow {
  service: string;
  area: string;
  rules: number;
  covered: number;
}

/**
 * One root cause: a failure of `rule` on one answer, and the checks that could not go further because of it
 * (root-cause.ts): those that got the same error refusal (same service, method, path, Accept, 4xx status, code and
 * message), whatever their rules, and those that failed the same rule on the same request and answer. Any other answer
 * (a 5xx, a 200 with a wrong body, an error without code or message) is a root of its own for each rule and request.
 */
export interface FailureRoot {
  rule: string;
  check: string;
  gating: boolean;
  /** the failing exchange in one line: `GET …/api/v1/quote?… -> 400 7 "message"` */
  answer?: string;
  failedAt?: string;
  replay: string;
  blocked: string[];
}

/** The version of matrix.json's shape (specs/matrix.schema.json); raised on a change a reader must know about. */
export const MATRIX_SCHEMA_VERSION = 2;

export interface Matrix {
  schemaVersion: number;
  suite: { name: string; version: string; commit?: string };
  run: RunInfo;
  summary: {
    /**
     * `fail`: a gating failure; `incomplete`: no gating failure, but gating checks could not be judged for a broken
     * precondition or the deadline, or the suite erred outside any check (its own bug, not the target's) (exit 4);
     * `interrupted`: cancelled by Ctrl-C.
     */
    verdict: 'pass' | 'fail' | 'incomplete' | 'interrupted';
    stopped?: Stopped;
    checks: Record<Verdict, number>;
    /** failed checks that are root causes and gate (blocked ones are counted once, in their root) */
    gatingFailures: number;
    /** failed checks that are root causes and do not gate */
    nonGatingFailures: number;
    /** failed checks blocked by the same failing answer of another check, their root cause (FailureRoot) */
    blocked: number;
    /** each root cause once: gating first, then those that blocked the most checks */
    failures: FailureRoot[];
    rules: { total: number; covered: number } & Partial<Record<RuleVerdict, number>>;
    /** the suite's assumptions the target confirmed and rejected, as labels, with the number of checks that saw it */
    assumptions: { confirmed: Record<string, number>; rejected: Record<string, number> };
    gating: GatingCoverage;
    /** how the judged rules were judged: through the services alone, only through the control API, not at all */
    judgedThrough: JudgedThroughCounts;
    /** each broken precondition once, with the gating checks it left unjudged (none: found, but no check needed it) */
    preconditions: PreconditionRow[];
    /**
     * errors outside any check (a file that did not load, a hook, an unhandled error): the suite's own, so the run is
     * INCOMPLETE (precondition `suite-error-outside-checks`, with the checks they left unrun), never a pass
     */
    errors: string[];
  };
  coverage: CoverageRow[];
  rules: RuleRow[];
  uncovered: string[];
  checks: CheckResult[];
}

/** The rule verdicts in the order the reports list them: failures first. */
export const VERDICT_ORDER: RuleVerdict[] = ['fail', 'blocked', 'pass', 'setup-failed', 'unsupported', 'skipped', 'not-run', 'uncovered'];

export interface BuildOptions {
  stopped?: Stopped;
  /** errors outside any check */
  errors?: string[];
  /** the suite's git commit, when known */
  commit?: string;
}
