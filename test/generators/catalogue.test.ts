/**
 * The rule catalogue each process loads is generators/out/catalogue.jsonc (generators/catalogue.ts), not the YAML
 * parsed again (issue 17): it holds what specs/rules/*.yaml say, and a file whose header no longer matches its
 * sources (a rule file changed) is written again before it is read.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { CATALOGUE_FILE } from '../../generators/catalogue-build.ts';
import { catalogueData, loadGeneratedCatalogue, ruleFiles } from '../../generators/catalogue.ts';
import { generateVocabulary, staleVocabulary } from '../../generators/vocabulary-build.ts';
import { loadCatalogue, RULES_DIR } from '../../suites/harness/rules.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the generated rule catalogue', () => {
  test('holds what the YAML files say, in their order', () => {
    const fromYaml = catalogueData(ruleFiles());
    expect(loadGeneratedCatalogue()).toEqual(fromYaml);
    const catalogue = loadCatalogue();
    expect([...catalogue.rules.keys()]).toEqual(fromYaml.rules.map((r) => r.id));
    // The other directories of loadCatalogue are parsed from their YAML: the same catalogue from the same files.
    expect(loadCatalogue(RULES_DIR.replace(/\/$/, ''))).toEqual(catalogue);
  });

  test('a stale file (its sources changed since it was written) is written again before it is read', () => {
    const out = mkdtempSync(join(tmpdir(), 'catalogue-'));
    dirs.push(out);
    generateVocabulary(out);
    expect(staleVocabulary(out)).toEqual([]);
    const file = join(out, CATALOGUE_FILE);
    // As if specs/rules/*.yaml had changed after the last generation: an older sha256 in the header, older data.
    const text = readFileSync(file, 'utf8').replace(/(source: specs\/rules\/\S+ sha256 )[0-9a-f]{64}/, `$1${'0'.repeat(64)}`);
    writeFileSync(file, `${text.slice(0, text.indexOf('\n\n'))}\n\n{"areas":[],"rules":[]}\n`);
    expect(staleVocabulary(out)).toEqual([`${CATALOGUE_FILE} does not match its sources`]);
    expect(loadGeneratedCatalogue(out)).toEqual(catalogueData(ruleFiles()));
    expect(staleVocabulary(out)).toEqual([]);
  });

  test('a rule id listed twice is refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rules-'));
    dirs.push(dir);
    const rule = '  - id: Q-X-001\n    statement: a\n';
    writeFileSync(join(dir, 'a.yaml'), `service: swap-quote\nrules:\n${rule}${rule}`);
    expect(() => catalogueData(ruleFiles(dir))).toThrow('duplicate rule id Q-X-001 in a.yaml');
  });
});
