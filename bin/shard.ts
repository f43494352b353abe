/**
 * `--shard I/N` splits the checks, not the test files (there is one, suites/conformance.test.ts): shard I holds the
 * I-th of N nearly equal runs of the selected checks that the profile runs, in registry order, and likewise of those
 * outside the profile (reported skipped), so that every check is in one shard and the merged reports hold each once.
 * vitest runs the shard's checks through a test-name pattern that names each of them.
 */
import type { Check } from '../suites/harness/check.ts';

export interface Shard {
  index: number;
  count: number;
}

/** `I/N` with 1 <= I <= N, or undefined. */
export function parseShard(text: string): Shard | undefined {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  if (!m) return undefined;
  const shard = { index: Number(m[1]), count: Number(m[2]) };
  return shard.index >= 1 && shard.index <= shard.count && Number.isSafeInteger(shard.count) ? shard : undefined;
}

/**
 * The checks in an order every process agrees on: the registry's groups in order, each group's checks by name (a
 * module's exports come in another order under vitest's transform than under Node's loader).
 */
export function canonicalOrder(groups: Record<string, readonly Check[]>): Check[] {
  return Object.values(groups).flatMap((checks) => [...checks].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
}

/** The checks of shard I/N, in their order: the I-th of N runs of those that `runs`, and of those that do not. */
export function shardOf<T>(checks: readonly T[], runs: (check: T) => boolean, shard: Shard): T[] {
  const part = (list: T[]) =>
    list.slice(Math.floor((list.length * (shard.index - 1)) / shard.count), Math.floor((list.length * shard.index) / shard.count));
  const held = new Set([...part(checks.filter(runs)), ...part(checks.filter((c) => !runs(c)))]);
  return checks.filter((c) => held.has(c));
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * A test-name pattern matching exactly the given checks: vitest matches it against a test's full name, its group (the
 * describe block) and its test name `check-name [RULE-IDS]` (suites/harness/vitest.ts testName).
 */
export function shardPattern(groups: Record<string, readonly Check[]>, members: ReadonlySet<Check>): string {
  const names = Object.entries(groups).flatMap(([group, checks]) =>
    checks.filter((c) => members.has(c)).map((c) => escapeRegExp(`${group} ${c.name} [${c.rules.join(' ')}]`)),
  );
  return `(?:^| )(?:${names.join('|')})$`;
}

/**
 * A shard's request budget: on a given target `--max-rps` is the whole sharded run's, since the shards run at once
 * against one target and share its rate limits (one shard's burst would be the others' 429s); each of N shards sends
 * at most an N-th of it. On the embedded server every shard starts a server of its own and keeps the whole budget.
 */
export function shardMaxRps(maxRps: number, shard: Shard | undefined, embedded: boolean): number {
  return shard && !embedded ? maxRps / shard.count : maxRps;
}

/** What a run's matrix.json says of itself, as far as merging goes. */
export interface MergedRun {
  profile: string;
  seed: number;
  strict?: boolean;
  shard?: string;
  target: { ordersUrl?: string; quotesUrl?: string; embedded?: boolean; mutant?: string; variant?: string };
}

/**
 * Why these runs are not the shards of one run, or undefined when they are: one run alone, or shards 1..N of one N,
 * each once, of the same profile, seed and target (the embedded server with the same mutant or variant, whose ports
 * differ; or the same URLs). Merging anything else would give one verdict to runs that are not one: a missing shard's
 * checks would be silently absent, another run's counted twice.
 */
export function mergeProblem(runs: readonly MergedRun[]): string | undefined {
  if (runs.length <= 1 && !runs[0]?.shard) return undefined;
  const target = (r: MergedRun) =>
    r.target.embedded
      ? `the embedded server${r.target.mutant ? ` with mutant ${r.target.mutant}` : ''}${r.target.variant ? ` with variant ${r.target.variant}` : ''}`
      : `${r.target.ordersUrl ?? 'no --orders-url'} ${r.target.quotesUrl ?? 'no --quotes-url'}`;
  const first = runs[0]!;
  for (const [what, of] of [
    ['profile', (r: MergedRun) => r.profile],
    ['seed', (r: MergedRun) => String(r.seed)],
    ['--strict', (r: MergedRun) => String(Boolean(r.strict))],
    ['target', target],
  ] as const) {
    const differ = runs.find((r) => of(r) !== of(first));
    if (differ) return `--merge-reports: the runs are not shards of one run: ${what} ${of(first)} and ${of(differ)}`;
  }
  const shards = runs.map((r) => (r.shard ? parseShard(r.shard) : undefined));
  if (shards.some((s) => s === undefined)) {
    return `--merge-reports: ${runs.length} runs, not all shards (--shard I/N) of one run: merge the shards of one run only`;
  }
  const count = shards[0]!.count;
  if (shards.some((s) => s!.count !== count)) return '--merge-reports: shards of different counts (I/N with different N)';
  const seen = shards.map((s) => s!.index);
  const twice = seen.find((index, i) => seen.indexOf(index) !== i);
  if (twice !== undefined) return `--merge-reports: shard ${twice}/${count} found twice`;
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((index) => !seen.includes(index));
  if (missing.length > 0)
    return `--merge-reports: shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing: its checks were not run`;
  return undefined;
}
