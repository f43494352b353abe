/**
 * One defect, one failure (issue 18): failed checks whose failing answers are identical (the same rule, request, status,
 * code and message) are one root cause, shown once with the checks that could not go further because of it; a distinct
 * violation is never folded into another. The exit code stays a failure.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Exchange } from '../../suites/harness/exchange.ts';
import { ConformanceFailure, failingAnswer } from '../../suites/harness/failure.ts';
import { renderJUnit } from '../../suites/harness/junit.ts';
import { buildMatrix, type Matrix } from '../../suites/harness/matrix.ts';
import { allChecks } from '../../suites/index.ts';
import { failed, MUTANT_RUN } from './failed-result.ts';
import { expectValidMatrix } from './matrix-schema.ts';
import { cli } from './run-cli.ts';

function exchange(url: string, status: number, body: unknown, headers: Record<string, string> = { accept: 'application/json' }): Exchange {
  return {
    service: 'quotes',
    request: { method: 'GET', url, headers },
    response: { status, headers: {}, mediaType: 'application/json', body, raw: Buffer.alloc(0) },
    durationMs: 1,
    attempts: 1,
  };
}

const QUOTE = 'http://127.0.0.1:9/api/v1/quote/swap?numQuotes=20';
const REJECTED = { code: 7, message: 'numQuotes must be between 1 and 10, got 20' };

const run = MUTANT_RUN;

describe('failures grouped by root cause', () => {
  test('only identical failing answers of the same rule share a key', () => {
    const key = (rule: 'Q-INFO-013' | 'Q-PARAM-004', ex: Exchange) =>
      failingAnswer(new ConformanceFailure(rule, { documented: 'x', exchange: ex }))!.key;
    const same = key('Q-INFO-013', exchange(QUOTE, 400, REJECTED));
    expect(key('Q-INFO-013', exchange(QUOTE, 400, { ...REJECTED }))).toBe(same);
    // Any difference of rule, request (query, headers) or answer (status, code, message) is a distinct violation.
    expect(key('Q-PARAM-004', exchange(QUOTE, 400, REJECTED))).not.toBe(same);
    expect(key('Q-INFO-013', exchange(`${QUOTE}&slippageBps=1`, 400, REJECTED))).not.toBe(same);
    expect(key('Q-INFO-013', exchange(QUOTE, 400, REJECTED, { accept: 'application/vnd.msgpack' }))).not.toBe(same);
    expect(key('Q-INFO-013', exchange(QUOTE, 422, REJECTED))).not.toBe(same);
    expect(key('Q-INFO-013', exchange(QUOTE, 400, { ...REJECTED, code: 3 }))).not.toBe(same);
    expect(key('Q-INFO-013', exchange(QUOTE, 400, { ...REJECTED, message: 'another' }))).not.toBe(same);
    expect(failingAnswer(new ConformanceFailure('Q-INFO-013', { documented: 'x' }))).toBeUndefined();
  });

  test('the root is shown once, the others are blocked by it, a distinct violation stays a root of its own', () => {
    const rejected = exchange(QUOTE, 400, REJECTED);
    const results = [
      // Blocked: a check of another rule that failed Q-INFO-013 on the same answer (a harness violation).
      failed('b-check', ['Q-PARAM-004'], new ConformanceFailure('Q-INFO-013', { documented: 'x', exchange: rejected })),
      // The root: the check that asserts Q-INFO-013 itself.
      failed('a-check', ['Q-INFO-013'], new ConformanceFailure('Q-INFO-013', { documented: 'x', exchange: rejected })),
      // Distinct: the same answer judged by another rule.
      failed('c-check', ['Q-PARAM-004'], new ConformanceFailure('Q-PARAM-004', { documented: 'x', exchange: rejected })),
    ];
    const m = buildMatrix(results, allChecks, run, 'test');
    expect(m.summary.failures.map((f) => [f.rule, f.check, f.blocked])).toEqual([
      ['Q-INFO-013', 'a-check', ['b-check']],
      ['Q-PARAM-004', 'c-check', []],
    ]);
    expect(m.summary).toMatchObject({ verdict: 'fail', gatingFailures: 2, blocked: 1 });
    expect(m.checks.find((r) => r.check === 'b-check')?.blockedBy).toBe('a-check');
    expect(m.rules.find((r) => r.id === 'Q-INFO-013')?.verdict).toBe('fail');
    expect(m.rules.find((r) => r.id === 'Q-PARAM-004')?.verdict).toBe('fail');
    const xml = renderJUnit(m, () => 'group');
    expect(xml.match(/<failure /g)).toHaveLength(2);
    expect(xml).toContain('<skipped message="BLOCKED by check &quot;a-check&quot;');
    // Grouping again (merged shards) gives the same roots.
    expect(buildMatrix(m.checks, allChecks, run, 'test').summary.failures).toEqual(m.summary.failures);
  });

  test('a target that rejects the numQuotes its /api/v1/info published: the info failure once, the checks it blocked named', {
    timeout: 120_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conformance-root-'));
    const r = await cli([
      '--mutant',
      'info-num-quotes-max-20',
      '--profile',
      'readonly',
      '--seed',
      '3',
      '--grep',
      'info-publishes|the-four-key-path|ranged-parameters-accept',
      '--report-dir',
      dir,
    ]);
    expect(r.code, r.stderr).toBe(1);
    const m = JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')) as Matrix;
    expectValidMatrix(m);
    const info = m.summary.failures.find((f) => f.rule === 'Q-INFO-003')!;
    expect(info.check).toBe('info-publishes-numquotes-1-to-10-default-1');
    expect(info.blocked).toContain('info-publishes-slippagebps-0-to-10000-default-100');
    expect(m.summary.failures.filter((f) => f.rule === 'Q-INFO-003')).toHaveLength(1);
    // The engine's rejection of numQuotes=20 is another request: a root of its own.
    expect(m.summary.failures.map((f) => f.rule)).toContain('Q-INFO-013');
    expect(m.summary.blocked).toBe(info.blocked.length);
    // The blocked checks' own rules held: they are not failures of their own rules.
    expect(m.rules.find((row) => row.id === 'Q-INFO-004')?.verdict).toBe('pass');
    expect(r.stdout).toContain(`${info.blocked.length} checks could not go further because of it`);
    expect(r.stdout.match(/FAIL Q-INFO-003/g)).toHaveLength(1);
    const xml = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(xml.match(/<failure /g)).toHaveLength(m.summary.gatingFailures);
    expect(xml.match(/<skipped message="BLOCKED by check/g)).toHaveLength(info.blocked.length);
    // Allure says the same: the root is a failed test (a product defect, not broken), the blocked ones skipped.
    const allure = join(dir, 'allure-results');
    const tests = readdirSync(allure)
      .filter((f) => f.endsWith('-result.json'))
      .map((f) => JSON.parse(readFileSync(join(allure, f), 'utf8')) as { name: string; status: string; links: Array<{ url: string }> });
    const status = (check: string) => tests.find((t) => t.name.startsWith(`${check} [`))?.status;
    expect(status(info.check)).toBe('failed');
    expect(info.blocked.map(status)).toEqual(info.blocked.map(() => 'skipped'));
    expect(tests.filter((t) => t.status === 'broken')).toEqual([]);
    expect(tests.find((t) => t.name.startsWith(`${info.check} [`))?.links).toContainEqual(
      expect.objectContaining({ url: '../matrix.html#Q-INFO-003' }),
    );
    const environment = readFileSync(join(allure, 'environment.properties'), 'utf8');
    for (const line of ['mutant=info-num-quotes-max-20', 'profile=readonly', 'seed=3']) expect(environment.split('\n')).toContain(line);
    const categories = JSON.parse(readFileSync(join(allure, 'categories.json'), 'utf8')) as Array<{ name: string }>;
    expect(categories.map((c) => c.name.split(/[:( ,]/)[0])).toEqual(
      expect.arrayContaining(['FAIL', 'BLOCKED', 'SETUP-FAILED', 'UNSUPPORTED', 'SKIPPED']),
    );
    // A log, not a terminal: no colour codes, and a line per area as it completes.
    expect(r.stdout + r.stderr).not.toContain('\x1b');
    expect(r.stdout).toMatch(/^conformance: quotes\/info done, \d+ checks \(/m);
  });
});
