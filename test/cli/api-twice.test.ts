/**
 * `run()` (bin/api.ts) called twice, then a third time with a bad option, in one process (issue 18); a call while a
 * run is under way is refused. Each run starts its own embedded server and its workers judge that one (the first, a
 * mutant, fails; the second, faithful, passes), and a run leaves the caller's process as it found it: its
 * environment (the settings given as options), its SIGINT listeners, its exit code.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from 'vitest';
import { ROOT } from './run-cli.ts';

const SCRIPT = `
const { run, RunError } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'bin/api.ts')).href)});
const out = (label, value) => console.log(label + ' ' + JSON.stringify(value));
const mine = () => {};
process.on('SIGINT', mine);
const state = () => ({ usdc: process.env.CONFORMANCE_USDC_MINT ?? null, sigint: process.listeners('SIGINT').length, mine: process.listeners('SIGINT').includes(mine), exitCode: process.exitCode ?? null });
const seen = (m) => ({ verdict: m.summary.verdict, seed: m.run.seed, mutant: m.run.target.mutant ?? null, checks: m.checks.map((c) => c.check + ':' + c.verdict) });
out('BEFORE', state());
const grep = 'Q-INFO-001\\\\]';
const usdc = 'So11111111111111111111111111111111111111112';
const first = run({ profile: 'smoke', seed: 1, grep, reportDir: 'first', mutant: 'info-protocol-version-string', mints: { usdc } });
out('AT_ONCE', await run({ profile: 'smoke' }).then(() => 'resolved', (e) => ({ runError: e instanceof RunError, exitCode: e.exitCode, message: e.message })));
out('FIRST', seen(await first));
out('AFTER_FIRST', state());
out('SECOND', seen(await run({ profile: 'smoke', seed: 2, grep, reportDir: 'second' })));
try {
  await run({ profile: 'everything' });
  out('THIRD', 'resolved');
} catch (e) {
  out('THIRD', { runError: e instanceof RunError, exitCode: e.exitCode, message: e.message });
}
out('AFTER', state());
`;

test('run() twice and once more with a bad option in one process: each run on its own, the process left as found', async () => {
  const work = mkdtempSync(join(tmpdir(), 'api-twice-'));
  writeFileSync(join(work, 'twice.mjs'), SCRIPT);
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(CONFORMANCE_|ORDERS_API|QUOTES_|TEST_WALLET|VITEST|FORCE_COLOR)/.test(k)),
  );
  const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    // The folder has no node_modules: tsx's loader by its path, as `--import tsx` resolves it from the project.
    const tsx = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
    const child = spawn(process.execPath, ['--import', tsx, 'twice.mjs'], { cwd: work, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
  const line = (label: string) => {
    const m = new RegExp(`^${label} (.*)$`, 'm').exec(r.stdout);
    expect(m, `${label} in\n${r.stdout}\n${r.stderr}`).not.toBeNull();
    return JSON.parse(m![1]!) as unknown;
  };
  const before = { usdc: null, sigint: 1, mine: true, exitCode: null };
  expect(line('BEFORE')).toEqual(before);
  // A second run while the first is under way is refused at once; the first goes on.
  expect(line('AT_ONCE')).toEqual({
    runError: true,
    exitCode: 2,
    message: 'run() is already running in this process: await it before starting another',
  });
  // The mutant's server answers the first run: its check fails.
  expect(line('FIRST')).toEqual({
    verdict: 'fail',
    seed: 1,
    mutant: 'info-protocol-version-string',
    checks: ['info-publishes-protocol-version-as-three-integers:fail'],
  });
  // The failure set neither the caller's exit code nor left the run's settings in its environment.
  expect(line('AFTER_FIRST')).toEqual(before);
  // The second run's workers judged the second, faithful server, not the first one's target (closed by then).
  expect(line('SECOND')).toEqual({
    verdict: 'pass',
    seed: 2,
    mutant: null,
    checks: ['info-publishes-protocol-version-as-three-integers:pass'],
  });
  expect(line('THIRD')).toEqual({ runError: true, exitCode: 2, message: '--profile must be one of smoke, readonly, full: everything' });
  expect(line('AFTER')).toEqual(before);
  expect(r.code, r.stderr).toBe(0);
  rmSync(work, { recursive: true, force: true });
});
