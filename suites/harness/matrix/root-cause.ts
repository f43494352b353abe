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
        ...(t.ordersUrl ? ['--orders-url', t.ordersUrl] : []),
        ...(t.quotesUrl ? ['--quotes-url', t.quotesUrl] : []),
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
 * The root of a group first, so that its replay reproduces the defect with the least: by rootRank, then the simplest
 * request (fewest query parameters, shortest body), then a check that did not need the control API, then by name.
 */
function rootFirst(a: CheckResult, b: CheckResult): number {
  const [x, y] = [a.failingAnswer?.refusal, b.failingAnswer?.refusal];
  const control = (r: CheckResult) => (r.judgedThrough === 'control' ? 1 : 0);
  return (
    rootRank(a) - rootRank(b) ||
    (x?.queryParams ?? 0) - (y?.queryParams ?? 0) ||
    (x?.bodyLength ?? 0) - (y?.bodyLength ?? 0) ||
    control(a) - control(b) ||
    (a.check < b.check ? -1 : a.check > b.check ? 1 : 0)
  );
}

/**
 * One defect, one failure: failed checks whose failing answers are the same (failure.ts failingAnswer) are one root
 * cause. The same error refusal (a 4xx with the same code and message to the same method, path and Accept header) groups
 * whatever the rules and the rest of the requests; any other answer groups only with the same rule broken by the same
 * answer (status, code, message) of the same operation, whatever the query and headers (a 200 judged wrong by two rules
 * is two violations). The root is kept; the others are marked `blockedBy` it (their
 * verdict stays `fail`: only the reports' attribution changes). Marks made before (a merged shard's matrix.json) are made
 * again over all the results, and the root does not depend on their order.
 */
export function groupFailures(results: CheckResult[], run: RunInfo): CheckResult[] {
  const fresh = results.map(({ blockedBy: _blocked, replay: _replay, ...r }): CheckResult => r);
  const groups = new Map<string, CheckResult[]>();
  for (const r of fresh) {
    if (r.verdict !== 'fail' || !r.failingAnswer) continue;
    const { refusal, sameRule, key: answer } = r.failingAnswer;
    const key = refusal ? `refusal ${refusal.key}` : sameRule ? `rule ${sameRule}` : `answer ${answer}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const rootOf = new Map<CheckResult, string>();
  for (const members of groups.values()) {
    const [root, ...others] = [...members].sort(rootFirst);
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
      blocked: results
        .filter((b) => b.blockedBy === r.check)
        .map((b) => b.check)
        .sort(),
    }))
    .sort((a, b) => Number(b.gating) - Number(a.gating) || b.blocked.length - a.blocked.length);
}
