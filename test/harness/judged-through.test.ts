/**
 * Coverage by target kind (issue 16): per rule, how the checks that judged it reached the target (the control API, the
 * services alone, both), or that it is not judgeable there and what it needs; counted in the summary, shown in matrix.md
 * and matrix.html, and valid against specs/matrix.schema.json.
 */
import { expect, test } from 'vitest';
import { type Check, defineCheck } from '../../suites/harness/check.ts';
import { buildMatrix, judgedThroughLine, renderHtml, renderMarkdown } from '../../suites/harness/matrix.ts';
import type { CheckResult } from '../../suites/harness/runner.ts';
import { expectValidMatrix } from '../cli/matrix-schema.ts';
import { OFFLINE_RUN } from './offline-target.ts';

const result = (check: string, rule: string, verdict: CheckResult['verdict'], more: Partial<CheckResult> = {}): CheckResult => ({
  check,
  service: 'quotes',
  rules: [rule],
  verdict,
  gating: false,
  notes: [],
  requests: 1,
  waitMs: 0,
  durationMs: 1,
  ...more,
});

test('each judged rule says whether it was judged through the control API, the services alone, both, or not at all', () => {
  const results = [
    result('a', 'Q-INFO-002', 'pass', { judgedThrough: 'control' }),
    result('b', 'Q-INFO-003', 'pass', { judgedThrough: 'black-box' }),
    result('c', 'Q-INFO-004', 'pass', { judgedThrough: 'control' }),
    result('d', 'Q-INFO-004', 'fail', { judgedThrough: 'black-box', rule: 'Q-INFO-004', message: 'x' }),
    result('e', 'Q-INFO-005', 'unsupported', { notJudged: 'capability', message: 'the target does not offer: funding, clock' }),
    result('f', 'Q-INFO-005', 'unsupported', { notJudged: 'capability', message: 'the target does not offer the "prices" capability' }),
    // unsupported beside a pass: judged, and only the pass counts
    result('g', 'Q-INFO-006', 'unsupported', { notJudged: 'capability', message: 'the target does not offer: funding' }),
    result('h', 'Q-INFO-006', 'pass', { judgedThrough: 'black-box' }),
    result('i', 'Q-INFO-007', 'skipped', { message: 'no venue' }),
  ];
  const checks = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].map((name, i) =>
    defineCheck({ name, service: 'quotes', rules: results[i]!.rules as Check['rules'], profile: 'readonly', run: async () => {} }),
  );
  const m = buildMatrix(results, checks, { ...OFFLINE_RUN, profile: 'full' }, '0');
  const row = (id: string) => m.rules.find((r) => r.id === id)!;
  expect(['Q-INFO-002', 'Q-INFO-003', 'Q-INFO-004', 'Q-INFO-006'].map((id) => row(id).judgedThrough)).toEqual([
    'control',
    'black-box',
    'both',
    'black-box',
  ]);
  expect([row('Q-INFO-005').judgedThrough, row('Q-INFO-005').needs]).toEqual(['not-judgeable', ['clock', 'funding', 'prices']]);
  expect(row('Q-INFO-007').judgedThrough).toBeUndefined();
  expect(m.summary.judgedThrough).toEqual({ services: 3, controlOnly: 1, notJudgeable: 1 });
  expect(judgedThroughLine(m)).toBe('3 rules judged through the services alone, 1 only through the control API, 1 not judgeable here');
  expectValidMatrix(JSON.parse(JSON.stringify(m)));
  const md = renderMarkdown(m);
  expect(md).toContain(`**Judged through:** ${judgedThroughLine(m)}.`);
  expect(md).toMatch(/\| Q-INFO-004 \| [^\n]*\| fail \| both \|/);
  expect(md).toMatch(/\| Q-INFO-005 \| [^\n]*\| unsupported \| not judgeable here \(needs clock, funding, prices\) \|/);
  const html = renderHtml(m);
  expect(html).toContain('<th>Judged through</th>');
  expect(html).toMatch(/id="Q-INFO-002"[^\n]*<td>control<\/td>/);
  expect(html).toContain('<td>not judgeable here (needs clock, funding, prices)</td>');
});
