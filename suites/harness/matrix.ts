import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Check } from './check.ts';
import { decidingIds, loadCatalogue, type Rule } from './rules.ts';
import { deadlineUnjudged, type Unjudged } from './preconditions.ts';
import type { CheckResult } from './runner.ts';
import { redact } from './redact.ts';
import { escapeControls, escapeControlsDeep, escapeControlsInJson } from './terminal.ts';
import type { BrokenPrecondition, Capability, Profile, Verdict } from './types.ts';

export type RuleVerdict = Verdict | 'not-run' | 'uncovered';

export interface RunInfo {
  startedAt: string;
  finishedAt: string;
  profile: Profile;
  seed: number;
  strict: boolean;
  shard?: string;
  target: {
    ordersUrl: string;
    quotesUrl: string;
    controlUrl?: string;
    capabilities: Capability[];
    embedded: boolean;
    mutant?: string;
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
  checks: Array<{ name: string; verdict: Verdict; gating: boolean; message?: string }>;
  verdict: RuleVerdict;
}

export interface CoverageRow {
  service: string;
  area: string;
  rules: number;
  covered: number;
}

export interface Matrix {
  suite: { name: string; version: string };
  run: RunInfo;
  summary: {
    /**
     * `fail`: a gating failure (or an error outside any check); `incomplete`: no gating failure, but gating checks could
     * not be judged for a broken precondition or the deadline (exit 4); `interrupted`: cancelled by Ctrl-C.
     */
    verdict: 'pass' | 'fail' | 'incomplete' | 'interrupted';
    stopped?: Stopped;
    checks: Record<Verdict, number>;
    gatingFailures: number;
    nonGatingFailures: number;
    rules: { total: number; covered: number } & Partial<Record<RuleVerdict, number>>;
    /** the suite's assumptions the target confirmed and rejected, as labels, with the number of checks that saw it */
    assumptions: { confirmed: Record<string, number>; rejected: Record<string, number> };
    gating: GatingCoverage;
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
}

export function buildMatrix(
  results: CheckResult[],
  allChecks: readonly Check[],
  run: RunInfo,
  version: string,
  options: BuildOptions = {},
): Matrix {
  const { rules } = loadCatalogue();
  const { rows, uncovered } = coverage(allChecks);
  const uncoveredSet = new Set(uncovered);
  const ruleRows: RuleRow[] = [...rules.values()].map((rule) => ({
    id: rule.id,
    service: rule.service,
    area: rule.area,
    level: rule.level,
    basis: rule.basis,
    ...(rule.assumes ? { assumes: [...rule.assumes] } : {}),
    observe: rule.observe,
    statement: rule.statement,
    checks: citingResults(rule, results).map((r) => ({
      name: r.check,
      verdict: r.verdict,
      gating: r.gating,
      message: r.verdict === 'pass' ? undefined : r.message,
    })),
    verdict: ruleVerdict(rule, results, !uncoveredSet.has(rule.id)),
  }));
  const checks = { pass: 0, fail: 0, unsupported: 0, skipped: 0, 'setup-failed': 0 } as Record<Verdict, number>;
  for (const r of results) checks[r.verdict]++;
  const gatingFailures = results.filter((r) => r.verdict === 'fail' && r.gating).length;
  const ruleCounts: Partial<Record<RuleVerdict, number>> = {};
  for (const row of ruleRows) ruleCounts[row.verdict] = (ruleCounts[row.verdict] ?? 0) + 1;
  const preconditions = preconditionRows(results, run, options.stopped);
  const errors = options.errors ?? [];
  const incomplete = options.stopped === 'deadline' || preconditions.some((p) => p.checks.length > 0);
  return {
    suite: { name: 'solana-trading-conformance', version },
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
      nonGatingFailures: checks.fail - gatingFailures,
      rules: { total: ruleRows.length, covered: ruleRows.length - uncovered.length, ...ruleCounts },
      assumptions: assumptionCounts(results),
      gating: gatingCoverage(ruleRows, results, run.strict),
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

export function renderMarkdown(m: Matrix): string {
  const t = m.run.target;
  const lines = [
    `# Conformance matrix — ${headline(m)}`,
    '',
    `| | |`,
    `|---|---|`,
    `| Orders URL | ${t.ordersUrl}${t.embedded ? ' (embedded reference server)' : ''} |`,
    `| Quotes URL | ${t.quotesUrl} |`,
    `| Control URL | ${t.controlUrl ?? 'none'} (capabilities: ${t.capabilities.join(', ') || 'none'}) |`,
    ...(t.mutant ? [`| Mutant | ${t.mutant} |`] : []),
    `| Profile | ${m.run.profile}${m.run.strict ? ' (strict)' : ''} |`,
    `| Seed | ${m.run.seed} |`,
    `| Started / finished | ${m.run.startedAt} / ${m.run.finishedAt} |`,
    `| Specs | ${Object.entries(m.run.specHashes)
      .map(([f, h]) => `${f} \`${h.slice(0, 12)}\``)
      .join(', ')} |`,
    '',
    `**Checks:** ${Object.entries(m.summary.checks)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')}. ` + `**Gating failures:** ${m.summary.gatingFailures}. **Non-gating failures:** ${m.summary.nonGatingFailures}.`,
    '',
    `**Gating rules:** ${gatingLine(m)}.`,
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
  const failing = m.rules.filter((r) => r.verdict === 'fail');
  if (failing.length) {
    lines.push('## Failures', '');
    for (const r of failing) {
      for (const c of r.checks.filter((c) => c.verdict === 'fail')) {
        lines.push(
          `### ${r.id} (${r.level}, ${r.basis}${c.gating ? ', gating' : ', not gating'}) — ${c.name}`,
          '',
          '```',
          c.message ?? '',
          '```',
          '',
        );
      }
    }
  }
  const tallied = tallies(m);
  if (tallied.length) {
    lines.push('## Bad inputs tried per operation', '', '| Check | Verdict | Total | Per operation |', '|---|---|---:|---|');
    for (const row of tallied) lines.push(`| ${row.check} | ${row.verdict} | ${row.total} | ${cell(row.perOperation)} |`);
    lines.push('');
  }
  lines.push('## Rules', '', '| Rule | Level | Basis | Verdict | Checks | Statement |', '|---|---|---|---|---|---|');
  for (const r of m.rules) {
    lines.push(
      `| ${r.id} | ${r.level} | ${basisOf(r)} | ${r.verdict} | ${cell(r.checks.map((c) => `${c.name}: ${c.verdict}`).join('; '))} | ${cell(r.statement)} |`,
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

export function renderHtml(m: Matrix): string {
  const t = m.run.target;
  const badge = (v: keyof typeof COLORS, text: string = v) => `<span class="b" style="background:${COLORS[v]}">${esc(text)}</span>`;
  const rows = m.rules
    .map(
      (r) =>
        `<tr class="v-${r.verdict}"><td><code>${r.id}</code></td><td>${r.level}</td><td>${esc(basisOf(r))}</td><td>${badge(r.verdict)}</td>` +
        `<td>${r.checks.map((c) => `<div>${esc(c.name)}: ${badge(c.verdict)}${c.message && c.verdict !== 'pass' ? `<details><summary>details</summary><pre>${esc(c.message)}</pre></details>` : ''}</div>`).join('')}</td>` +
        `<td>${esc(r.statement)}</td></tr>`,
    )
    .join('\n');
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
#f{margin:1em 0}</style></head><body>
<h1>Conformance matrix ${badge(m.summary.verdict, headline(m).toLowerCase())}</h1>
<table><tr><th>Orders URL</th><td>${esc(t.ordersUrl)}${t.embedded ? ' (embedded reference server)' : ''}</td></tr>
<tr><th>Quotes URL</th><td>${esc(t.quotesUrl)}</td></tr><tr><th>Control URL</th><td>${esc(t.controlUrl ?? 'none')} — capabilities: ${esc(t.capabilities.join(', ') || 'none')}</td></tr>
${t.mutant ? `<tr><th>Mutant</th><td>${esc(t.mutant)}</td></tr>` : ''}
<tr><th>Profile</th><td>${m.run.profile}${m.run.strict ? ' (strict)' : ''}</td></tr><tr><th>Seed</th><td>${m.run.seed}</td></tr>
<tr><th>Time</th><td>${m.run.startedAt} — ${m.run.finishedAt}</td></tr>
<tr><th>Specs</th><td>${Object.entries(m.run.specHashes)
    .map(([f, h]) => `${esc(f)} <code>${h.slice(0, 12)}</code>`)
    .join('<br>')}</td></tr>
<tr><th>/api/v1/info</th><td><pre>${esc(JSON.stringify(t.info ?? null, null, 1))}</pre></td></tr></table>
<p><b>Checks:</b> ${Object.entries(m.summary.checks)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ')}. <b>Gating failures:</b> ${m.summary.gatingFailures}. <b>Non-gating failures:</b> ${m.summary.nonGatingFailures}.</p>
<p><b>Gating rules:</b> ${esc(gatingLine(m))}.</p>
${m.summary.preconditions.length ? `<h2>Broken preconditions (checks not judged)</h2><ul>${m.summary.preconditions.map((p) => `<li><b>${esc(p.id)}</b> (${p.checks.length} gating checks not judged): ${esc(p.problem)}<br>fix: <code>${esc(p.fix)}</code>${p.checks.length ? `<details><summary>checks</summary>${esc(p.checks.join(', '))}</details>` : ''}</li>`).join('')}</ul>` : ''}
${m.summary.errors.length ? `<h2>Errors outside any check</h2><ul>${m.summary.errors.map((e) => `<li><pre>${esc(e)}</pre></li>`).join('')}</ul>` : ''}
<p>${esc(assumptionsLine(m))}</p>
<p><b>Rules:</b> ${m.summary.rules.total}; covered by a check: ${m.summary.rules.covered} (${pct(m.summary.rules.covered, m.summary.rules.total)}).</p>
<h2>Coverage</h2><table><tr><th>Service</th><th>Area</th><th>Rules</th><th>Covered</th><th></th></tr>${cov}</table>
${badInputs}<h2>Rules</h2><div id="f">Show: <select onchange="for(const r of document.querySelectorAll('#rules tbody tr'))r.hidden=this.value&&!r.classList.contains('v-'+this.value)">
<option value="">all</option>${VERDICT_ORDER.map((v) => `<option>${v}</option>`).join('')}</select></div>
<table id="rules"><thead><tr><th>Rule</th><th>Level</th><th>Basis</th><th>Verdict</th><th>Checks</th><th>Statement</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>
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
