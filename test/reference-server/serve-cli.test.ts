import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mutants } from '../../fixtures/mutants/index.ts';
import { watchServe } from './serve-support.ts';
import { call } from './support.ts';

/** `bin/serve.ts` end to end, run with tsx the way `npm run serve` does. */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

const serve = (args: string[]) => watchServe(spawn(TSX, ['bin/serve.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }));

describe('npm run serve', () => {
  it('prints one JSON line with the URLs, serves both services and control, and stops cleanly on SIGTERM', async () => {
    const run = serve(['--port', '0', '--mutant', 'health-ok-status-healthy', '--variant', 'extra-fields']);
    const line = JSON.parse(await run.firstLine()) as Record<string, string>;
    try {
      expect(Object.keys(line)).toEqual(['orders', 'quotes', 'gateway', 'control', 'mutant', 'variant']);
      expect(line.orders).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(line.quotes).toBe(line.orders);
      expect(line.gateway).toBe(`${line.orders}/gateway`);
      expect(line.control).toBe(`${line.orders}/__control`);
      expect([line.mutant, line.variant]).toEqual(['health-ok-status-healthy', 'extra-fields']);
      expect((await call(`${line.orders}/health`)).body).toMatchObject({ status: 'healthy' });
      expect((await call(`${line.quotes}/api/v1/info`)).status).toBe(401);
      expect((await call(`${line.gateway}/api/v1/info`)).status).toBe(401);
      expect((await call(`${line.control}/capabilities`)).status).toBe(200);
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exited).toBe(0);
    expect(run.output().stdout.trim().split('\n')).toHaveLength(1);
  });

  it('prints null for no mutant and no variant', async () => {
    const run = serve([]);
    const line = JSON.parse(await run.firstLine()) as Record<string, unknown>;
    run.child.kill('SIGINT');
    expect([line.mutant, line.variant]).toEqual([null, null]);
    expect(await run.exited).toBe(0);
  });

  it.each([
    [['--mutant', 'no-such-mutant']],
    [['--variant', 'no-such-variant']],
    [['--port', 'eighty']],
    [['--port', '70000']],
    [['--environment', 'devnet']],
    [['--colour']],
    [['extra-positional']],
  ])('exits 2 with one line on stderr for %j', async (args) => {
    const run = serve(args);
    expect(await run.exited).toBe(2);
    const { stdout, stderr } = run.output();
    expect(stdout).toBe('');
    expect(
      stderr
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('npm warn')),
    ).toHaveLength(1);
  });

  it('--list-mutants prints name, rule and description of every mutant, one per line', async () => {
    const run = serve(['--list-mutants']);
    expect(await run.exited).toBe(0);
    const lines = run.output().stdout.trim().split('\n');
    expect(lines).toHaveLength(mutants.length);
    expect(lines.map((l) => l.split('\t').slice(0, 2))).toEqual(mutants.map((m) => [m.name, m.rule]));
  });
});
