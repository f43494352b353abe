/**
 * The conformance matrix: buildMatrix turns check results into matrix.json's shape, writeMatrix writes it with its
 * markdown and HTML renderings. Its parts live in matrix/ (types, verdicts, root causes, lines, markdown, HTML); this
 * module is the one others import.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Check } from './check.ts';
import { renderHtml } from './matrix/html.ts';
import { renderMarkdown } from './matrix/markdown.ts';
import { groupFailures, failureRoots } from './matrix/root-cause.ts';
import {
  MATRIX_SCHEMA_VERSION,
  type BuildOptions,
  type Matrix,
  type PreconditionRow,
  type RuleRow,
  type RuleVerdict,
  type RunInfo,
} from './matrix/types.ts';
import {
  assumptionCounts,
  canGate,
  citingResults,
  coverage,
  gatingCoverage,
  judgedThroughCounts,
  judgedThroughOf,
  preconditionRows,
  ruleVerdict,
} from './matrix/verdicts.ts';
import { redact } from './redact.ts';
import { loadCatalogue } from './rules.ts';
import type { CheckResult } from './runner.ts';
import { escapeControlsDeep, escapeControlsInJson } from './terminal.ts';
import type { Verdict } from './types.ts';

export { renderHtml } from './matrix/html.ts';
export {
  checkCounts,
  failureLines,
  gatingLine,
  headline,
  judgedThroughLine,
  outsideRunReason,
  preconditionLines,
  ruleCounts,
  sameAnswerLines,
  targetUrl,
} from './matrix/lines.ts';
export { renderMarkdown } from './matrix/markdown.ts';
export { groupFailures, replayCommand } from './matrix/root-cause.ts';
export {
  MATRIX_SCHEMA_VERSION,
  type BuildOptions,
  type CoverageRow,
  type FailureRoot,
  type GatingCoverage,
  type JudgedThroughCounts,
  type Matrix,
  type PreconditionRow,
  type RuleJudgedThrough,
  type RuleRow,
  type RuleVerdict,
  type RunInfo,
  type Stopped,
} from './matrix/types.ts';
export { canGate, coverage } from './matrix/verdicts.ts';

export function buildMatrix(
  checkResults: CheckResult[],
  allChecks: readonly Check[],
  run: RunInfo,
  version: string,
  options: BuildOptions = {},
): Matrix {
  const { rules } = loadCatalogue();
  // A check stopped by the deadline (a 429 whose wait would pass it, client.ts) is the run reaching its deadline.
  const stopped = options.stopped ?? (checkResults.some((r) => r.unjudged?.id === 'deadline') ? 'deadline' : undefined);
  const results = groupFailures(checkResults, run);
  const { rows, uncovered } = coverage(allChecks);
  const uncoveredSet = new Set(uncovered);
  const ruleRows: RuleRow[] = [...rules.values()].map((rule) => {
    const verdict = ruleVerdict(rule, results, !uncoveredSet.has(rule.id));
    return {
      id: rule.id,
      service: rule.service,
      area: rule.area,
      level: rule.level,
      basis: rule.basis,
      ...(rule.assumes ? { assumes: [...rule.assumes] } : {}),
      observe: rule.observe,
      statement: rule.statement,
      ...(rule.source ? { source: rule.source } : {}),
      checks: citingResults(rule, results).map((r) => ({
        name: r.check,
        verdict: r.verdict,
        gating: r.gating,
        message: r.verdict === 'pass' ? undefined : r.message,
        ...(r.blockedBy ? { blockedBy: r.blockedBy } : {}),
        ...(r.verdict === 'fail' ? { rule: r.rule, assertionsHeld: Boolean(r.assertionsHeld) } : {}),
      })),
      verdict,
      ...judgedThroughOf(rule, results, verdict),
    };
  });
  const checks = { pass: 0, fail: 0, unsupported: 0, skipped: 0, 'setup-failed': 0 } as Record<Verdict, number>;
  for (const r of results) checks[r.verdict]++;
  const failures = failureRoots(results);
  const gatingFailures = failures.filter((f) => f.gating).length;
  const ruleCounts: Partial<Record<RuleVerdict, number>> = {};
  for (const row of ruleRows) ruleCounts[row.verdict] = (ruleCounts[row.verdict] ?? 0) + 1;
  const errors = options.errors ?? [];
  const preconditions = preconditionRows(results, run, stopped, errors);
  // A run whose checks all came back without a verdict of pass or fail judged nothing: never a pass (DESIGN.md, exit 0).
  // The checks of a service outside the run (one URL alone) are not of the run: said apart (gating.notJudged.outsideRun).
  const ofRun = results.filter((r) => r.notJudged !== 'outside-run');
  if (ofRun.length > 0 && checks.pass + checks.fail === 0 && !stopped && errors.length === 0)
    preconditions.push(nothingJudged(ofRun, run.strict));
  // An error of the suite outside any check is its own bug, not the target's: INCOMPLETE, never a pass (a gating failure
  // besides still fails the run).
  const incomplete = stopped === 'deadline' || errors.length > 0 || preconditions.some((p) => p.checks.length > 0);
  return {
    schemaVersion: MATRIX_SCHEMA_VERSION,
    suite: { name: 'solana-trading-conformance', version, ...(options.commit ? { commit: options.commit } : {}) },
    // The target's /api/v1/info is shown as the check results are: control characters written out (terminal.ts).
    run: { ...run, target: { ...run.target, info: escapeControlsDeep(run.target.info) } },
    summary: {
      verdict: gatingFailures > 0 ? 'fail' : stopped === 'interrupted' ? 'interrupted' : incomplete ? 'incomplete' : 'pass',
      ...(stopped ? { stopped } : {}),
      checks,
      gatingFailures,
      nonGatingFailures: failures.length - gatingFailures,
      blocked: checks.fail - failures.length,
      failures,
      rules: { total: ruleRows.length, covered: ruleRows.length - uncovered.length, ...ruleCounts },
      assumptions: assumptionCounts(results),
      gating: gatingCoverage(ruleRows, results, run.strict),
      judgedThrough: judgedThroughCounts(ruleRows),
      preconditions,
      errors,
    },
    coverage: rows,
    rules: ruleRows,
    uncovered,
    checks: results,
  };
}

/** The precondition a run that judged no rule breaks, with what its checks said instead. */
function nothingJudged(results: CheckResult[], strict: boolean): PreconditionRow {
  const why = new Map<string, number>();
  for (const r of results) {
    const reason = r.notJudged ?? r.verdict;
    why.set(reason, (why.get(reason) ?? 0) + 1);
  }
  const counts = [...why].map(([reason, n]) => `${n} ${reason}`).join(', ');
  return {
    id: 'nothing-judged',
    problem: `no check of this run judged a rule (${counts}): a run that judged nothing is not a pass`,
    fix: 'select checks this target and profile can judge: a wider --grep, --profile full, or the capability the checks name',
    // The gating ones, or every one when none gates: still nothing judged.
    checks: (results.some((r) => canGate(r, strict)) ? results.filter((r) => canGate(r, strict)) : results).map((r) => r.check),
  };
}

/**
 * Write matrix.json, matrix.md and matrix.html into `dir`: redacted, and with no control character of the target raw
 * (its /api/v1/info is in the header; the results' texts are escaped where they were made, runner.ts).
 */
export function writeMatrix(dir: string, m: Matrix): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'matrix.json'), escapeControlsInJson(redact(JSON.stringify(m, null, 2))) + '\n');
  writeFileSync(join(dir, 'matrix.md'), renderMarkdown(m));
  writeFileSync(join(dir, 'matrix.html'), renderHtml(m));
}
