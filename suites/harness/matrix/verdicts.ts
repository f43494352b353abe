/** Rule verdicts from check results: coverage, a rule's verdict and how it was judged, the gate, preconditions. */
import type { Check } from '../check.ts';
import { deadlineUnjudged, suiteErrorUnjudged } from '../preconditions.ts';
import { decidingIds, loadCatalogue, type Rule } from '../rules.ts';
import type { CheckResult } from '../runner.ts';
import type {
  CoverageRow,
  GatingCoverage,
  JudgedThroughCounts,
  Matrix,
  PreconditionRow,
  RuleJudgedThrough,
  RuleRow,
  RuleVerdict,
  RunInfo,
  Stopped,
} from './types.ts';

/** Which rules the suite has at least one check for (static coverage, independent of the run). */
export function coverage(allChecks: readonly Check[]): { rows: CoverageRow[]; uncovered: string[] } {
  const { rules } = loadCatalogue();
  const cited = new Set<string>(allChecks.flatMap((c) => c.rules));
  const rows = new Map<string, CoverageRow>();
  const uncovered: string[] = [];
  for (const rule of rules.values()) {
    const key = `${rule.service} ${rule.area}`;
    const row = rows.get(key) ?? { service: rule.service, area: rule.area, rules: 0, covered: 0 };
    row.rules++;
    if (decidingIds(rule).every((id) => cited.has(id))) row.covered++;
    else uncovered.push(rule.id);
    rows.set(key, row);
  }
  return { rows: [...rows.values()], uncovered };
}

export function citingResults(rule: Rule, results: CheckResult[]): CheckResult[] {
  const ids = decidingIds(rule);
  return results.filter((r) => ids.some((id) => r.rules.includes(id)));
}

/**
 * A rule fails when a check failed on it and is a root cause; when its only failures are blocked by another check's
 * (root-cause.ts), the rule is `blocked`: that root is the failure, this rule was not judged on its own.
 */
export function ruleVerdict(rule: Rule, results: CheckResult[], covered: boolean): RuleVerdict {
  if (!covered) return 'uncovered';
  const ids = decidingIds(rule);
  const citing = citingResults(rule, results);
  const failedOnIt = citing.filter((r) => r.verdict === 'fail' && r.rule !== undefined && ids.includes(r.rule));
  if (failedOnIt.some((r) => !r.blockedBy)) return 'fail';
  if (failedOnIt.length > 0) return 'blocked';
  if (citing.length === 0) return 'not-run';
  // A check that failed on another rule decided this one only if its own assertions all held.
  if (citing.some((r) => r.verdict === 'fail' && r.assertionsHeld)) return 'pass';
  const decided = citing.filter((r) => r.verdict !== 'fail');
  for (const v of ['pass', 'setup-failed', 'unsupported', 'skipped'] as const) if (decided.some((r) => r.verdict === v)) return v;
  return 'not-run';
}

/** What an unsupported result says the target lacks: its missing capabilities (runner.ts, failure.ts), else its reason. */
function lacking(r: CheckResult): string[] {
  const message = r.message ?? '';
  const listed = /does not offer: (.+)$/m.exec(message) ?? /does not offer the "(.+)" capability/.exec(message);
  return listed ? listed[1]!.split(', ') : [message.split('\n')[0]!];
}

/**
 * How a judged rule was judged: through the control API, the services alone, or both (the checks that decided it: a
 * pass, a failure on it, a failure elsewhere whose own assertions held); a rule whose only results are unsupported is
 * not judgeable on this target, and says what it needs.
 */
export function judgedThroughOf(rule: Rule, results: CheckResult[], verdict: RuleVerdict): Pick<RuleRow, 'judgedThrough' | 'needs'> {
  const ids = decidingIds(rule);
  const citing = citingResults(rule, results);
  if (verdict === 'unsupported' && citing.every((r) => r.verdict === 'unsupported'))
    return { judgedThrough: 'not-judgeable', needs: [...new Set(citing.flatMap(lacking))].sort() };
  if (verdict !== 'pass' && verdict !== 'fail') return {};
  const deciding = citing.filter(
    (r) => r.verdict === 'pass' || (r.verdict === 'fail' && ((r.rule !== undefined && ids.includes(r.rule)) || r.assertionsHeld)),
  );
  const kinds = new Set(deciding.flatMap((r) => (r.judgedThrough ? [r.judgedThrough] : [])));
  if (kinds.size === 0) return {};
  return { judgedThrough: kinds.size > 1 ? 'both' : [...kinds][0]! };
}

export function judgedThroughCounts(rows: RuleRow[]): JudgedThroughCounts {
  const count = (...kinds: RuleJudgedThrough[]) => rows.filter((r) => r.judgedThrough && kinds.includes(r.judgedThrough)).length;
  return { services: count('black-box', 'both'), controlOnly: count('control'), notJudgeable: count('not-judgeable') };
}

/** Can a failure of this check fail the gate? It cites a `must` rule that is documented (or any `must` with --strict). */
export function canGate(result: Pick<CheckResult, 'rules'>, strict: boolean): boolean {
  const { rules } = loadCatalogue();
  return result.rules.some((id) => {
    const rule = rules.get(id);
    return rule !== undefined && rule.level === 'must' && (strict || rule.basis === 'documented');
  });
}

/**
 * Each broken precondition once: those the checks met (gating checks only), those the preflight found, and the suite's
 * own errors outside any check (`errors`), with the checks they left unrun.
 */
export function preconditionRows(
  results: CheckResult[],
  run: RunInfo,
  stopped: Stopped | undefined,
  errors: readonly string[] = [],
): PreconditionRow[] {
  const rows = new Map<string, PreconditionRow>();
  for (const p of run.preconditions ?? []) rows.set(p.id, { id: p.id, problem: p.problem, fix: p.fix, checks: [] });
  if (errors.length > 0) {
    const own = suiteErrorUnjudged(errors);
    rows.set(own.id, { ...own, checks: [] });
  }
  for (const r of results) {
    if (r.notJudged !== 'precondition' || !r.unjudged || !canGate(r, run.strict)) continue;
    const row = rows.get(r.unjudged.id) ?? { ...r.unjudged, checks: [] };
    row.checks.push(r.check);
    rows.set(row.id, row);
  }
  // An assumption with variants (the intent template of each order type): which ones the target rejected.
  for (const row of rows.values()) {
    const labels = [
      ...new Set(results.flatMap((r) => r.assumptions?.rejected ?? []).filter((label) => label.startsWith(`${row.id}:`))),
    ].sort();
    if (labels.length > 0) row.problem += ` (rejected: ${labels.join(', ')})`;
  }
  if (stopped === 'deadline' && !rows.has('deadline')) rows.set('deadline', { ...deadlineUnjudged(run.maxDurationS), checks: [] });
  return [...rows.values()];
}

export function gatingCoverage(ruleRows: RuleRow[], results: CheckResult[], strict: boolean): GatingCoverage {
  const { rules } = loadCatalogue();
  const coverage: GatingCoverage = {
    rules: 0,
    judged: 0,
    notJudged: { profile: 0, capability: 0, precondition: 0, blocked: 0, interrupted: 0, deadline: 0, other: 0 },
  };
  let outsideRun = 0;
  const n = coverage.notJudged;
  // The run's deadline is a precondition of the run (INCOMPLETE), but a check it left unrun is counted apart, as one an
  // interrupt left unrun: both would have run to a verdict had the run gone on.
  const atDeadline = (r: CheckResult) => r.notJudged === 'precondition' && r.unjudged?.id === 'deadline';
  for (const row of ruleRows) {
    if (row.level !== 'must' || (!strict && row.basis !== 'documented')) continue;
    const citing = citingResults(rules.get(row.id)!, results);
    if (citing.length === 0) continue;
    coverage.rules++;
    if (row.verdict === 'pass' || row.verdict === 'fail') coverage.judged++;
    else if (row.verdict === 'blocked') n.blocked++;
    else if (citing.some((r) => r.notJudged === 'precondition' && !atDeadline(r))) n.precondition++;
    else if (citing.some(atDeadline)) n.deadline!++;
    else if (citing.some((r) => r.notJudged === 'interrupted')) n.interrupted!++;
    else if (citing.some((r) => r.notJudged === 'capability')) n.capability++;
    else if (citing.some((r) => r.notJudged === 'profile')) n.profile++;
    else if (citing.some((r) => r.notJudged === 'outside-run')) outsideRun++;
    else n.other++;
  }
  // Only in a run given one service's URL alone (matrices of runs of both services keep their shape).
  if (outsideRun > 0) n.outsideRun = outsideRun;
  return coverage;
}

/** How many checks saw the target confirm, and reject, each of the suite's assumptions (assumptions.ts labels). */
export function assumptionCounts(results: CheckResult[]): Matrix['summary']['assumptions'] {
  const counts: Matrix['summary']['assumptions'] = { confirmed: {}, rejected: {} };
  for (const r of results) {
    for (const kind of ['confirmed', 'rejected'] as const) {
      for (const label of r.assumptions?.[kind] ?? []) counts[kind][label] = (counts[kind][label] ?? 0) + 1;
    }
  }
  return counts;
}
