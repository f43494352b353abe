// The rule catalogue (specs/rules/*.yaml) as plain data. vocabulary-build.ts writes it to generators/out/catalogue.jsonc
// with the generated-code header (the YAML files and this file with their sha256), so that each process of a run reads
// JSON instead of parsing the YAML (catalogue.ts); a rule file's change makes it stale, and it is written again.
import { readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { ROOT } from './config.js';

/** This file: a source of catalogue.jsonc, since it shapes it. */
export const CATALOGUE_BUILD_FILE = fileURLToPath(import.meta.url);
export const CATALOGUE_FILE = 'catalogue.jsonc';

export interface CatalogueArea {
  service: string;
  prefix: string;
  area: string;
  description: string;
}

/** A rule as its file lists it, with its file's `service` and `capabilities` defaulting to none. */
export type CatalogueRule = Record<string, unknown> & { id: string; service: string; capabilities: unknown[] };

export interface CatalogueData {
  /** `OA-AUTH` -> the area, in the order of the files and of their `areas`. */
  areas: [string, CatalogueArea][];
  /** In the order of the files (by name) and of their `rules`. */
  rules: CatalogueRule[];
}

/** The catalogue's files in `dir`: every `*.yaml`, by name. */
export function ruleFiles(dir = join(ROOT, 'specs', 'rules')): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => join(dir, f));
}

/** Parse the catalogue's YAML files; throws on a rule id listed twice. */
export function catalogueData(files: readonly string[]): CatalogueData {
  const areas: CatalogueData['areas'] = [];
  const rules: CatalogueRule[] = [];
  const ids = new Set<string>();
  for (const file of files) {
    const doc = parse(readFileSync(file, 'utf8')) as {
      service: string;
      areas?: Record<string, string>;
      rules?: (Record<string, unknown> & { id: string; capabilities?: unknown[] })[];
    };
    const prefix = doc.service === 'order-automation' ? 'OA' : 'Q';
    for (const [area, description] of Object.entries(doc.areas ?? {})) {
      areas.push([`${prefix}-${area}`, { service: doc.service, prefix, area, description }]);
    }
    for (const r of doc.rules ?? []) {
      if (ids.has(r.id)) throw new Error(`duplicate rule id ${r.id} in ${basename(file)}`);
      ids.add(r.id);
      rules.push({ ...r, capabilities: r.capabilities ?? [], service: doc.service });
    }
  }
  return { areas, rules };
}

/** The body of catalogue.jsonc: the data of the YAML files among `sources` (the others are the generator's own). */
export function catalogueJson(sources: readonly string[]): string {
  return JSON.stringify(catalogueData(sources.filter((s) => s.endsWith('.yaml'))));
}
