/**
 * `--shard I/N` splits the checks, not the two test files (issue 18): every check in exactly one shard, shards of
 * nearly equal size among the checks the profile runs, the pattern vitest gets naming exactly the shard's checks;
 * a full run sharded against one given target is refused with the reason; readonly and smoke shards on one given
 * target split its --max-rps between them, so that together they send no more than one unsharded run.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseCli } from '../../bin/conformance.ts';
import { canonicalOrder, type MergedRun, mergeProblem, parseShard, shardMaxRps, shardOf, shardPattern } from '../../bin/shard.ts';
import { checkGroups } from '../../suites/index.ts';
import { profileIncludes, type Profile } from '../../suites/harness/types.ts';
import { cli, matrixOf } from './run-cli.ts';

const all = canonicalOrder(checkGroups);
const fullNames = Object.entries(checkGroups).flatMap(([group, checks]) =>
  checks.map((c) => ({ check: c, name: `${group} ${c.name} [${c.rules.join(' ')}]` })),
);

describe('shardOf and shardPattern', () => {
  test.each(['smoke', 'readonly', 'full'] as Profile[])('profile %s: N shards partition the checks, balanced by check', (profile) => {
    const runs = (c: (typeof all)[number]) => profileIncludes(profile, c.profile);
    for (const count of [1, 2, 3, 5, 8]) {
      const shards = Array.from({ length: count }, (_, i) => shardOf(all, runs, { index: i + 1, count }));
      expect(shards.flat().sort((a, b) => all.indexOf(a) - all.indexOf(b))).toEqual(all);
      const running = shards.map((s) => s.filter(runs).length);
      expect(Math.max(...running) - Math.min(...running)).toBeLessThanOrEqual(1);
    }
  });

  test('the pattern matches the full test names of the shard and of no other check', () => {
    const shard = new Set(shardOf(all, () => true, { index: 2, count: 3 }));
    const pattern = new RegExp(shardPattern(checkGroups, shard));
    for (const { check, name } of fullNames) expect(pattern.test(name), name).toBe(shard.has(check));
  });

  test('shards on one given target split its request budget; on the embedded server each keeps it', () => {
    expect(shardMaxRps(10, { index: 1, count: 4 }, false)).toBe(2.5);
    expect(shardMaxRps(10, { index: 1, count: 4 }, true)).toBe(10);
    expect(shardMaxRps(10, undefined, false)).toBe(10);
    expect(shardMaxRps(0, { index: 2, count: 3 }, false)).toBe(0);
    const given = ['--orders-url', 'http://127.0.0.1:9', '--quotes-url', 'http://127.0.0.1:9'];
    const rps = (args: string[], env: NodeJS.ProcessEnv = {}) => parseCli(args, env).config.maxRps;
    expect(rps([...given, '--shard', '2/4'])).toBe(2.5);
    expect(rps([...given, '--shard', '2/4', '--max-rps', '8'])).toBe(2);
    expect(rps([...given, '--max-rps', '8'], { CONFORMANCE_SHARD: '1/2' })).toBe(4);
    expect(rps([...given, '--max-rps', '8'])).toBe(8);
    expect(rps(['--shard', '2/4', '--max-rps', '8'])).toBe(8);
  });

  test('parseShard takes I/N with 1 <= I <= N only', () => {
    expect(parseShard('3/3')).toEqual({ index: 3, count: 3 });
    for (const bad of ['0/2', '3/2', '1/0', '-1/2', '1', 'a/b']) expect(parseShard(bad)).toBeUndefined();
  });
});

describe('mergeProblem: only the shards of one run merge', () => {
  const run = (shard?: string, change: Partial<MergedRun> = {}): MergedRun => ({
    profile: 'full',
    seed: 3,
    ...(shard ? { shard } : {}),
    target: { ordersUrl: `http://127.0.0.1:${shard ? 40000 + shard.length : 1}`, quotesUrl: 'x', embedded: true },
    ...change,
  });
  test('one run, or shards 1..N of one N with one profile, seed and target: merged', () => {
    expect(mergeProblem([run()])).toBeUndefined();
    expect(mergeProblem([run('2/2'), run('1/2')])).toBeUndefined();
    // The embedded server's ports differ from shard to shard: the same target.
    expect(
      mergeProblem([run('1/2'), { ...run('2/2'), target: { ordersUrl: 'http://127.0.0.1:2', quotesUrl: 'y', embedded: true } }]),
    ).toBeUndefined();
  });
  test.each([
    [[run('1/2')], /shard 2\/2 missing/],
    [[run('1/3'), run('3/3')], /shard 2\/3 missing/],
    [[run('1/2'), run('1/2'), run('2/2')], /shard 1\/2 found twice/],
    [[run('1/2'), run('2/3')], /different counts/],
    [[run(), run()], /not all shards/],
    [[run('1/2'), run('2/2', { seed: 4 })], /seed 3 and 4/],
    [[run('1/2'), run('2/2', { profile: 'smoke' })], /profile full and smoke/],
    [[run('1/2'), run('2/2', { target: { ordersUrl: 'a', quotesUrl: 'b', embedded: true, mutant: 'm' } })], /target/],
  ] as Array<[MergedRun[], RegExp]>)('refused with the reason: %#', (runs, reason) => {
    expect(mergeProblem(runs)).toMatch(reason);
  });
});

describe('conformance --shard', () => {
  test('--shard 3/3 of a smoke run runs a third of the smoke checks, the last third', async () => {
    const reportDir = mkdtempSync(join(tmpdir(), 'shard-'));
    const r = await cli(['--profile', 'smoke', '--shard', '3/3', '--report-dir', reportDir, '--seed', '1']);
    expect(r.code, r.stderr).toBe(0);
    const matrix = matrixOf(reportDir);
    const smoke = (c: (typeof all)[number]) => profileIncludes('smoke', c.profile);
    // The shard's checks, those outside the profile (reported skipped) included, and no other.
    const expected = shardOf(all, smoke, { index: 3, count: 3 });
    expect(new Set(matrix.checks.map((c) => c.check))).toEqual(new Set(expected.map((c) => c.name)));
    expect(expected.filter(smoke).length).toBeGreaterThanOrEqual(Math.floor(all.filter(smoke).length / 3));
  });

  test('a full run sharded against one given target is refused with the reason, before any request', async () => {
    const r = await cli([
      '--orders-url',
      'http://127.0.0.1:9',
      '--quotes-url',
      'http://127.0.0.1:9',
      '--profile',
      'full',
      '--shard',
      '1/2',
    ]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--shard with --profile full on a given target is refused: .*share its state/);
    expect(r.stderr).not.toMatch(/could not be reached/);
  });
});
