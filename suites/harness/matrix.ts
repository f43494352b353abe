import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Check } from './check.ts';
import { decidingIds, loadCatalogue, type Rule } from './rules.ts';
import { deadlineUnjudged, type Unjudged } from './preconditions.ts';
import type { CheckResult, JudgedThrough } from './runner.ts';
import { redact } from './redact.ts';
import { escapeControls, escapeControlsDeep, escapeControlsInJson } from './terminal.ts';
import type { BrokenPrecondition, Capability, Profile, Verdict } from './types.ts';

export type RuleVerdict = Verdict | 'not-run' | 'uncovered';

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
    ordersUrl: string;
    quotesUrl: string;
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

/** Gating rules of the checks of this run (`must`, documented or --strict): how many were judged, and why not the rest. */
export interface GatingCoverage {
  rules: number;
  judged: number;
  notJudged: { profile: number; capability: number; precondition: number; other: number };
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
 * One root cause: a failure of `rule` on one answer, and the checks that failed the same rule on the same answer (same
 * request, status, code and message; failure.ts failingAnswer), which could not go further because of it. Only
 * identical failing exchanges of the same rule group: a distinct violation is always a root of its own.
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
export const MATRIX_SCHEMA_VERSION = 1;

export interface Matrix {
  schemaVersion: number;
  suite: { name: string; version: string; commit?: string };
  run: RunInfo;
  summary: {
    /**
     * `fail`: a gating failure (or an error outside any check); `incomplete`: no gating failure, but gating checks could
     * not be judged for a broken precondition or the deadline (exit 4); `interrupted`: cancelled by Ctrl-C.
     */
    verdict: 'pass' | 'fail' | 'incomplete' | 'interrupted';
    stopped?: Stopped;
    checks: Record<Verdict, number>;
    /** failed checks that are root causes and gate (blocked ones are counted once, in their root) */
    gatingFailures: number;
    /** failed checks that are root causes and do not gate */
    nonGatingFailures: number;
    /** failed checks blocked by the same failure of another check (FailureRoot) */
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
    /** errors outside any check (a file that did not load, a hook, an unhandled error): the run is not a pass */
    errors: string[];
  };
  coverage: CoverageRow[];
  rules: RuleRow[];
  uncovered: string[];
  checks: CheckResult[];
}

const VERDICT_ORDER: RuleVerdict[] = ['fail', 'pass', 'setup-failed', 'unsupported', 'skipped', 'not-run', 'uncovered'];

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

function citingResults(rule: Rule, results: CheckResult[]): CheckResult[] {
  const ids = decidingIds(rule);
  return results.filter((r) => ids.some((id) => r.rules.includes(id)));
}

function ruleVerdict(rule: Rule, results: CheckResult[], covered: boolean): RuleVerdict {
  if (!covered) return 'uncovered';
  const ids = decidingIds(rule);
  const citing = citingResults(rule, results);
  if (citing.some((r) => r.verdict === 'fail' && r.rule !== undefined && ids.includes(r.rule))) return 'fail';
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
function judgedThroughOf(rule: Rule, results: CheckResult[], verdict: RuleVerdict): Pick<RuleRow, 'judgedThrough' | 'needs'> {
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

function judgedThroughCounts(rows: RuleRow[]): JudgedThroughCounts {
  const count = (...kinds: RuleJudgedThrough[]) => rows.filter((r) => r.judgedThrough && kinds.includes(r.judgedThrough)).length;
  return { services: count('black-box', 'both'), controlOnly: count('control'), notJudgeable: count('not-judgeable') };
}

/** The coverage by target kind in one line: `N rules judged through the services alone, M only through …`. */
export function judgedThroughLine(m: Matrix): string {
  const j = m.summary.judgedThrough ?? { services: 0, controlOnly: 0, notJudgeable: 0 };
  return (
    `${j.services} rules judged through the services alone, ${j.controlOnly} only through the control API, ` +
    `${j.notJudgeable} not judgeable here`
  );
}

/** A rule's judged-through cell: `control`, `black-box`, `both`, `not judgeable here (needs funding)`, or empty. */
function judgedThroughCell(r: RuleRow): string {
  if (r.judgedThrough === 'not-judgeable') return `not judgeable here (needs ${(r.needs ?? []).join(', ')})`;
  return r.judgedThrough ?? '';
}

/** Can a failure of this check fail the gate? It cites a `must` rule that is documented (or any `must` with --strict). */
export function canGate(result: Pick<CheckResult, 'rules'>, strict: boolean): boolean {
  const { rules } = loadCatalogue();
  return result.rules.some((id) => {
    const rule = rules.get(id);
    return rule !== undefined && rule.level === 'must' && (strict || rule.basis === 'documented');
  });
}

/** Each broken precondition once: those the checks met (gating checks only) and those the preflight found. */
function preconditionRows(results: CheckResult[], run: RunInfo, stopped: Stopped | undefined): PreconditionRow[] {
  const rows = new Map<string, PreconditionRow>();
  for (const p of run.preconditions ?? []) rows.set(p.id, { id: p.id, problem: p.problem, fix: p.fix, checks: [] });
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

function gatingCoverage(ruleRows: RuleRow[], results: CheckResult[], strict: boolean): GatingCoverage {
  const { rules } = loadCatalogue();
  const coverage: GatingCoverage = { rules: 0, judged: 0, notJudged: { profile: 0, capability: 0, precondition: 0, other: 0 } };
  for (const row of ruleRows) {
    if (row.level !== 'must' || (!strict && row.basis !== 'documented')) continue;
    const citing = citingResults(rules.get(row.id)!, results);
    if (citing.length === 0) continue;
    coverage.rules++;
    if (row.verdict === 'pass' || row.verdict === 'fail') coverage.judged++;
    else if (citing.some((r) => r.notJudged === 'precondition')) coverage.notJudged.precondition++;
    else if (citing.some((r) => r.notJudged === 'capability')) coverage.notJudged.capability++;
    else if (citing.some((r) => r.notJudged === 'profile')) coverage.notJudged.profile++;
    else coverage.notJudged.other++;
  }
  return coverage;
}

export interface BuildOptions {
  stopped?: Stopped;
  /** errors outside any check */
  errors?: string[];
  /** the suite's git commit, when known */
  commit?: string;
}

/** A word for a POSIX shell, single-quoted when it needs to be. */
function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command that runs one check again as this run did: the same target (the embedded server with the same mutant or
 * variant, or the same URLs; credentials come from the environment as before), profile, seed and fast-check runs, so
 * that a property reaches the same counterexample, and a property's counterexample path (`fcPath`, --fc-path) to go
 * straight to it; `--grep` selects that check alone.
 */
export function replayCommand(run: RunInfo, check: string, fcPath?: string): string {
  const t = run.target;
  const target = t.embedded
    ? [...(t.mutant ? ['--mutant', t.mutant] : []), ...(t.variant ? ['--variant', t.variant] : [])]
    : [
        ...['--orders-url', t.ordersUrl, '--quotes-url', t.quotesUrl],
        ...(t.controlUrl ? ['--control-url', t.controlUrl] : []),
        ...(t.gatewayUrl ? ['--gateway-url', t.gatewayUrl] : []),
      ];
  const args = [
    ...target,
    ...['--profile', run.profile, '--seed', String(run.seed)],
    ...(run.numRuns ? ['--num-runs', String(run.numRuns)] : []),
    ...(fcPath ? ['--fc-path', fcPath] : []),
    ...(run.strict ? ['--strict'] : []),
    ...['--grep', ` ${check} \\[`],
  ];
  return `npm run conformance -- ${args.map(shellWord).join(' ')}`;
}

/** Roots first: a gating failure, then one the check asserted itself (it cites the rule), then one it stopped on. */
function rootRank(r: CheckResult): number {
  return (r.gating ? 0 : 4) + (r.rule && r.rules.includes(r.rule) ? 0 : 2) + (r.assertionsHeld ? 1 : 0);
}

/**
 * One defect, one failure: failed checks whose failing answers are the same (failure.ts failingAnswer: the same rule,
 * request, status, code and message) are one root cause. The root is kept; the others are marked `blockedBy` it. Marks
 * made before (a merged shard's matrix.json) are made again over all the results.
 */
export function groupFailures(results: CheckResult[], run: RunInfo): CheckResult[] {
  const fresh = results.map(({ blockedBy: _blocked, replay: _replay, ...r }): CheckResult => r);
  const groups = new Map<string, CheckResult[]>();
  for (const r of fresh) {
    if (r.verdict !== 'fail' || !r.failingAnswer) continue;
    groups.set(r.failingAnswer.key, [...(groups.get(r.failingAnswer.key) ?? []), r]);
  }
  const rootOf = new Map<CheckResult, string>();
  for (const members of groups.values()) {
    const [root, ...others] = [...members].sort((a, b) => rootRank(a) - rootRank(b));
    for (const other of others) rootOf.set(other, root!.check);
  }
  return fresh.map((r) => {
    if (r.verdict !== 'fail') return r;
    const blockedBy = rootOf.get(r);
    return { ...r, replay: replayCommand(run, r.check, r.fcPath), ...(blockedBy ? { blockedBy } : {}) };
  });
}

function failureRoots(results: CheckResult[]): FailureRoot[] {
  const roots = results.filter((r) => r.verdict === 'fail' && !r.blockedBy);
  return roots
    .map((r) => ({
      rule: r.rule ?? r.rules[0]!,
      check: r.check,
      gating: r.gating,
      ...(r.failingAnswer ? { answer: r.failingAnswer.line } : {}),
      ...(r.failedAt ? { failedAt: r.failedAt } : {}),
      replay: r.replay ?? '',
      blocked: results.filter((b) => b.blockedBy === r.check && b.rule === r.rule).map((b) => b.check),
    }))
    .sort((a, b) => Number(b.gating) - Number(a.gating) || b.blocked.length - a.blocked.length);
}

export function buildMatrix(
  checkResults: CheckResult[],
  allChecks: readonly Check[],
  run: RunInfo,
  version: string,
  options: BuildOptions = {},
): Matrix {
  const { rules } = loadCatalogue();
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
  const preconditions = preconditionRows(results, run, options.stopped);
  const errors = options.errors ?? [];
  const incomplete = options.stopped === 'deadline' || preconditions.some((p) => p.checks.length > 0);
  return {
    schemaVersion: MATRIX_SCHEMA_VERSION,
    suite: { name: 'solana-trading-conformance', version, ...(options.commit ? { commit: options.commit } : {}) },
    // The target's /api/v1/info is shown as the check results are: control characters written out (terminal.ts).
    run: { ...run, target: { ...run.target, info: escapeControlsDeep(run.target.info) } },
    summary: {
      verdict:
        gatingFailures > 0 || errors.length > 0
          ? 'fail'
          : options.stopped === 'interrupted'
            ? 'interrupted'
            : incomplete
              ? 'incomplete'
              : 'pass',
      ...(options.stopped ? { stopped: options.stopped } : {}),
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

/** How many checks saw the target confirm, and reject, each of the suite's assumptions (assumptions.ts labels). */
function assumptionCounts(results: CheckResult[]): Matrix['summary']['assumptions'] {
  const counts: Matrix['summary']['assumptions'] = { confirmed: {}, rejected: {} };
  for (const r of results) {
    for (const kind of ['confirmed', 'rejected'] as const) {
      for (const label of r.assumptions?.[kind] ?? []) counts[kind][label] = (counts[kind][label] ?? 0) + 1;
    }
  }
  return counts;
}

/** One line on the assumptions: which the target confirmed (their rules gate) and rejected (their checks skipped). */
function assumptionsLine(m: Matrix): string {
  const list = (counts: Record<string, number>) =>
    Object.entries(counts ?? {})
      .sort()
      .map(([label, n]) => `${label} (${n})`)
      .join(', ') || 'none';
  const a = m.summary.assumptions ?? { confirmed: {}, rejected: {} };
  return (
    `Assumptions confirmed by the target (checks): ${list(a.confirmed)}. Rejected (those checks skipped): ${list(a.rejected)}. ` +
    'A documented rule whose exercise rests on assumptions gates once its check saw them confirmed.'
  );
}

/**
 * A check's verdict as a rule's row shows it, so that it agrees with the rule's verdict: a check that failed another rule
 * passed this one when its own assertions held, else it did not judge it; a failure counted in its root says so.
 */
function checkVerdict(row: RuleRow, c: RuleRow['checks'][number]): { verdict: RuleVerdict; text: string } {
  if (c.verdict !== 'fail') return { verdict: c.verdict, text: c.verdict };
  const onThis = c.rule === row.id || (loadCatalogue().rules.get(row.id)?.coveredBy ?? []).includes(c.rule ?? '');
  if (!onThis)
    return c.assertionsHeld
      ? { verdict: 'pass', text: `pass (failed ${c.rule})` }
      : { verdict: 'not-run', text: `not judged (stopped at ${c.rule})` };
  return { verdict: 'fail', text: c.blockedBy ? `fail, blocked by ${c.blockedBy}` : 'fail' };
}

/** The basis column: `documented`, `assumed`, or `documented, exercise assumed: …`. */
function basisOf(r: RuleRow): string {
  return r.assumes ? `${r.basis}, exercise assumed: ${r.assumes.join(', ')}` : r.basis;
}

function pct(n: number, d: number): string {
  return d === 0 ? '—' : `${Math.round((100 * n) / d)}%`;
}

function esc(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The checks that counted bad inputs (hostile-input checks), with their per-operation tallies. */
function tallies(m: Matrix): Array<{ check: string; verdict: Verdict; total: number; perOperation: string }> {
  return m.checks
    .filter((r) => r.tally && Object.keys(r.tally).length > 0)
    .map((r) => {
      const entries = Object.entries(r.tally!);
      return {
        check: r.check,
        verdict: r.verdict,
        total: entries.reduce((sum, [, n]) => sum + n, 0),
        perOperation: entries.map(([op, n]) => `${op} ${n}`).join(', '),
      };
    });
}

/**
 * The covered rules by verdict, pass and fail always (`580 pass, 0 fail, 7 skipped`): they add up to the covered count,
 * and a rule fails exactly when a check failed naming it.
 */
export function ruleCounts(m: Matrix): string {
  const order: RuleVerdict[] = ['pass', 'fail', 'setup-failed', 'unsupported', 'skipped', 'not-run'];
  return order
    .filter((v) => v === 'pass' || v === 'fail' || m.summary.rules[v])
    .map((v) => `${m.summary.rules[v] ?? 0} ${v}`)
    .join(', ');
}

/** The run's verdict in words: PASS, FAIL, INCOMPLETE (deadline reached), INTERRUPTED. */
export function headline(m: Matrix): string {
  return `${m.summary.verdict.toUpperCase()}${m.summary.stopped === 'deadline' ? ' (deadline reached)' : ''}`;
}

/** How many of the run's gating rules were judged, and why the others were not, in one line. */
export function gatingLine(m: Matrix): string {
  const g = m.summary.gating;
  const n = g.notJudged;
  return (
    `${g.judged} of ${g.rules} gating rules judged (${pct(g.judged, g.rules)}); not judged: ${n.precondition} for a broken precondition, ` +
    `${n.capability} for a capability the target lacks, ${n.profile} outside the profile, ${n.other} with nothing to judge on this target`
  );
}

/** Each broken precondition once, with its fix; the checks it left unjudged are named when there are at most `limit`. */
export function preconditionLines(m: Matrix, limit = 3): string[] {
  return m.summary.preconditions.flatMap((p) => [
    `${p.id} (${p.checks.length} gating check${p.checks.length === 1 ? '' : 's'} not judged${p.checks.length > 0 && p.checks.length <= limit ? `: ${p.checks.join(', ')}` : ''}): ${p.problem}`,
    `  fix: ${p.fix}`,
  ]);
}

/** `a, b, c, … (N more)`: at most `limit` names. */
function someOf(names: string[], limit = 3): string {
  return `${names.slice(0, limit).join(', ')}${names.length > limit ? `, … (${names.length - limit} more)` : ''}`;
}

/**
 * The failures as the terminal summary shows them: each root cause once, by rule (gating first), the checks that could
 * not go further because of it, and the replay of the first root of each rule (of the first `replays` rules).
 */
export function failureLines(m: Matrix, replays = 5): string[] {
  const byRule = new Map<string, FailureRoot[]>();
  for (const f of m.summary.failures ?? []) {
    const key = `${f.gating ? 'FAIL' : 'fail (not gating)'} ${f.rule}`;
    byRule.set(key, [...(byRule.get(key) ?? []), f]);
  }
  const lines: string[] = [];
  let n = 0;
  for (const [key, roots] of byRule) {
    const named = roots.map((f) => `${f.check}${f.failedAt ? ` (${f.failedAt})` : ''}`);
    lines.push(`${key}: ${named.length === 1 ? named[0] : `${named.length} checks (${someOf(named)})`}`);
    for (const f of roots.filter((root) => root.blocked.length > 0)) {
      lines.push(
        `    ${f.answer ? `${f.answer}: ` : ''}${f.blocked.length} check${f.blocked.length === 1 ? '' : 's'} could not go further because of it (${someOf(f.blocked)})`,
      );
    }
    if (n++ < replays) lines.push(`    replay: ${roots[0]!.replay}`);
  }
  if (n > replays) lines.push(`(the replay of every failure is in matrix.md)`);
  return [...lines, ...sameAnswerLines(m)];
}

/**
 * Root causes whose answers carry the same status, code and message to different requests (a target rejecting a value
 * every one of them sends): said once, as a hint. They stay separate failures: the requests differ, so each may be a
 * distinct violation.
 */
export function sameAnswerLines(m: Matrix): string[] {
  const byReply = new Map<string, string[]>();
  for (const f of m.summary.failures ?? []) {
    const reply = f.answer?.slice(f.answer.lastIndexOf(' -> ') + 4);
    if (!reply || !/^\d+ /.test(reply)) continue;
    byReply.set(reply, [...(byReply.get(reply) ?? []), f.check]);
  }
  return [...byReply]
    .filter(([, checks]) => checks.length > 1)
    .map(
      ([reply, checks]) =>
        `note: ${checks.length} of these failures got the same answer, ${reply}, to different requests (${someOf(checks)}): ` +
        'perhaps one defect; each is reported, as the requests differ',
    );
}

/** The checks line of the summary: `327 pass, 40 fail (17 root causes, 17 gating; 23 blocked by them), …`. */
export function checkCounts(m: Matrix): string {
  const c = m.summary.checks;
  const roots = m.summary.gatingFailures + m.summary.nonGatingFailures;
  const blocked = m.summary.blocked ?? 0;
  const fail =
    blocked > 0
      ? `${roots} root cause${roots === 1 ? '' : 's'}, ${m.summary.gatingFailures} gating; ${blocked} blocked by them`
      : `${m.summary.gatingFailures} gating`;
  return `${c.pass} pass, ${c.fail} fail (${fail}), ${c.unsupported} unsupported, ${c.skipped} skipped, ${c['setup-failed']} setup-failed`;
}

/** A failed check's failure block as the reports show it: its message, then its replay (or the root that blocked it). */
function failureBlock(r: { message?: string; blockedBy?: string }, replay?: string): string {
  return [
    ...(r.blockedBy ? [`BLOCKED by check "${r.blockedBy}": the same rule failed on the same answer there (the root cause)`] : []),
    r.message ?? '',
    ...(replay ? [`  replay:     ${replay}`] : []),
  ].join('\n');
}

export function renderMarkdown(m: Matrix): string {
  const t = m.run.target;
  const lines = [
    `# Conformance matrix — ${headline(m)}`,
    '',
    `| | |`,
    `|---|---|`,
    `| Suite | ${suiteLine(m)} |`,
    `| Orders URL | ${t.ordersUrl}${t.embedded ? ' (embedded reference server)' : ''} |`,
    `| Quotes URL | ${t.quotesUrl} |`,
    `| Control URL | ${t.controlUrl ?? 'none'} (capabilities: ${t.capabilities.join(', ') || 'none'}) |`,
    ...(t.mutant ? [`| Mutant | ${t.mutant} |`] : []),
    ...(t.variant ? [`| Variant | ${t.variant} |`] : []),
    `| Profile | ${m.run.profile}${m.run.strict ? ' (strict)' : ''} |`,
    `| Seed | ${m.run.seed} |`,
    `| Started / finished | ${m.run.startedAt} / ${m.run.finishedAt} |`,
    `| Specs | ${Object.entries(m.run.specHashes)
      .map(([f, h]) => `${f} \`${h.slice(0, 12)}\``)
      .join(', ')} |`,
    '',
    `**Checks:** ${checkCounts(m)}. **Gating failures:** ${m.summary.gatingFailures}. **Non-gating failures:** ${m.summary.nonGatingFailures}.`,
    '',
    `**Gating rules:** ${gatingLine(m)}.`,
    '',
    `**Judged through:** ${judgedThroughLine(m)}.`,
    '',
    ...(m.summary.preconditions.length
      ? [
          '## Broken preconditions (checks not judged)',
          '',
          ...preconditionLines(m, 20).map((l) => (l.startsWith('  ') ? `  ${l.trim()}` : `- ${l}`)),
          '',
        ]
      : []),
    ...(m.summary.errors.length ? ['## Errors outside any check', '', ...m.summary.errors.map((e) => `- ${cell(e)}`), ''] : []),
    assumptionsLine(m),
    '',
    `**Rules:** ${m.summary.rules.total}, covered by at least one check: ${m.summary.rules.covered} (${pct(m.summary.rules.covered, m.summary.rules.total)}). ` +
      `${ruleCounts(m)}.`,
    '',
    '## Coverage by service and area',
    '',
    '| Service | Area | Rules | Covered | |',
    '|---|---|---:|---:|---:|',
    ...m.coverage.map((c) => `| ${c.service} | ${c.area} | ${c.rules} | ${c.covered} | ${pct(c.covered, c.rules)} |`),
    '',
  ];
  const roots = m.summary.failures ?? [];
  if (roots.length) {
    lines.push('## Failures (each root cause once)', '', ...sameAnswerLines(m).flatMap((l) => [`> ${l}`, '']));
    const byCheck = new Map(m.checks.map((r) => [r.check, r]));
    for (const f of roots) {
      const r = byCheck.get(f.check);
      const rule = m.rules.find((row) => row.id === f.rule);
      lines.push(
        `### ${f.rule} (${rule?.level}, ${rule?.basis}${f.gating ? ', gating' : ', not gating'}) — ${f.check}`,
        '',
        ...(f.blocked.length
          ? [
              `${f.blocked.length} check${f.blocked.length === 1 ? '' : 's'} could not go further because of it: ${f.blocked.join(', ')}.`,
              '',
            ]
          : []),
        '```',
        failureBlock(r ?? {}, f.replay),
        '```',
        '',
      );
    }
  }
  const tallied = tallies(m);
  if (tallied.length) {
    lines.push('## Bad inputs tried per operation', '', '| Check | Verdict | Total | Per operation |', '|---|---|---:|---|');
    for (const row of tallied) lines.push(`| ${row.check} | ${row.verdict} | ${row.total} | ${cell(row.perOperation)} |`);
    lines.push('');
  }
  lines.push('## Rules', '', '| Rule | Level | Basis | Verdict | Judged through | Checks | Statement |', '|---|---|---|---|---|---|---|');
  for (const r of m.rules) {
    lines.push(
      `| ${r.id} | ${r.level} | ${basisOf(r)} | ${r.verdict} | ${cell(judgedThroughCell(r))} | ${cell(r.checks.map((c) => `${c.name}: ${checkVerdict(r, c).text}`).join('; '))} | ${cell(r.statement)} |`,
    );
  }
  if (m.uncovered.length) lines.push('', `## Uncovered rules (${m.uncovered.length})`, '', m.uncovered.join(', '));
  return escapeControls(redact(lines.join('\n'))) + '\n';
}

const COLORS: Record<RuleVerdict | 'incomplete' | 'interrupted', string> = {
  incomplete: '#9a6700',
  interrupted: '#6e7781',
  pass: '#1a7f37',
  fail: '#cf222e',
  'setup-failed': '#9a6700',
  unsupported: '#6e7781',
  skipped: '#6e7781',
  'not-run': '#8c959f',
  uncovered: '#8c959f',
};

/** The rules, failures first (then by verdict as VERDICT_ORDER), in catalogue order within a verdict. */
function rulesFailuresFirst(m: Matrix): RuleRow[] {
  return m.rules
    .map((r, i) => ({ r, i }))
    .sort((a, b) => VERDICT_ORDER.indexOf(a.r.verdict) - VERDICT_ORDER.indexOf(b.r.verdict) || a.i - b.i)
    .map(({ r }) => r);
}

/** The suite's version and commit, as the headers show them. */
function suiteLine(m: Matrix): string {
  return `${m.suite.name} ${m.suite.version}${m.suite.commit ? ` (commit ${m.suite.commit})` : ''}`;
}

// The page's only script: filter the rules by verdict and by text (no network, nothing loaded); a link may carry both
// (`matrix.html?q=numQuotes&verdict=fail`).
const FILTER_SCRIPT = `const q=document.getElementById('q'),v=document.getElementById('v'),p=new URLSearchParams(location.search);
q.value=p.get('q')||'';v.value=p.get('verdict')||'';
function filter(){const t=q.value.trim().toLowerCase();let n=0;for(const r of document.querySelectorAll('#rules tbody tr')){r.hidden=Boolean((v.value&&!r.classList.contains('v-'+v.value))||(t&&!r.textContent.toLowerCase().includes(t)));if(!r.hidden)n++}document.getElementById('n').textContent=n+' shown'}
q.addEventListener('input',filter);v.addEventListener('change',filter);filter();`;

export function renderHtml(m: Matrix): string {
  const t = m.run.target;
  const badge = (v: keyof typeof COLORS, text: string = v) => `<span class="b" style="background:${COLORS[v]}">${esc(text)}</span>`;
  const details = (text: string) => `<details><summary>details</summary><pre>${esc(text)}</pre></details>`;
  const byCheck = new Map(m.checks.map((r) => [r.check, r]));
  const rows = rulesFailuresFirst(m)
    .map(
      (r) =>
        `<tr id="${esc(r.id)}" class="v-${r.verdict}"><td><a href="#${esc(r.id)}"><code>${esc(r.id)}</code></a></td><td>${r.level}</td><td>${esc(basisOf(r))}</td><td>${badge(r.verdict)}</td><td>${esc(judgedThroughCell(r))}</td>` +
        `<td>${r.checks
          .map((c) => {
            const shown = checkVerdict(r, c);
            return `<div class="c">${esc(c.name)}: ${badge(shown.verdict, shown.text)}${c.message && c.verdict !== 'pass' ? details(failureBlock(c, byCheck.get(c.name)?.replay)) : ''}</div>`;
          })
          .join('')}</td>` +
        `<td>${esc(r.statement)}${r.source ? `<div class="src">Source: ${esc(r.source)}</div>` : ''}</td></tr>`,
    )
    .join('\n');
  const roots = m.summary.failures ?? [];
  const failures =
    roots.length === 0
      ? ''
      : `<h2 id="failures">Failures (${roots.length} root cause${roots.length === 1 ? '' : 's'}${m.summary.blocked ? `; ${m.summary.blocked} checks blocked by them` : ''})</h2>${sameAnswerLines(
          m,
        )
          .map((l) => `<p>${esc(l)}</p>`)
          .join('')}<ol class="roots">${roots
          .map((f) => {
            const r = byCheck.get(f.check);
            return (
              `<li class="root">${badge('fail', f.gating ? 'FAIL' : 'fail, not gating')} <a href="#${esc(f.rule)}"><code>${esc(f.rule)}</code></a> in <b>${esc(f.check)}</b>` +
              `${f.failedAt ? ` <code>${esc(f.failedAt)}</code>` : ''}${f.answer ? `<div><code>${esc(f.answer)}</code></div>` : ''}` +
              `${f.blocked.length ? `<div>${f.blocked.length} check${f.blocked.length === 1 ? '' : 's'} could not go further because of it: ${esc(f.blocked.join(', '))}</div>` : ''}` +
              `${details(failureBlock(r ?? {}, f.replay))}</li>`
            );
          })
          .join('')}</ol>\n`;
  const tallied = tallies(m);
  const badInputs =
    tallied.length === 0
      ? ''
      : `<h2>Bad inputs tried per operation</h2><table><tr><th>Check</th><th>Verdict</th><th>Total</th><th>Per operation</th></tr>${tallied
          .map(
            (row) =>
              `<tr><td>${esc(row.check)}</td><td>${badge(row.verdict)}</td><td>${row.total}</td><td>${esc(row.perOperation)}</td></tr>`,
          )
          .join('')}</table>\n`;
  const cov = m.coverage
    .map(
      (c) => `<tr><td>${c.service}</td><td>${c.area}</td><td>${c.rules}</td><td>${c.covered}</td><td>${pct(c.covered, c.rules)}</td></tr>`,
    )
    .join('');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Conformance matrix — ${headline(m)}</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#1f2328}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #d0d7de;padding:4px 8px;vertical-align:top;text-align:left}
.b{color:#fff;border-radius:3px;padding:1px 6px;font-size:12px}pre{white-space:pre-wrap;max-width:70em;font-size:12px}h1 .b{font-size:20px}
#f{margin:1em 0;position:sticky;top:0;background:#fff;padding:.5em 0}#q{width:24em}.src{color:#59636e;font-size:12px;margin-top:4px}tr:target{outline:2px solid #0969da}
.roots li{margin:.5em 0}.roots code{word-break:break-all}</style></head><body>
<h1>Conformance matrix ${badge(m.summary.verdict, headline(m).toLowerCase())}</h1>
<p class="suite">Suite: ${esc(suiteLine(m))}</p>
${failures}<table><tr><th>Orders URL</th><td>${esc(t.ordersUrl)}${t.embedded ? ' (embedded reference server)' : ''}</td></tr>
<tr><th>Quotes URL</th><td>${esc(t.quotesUrl)}</td></tr><tr><th>Control URL</th><td>${esc(t.controlUrl ?? 'none')} — capabilities: ${esc(t.capabilities.join(', ') || 'none')}</td></tr>
${t.mutant ? `<tr><th>Mutant</th><td>${esc(t.mutant)}</td></tr>` : ''}${t.variant ? `<tr><th>Variant</th><td>${esc(t.variant)}</td></tr>` : ''}
<tr><th>Profile</th><td>${m.run.profile}${m.run.strict ? ' (strict)' : ''}</td></tr><tr><th>Seed</th><td>${m.run.seed}</td></tr>
<tr><th>Time</th><td>${m.run.startedAt} — ${m.run.finishedAt}</td></tr>
<tr><th>Specs</th><td>${Object.entries(m.run.specHashes)
    .map(([f, h]) => `${esc(f)} <code>${h.slice(0, 12)}</code>`)
    .join('<br>')}</td></tr>
<tr><th>/api/v1/info</th><td><pre>${esc(JSON.stringify(t.info ?? null, null, 1))}</pre></td></tr></table>
<p><b>Checks:</b> ${esc(checkCounts(m))}. <b>Gating failures:</b> ${m.summary.gatingFailures}. <b>Non-gating failures:</b> ${m.summary.nonGatingFailures}.</p>
<p><b>Gating rules:</b> ${esc(gatingLine(m))}.</p>
<p><b>Judged through:</b> ${esc(judgedThroughLine(m))}.</p>
${m.summary.preconditions.length ? `<h2>Broken preconditions (checks not judged)</h2><ul>${m.summary.preconditions.map((p) => `<li><b>${esc(p.id)}</b> (${p.checks.length} gating checks not judged): ${esc(p.problem)}<br>fix: <code>${esc(p.fix)}</code>${p.checks.length ? `<details><summary>checks</summary>${esc(p.checks.join(', '))}</details>` : ''}</li>`).join('')}</ul>` : ''}
${m.summary.errors.length ? `<h2>Errors outside any check</h2><ul>${m.summary.errors.map((e) => `<li><pre>${esc(e)}</pre></li>`).join('')}</ul>` : ''}
<p>${esc(assumptionsLine(m))}</p>
<p><b>Rules:</b> ${m.summary.rules.total}; covered by a check: ${m.summary.rules.covered} (${pct(m.summary.rules.covered, m.summary.rules.total)}).</p>
<h2>Coverage</h2><table><tr><th>Service</th><th>Area</th><th>Rules</th><th>Covered</th><th></th></tr>${cov}</table>
${badInputs}<h2>Rules</h2><div id="f"><label>Search: <input id="q" type="search" placeholder="rule id, check, text"></label> <label>Verdict: <select id="v">
<option value="">all</option>${VERDICT_ORDER.map((v) => `<option>${v}</option>`).join('')}</select></label> <span id="n"></span></div>
<table id="rules"><thead><tr><th>Rule</th><th>Level</th><th>Basis</th><th>Verdict</th><th>Judged through</th><th>Checks</th><th>Statement and source</th></tr></thead><tbody>
${rows}
</tbody></table><script>${FILTER_SCRIPT}</script></body></html>
`;
  return escapeControls(redact(html));
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
