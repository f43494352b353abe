/**
 * The printed replay reproduces the failure (issue 18): it carries the target (here the embedded server with the same
 * mutant), the profile, the seed, the fast-check runs and a --grep that selects the failed check alone. Run as printed,
 * from a shell, it fails the same check on the same rule.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { replayCommand, type Matrix, type RunInfo } from '../../suites/harness/matrix.ts';
import { expectValidMatrix } from './matrix-schema.ts';
import { cli, shell } from './run-cli.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'conformance-replay-'));
const matrixOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')) as Matrix;

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
    'smoke',
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
  expect(m.run).toMatchObject({ seed: 9, profile: 'smoke', target: { mutant: 'slippage-bps-max-5000-enforced' } });
  expect(m.checks.map((c) => [c.check, c.verdict, c.rule])).toEqual([
    ['ranged-parameters-accept-every-value-of-the-published-range', 'fail', 'Q-INFO-013'],
  ]);
});
