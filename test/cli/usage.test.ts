/**
 * The CLI's usage errors (issue 18, "CLI defects"): each ends with exit 2 and one sentence, before any run, never a
 * PASS, a stack trace or a catalogue dumped on one line.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { closestNames } from '../../bin/names.ts';
import { mutants, variants } from '../../fixtures/mutants/index.ts';
import { ASSUMPTION_VARIANTS } from '../../fixtures/mutants/variants.ts';
import { binScript, cli as runCli, type Ran } from './run-cli.ts';

const cli = (args: string[], env?: NodeJS.ProcessEnv) => runCli(['--report-dir', mkdtempSync(join(tmpdir(), 'usage-')), ...args], env);
const serve = (args: string[]) => binScript('bin/serve.ts', args);

/** Exit 2, one line on stderr matching `message`, nothing that looks like a verdict or a stack. */
function expectUsageError(r: Ran, message: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(message);
  expect(lines[0]!.length).toBeLessThan(300);
  expect(r.stdout).not.toMatch(/PASS/);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('conformance CLI: usage errors', () => {
  test('--grep that selects nothing: exit 2, never PASS', async () => {
    expectUsageError(await cli(['--grep', 'no-check-is-named-this']), /--grep no-check-is-named-this selects no check/);
  });

  test('a shard that would hold nothing is refused: exit 2, fewer shards', async () => {
    expectUsageError(
      await cli(['--profile', 'smoke', '--grep', 'Q-INFO-001\\]', '--shard', '1/3']),
      /--shard 1\/3 holds no check: 1 check\(s\) of profile smoke match --grep .*fewer than 3 shards/,
    );
  });

  test('--grep with --shard: the shard that holds none of the selected checks says so, exit 2; the other one runs it', async () => {
    // One check (Q-INFO-001) of one test file: of two shards, exactly one holds it.
    const results = await Promise.all([1, 2].map((i) => cli(['--profile', 'smoke', '--grep', 'Q-INFO-001\\]', '--shard', `${i}/2`])));
    expect(results.map((r) => r.code).sort()).toEqual([0, 2]);
    const empty = results.find((r) => r.code === 2)!;
    expect(empty.stderr).toMatch(/--shard 1\/2 holds no check/);
    expect(empty.stdout).not.toMatch(/Conformance PASS/);
  });

  test('--merge-reports on a missing folder: one line, exit 2, no stack', async () => {
    expectUsageError(await cli(['--merge-reports', join(tmpdir(), 'no-such-folder-for-usage-test')]), /--merge-reports: no folder /);
  });

  test('--help works whatever the environment holds', async () => {
    const r = await cli(['--help'], {
      CONFORMANCE_PROFILE: 'bogus',
      CONFORMANCE_ORDER_TEMPLATES: join(tmpdir(), 'no-such-templates.json'),
      CONFORMANCE_TIMEOUT_MS: '-1',
      CONFORMANCE_CONFIG: join(tmpdir(), 'no-such-conformance.config.json'),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Usage: conformance \[options\]/);
    expect(r.stdout).toMatch(/130 interrupted/);
  });

  test('an unknown --mutant: the closest names and how to list them, not the whole catalogue', async () => {
    const r = await cli(['--mutant', 'health-requires-kye']);
    expectUsageError(r, /unknown mutant "health-requires-kye" \(did you mean health-requires-key\b.*npm run serve -- --list-mutants/);
    expect(r.stderr.split(',').length).toBeLessThan(5);
  });

  test('an unknown --variant likewise', async () => {
    expectUsageError(
      await cli(['--variant', 'extra-field']),
      /unknown variant "extra-field" \(did you mean extra-fields\b.*--list-variants/,
    );
  });

  test.each([
    [['--timeout', '-5'], /--timeout must be an integer >= 1: -5/],
    [['--timeout', '0'], /--timeout must be an integer >= 1: 0/],
    [['--max-rps', 'abc'], /--max-rps must be an integer >= 0: abc/],
    [['--seed', '-1'], /--seed must be an integer >= 0: -1/],
    [['--num-runs', '1.5'], /--num-runs must be an integer >= 1: 1\.5/],
  ])('%j: a message naming the option and the value, exit 2', async (args, message) => {
    expectUsageError(await cli(args), message);
  });

  test('a --timeout too small for the embedded server is said to be too small, not "unreachable target"', async () => {
    const r = await cli(['--timeout', '1']);
    expectUsageError(r, /--timeout 1 ms is too small/);
    expect(r.stderr).not.toMatch(/could not be reached/);
  });
});

describe('serve CLI: usage', () => {
  test('--help prints the options, exit 0', async () => {
    const r = await serve(['--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Usage: npm run serve/);
    expect(r.stdout).toMatch(/--list-mutants/);
  });

  test('an unknown --mutant: the closest names and how to list them, exit 2', async () => {
    expectUsageError(
      await serve(['--mutant', 'health-requires-kye']),
      /unknown mutant "health-requires-kye" \(did you mean health-requires-key\b/,
    );
  });

  test('--list-variants lists every variant the server takes, the assumption variants too; an unknown one gets the closest', async () => {
    const listed = (await serve(['--list-variants'])).stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t')[0]!);
    expect(listed).toEqual([...variants, ...ASSUMPTION_VARIANTS].map((v) => v.name));
    const last = listed.at(-1)!;
    expectUsageError(await serve(['--variant', `${last}-x`]), new RegExp(`unknown variant "${last}-x" \\(did you mean ${last}\\b`));
  });
});

describe('closestNames', () => {
  const names = mutants.map((m) => m.name);
  test('a typo finds the name; a name that contains the given part comes first; nothing close, nothing', () => {
    expect(closestNames('health-requires-kye', names)[0]).toBe('health-requires-key');
    expect(closestNames('health-requires', names)).toContain('health-requires-key');
    expect(closestNames('zzzzzzzz', names)).toEqual([]);
    expect(closestNames('a', names).length).toBeLessThanOrEqual(3);
  });
});
