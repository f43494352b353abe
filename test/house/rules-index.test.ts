/**
 * reports/rules.md, the rules index (bin/rules-index.ts), is written on every `npm test`, so it never goes stale; and
 * every link it gives leads somewhere: each check to its line, each mutant to its line and to the server modules behind
 * its hook points.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';
import { RULES_MD, writeRulesIndex, writtenRules, type RulesIndex } from '../../bin/rules-index.ts';
import { loadCatalogue } from '../../suites/harness/rules.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const exists = (site: string): boolean => existsSync(`${ROOT}${site.replace(/:\d+$/, '')}`);

let index: RulesIndex;
beforeAll(async () => {
  index = await writeRulesIndex();
});

describe('reports/rules.md', () => {
  test('is written with one section per rule of the catalogue', () => {
    const text = readFileSync(RULES_MD, 'utf8');
    const ids = [...loadCatalogue().rules.keys()];
    expect(index.entries.map((e) => e.rule.id)).toEqual(ids);
    for (const id of ids) expect(text, id).toContain(`### ${id}\n`);
  });

  test('every check citation points at the line of an existing file of suites/', () => {
    const citations = index.entries.flatMap((e) => e.citations);
    expect(citations.length).toBeGreaterThan(500);
    expect(
      citations.filter((c) => !/^suites\/.+\.ts:\d+$/.test(c.source) || !exists(c.source)).map((c) => `${c.check}: ${c.source}`),
    ).toEqual([]);
  });

  test('every mutant points at its line and at the server modules behind its hook points', () => {
    const links = index.entries.flatMap((e) => e.mutants);
    expect(links.length).toBeGreaterThan(400);
    const broken = links.filter((m) => !/:\d+$/.test(m.source) || m.serverFiles.length === 0 || !m.serverFiles.every(exists));
    expect(broken.map((m) => `${m.name}: ${m.source} ${m.hookPoints.join(',')} -> ${m.serverFiles.join(',')}`)).toEqual([]);
  });

  test('a check that spreads a rule-list constant is listed with its expansion, and each rule cites it via the constant', () => {
    const text = readFileSync(RULES_MD, 'utf8');
    const user = index.spreads.filter((s) => s.constant === 'USER_ORDER_RULES').map((s) => s.check);
    expect(user).toEqual(
      expect.arrayContaining([
        'dca-order-before-its-first-cycle-has-no-last-execution',
        'execution-fee-snapshot-follows-the-tenant-fee-settings',
      ]),
    );
    for (const s of index.spreads) {
      expect(text, s.check).toContain(
        `${s.check}](../${s.source.replace(/:(\d+)$/, '#L$1')}) spreads \`${s.constant}\`: ${s.rules.join(', ')}`,
      );
      const literal = writtenRules(`${ROOT}${s.source.replace(/:\d+$/, '')}`, s.check)?.literal ?? [];
      for (const id of s.rules) {
        const citation = index.entries.find((e) => e.rule.id === id)?.citations.find((c) => c.check === s.check);
        // A rule the check also names literally is cited as such (a grep finds it in the check).
        if (literal.includes(id)) expect(citation?.via, `${s.check} ${id}`).toEqual([]);
        else expect(citation?.via, `${s.check} ${id}`).toContain(s.constant);
      }
    }
  });

  test('rule-list constants are expanded to rule ids of the catalogue', () => {
    const { rules } = loadCatalogue();
    expect(index.constants.length).toBeGreaterThan(0);
    expect(index.constants.flatMap((c) => c.rules.filter((id) => !rules.has(id)).map((id) => `${c.name}: ${id}`))).toEqual([]);
  });
});
