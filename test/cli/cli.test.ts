/** The CLI end to end, as a CI job or a partner runs it: exit codes, reports, sharding, secrets. */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { startReferenceServer } from '../../fixtures/server/index.ts';
import { mutants } from '../../fixtures/mutants/index.ts';
import type { Matrix } from '../../suites/harness/matrix.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(CONFORMANCE_|ORDERS_API|QUOTES_|TEST_WALLET|VITEST)/.test(k)));
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/conformance.ts', ...args], { cwd: ROOT, env: { ...clean, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

const tmp = () => mkdtempSync(join(tmpdir(), 'conformance-'));
const matrixOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')) as Matrix;
const verdicts = (m: Matrix) => Object.fromEntries(m.checks.map((c) => [c.check, c.verdict]));

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? filesUnder(join(dir, f)) : [join(dir, f)]));
}

describe('conformance CLI', () => {
  test('bad usage: one line naming the option, exit 2', async () => {
    const r = await cli(['--profile', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--profile/);
  });

  test('an unreadable CONFORMANCE_ORDER_TEMPLATES: one line naming the file, exit 2', async () => {
    const r = await cli(['--profile', 'smoke'], { CONFORMANCE_ORDER_TEMPLATES: '/nonexistent/templates.yaml' });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/CONFORMANCE_ORDER_TEMPLATES \/nonexistent\/templates\.yaml/);
  });

  test('an unreachable target: a clear message, exit 3, no stack trace', async () => {
    const r = await cli(['--orders-url', 'http://127.0.0.1:9', '--quotes-url', 'http://127.0.0.1:9', '--report-dir', tmp()]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/could not be reached/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  let embedded: Matrix;
  test('npm start: the embedded reference server passes; matrix, JUnit and Allure results are written', async () => {
    const dir = tmp();
    const r = await cli(['--report-dir', dir, '--seed', '7']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Conformance PASS/);
    for (const f of ['matrix.json', 'matrix.md', 'matrix.html', 'junit.xml']) expect(existsSync(join(dir, f)), f).toBe(true);
    expect(readdirSync(join(dir, 'allure-results')).some((f) => f.endsWith('-result.json'))).toBe(true);
    embedded = matrixOf(dir);
    expect(embedded.run).toMatchObject({ seed: 7, profile: 'full' });
    expect(embedded.summary.checks.fail).toBe(0);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/<testsuites/);
  });

  test('a mutant makes it exit 1 with a failure naming the broken rule and a curl reproduction', async () => {
    const mutant = mutants.find((m) => m.rule === 'Q-INFO-001')!;
    const dir = tmp();
    const r = await cli(['--report-dir', dir, '--mutant', mutant.name]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL Q-INFO-001/);
    expect(readFileSync(join(dir, 'matrix.md'), 'utf8')).toMatch(/reproduce: +curl /);
  });

  test('serve + conformance with URLs gives the same verdicts as npm start; secrets never reach a report', async () => {
    const server = await startReferenceServer({ port: 0 });
    try {
      const tenant = await (await fetch(`${server.controlUrl}/tenants`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).json() as { apiKey: string };
      const dir = tmp();
      const r = await cli(['--orders-url', server.ordersUrl, '--quotes-url', server.quotesUrl, '--control-url', server.controlUrl,
        '--profile', 'full', '--max-rps', '0', '--report-dir', dir], { ORDERS_API_KEY: tenant.apiKey });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(verdicts(matrixOf(dir))).toEqual(verdicts(embedded));
      for (const file of filesUnder(dir)) expect(readFileSync(file, 'utf8').includes(tenant.apiKey), file).toBe(false);
      expect(r.stdout.includes(tenant.apiKey)).toBe(false);
    } finally {
      await server.close();
    }
  });

  test('the readonly and smoke profiles create nothing and move no funds (control API snapshot before and after)', async () => {
    const server = await startReferenceServer({ port: 0 });
    const control = async (method: string, path: string, body?: unknown) =>
      await (await fetch(`${server.controlUrl}${path}`, { method, ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) })).json() as Record<string, unknown>;
    try {
      const tenant = await control('POST', '/tenants', {});
      const quoteKey = await control('POST', '/quote-keys', {});
      for (const profile of ['smoke', 'readonly']) {
        const before = await control('GET', '/snapshot');
        // No control URL: a production target, where the suite can only use the credentials it is given.
        const r = await cli(['--orders-url', server.ordersUrl, '--quotes-url', server.quotesUrl, '--profile', profile, '--max-rps', '0', '--report-dir', tmp()],
          { ORDERS_API_KEY: String(tenant.apiKey), QUOTES_API_KEY: String(quoteKey.apiKey) });
        expect(r.code, r.stdout + r.stderr).toBe(0);
        expect(await control('GET', '/snapshot'), `${profile} changed the target's state`).toEqual(before);
      }
    } finally {
      await server.close();
    }
  });

  test('shards merge into one matrix and one JUnit report', async () => {
    const root = tmp();
    const [a, b] = await Promise.all([
      cli(['--shard', '1/2', '--report-dir', join(root, 'shard-1'), '--seed', '3']),
      cli(['--shard', '2/2', '--report-dir', join(root, 'shard-2'), '--seed', '3']),
    ]);
    expect([a.code, b.code], a.stdout + b.stdout).toEqual([0, 0]);
    const out = join(root, 'merged');
    const m = await cli(['--merge-reports', root, '--report-dir', out]);
    expect(m.code, m.stdout + m.stderr).toBe(0);
    expect(Object.keys(verdicts(matrixOf(out))).sort()).toEqual(Object.keys(verdicts(embedded)).sort());
    expect(existsSync(join(out, 'junit.xml'))).toBe(true);
  });
});
