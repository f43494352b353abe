/**
 * allure-results of a run, completed from the matrix once the run ends (the matrix reporter calls it), so that Allure
 * says what the matrix and junit.xml say:
 * - each test's status is its check's verdict: a gating failure is `failed` (a product defect, never `broken`, which
 *   Allure keeps for errors of the suite itself); a failure blocked by another check's (one root cause) and every verdict
 *   that is not judged or not gating are `skipped`, with their verdict line as the message; a root cause's message
 *   ends with the checks it blocked;
 * - a link to each rule the check cites, in matrix.html next to the report (`../matrix.html#Q-INFO-003`);
 * - `environment.properties`: targets, profile, seed, mutant or variant, suite version and commit;
 * - `categories.json`: one category per verdict.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { verdictLine } from '../../suites/harness/junit.ts';
import type { Matrix } from '../../suites/harness/matrix.ts';
import { blockedLine, targetUrl } from '../../suites/harness/matrix/lines.ts';
import type { CheckResult } from '../../suites/harness/runner.ts';

/** Allure's categories, one per verdict; skipped tests are told apart by their message (verdictLine). */
export const CATEGORIES = [
  { name: 'FAIL: a gating rule broken (product defect)', matchedStatuses: ['failed'] },
  { name: 'FAIL, not gating (info, may or assumed rules)', matchedStatuses: ['skipped'], messageRegex: 'FAIL \\(not gating.*' },
  { name: 'BLOCKED: the root cause is another check’s failure', matchedStatuses: ['skipped'], messageRegex: 'BLOCKED by .*' },
  { name: 'SETUP-FAILED: a precondition broke (not judged)', matchedStatuses: ['skipped'], messageRegex: 'SETUP-FAILED: .*' },
  { name: 'UNSUPPORTED: a capability the target lacks', matchedStatuses: ['skipped'], messageRegex: 'UNSUPPORTED: .*' },
  { name: 'SKIPPED: outside the profile or nothing to judge', matchedStatuses: ['skipped'], messageRegex: 'SKIPPED: .*' },
  { name: 'Suite error (broken: a bug of the suite, not of the target)', matchedStatuses: ['broken'] },
];

/** A Java properties value: backslashes and line breaks escaped. */
function property(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\r?\n/g, '\\n');
}

export function environmentProperties(m: Matrix): string {
  const t = m.run.target;
  const entries: Array<[string, string | number | boolean | undefined]> = [
    ['orders.url', targetUrl(t, 'orders') + (t.embedded ? ' (embedded reference server)' : '')],
    ['quotes.url', targetUrl(t, 'quotes')],
    ['control.url', t.controlUrl],
    ['gateway.url', t.gatewayUrl],
    ['mutant', t.mutant],
    ['variant', t.variant],
    ['profile', m.run.profile + (m.run.strict ? ' (strict)' : '')],
    ['seed', m.run.seed],
    ['num.runs', m.run.numRuns],
    ['shard', m.run.shard],
    ['suite.version', m.suite.version],
    ['suite.commit', m.suite.commit],
    ['verdict', m.summary.verdict],
  ];
  return `${entries
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${property(String(v))}`)
    .join('\n')}\n`;
}

interface AllureResult {
  name?: string;
  status?: string;
  statusDetails?: { message?: string; trace?: string };
  links?: Array<{ name?: string; url: string; type?: string }>;
}

/** The status an Allure result of this check takes, and the message of a skipped one. */
function statusOf(r: CheckResult): { status: string; message?: string } {
  if (r.verdict === 'pass') return { status: 'passed' };
  if (r.verdict === 'fail' && r.gating && !r.blockedBy) return { status: 'failed' };
  return { status: 'skipped', message: verdictLine(r) };
}

/** The blocked checks a root cause's message ends with (a merged run's completion replaces a shard's). */
const BLOCKED_SUFFIX = /\n\n\d+ checks? could not go further because of it: [^\n]*$/;

/** Writes environment.properties and categories.json, and sets each check's status and rule links, in `dir`. */
export function completeAllureResults(dir: string, m: Matrix): void {
  if (!existsSync(dir)) return;
  writeFileSync(join(dir, 'environment.properties'), environmentProperties(m));
  writeFileSync(join(dir, 'categories.json'), `${JSON.stringify(CATEGORIES, null, 2)}\n`);
  const byTestName = new Map(m.checks.map((r) => [`${r.check} [${r.rules.join(' ')}]`, r]));
  const blockedBy = new Map(m.summary.failures.filter((f) => f.blocked.length > 0).map((f) => [f.check, blockedLine(m, f)]));
  for (const file of readdirSync(dir).filter((f) => f.endsWith('-result.json'))) {
    const path = join(dir, file);
    const result = JSON.parse(readFileSync(path, 'utf8')) as AllureResult;
    const check = result.name === undefined ? undefined : byTestName.get(result.name);
    if (!check) continue;
    const { status, message } = statusOf(check);
    result.status = status;
    const blocked = blockedBy.get(check.check);
    const shown = (message ?? result.statusDetails?.message)?.replace(BLOCKED_SUFFIX, '');
    if (shown !== undefined || blocked)
      result.statusDetails = { ...result.statusDetails, message: `${shown ?? ''}${blocked ? `\n\n${blocked}` : ''}` };
    result.links = [
      ...(result.links ?? []).filter((l) => l.type !== 'rule'),
      ...check.rules.map((id) => ({ name: id, url: `../matrix.html#${id}`, type: 'rule' })),
    ];
    writeFileSync(path, JSON.stringify(result));
  }
}
