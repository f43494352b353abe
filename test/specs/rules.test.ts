/** Lint of the rule catalogue (STYLE.md 7, test262 tools/lint): ids, fields, citations, coverage. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { mutants } from '../../fixtures/mutants/index.ts';
import { allChecks } from '../../suites/index.ts';
import { coverage } from '../../suites/harness/matrix.ts';
import { isAssumption } from '../../suites/harness/assumptions.ts';
import { decidingIds, loadCatalogue } from '../../suites/harness/rules.ts';
import { CAPABILITIES } from '../../suites/harness/types.ts';

const { rules, areas } = loadCatalogue();

/** specs/no-mutant.yaml: `must` rules without a mutant, with the reason. */
const noMutantReasons = (
  parse(readFileSync(new URL('../../specs/no-mutant.yaml', import.meta.url), 'utf8')) as { rules: Record<string, string> }
).rules;
/** The rule format of CONTRIBUTING.md (`service` is the file's, added by the loader). */
const RULE_FIELDS = new Set([
  'id',
  'service',
  'area',
  'statement',
  'source',
  'level',
  'basis',
  'exercise',
  'assumes',
  'observe',
  'capabilities',
  'unknown',
  'coveredBy',
]);

function xRules(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => xRules(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if ((k === 'x-rule' || k === 'x-default-rule') && typeof v === 'string') out.push(v);
      else xRules(v, out);
    }
  }
  return out;
}

describe('rule catalogue', () => {
  test('every rule is well formed', () => {
    const problems: string[] = [];
    for (const r of rules.values()) {
      const prefix = r.service === 'order-automation' ? 'OA' : 'Q';
      if (!new RegExp(`^${prefix}-[A-Z]+-\\d{3}$`).test(r.id)) problems.push(`${r.id}: id format`);
      if (!r.id.startsWith(`${prefix}-${r.area}-`)) problems.push(`${r.id}: id does not match area ${r.area}`);
      if (!areas.has(`${prefix}-${r.area}`)) problems.push(`${r.id}: area ${r.area} not declared`);
      if (!r.statement || !r.source) problems.push(`${r.id}: statement and source are required`);
      if (!['must', 'may', 'info'].includes(r.level)) problems.push(`${r.id}: level ${r.level}`);
      if (!['documented', 'assumed'].includes(r.basis)) problems.push(`${r.id}: basis ${r.basis}`);
      // A documented rule whose exercise rests on assumptions names them; an assumed rule's content is the assumption.
      if (r.exercise !== undefined && r.exercise !== 'assumed')
        problems.push(`${r.id}: exercise ${String(r.exercise)} (only "assumed", or absent)`);
      if ((r.exercise === 'assumed') !== (r.assumes ?? []).length > 0)
        problems.push(`${r.id}: assumes must be listed iff exercise is assumed`);
      if (r.exercise === 'assumed' && r.basis !== 'documented')
        problems.push(`${r.id}: exercise: assumed needs basis: documented (an assumed basis already covers the exercise)`);
      for (const a of r.assumes ?? [])
        if (!isAssumption(a)) problems.push(`${r.id}: unknown assumption ${a} (suites/harness/assumptions.ts)`);
      if (new Set(r.assumes ?? []).size !== (r.assumes ?? []).length) problems.push(`${r.id}: an assumption listed twice`);
      for (const key of Object.keys(r)) if (!RULE_FIELDS.has(key)) problems.push(`${r.id}: unknown field ${key}`);
      if (!['any', 'capability', 'opportunistic'].includes(r.observe)) problems.push(`${r.id}: observe ${r.observe}`);
      if ((r.observe === 'capability') !== r.capabilities.length > 0)
        problems.push(`${r.id}: capabilities must be listed iff observe is capability`);
      for (const c of r.capabilities)
        if (!(CAPABILITIES as readonly string[]).includes(c)) problems.push(`${r.id}: unknown capability ${c}`);
      for (const id of r.coveredBy ?? []) {
        if (!rules.has(id)) problems.push(`${r.id}: coveredBy names no rule ${id}`);
        else if (rules.get(id)!.coveredBy) problems.push(`${r.id}: coveredBy ${id}, itself covered by others`);
      }
    }
    expect(problems).toEqual([]);
  });

  test('every rule id cited by a check exists, and check names are unique', () => {
    const unknown = allChecks.flatMap((c) => c.rules.filter((id) => !rules.has(id)).map((id) => `${c.name} cites ${id}`));
    expect(unknown).toEqual([]);
    const names = allChecks.map((c) => c.name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  test('every rule id named by a mutant exists', () => {
    expect(mutants.filter((m) => !rules.has(m.rule)).map((m) => `${m.name}: ${m.rule}`)).toEqual([]);
  });

  test('a rule covered by others is cited by no check and named by no mutant (its facts are proven there)', () => {
    const merged = new Set([...rules.values()].filter((r) => r.coveredBy).map((r) => r.id));
    expect(allChecks.flatMap((c) => c.rules.filter((id) => merged.has(id)).map((id) => `${c.name} cites ${id}`))).toEqual([]);
    expect(mutants.filter((m) => merged.has(m.rule)).map((m) => `${m.name}: ${m.rule}`)).toEqual([]);
  });

  test('every must rule is covered by a check', () => {
    const uncovered = coverage(allChecks).uncovered.filter((id) => rules.get(id)?.level === 'must');
    expect(uncovered).toEqual([]);
  });

  test('every must rule has a mutant, or a one-line reason in specs/no-mutant.yaml, and no reason outlives its gap', () => {
    const broken = new Set<string>(mutants.map((m) => m.rule));
    const without = [...rules.values()].filter((r) => r.level === 'must' && !decidingIds(r).some((id) => broken.has(id))).map((r) => r.id);
    expect(
      without.filter((id) => !noMutantReasons[id]),
      'must rules with neither a mutant nor a reason',
    ).toEqual([]);
    expect(
      Object.keys(noMutantReasons).filter((id) => !without.includes(id)),
      'reasons for rules that have a mutant or are not must',
    ).toEqual([]);
    expect(
      Object.entries(noMutantReasons)
        .filter(([, reason]) => typeof reason !== 'string' || reason.includes('\n'))
        .map(([id]) => id),
    ).toEqual([]);
  });

  test('every x-rule in the specs exists', () => {
    const missing: string[] = [];
    for (const spec of ['order-automation', 'swap-quote']) {
      const doc = parse(readFileSync(new URL(`../../specs/${spec}.openapi.yaml`, import.meta.url), 'utf8'));
      for (const id of new Set(xRules(doc))) if (!rules.has(id)) missing.push(`${spec}: ${id}`);
    }
    expect(missing).toEqual([]);
  });

  test('coverage per service and area is printed and written to reports/', () => {
    const { rows, uncovered } = coverage(allChecks);
    const total = rows.reduce((n, r) => n + r.rules, 0);
    const covered = rows.reduce((n, r) => n + r.covered, 0);
    const lines = [
      `rule coverage: ${covered}/${total} rules have at least one check (${Math.round((100 * covered) / total)}%)`,
      ...rows.map((r) => `  ${r.service.padEnd(17)} ${r.area.padEnd(8)} ${String(r.covered).padStart(3)}/${String(r.rules).padEnd(3)}`),
      `uncovered (${uncovered.length}): ${uncovered.join(' ')}`,
    ];
    console.log(lines.join('\n'));
    const dir = new URL('../../reports/', import.meta.url);
    mkdirSync(dir, { recursive: true });
    writeFileSync(new URL('coverage.json', dir), JSON.stringify({ total, covered, rows, uncovered }, null, 2));
    writeFileSync(new URL('coverage.md', dir), `# Rule coverage\n\n\`\`\`\n${lines.join('\n')}\n\`\`\`\n`);
    expect(covered).toBeGreaterThan(0);
  });
});
