/** The matrix in lines and cells of text, shared by the terminal summary and the markdown and HTML reports. */
import { loadCatalogue } from '../rules.ts';
import type { Verdict } from '../types.ts';
import type { FailureRoot, Matrix, RuleRow, RuleVerdict } from './types.ts';

/** The coverage by target kind in one line: `N rules judged through the services alone, M only through …`. */
export function judgedThroughLine(m: Matrix): string {
  const j = m.summary.judgedThrough ?? { services: 0, controlOnly: 0, notJudgeable: 0 };
  return (
    `${j.services} rules judged through the services alone, ${j.controlOnly} only through the control API, ` +
    `${j.notJudgeable} not judgeable here`
  );
}

/** A rule's judged-through cell: `control`, `black-box`, `both`, `not judgeable here (needs funding)`, or empty. */
export function judgedThroughCell(r: RuleRow): string {
  if (r.judgedThrough === 'not-judgeable') return `not judgeable here (needs ${(r.needs ?? []).join(', ')})`;
  return r.judgedThrough ?? '';
}

/** One line on the assumptions: which the target confirmed (their rules gate) and rejected (their checks skipped). */
export function assumptionsLine(m: Matrix): string {
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
 * passed this one when its own assertions held, else it did not judge it; a failure counted in its root says so, and is
 * `blocked` where no root fails this rule.
 */
export function checkVerdict(row: RuleRow, c: RuleRow['checks'][number]): { verdict: RuleVerdict; text: string } {
  if (c.verdict !== 'fail') return { verdict: c.verdict, text: c.verdict };
  const onThis = c.rule === row.id || (loadCatalogue().rules.get(row.id)?.coveredBy ?? []).includes(c.rule ?? '');
  if (!onThis)
    return c.assertionsHeld
      ? { verdict: 'pass', text: `pass (failed ${c.rule})` }
      : { verdict: 'not-run', text: `not judged (stopped at ${c.rule})` };
  if (!c.blockedBy) return { verdict: 'fail', text: 'fail' };
  return row.verdict === 'fail'
    ? { verdict: 'fail', text: `fail, blocked by ${c.blockedBy}` }
    : { verdict: 'blocked', text: `blocked by ${c.blockedBy} (not judged)` };
}

/** The basis column: `documented`, `assumed`, or `documented, exercise assumed: …`. */
export function basisOf(r: RuleRow): string {
  return r.assumes ? `${r.basis}, exercise assumed: ${r.assumes.join(', ')}` : r.basis;
}

export function pct(n: number, d: number): string {
  return d === 0 ? '—' : `${Math.round((100 * n) / d)}%`;
}

/** The checks that counted bad inputs (hostile-input checks), with their per-operation tallies. */
export function tallies(m: Matrix): Array<{ check: string; verdict: Verdict; total: number; perOperation: string }> {
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
  const order: RuleVerdict[] = ['pass', 'fail', 'blocked', 'setup-failed', 'unsupported', 'skipped', 'not-run'];
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
    `${n.capability} for a capability the target lacks, ${n.profile} outside the profile, ${n.blocked} blocked by another check's failure, ` +
    `${n.other} with nothing to judge on this target` +
    // Only when a cut-short run left checks unrun (Ctrl-C, --max-duration).
    (n.interrupted ? `, ${n.interrupted} not run: interrupted` : '') +
    (n.deadline ? `, ${n.deadline} not run: the run's deadline` : '') +
    // Only in a run given one service's URL alone.
    (n.outsideRun ? `, ${n.outsideRun} outside the run (${outsideRunOf(m)})` : '')
  );
}

/** A service's URL as the reports show it, or, in a run given the other's alone, why it has none. */
export function targetUrl(target: { ordersUrl?: string; quotesUrl?: string }, service: 'orders' | 'quotes'): string {
  const url = service === 'orders' ? target.ordersUrl : target.quotesUrl;
  return url ?? `none (${outsideRunReason(service)}: its checks are outside the run)`;
}

/** Why a service's checks are outside a run given one URL alone. */
export function outsideRunReason(service: string): string {
  return `no --${service}-url given`;
}

/** Why the run left a service's checks out: the URL it was not given (one of the two alone). */
function outsideRunOf(m: Matrix): string {
  const t = m.run.target;
  return [...(t.ordersUrl ? [] : ['orders']), ...(t.quotesUrl ? [] : ['quotes'])].map(outsideRunReason).join(', ');
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
 * The checks a root cause blocked, every one by name, each with the rule it failed where that is not the root's:
 * `N checks could not go further because of it: a, b (Q-PARAM-005)`. Nothing is hidden: two defects that gave the same
 * refusal are both named here.
 */
export function blockedLine(m: Matrix, f: FailureRoot): string {
  const ruleOf = new Map(m.checks.map((r) => [r.check, r.rule]));
  const named = f.blocked.map((check) => {
    const rule = ruleOf.get(check);
    return rule && rule !== f.rule ? `${check} (${rule})` : check;
  });
  return `${f.blocked.length} check${f.blocked.length === 1 ? '' : 's'} could not go further because of it: ${named.join(', ')}`;
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
    for (const f of roots.filter((root) => root.blocked.length > 0))
      lines.push(`    ${f.answer ? `${f.answer}: ` : ''}${blockedLine(m, f)}`);
    if (n++ < replays) lines.push(`    replay: ${roots[0]!.replay}`);
  }
  if (n > replays) lines.push(`(the replay of every failure is in matrix.md)`);
  return [...lines, ...sameAnswerLines(m)];
}

/**
 * Root causes that got the same answer (status, code and message) to requests the grouping keeps apart (another path,
 * service or Accept header; a 5xx): said once, as a hint. They stay separate failures: each may be a distinct violation.
 */
export function sameAnswerLines(m: Matrix): string[] {
  const byReply = new Map<string, { requests: Set<string>; checks: string[] }>();
  for (const f of m.summary.failures ?? []) {
    const at = f.answer?.lastIndexOf(' -> ') ?? -1;
    const reply = f.answer?.slice(at + 4);
    if (at < 0 || !reply || !/^\d+ /.test(reply)) continue;
    const seen = byReply.get(reply) ?? { requests: new Set<string>(), checks: [] };
    seen.requests.add(f.answer!.slice(0, at));
    seen.checks.push(f.check);
    byReply.set(reply, seen);
  }
  return [...byReply]
    .filter(([, seen]) => seen.requests.size > 1)
    .map(
      ([reply, { checks }]) =>
        `note: ${checks.length} of these failures got the same answer, ${reply}, to different requests (${someOf(checks)}): ` +
        'perhaps one defect; each is reported (another path, service or Accept header, or not a 4xx error refusal)',
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
  // A run given one service's URL alone: the other's checks are among the skipped, said apart.
  const outside = m.checks.filter((r) => r.notJudged === 'outside-run').length;
  const skipped = `${c.skipped} skipped${outside > 0 ? ` (${outside} outside the run)` : ''}`;
  return `${c.pass} pass, ${c.fail} fail (${fail}), ${c.unsupported} unsupported, ${skipped}, ${c['setup-failed']} setup-failed`;
}

/** A failed check's failure block as the reports show it: its message, then its replay (or the root that blocked it). */
export function failureBlock(r: { message?: string; blockedBy?: string }, replay?: string): string {
  return [
    ...(r.blockedBy ? [`BLOCKED by check "${r.blockedBy}": it got the same failing answer there (the root cause)`] : []),
    r.message ?? '',
    ...(replay ? [`  replay:     ${replay}`] : []),
  ].join('\n');
}

/** The suite's version and commit, as the headers show them. */
export function suiteLine(m: Matrix): string {
  return `${m.suite.name} ${m.suite.version}${m.suite.commit ? ` (commit ${m.suite.commit})` : ''}`;
}
