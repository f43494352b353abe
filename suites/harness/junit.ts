/**
 * junit.xml of a run, written from the same check results as the matrix, so that CI's test tab and the matrix agree:
 * - a gating failure is a `<failure>` (the failure block, with the check's source line and its replay), once per root
 *   cause, naming the checks it blocked: a check that got the same failing answer (root-cause.ts) is
 *   `<skipped message="BLOCKED by check …">`;
 * - a non-gating failure, a skipped, unsupported or setup-failed check is a `<skipped message="VERDICT: reason">`,
 *   its whole text in `<system-out>`: never an empty passing testcase;
 * - every testcase carries its verdict, rules and source as properties; errors outside any check are `<error>`s.
 * Test names are `check-name [RULE-IDS]`, in one testsuite per check group (`orders/onboarding`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Matrix } from './matrix.ts';
import { blockedLine } from './matrix/lines.ts';
import { redact } from './redact.ts';
import type { CheckResult } from './runner.ts';
import { escapeControls } from './terminal.ts';

/** The first line of a non-pass result as CI shows it: `SETUP-FAILED: reason`, `FAIL (not gating: must, assumed): …`. */
export function verdictLine(r: CheckResult): string {
  const first = (r.message ?? '').split('\n')[0]!;
  if (r.verdict === 'fail' && r.blockedBy) return `BLOCKED by check "${r.blockedBy}" (the root cause, same answer): ${first}`;
  if (r.verdict === 'fail') return `${r.gating ? 'FAIL' : `FAIL (not gating: ${r.level}, ${r.basis})`}: ${first}`;
  return `${r.verdict.toUpperCase()}: ${first}`;
}

/** A `<failure>`: a gating failure that is a root cause (one blocked by another check's failure is counted there). */
function gatingRoot(r: CheckResult): boolean {
  return r.verdict === 'fail' && r.gating && !r.blockedBy;
}

/** XML text with the five entities escaped (the characters XML 1.0 cannot carry are escaped on the whole file). */
function xml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** `blocked`: the line naming the checks this root cause blocked, if any (lines.ts blockedLine). */
function testcase(r: CheckResult, group: string, blocked?: string): string[] {
  const properties = [
    ['verdict', r.verdict],
    ['gating', String(r.gating)],
    ['rules', r.rules.join(' ')],
    ...(r.rule ? [['rule', r.rule]] : []),
    ...(r.blockedBy ? [['blocked-by', r.blockedBy]] : []),
    ...(r.replay ? [['replay', r.replay]] : []),
    ...(r.source ? [['source', r.source]] : []),
    ...(r.unjudged
      ? [
          ['precondition', r.unjudged.id],
          ['fix', r.unjudged.fix],
        ]
      : []),
    ...r.notes.map((note) => ['note', note]),
  ];
  const lines = [
    `    <testcase classname="${xml(group)}" name="${xml(`${r.check} [${r.rules.join(' ')}]`)}" time="${(r.durationMs / 1000).toFixed(3)}">`,
    '      <properties>',
    ...properties.map(([name, value]) => `        <property name="${xml(name!)}" value="${xml(value!)}"/>`),
    '      </properties>',
  ];
  const text = `${r.message ?? ''}${blocked ? `\n  blocked:    ${blocked}` : ''}${r.replay ? `\n  replay:     ${r.replay}` : ''}`;
  if (gatingRoot(r)) {
    lines.push(`      <failure message="${xml(verdictLine(r))}" type="${xml(r.rule ?? 'fail')}">${xml(text)}</failure>`);
  } else if (r.verdict !== 'pass') {
    lines.push(`      <skipped message="${xml(verdictLine(r))}"/>`, `      <system-out>${xml(text)}</system-out>`);
  }
  lines.push('    </testcase>');
  return lines;
}

/** The junit.xml text of a matrix; `groupOf` names the group of a check (its testsuite). */
export function renderJUnit(m: Matrix, groupOf: (check: string) => string): string {
  const groups = new Map<string, CheckResult[]>();
  for (const r of m.checks) {
    const group = groupOf(r.check);
    groups.set(group, [...(groups.get(group) ?? []), r]);
  }
  const counts = (results: CheckResult[]) => ({
    tests: results.length,
    failures: results.filter(gatingRoot).length,
    skipped: results.filter((r) => r.verdict !== 'pass' && !gatingRoot(r)).length,
    time: (results.reduce((sum, r) => sum + r.durationMs, 0) / 1000).toFixed(3),
  });
  const attrs = (c: ReturnType<typeof counts>, errors: number) =>
    `tests="${c.tests}" failures="${c.failures}" errors="${errors}" skipped="${c.skipped}" time="${c.time}"`;
  const errors = m.summary.errors ?? [];
  const blocked = new Map((m.summary.failures ?? []).filter((f) => f.blocked.length > 0).map((f) => [f.check, blockedLine(m, f)]));
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="conformance ${xml(m.summary.verdict)}" ${attrs(counts(m.checks), errors.length)}>`,
  ];
  for (const [group, results] of groups) {
    lines.push(
      `  <testsuite name="${xml(group)}" timestamp="${xml(m.run.startedAt)}" ${attrs(counts(results), 0)}>`,
      ...results.flatMap((r) => testcase(r, group, blocked.get(r.check))),
      '  </testsuite>',
    );
  }
  if (errors.length > 0) {
    lines.push(
      `  <testsuite name="outside any check" tests="${errors.length}" failures="0" errors="${errors.length}" skipped="0" time="0">`,
    );
    errors.forEach((e, i) =>
      lines.push(
        `    <testcase classname="run" name="error ${i + 1}" time="0">`,
        `      <error message="${xml(e.split('\n')[0]!)}">${xml(e)}</error>`,
        '    </testcase>',
      ),
    );
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return escapeControls(redact(lines.join('\n'))) + '\n';
}

export function writeJUnit(dir: string, m: Matrix, groupOf: (check: string) => string): void {
  writeFileSync(join(dir, 'junit.xml'), renderJUnit(m, groupOf));
}
