/**
 * One defect, one failure (issue 18): failed checks that got the same error refusal (the same service, method, path,
 * Accept header, 4xx status, code and message, whatever their rules and queries) are one root cause, and so are failed
 * checks of the same rule on identical exchanges; the root is shown once with the checks that could not go further
 * because of it, and only its rule fails. Any other difference (status, code, message, path; a 200 judged wrong by two
 * rules) is a distinct root. The checks' own verdicts and the exit code stay failures.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { RuleId } from '../../generators/vocabulary.ts';
import type { Exchange } from '../../suites/harness/exchange.ts';
import { ConformanceFailure, failingAnswer } from '../../suites/harness/failure.ts';
import { renderJUnit } from '../../suites/harness/junit.ts';
import { buildMatrix, renderHtml, renderMarkdown, type Matrix } from '../../suites/harness/matrix.ts';
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

/** A gating check of `rule` that failed it on `ex`. */
const failing = (check: string, rule: RuleId, ex: Exchange, rules: RuleId[] = [rule]) =>
  failed(check, rules, new ConformanceFailure(rule, { documented: 'x', exchange: ex }));

describe('failures grouped by root cause', () => {
  test('the strict key: only identical failing answers of the same rule share it', () => {
    const key = (rule: RuleId, ex: Exchange) => failingAnswer(new ConformanceFailure(rule, { documented: 'x', exchange: ex }))!.key;
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

  test('the refusal key: the same 4xx code and message to the same path and Accept, whatever the rule and query', () => {
    const refusal = (rule: RuleId, ex: Exchange) => failingAnswer(new ConformanceFailure(rule, { documented: 'x', exchange: ex }))!.refusal;
    const same = refusal('Q-INFO-013', exchange(QUOTE, 400, REJECTED))!;
    expect(same).toMatchObject({ queryParams: 1, bodyLength: 0 });
    // Another rule, another query, another credential: the same refusal.
    expect(refusal('Q-PARAM-004', exchange(`${QUOTE}&slippageBps=1`, 400, REJECTED))).toEqual({ ...same, queryParams: 2 });
    expect(refusal('Q-PARAM-004', exchange(QUOTE, 400, REJECTED, { accept: 'application/json', 'x-api-key': 'k2' }))?.key).toBe(same.key);
    // Another Accept, path, status, code or message: another refusal.
    for (const other of [
      exchange(QUOTE, 400, REJECTED, { accept: 'application/vnd.msgpack' }),
      exchange(QUOTE, 400, REJECTED, {}),
      exchange(QUOTE.replace('/api/', '/gateway/api/'), 400, REJECTED),
      exchange(QUOTE, 422, REJECTED),
      exchange(QUOTE, 400, { ...REJECTED, code: 3 }),
      exchange(QUOTE, 400, { ...REJECTED, message: 'another' }),
    ])
      expect(refusal('Q-INFO-013', other)?.key).not.toBe(same.key);
    // Not an error refusal: a 5xx, a 200, an error without a code or with an empty message keep the strict key alone.
    expect(refusal('Q-INFO-013', exchange(QUOTE, 500, REJECTED))).toBeUndefined();
    expect(refusal('Q-INFO-013', exchange(QUOTE, 200, { quotes: [] }))).toBeUndefined();
    expect(refusal('Q-INFO-013', exchange(QUOTE, 400, { message: REJECTED.message }))).toBeUndefined();
    expect(refusal('Q-INFO-013', exchange(QUOTE, 400, { ...REJECTED, message: ' ' }))).toBeUndefined();
  });

  test('one refusal, one root: the others are blocked by it and their rules are not failed; distinct answers stay roots', () => {
    const refused = (query: string) => exchange(`${QUOTE}${query}`, 400, REJECTED);
    const info = exchange('http://127.0.0.1:9/api/v1/info', 200, { settings: {} });
    const results = [
      // Blocked: checks of other rules that got the same refusal to other requests: with more query parameters, through
      // the control API, later by name.
      failing('a-check', 'Q-PARAM-004', refused('&slippageBps=1')),
      { ...failing('a-control-check', 'Q-PARAM-015', refused('')), judgedThrough: 'control' as const },
      failing('d-check', 'Q-PARAM-015', refused('')),
      // Blocked: a check of another rule that failed Q-INFO-013 on the same answer (a harness violation).
      failing('b-check', 'Q-INFO-013', refused(''), ['Q-PARAM-004']),
      // The root: a gating check asserting its own rule, with the simplest request, through the services alone, first by name.
      failing('c-check', 'Q-INFO-013', refused('')),
      // Distinct: another path, status, code, message.
      failing('f-check', 'Q-DIST-007', exchange(QUOTE.replace('/api/', '/gateway/api/'), 400, REJECTED)),
      failing('g-check', 'Q-PARAM-021', exchange(QUOTE, 422, REJECTED)),
      failing('h-check', 'Q-PARAM-022', exchange(QUOTE, 400, { ...REJECTED, code: 3 })),
      failing('i-check', 'Q-PARAM-025', exchange(QUOTE, 400, { ...REJECTED, message: 'numQuotes is not a number' })),
      // Distinct: a 200 judged wrong by two rules is two violations.
      failing('j-check', 'Q-INFO-003', info),
      failing('k-check', 'Q-INFO-004', info),
      // The same rule broken by the same answer of the same operation, asked in MessagePack: one violation (j-check's).
      failing('l-check', 'Q-INFO-003', { ...info, request: { ...info.request, headers: { accept: 'application/vnd.msgpack' } } }),
      // ... but not another status of it.
      failing('m-check', 'Q-INFO-003', exchange('http://127.0.0.1:9/api/v1/info', 500, { settings: {} })),
    ];
    const m = buildMatrix(results, allChecks, run, 'test');
    expectValidMatrix(m);
    const blocked = ['a-check', 'a-control-check', 'b-check', 'd-check'];
    expect(m.summary.failures.find((f) => f.check === 'c-check')).toMatchObject({ rule: 'Q-INFO-013', blocked });
    expect(m.summary.failures.map((f) => f.check).sort()).toEqual([
      'c-check',
      'f-check',
      'g-check',
      'h-check',
      'i-check',
      'j-check',
      'k-check',
      'm-check',
    ]);
    expect(m.checks.find((r) => r.check === 'l-check')?.blockedBy).toBe('j-check');
    expect(m.summary).toMatchObject({ verdict: 'fail', gatingFailures: 8, blocked: 5, checks: { fail: 13 } });
    // Only the reports' attribution changes: every check keeps its verdict and the rule it failed.
    expect(m.checks.map((r) => [r.check, r.verdict, r.rule])).toEqual(results.map((r) => [r.check, 'fail', r.rule]));
    for (const check of blocked) expect(m.checks.find((r) => r.check === check)?.blockedBy).toBe('c-check');
    // Only the root's rule fails; a rule whose only failures are blocked is not judged, and says by what.
    const row = (id: string) => m.rules.find((r) => r.id === id)!;
    expect(['Q-INFO-013', 'Q-DIST-007', 'Q-INFO-003', 'Q-INFO-004'].map((id) => row(id).verdict)).toEqual(['fail', 'fail', 'fail', 'fail']);
    expect(row('Q-PARAM-015').verdict).toBe('blocked');
    expect(row('Q-PARAM-004').verdict).toBe('blocked');
    expect(m.summary.rules.blocked).toBe(2);
    expect(m.summary.gating.notJudged.blocked).toBe(2);
    const md = renderMarkdown(m);
    expect(md).toContain('| Q-PARAM-015 | must | documented | blocked |');
    expect(md).toContain('d-check: blocked by c-check (not judged)');
    // Nothing is hidden: every blocked check is named under its root, with the rule it failed.
    const named =
      '4 checks could not go further because of it: a-check (Q-PARAM-004), a-control-check (Q-PARAM-015), b-check, d-check (Q-PARAM-015)';
    expect(md).toContain(named);
    expect(renderHtml(m)).toContain(named);
    // What the refusal key keeps apart (another path) is said once, as a hint.
    expect(md).toContain(
      'note: 2 of these failures got the same answer, 400 7 "numQuotes must be between 1 and 10, got 20", to different requests (c-check, f-check)',
    );
    const xml = renderJUnit(m, () => 'group');
    expect(xml.match(/<failure /g)).toHaveLength(8);
    expect(xml.match(/<skipped message="BLOCKED by check &quot;c-check&quot;/g)).toHaveLength(4);
    expect(xml).toContain(`blocked:    ${named}`);
    // Grouping again (merged shards, in another order) gives the same roots.
    const again = buildMatrix([...m.checks].reverse(), allChecks, run, 'test');
    expect(again.summary.failures.map((f) => [f.check, f.blocked]).sort()).toEqual(
      m.summary.failures.map((f) => [f.check, f.blocked]).sort(),
    );
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
      'info-publishes|the-four-key-path|ranged-parameters-accept|routes-are-built-with-at-most|novoteaccounts-true',
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
    // The engine's refusal of numQuotes=20 is another answer: one root of its own, on the rule that answer violates
    // (the check of the published ranges, with the simplest request), and the checks that got it to their own requests
    // blocked by it, their rules not judged.
    const refusal = m.summary.failures.find((f) => f.rule === 'Q-INFO-013')!;
    expect(refusal).toMatchObject({
      check: 'ranged-parameters-accept-every-value-of-the-published-range',
      blocked: ['novoteaccounts-true-and-false-are-accepted', 'routes-are-built-with-at-most-the-requested-slippagebps'],
    });
    expect(refusal.answer).toMatch(/ -> 400 7 "numQuotes must be between 1 and 10, got 20"$/);
    expect(m.summary.failures.map((f) => f.rule).sort()).toEqual(['Q-INFO-003', 'Q-INFO-013']);
    expect(m.summary.blocked).toBe(info.blocked.length + 2);
    expect(m.rules.filter((row) => ['Q-PARAM-004', 'Q-PARAM-015'].includes(row.id)).map((row) => row.verdict)).toEqual([
      'blocked',
      'blocked',
    ]);
    // The blocked checks' own rules held: they are not failures of their own rules.
    expect(m.rules.find((row) => row.id === 'Q-INFO-004')?.verdict).toBe('pass');
    expect(r.stdout).toContain(`${info.blocked.length} checks could not go further because of it`);
    expect(r.stdout).toContain(
      '2 checks could not go further because of it: novoteaccounts-true-and-false-are-accepted (Q-PARAM-015), ' +
        'routes-are-built-with-at-most-the-requested-slippagebps (Q-PARAM-004)',
    );
    expect(r.stdout).toMatch(/rules: .* 2 fail, 2 blocked,/);
    expect(r.stdout.match(/FAIL Q-INFO-003/g)).toHaveLength(1);
    const xml = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(xml.match(/<failure /g)).toHaveLength(m.summary.gatingFailures);
    expect(xml.match(/<skipped message="BLOCKED by check/g)).toHaveLength(m.summary.blocked);
    // Allure says the same: the root is a failed test (a product defect, not broken), the blocked ones skipped.
    const allure = join(dir, 'allure-results');
    const tests = readdirSync(allure)
      .filter((f) => f.endsWith('-result.json'))
      .map(
        (f) =>
          JSON.parse(readFileSync(join(allure, f), 'utf8')) as {
            name: string;
            status: string;
            statusDetails?: { message?: string };
            links: Array<{ url: string }>;
          },
      );
    const status = (check: string) => tests.find((t) => t.name.startsWith(`${check} [`))?.status;
    expect([info.check, refusal.check].map(status)).toEqual(['failed', 'failed']);
    for (const blocked of [...info.blocked, ...refusal.blocked]) expect(status(blocked), blocked).toBe('skipped');
    // The root's message names the checks it blocked, as the other reports do.
    expect(tests.find((t) => t.name.startsWith(`${refusal.check} [`))?.statusDetails?.message).toMatch(
      /\n\n2 checks could not go further because of it: novoteaccounts-true-and-false-are-accepted \(Q-PARAM-015\), /,
    );
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
