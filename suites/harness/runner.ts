import { CheckContext, sourceSite, type Check } from './check.ts';
import type { Exchange } from './exchange.ts';
import {
  ConformanceFailure,
  NotJudged,
  SetupFailed,
  Skipped,
  Unsupported,
  failingAnswer,
  formatFailure,
  type FailingAnswer,
} from './failure.ts';
import { outageShownBy } from './outage.ts';
import { explainedBy, setupCause, skipCause, SUITE_ERROR, type NotJudgedBy, type Unjudged } from './preconditions.ts';
import { redact } from './redact.ts';
import { escapeControls } from './terminal.ts';
import { isGating, loadCatalogue, type Rule } from './rules.ts';
import { profileIncludes, type Basis, type Level, type TargetEnv, type Verdict } from './types.ts';
import { toCurl } from './curl.ts';
import { fcPathOption } from './fc-path.ts';
import { guardSharedState } from './schedule.ts';
import { specRule } from '../../generators/vocabulary.ts';

/** The outcome of one check; serialisable (it travels in vitest task meta to the reporters). */
export interface CheckResult {
  check: string;
  service: string;
  rules: string[];
  verdict: Verdict;
  /** the rule a failure names */
  rule?: string;
  level?: Level;
  basis?: Basis;
  /** does this result fail the gate (exit 1)? */
  gating: boolean;
  /** the check's own assertions all held (a `fail` then comes from a harness violation of another rule) */
  assertionsHeld?: boolean;
  /** failure report, or the reason for any other non-pass verdict */
  message?: string;
  notes: string[];
  requests: number;
  /** time spent waiting on the target, ms */
  waitMs: number;
  durationMs: number;
  /** bad inputs tried per operation (hostile-input checks), kept whatever the verdict */
  tally?: Record<string, number>;
  /** redacted reproductions of the exchanges, kept for failures */
  reproductions?: string[];
  /** the suite's assumptions the target confirmed or rejected in this check (assumptions.ts), as labels */
  assumptions?: { confirmed?: string[]; rejected?: string[] };
  /** why a check that is not pass or fail was not judged; only `precondition` makes the run INCOMPLETE (preconditions.ts) */
  notJudged?: NotJudgedBy;
  /** the broken precondition of the run that left it unjudged, with its fix */
  unjudged?: Unjudged;
  /** where the check is defined, `suites/…/x.checks.ts:LINE` */
  source?: string;
  /** where a failure was raised, in the check's own file (else where the check is defined) */
  failedAt?: string;
  /** when the check ran, epoch ms with sub-millisecond precision (checks may overlap: schedule.ts) */
  ran?: { from: number; to: number };
  /** the answer a failure was judged on, to group failures by root cause (failure.ts) */
  failingAnswer?: FailingAnswer;
  /** set by the matrix: another check got the same failing answer (matrix/root-cause.ts) and is the root cause of this failure */
  blockedBy?: string;
  /** set by the matrix: the command that runs this check again against the same target, profile and seed */
  replay?: string;
  /** a property's counterexample as --fc-path takes it (fc-path.ts): the replay goes straight to it */
  fcPath?: string;
  /**
   * How a pass or fail was judged: `control` when the check called the target's control API (advanced the clock, set
   * prices, funded, ...; a read of the clock alone does not count), `black-box` when it judged through the services'
   * own operations alone, as on a partner's staging.
   */
  judgedThrough?: JudgedThrough;
}

export type JudgedThrough = 'control' | 'black-box';

function withFailingAnswer(f: ConformanceFailure): Pick<CheckResult, 'failingAnswer'> {
  const answer = failingAnswer(f);
  return answer ? { failingAnswer: answer } : {};
}

function summarize(exchanges: Exchange[]): string[] {
  return exchanges.map((e) => `${toCurl(e.request)}\n# -> ${e.response.status} ${e.response.mediaType ?? ''}`);
}

/**
 * Every text of a result, redacted once more at the end and with the target's control characters escaped: a result
 * leaves the worker it ran in (vitest task meta, a thrown error, a skip reason, an Allure attachment), and the secrets
 * minted during the check (control.ts) are registered only here, in this process.
 */
function redacted(result: CheckResult): CheckResult {
  const clean = (text: string) => escapeControls(redact(text));
  return {
    ...result,
    notes: result.notes.map(clean),
    ...(result.message === undefined ? {} : { message: clean(result.message) }),
    ...(result.reproductions === undefined ? {} : { reproductions: result.reproductions.map(clean) }),
    ...(result.unjudged === undefined
      ? {}
      : { unjudged: { ...result.unjudged, problem: clean(result.unjudged.problem), fix: clean(result.unjudged.fix) } }),
  };
}

/** Why a documented `must` rule's failure does not gate: the assumptions of its exercise this check did not see confirmed. */
function unconfirmed(rule: Rule, gating: boolean, t: CheckContext): string {
  const open = (rule.assumes ?? []).filter((a) => !t.assumptions.holds(a));
  if (gating || rule.level !== 'must' || rule.basis !== 'documented' || open.length === 0) return '';
  return `\n  not gating: the way to exercise ${rule.id} rests on ${open.join(', ')}, which the target did not confirm in this check`;
}

/** Run one check against the target described by `env` and decide its verdict (STYLE.md 4). */
export async function runCheck(check: Check, env: TargetEnv): Promise<CheckResult> {
  return redacted(await decide(check, env));
}

async function decide(check: Check, env: TargetEnv): Promise<CheckResult> {
  const catalogue = loadCatalogue();
  const base = { check: check.name, service: check.service, rules: [...check.rules], notes: [] as string[] };
  if (!profileIncludes(env.profile, check.profile)) {
    return {
      ...base,
      verdict: 'skipped',
      gating: false,
      notJudged: 'profile',
      message: `profile "${env.profile}" excludes it (needs "${check.profile}")`,
      requests: 0,
      waitMs: 0,
      durationMs: 0,
    };
  }
  const missing = (check.needs ?? []).filter((c) => !env.capabilities.includes(c));
  if (missing.length > 0) {
    return {
      ...base,
      verdict: 'unsupported',
      gating: false,
      notJudged: 'capability',
      message: `the target does not offer: ${missing.join(', ')}`,
      requests: 0,
      waitMs: 0,
      durationMs: 0,
    };
  }

  const t = new CheckContext(check, env);
  guardSharedState(t.control, check);
  const started = Date.now();
  const from = performance.timeOrigin + performance.now();
  let outcome: unknown;
  try {
    await check.run(t);
  } catch (e) {
    outcome = e;
  }
  for (const cleanup of t.cleanups) {
    try {
      await cleanup();
    } catch (e) {
      t.notes.push(`cleanup failed: ${(e as Error).message}`);
      if (outcome === undefined) outcome = new SetupFailed(`cleanup failed: ${(e as Error).message}`);
    }
  }
  // The check's own assertions name the precise rule; the harness's schema violations come after them, and also
  // explain a check that skipped or tripped over an answer the spec does not allow.
  const violation = t.violations[0];
  const assertionsHeld = outcome === undefined;
  if (violation && !(outcome instanceof ConformanceFailure)) {
    outcome = new ConformanceFailure(violation.rule, violation.detail);
  }

  const assumptions = t.assumptions.summary();
  const measured = {
    notes: t.notes.map(redact),
    requests: t.exchanges.length,
    waitMs: t.exchanges.reduce((sum, e) => sum + e.durationMs, 0),
    durationMs: Date.now() - started,
    ran: { from, to: performance.timeOrigin + performance.now() },
    ...(t.tally && Object.keys(t.tally).length > 0 ? { tally: { ...t.tally } } : {}),
    ...(Object.keys(assumptions).length > 0 ? { assumptions } : {}),
    ...(check.source ? { source: check.source } : {}),
  };
  const last = t.exchanges.at(-1);
  /** A result that judges no rule: the run's precondition `unjudged` explains it. */
  const notJudged = (verdict: 'setup-failed' | 'skipped', unjudged: Unjudged, message: string): CheckResult => ({
    ...base,
    ...measured,
    verdict,
    gating: false,
    notJudged: 'precondition',
    unjudged,
    message,
    reproductions: summarize(t.exchanges),
  });
  const control = env.controlUrl?.replace(/\/$/, '');
  // A read of the virtual clock alone is no dependence: the services' own `Date` stands in for it on a target without
  // one, and whether a check reads it or uses what the process learned (service-time.ts) depends on the checks before.
  const clockRead = (e: Exchange) => e.request.method === 'GET' && e.request.url === `${control}/clock`;
  const judgedThrough: JudgedThrough =
    control && t.exchanges.some((e) => e.request.url.startsWith(`${control}/`) && !clockRead(e)) ? 'control' : 'black-box';
  if (outcome === undefined) return { ...base, ...measured, verdict: 'pass', gating: false, judgedThrough };
  if (outcome instanceof ConformanceFailure) {
    const rule = catalogue.rules.get(outcome.rule);
    if (!rule) throw new Error(`check "${check.name}" failed on ${outcome.rule}, which is not in specs/rules`);
    const gating = isGating(rule, env.strict, (a) => t.assumptions.holds(a));
    const failedAt = failureSite(outcome) ?? check.source;
    const message =
      formatFailure(outcome, check.name, rule.statement) +
      (outcome.property ? '' : `\n  seed:       ${env.seed}`) +
      (failedAt ? `\n  at:         ${failedAt}` : '') +
      unconfirmed(rule, gating, t);
    // An answer a broken precondition of the run explains (400 SIWS_INVALID while the target rejects the suite's SIWS
    // form) judges no rule: the check is not judged, naming the precondition (preconditions.ts).
    const broken = explainedBy(env, outcome.detail.exchange);
    if (broken) {
      const why = `the answer shows the broken precondition ${broken.id} (${broken.problem})`;
      return notJudged(
        'setup-failed',
        { id: broken.id, problem: broken.problem, fix: broken.fix },
        `${rule.id} not judged: ${why}\n${message}`,
      );
    }
    // A service that says it is unavailable (503 RPC_UNAVAILABLE after the client's retries) judges no rule either,
    // unless the check made the outage itself (outage.ts).
    const outage = outageShownBy(outcome.detail.exchange ?? last, t.exchanges);
    if (outage) return notJudged('skipped', outage, `${rule.id} not judged: ${outage.problem}\n${message}`);
    return {
      ...base,
      ...measured,
      verdict: 'fail',
      rule: rule.id,
      level: rule.level,
      basis: rule.basis,
      gating,
      assertionsHeld,
      message,
      reproductions: summarize(t.exchanges),
      ...(failedAt ? { failedAt } : {}),
      ...(outcome.property?.path ? { fcPath: fcPathOption({ property: outcome.property.ordinal ?? 1, path: outcome.property.path }) } : {}),
      ...withFailingAnswer(outcome),
      judgedThrough,
    };
  }
  if (outcome instanceof Unsupported)
    return { ...base, ...measured, verdict: 'unsupported', gating: false, notJudged: 'capability', message: outcome.message };
  if (outcome instanceof Skipped) {
    const cause =
      outcome instanceof NotJudged
        ? { by: 'precondition' as const, unjudged: outcome.unjudged }
        : skipCause(env, outcome.reason, assumptions.rejected ?? [], outcome.exchange ?? last);
    return {
      ...base,
      ...measured,
      verdict: 'skipped',
      gating: false,
      notJudged: cause.by,
      ...(cause.unjudged ? { unjudged: cause.unjudged } : {}),
      message: redact(outcome.reason),
    };
  }
  // A check that exhausted the stack or memory on the target's answers (RangeError: a nesting or a size no healthy answer
  // has) fails, as a check that never finished does (bin/reporters/unfinished.ts). Any other exception is the suite's own error.
  if (outcome instanceof RangeError && t.exchanges.length > 0) {
    const crashed = crashedResult(
      check,
      `${outcome.name}: ${outcome.message} (after ${t.exchanges.length} answer(s) of the target; the last: ` +
        `${last!.request.method} ${last!.request.url} -> ${last!.response.status})`,
      measured.durationMs,
      "the check handles the target's answers to a verdict; an answer that makes it exhaust the stack or memory is a failure, whatever its rules' levels",
    );
    return { ...crashed, ...measured, reproductions: summarize(t.exchanges) };
  }
  if (outcome instanceof SetupFailed) {
    const unjudged = outageShownBy(outcome.exchange ?? last, t.exchanges) ?? setupCause(env, outcome.reason, outcome.exchange, last);
    const named =
      unjudged.id === 'setup'
        ? outcome.reason
        : `not judged: the broken precondition ${unjudged.id} (${unjudged.problem})\n  ${outcome.reason}`;
    return notJudged('setup-failed', unjudged, redact(named));
  }
  const error = `suite error: ${(outcome as Error)?.stack ?? String(outcome)}`;
  return notJudged('setup-failed', { ...SUITE_ERROR, problem: 'the suite itself threw on the way to a verdict' }, redact(error));
}

/**
 * A check that did not reach a verdict of its own (it crashed on the target's answers, hit vitest's test timeout or died
 * with its worker): a gating failure of its first rule whatever its rules' levels, never a silent pass.
 */
export function crashedResult(
  check: Check,
  why: string,
  durationMs = 0,
  documented = "the check runs to its verdict (within vitest's test timeout, in a worker that stays alive); one that does not is a failure, whatever its rules' levels",
): CheckResult {
  const rule = loadCatalogue().rules.get(check.rules[0]!);
  if (!rule) throw new Error(`check "${check.name}" cites ${check.rules[0]}, which is not in specs/rules`);
  const failure = new ConformanceFailure(specRule(rule.id), { documented, received: why });
  return {
    check: check.name,
    service: check.service,
    rules: [...check.rules],
    verdict: 'fail',
    rule: rule.id,
    level: rule.level,
    basis: rule.basis,
    gating: true,
    message: `${formatFailure(failure, check.name, rule.statement)}${check.source ? `\n  at:         ${check.source}` : ''}`,
    notes: [],
    requests: 0,
    waitMs: 0,
    durationMs,
    ...(check.source ? { source: check.source, failedAt: check.source } : {}),
  };
}

/** A selected check the run never started, saying why (`message`), judged as `why` says: skipped, never a pass. */
export function notRunResult(check: Check, message: string, why: Pick<CheckResult, 'notJudged' | 'unjudged'>): CheckResult {
  return {
    check: check.name,
    service: check.service,
    rules: [...check.rules],
    verdict: 'skipped',
    gating: false,
    notes: [],
    requests: 0,
    waitMs: 0,
    durationMs: 0,
    ...(check.source ? { source: check.source } : {}),
    message,
    ...why,
  };
}

/** The line of the check's own file where a failure was raised: the first frame of its stack in a *.checks.ts file. */
function failureSite(failure: Error): string | undefined {
  return failure.stack
    ?.split('\n')
    .slice(1)
    .map(sourceSite)
    .find((site) => site !== undefined && /\.checks\.ts:/.test(site));
}
