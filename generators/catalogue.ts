// The rule catalogue as generators/out/catalogue.jsonc holds it (catalogue-build.ts), written again first when missing
// or stale: JSON read once per process instead of the YAML parsed (issue 17). suites/harness/rules.ts builds on it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOGUE_FILE, type CatalogueData } from './catalogue-build.js';
import { DEFAULT_OUT_DIR } from './config.js';
import { ensureVocabulary } from './vocabulary-build.js';

export type { CatalogueArea, CatalogueData, CatalogueRule } from './catalogue-build.js';
export { catalogueData, ruleFiles } from './catalogue-build.js';

/** The catalogue of specs/rules/*.yaml, from `outDir` (its header checked against the sources' sha256 first). */
export function loadGeneratedCatalogue(outDir = DEFAULT_OUT_DIR): CatalogueData {
  ensureVocabulary(outDir);
  const text = readFileSync(join(outDir, CATALOGUE_FILE), 'utf8');
  // The generated-code header (`//` lines), a blank line, then the JSON.
  return JSON.parse(text.slice(text.indexOf('\n\n') + 2)) as CatalogueData;
}
