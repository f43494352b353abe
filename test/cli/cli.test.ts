/**
 * The CLI end to end, as a CI job runs it: usage errors, an unreachable target, `npm start` and the same run against a
 * served reference server, shards merged. Failing runs and secrets: cli-failing.test.ts; runs without a control API
 * (a partner's or a production target): cli-partner.test.ts. Three files so that vitest's two workers share them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { startReferenceServer } from '../../fixtures/server/index.ts';
import type { Matrix } from '../../suites/harness/matrix.ts';
import { expectValidMatrix } from './matrix-schema.ts';
import { cli, filesUnder, fullRunOf, matrixOf, mintOn, reportDir as tmp } from './run-cli.ts';

const verdicts = (m: Matrix) => Object.fromEntries(m.checks.map((c) => [c.check, c.verdict]));

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
    // A log, not a terminal: no colour codes, a line per area as it completes, the cleanup summary once (issue 18).
    expect(r.stdout + r.stderr).not.toContain('\x1b');
    expect(r.stdout).toMatch(/^conformance: quotes\/info done, \d+ checks \(\d+ pass[^)]*\), \d+ s$/m);
    expect(r.stdout.match(/^ *cleanup: /gm)).toHaveLength(1);
    expectValidMatrix(matrixOf(dir));
    for (const f of ['matrix.json', 'matrix.md', 'matrix.html', 'junit.xml']) expect(existsSync(join(dir, f)), f).toBe(true);
    expect(readdirSync(join(dir, 'allure-results')).some((f) => f.endsWith('-result.json'))).toBe(true);
    embedded = matrixOf(dir);
    expect(embedded.run).toMatchObject({ seed: 7, profile: 'full' });
    expect(embedded.summary.checks.fail).toBe(0);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/<testsuites/);
  });

  test('serve + conformance with URLs gives the same verdicts as npm start; secrets never reach a report', async () => {
    const server = await startReferenceServer({ port: 0 });
    try {
      const apiKey = (await mintOn(server.controlUrl, '/tenants')).apiKey!;
      const dir = tmp();
      const r = await cli([...fullRunOf(server), '--report-dir', dir], { ORDERS_API_KEY: apiKey });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      // `embedded` comes from the npm start test above (absent when only this test runs, e.g. -t secrets).
      if (embedded) expect(verdicts(matrixOf(dir))).toEqual(verdicts(embedded));
      for (const file of filesUnder(dir)) expect(readFileSync(file, 'utf8').includes(apiKey), file).toBe(false);
      expect(r.stdout.includes(apiKey)).toBe(false);
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
