/** Root causes: failed checks on the same failing answer grouped under one root, and the command that replays each. */
import type { CheckResult } from '../runner.ts';
import type { FailureRoot, RunInfo } from './types.ts';

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

export function failureRoots(results: CheckResult[]): FailureRoot[] {
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
