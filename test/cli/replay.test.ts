/**
 * The printed replay reproduces the failure (issue 18): it carries the target (here the embedded server with the same
 * mutant), the profile, the seed, the fast-check runs, a property's counterexample path (--fc-path) and a --grep that
 * selects the failed check alone. Run as printed, from a shell, it fails the same check on the same rule, a property
 * on the same counterexample, reached straight.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { defineCheck } from '../../suites/harness/check.ts';
import { parseFcPath } from '../../suites/harness/fc-path.ts';
import { replayCommand, type Matrix, type RunInfo } from '../../suites/harness/matrix.ts';
import { runCheck } from '../../suites/harness/runner.ts';
import type { TargetEnv } from '../../suites/harness/types.ts';
import { expectValidMatrix } from './matrix-schema.ts';
import { cli, shell } from './run-cli.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'conformance-replay-'));
const matrixOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')) as Matrix;

const emptyRun: RunInfo = {
  startedAt: '',
  finishedAt: '',
  profile: 'smoke',
  seed: 0,
  strict: false,
  target: { ordersUrl: '', quotesUrl: '', capabilities: [], embedded: true },
  specHashes: {},
};

test('the replay of a given target names its URLs, and selects the check alone', () => {
  const run: RunInfo = {
    startedAt: '',
    finishedAt: '',
    profile: 'readonly',
    seed: 42,
    numRuns: 25,
    strict: true,
    target: { ordersUrl: 'https://o.example', quotesUrl: 'https://q.example', capabilities: [], embedded: false },
    specHashes: {},
  };
  expect(replayCommand(run, 'a-check')).toBe(
    "npm run conformance -- --orders-url https://o.example --quotes-url https://q.example --profile readonly --seed 42 --num-runs 25 --strict --grep ' a-check \\['",
  );
});

test('the printed replay, run as printed, fails the same check on the same rule', { timeout: 180_000 }, async () => {
  const first = tmp();
  const r = await cli([
    '--mutant',
    'slippage-bps-max-5000-enforced',
    '--profile',
    'readonly',
    '--seed',
    '9',
    '--grep',
    'ranged-parameters-accept|info-publishes-slippagebps',
    '--report-dir',
    first,
  ]);
  expect(r.code, r.stderr).toBe(1);
  const failed = matrixOf(first).checks.filter((c) => c.verdict === 'fail');
  expect(failed.map((c) => [c.check, c.rule])).toEqual([['ranged-parameters-accept-every-value-of-the-published-range', 'Q-INFO-013']]);
  const printed = /replay: (npm run conformance -- .*)$/m.exec(r.stdout)?.[1];
  expect(printed).toBe(failed[0]!.replay);
  expect(printed).toContain('--mutant slippage-bps-max-5000-enforced');
  expect(readFileSync(join(first, 'matrix.md'), 'utf8')).toContain(`replay:     ${printed}`);

  const again = tmp();
  const replayed = await shell(printed!, { CONFORMANCE_REPORT_DIR: again });
  expect(replayed.code, replayed.stderr).toBe(1);
  const m = matrixOf(again);
  expectValidMatrix(m);
  expect(m.run).toMatchObject({ seed: 9, profile: 'readonly', target: { mutant: 'slippage-bps-max-5000-enforced' } });
  expect(m.checks.map((c) => [c.check, c.verdict, c.rule])).toEqual([
    ['ranged-parameters-accept-every-value-of-the-published-range', 'fail', 'Q-INFO-013'],
  ]);
});

/** A check of two properties over 0 to 1000: the first holds, the second fails from 300 up; `seen` logs the second's values. */
function twoProperties(seen: number[]) {
  return defineCheck({
    name: 'two-properties',
    service: 'quotes',
    rules: ['Q-BOUNDS-002'],
    profile: 'smoke',
    async run(t) {
      await t.property('Q-BOUNDS-002', fc.integer({ min: 0, max: 1000 }), async () => true);
      await t.property('Q-BOUNDS-002', fc.integer({ min: 0, max: 1000 }), async (v) => {
        seen.push(v);
        return v < 300;
      });
    },
  });
}

test('--fc-path takes the property it names straight to its counterexample; the others run as before', async () => {
  // No request is sent: the URLs are never called (a closed loopback port all the same).
  const env: TargetEnv = {
    ...{ ordersUrl: 'http://127.0.0.1:9', quotesUrl: 'http://127.0.0.1:9', capabilities: [], credentials: {} },
    ...{ profile: 'smoke', seed: 7, numRuns: 100, strict: false, timeoutMs: 1000, maxRps: 0, expectedProviders: 2 },
  };
  const searched: number[] = [];
  const first = await runCheck(twoProperties(searched), env);
  expect(first).toMatchObject({ verdict: 'fail', rule: 'Q-BOUNDS-002' });
  expect(first.message).toContain('counterexample: 300');
  // The second property of the check: N@PATH names it.
  expect(first.fcPath).toMatch(/^2@\d+(:\d+)*$/);
  expect(searched.length).toBeGreaterThan(1);

  const straight: number[] = [];
  const again = await runCheck(twoProperties(straight), { ...env, fcPath: parseFcPath(first.fcPath!)! });
  expect(again).toMatchObject({ verdict: 'fail', rule: 'Q-BOUNDS-002' });
  expect(again.message).toContain('counterexample: 300');
  expect(straight[0]).toBe(300);
  expect(straight.length).toBeLessThan(searched.length);
  expect(replayCommand({ ...emptyRun, seed: 7 }, again.check, again.fcPath)).toContain(`--seed 7 --fc-path ${first.fcPath} `);
});

test('--fc-path is PATH or N@PATH', () => {
  expect(parseFcPath('41:0:3')).toEqual({ property: 1, path: '41:0:3' });
  expect(parseFcPath('2@0')).toEqual({ property: 2, path: '0' });
  for (const bad of ['', '0@1', 'a:b', '1:', '2@']) expect(parseFcPath(bad), bad).toBeUndefined();
});

test('a property counterexample: the printed replay carries --fc-path and reaches the same counterexample straight', {
  timeout: 180_000,
}, async () => {
  const first = tmp();
  const args = ['--mutant', 'accounts-limit-writable-ignored', '--profile', 'readonly', '--seed', '9'];
  const r = await cli([...args, '--grep', 'accountslimitwritable-bounds', '--report-dir', first]);
  expect(r.code, r.stderr).toBe(1);
  const [failed, ...others] = matrixOf(first).checks.filter((c) => c.verdict === 'fail');
  expect(others).toEqual([]);
  expect(failed).toMatchObject({ rule: 'Q-PARAM-022', fcPath: expect.stringMatching(/^\d+(:\d+)*$/) });
  const counterexample = /counterexample: .*/.exec(failed!.message ?? '')?.[0];
  expect(counterexample).toBeDefined();
  const printed = /replay: (npm run conformance -- .*)$/m.exec(r.stdout)?.[1];
  expect(printed).toBe(failed!.replay);
  expect(printed).toContain(`--fc-path ${failed!.fcPath} `);
  // vitest's own failure block ends at the check's line, not the harness's (suites/harness/vitest.ts gatingError).
  const output = `${r.stdout}${r.stderr}`;
  expect(failed!.failedAt).toMatch(/^suites\/quotes\/params-sizing\.checks\.ts:\d+$/);
  expect(output).toContain(`❯ ${failed!.check} ${failed!.failedAt}:1`);
  expect(output).not.toMatch(/❯ .*suites\/harness\//);

  const again = tmp();
  const replayed = await shell(printed!, { CONFORMANCE_REPORT_DIR: again });
  expect(replayed.code, replayed.stderr).toBe(1);
  const [check] = matrixOf(again).checks;
  expect(check).toMatchObject({ check: failed!.check, verdict: 'fail', rule: 'Q-PARAM-022', fcPath: failed!.fcPath });
  expect(check!.message).toContain(counterexample);
  // Straight to it: the values the search tried before the counterexample are not sent again.
  expect(check!.requests).toBeLessThan(failed!.requests);

  // A path belongs to one check: a run that selects several is refused.
  const many = await cli([...args, '--fc-path', failed!.fcPath!, '--report-dir', tmp()]);
  expect(many.code).toBe(2);
  expect(many.stderr).toMatch(/--fc-path replays one check's property, but the run selects \d+ checks/);
});
