// specs/rules/*.yaml, specs/capabilities.yaml and the services' OpenAPI documents -> generators/out/rule-ids.ts (the
// `RuleId` union), generators/out/capabilities.ts (the closed capability list), generators/out/pubkey-positions.ts
// (where the quote service's answers carry public keys), generators/out/order-enums.ts (the order service's order
// types and statuses) and generators/out/catalogue.jsonc (the rule catalogue as JSON, catalogue-build.ts). Each file starts with the generated-code header: its
// sources with their sha256 and this generator's own sha256; a file whose header differs from the one the current
// sources give is stale (no parsing needed to tell).
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { CATALOGUE_BUILD_FILE, CATALOGUE_FILE, catalogueJson, ruleFiles } from './catalogue-build.js';
import { ROOT, displayPath } from './config.js';
import { sha256 } from './stamp.js';

export const RULES_DIR = join(ROOT, 'specs', 'rules');
export const CAPABILITIES_FILE = join(ROOT, 'specs', 'capabilities.yaml');
export const QUOTE_SPEC_FILE = join(ROOT, 'specs', 'swap-quote.openapi.yaml');
export const ORDER_SPEC_FILE = join(ROOT, 'specs', 'order-automation.openapi.yaml');

/** The order service's enumerations the suite and the reference server both list: constant name -> schema name. */
const ORDER_ENUMS: Readonly<Record<string, string>> = {
  ORDER_TYPES: 'OrderType',
  ORDER_STATUSES: 'OrderStatus',
  TERMINAL_ORDER_STATUSES: 'TerminalOrderStatus',
};
const SELF = fileURLToPath(import.meta.url);

type Schema = Record<string, unknown>;

/** The response bodies of the quote service that carry public keys: quote/swap (and its stream), and venues. */
const KEYED_RESPONSES = ['QuoteResponse', 'VenuesResponse'];
const PUBKEY_REF = '#/components/schemas/Base58Pubkey';

/** The paths (from the body's root, `*` for any key or index) at which `schema` places a Base58Pubkey. */
function pubkeyPaths(schemas: Record<string, Schema>, schema: Schema, at: string[] = []): string[] {
  if (schema.$ref === PUBKEY_REF) return [at.join('.')];
  if (typeof schema.$ref === 'string') return pubkeyPaths(schemas, schemas[schema.$ref.split('/').pop()!]!, at);
  const found: string[] = [];
  for (const part of [...((schema.allOf as Schema[]) ?? []), ...((schema.anyOf as Schema[]) ?? [])])
    found.push(...pubkeyPaths(schemas, part, at));
  for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, Schema>))
    found.push(...pubkeyPaths(schemas, child, [...at, name]));
  if (schema.items) found.push(...pubkeyPaths(schemas, schema.items as Schema, [...at, '*']));
  if (typeof schema.additionalProperties === 'object')
    found.push(...pubkeyPaths(schemas, schema.additionalProperties as Schema, [...at, '*']));
  return found;
}

interface VocabularyFile {
  /** Name inside the output directory. */
  name: string;
  sources(): string[];
  body(sources: readonly string[]): string;
}

const FILES: readonly VocabularyFile[] = [
  // The rule catalogue as JSON after the header (catalogue-build.ts, which shapes it, is among its sources).
  { name: CATALOGUE_FILE, sources: () => [...ruleFiles(RULES_DIR), CATALOGUE_BUILD_FILE], body: catalogueJson },
  {
    name: 'rule-ids.ts',
    sources: () =>
      readdirSync(RULES_DIR)
        .filter((f) => f.endsWith('.yaml'))
        .sort()
        .map((f) => join(RULES_DIR, f)),
    body: (sources) => {
      const ids = sources.flatMap((file) => {
        const doc = parse(readFileSync(file, 'utf8')) as { rules?: { id: string }[] } | null;
        return (doc?.rules ?? []).map((r) => r.id);
      });
      const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
      if (twice.length > 0) throw new Error(`specs/rules: rule ids listed twice: ${twice.join(', ')}`);
      return [
        '/** Every rule id of the catalogue (specs/rules/*.yaml): a misspelt rule id is a type error. */',
        'export type RuleId =',
        ...ids.map((id, i) => `  | '${id}'${i === ids.length - 1 ? ';' : ''}`),
      ].join('\n');
    },
  },
  {
    name: 'capabilities.ts',
    sources: () => [CAPABILITIES_FILE],
    body: ([file]) => {
      const doc = parse(readFileSync(file!, 'utf8')) as { capabilities?: Record<string, string> } | null;
      const names = Object.keys(doc?.capabilities ?? {});
      if (names.length === 0) throw new Error(`${displayPath(file!)}: no capabilities`);
      return [
        '/** The closed list of target capabilities (GET /__control/capabilities), in the order of specs/capabilities.yaml. */',
        `export const CAPABILITIES = [${names.map((n) => `'${n}'`).join(', ')}] as const;`,
        'export type Capability = (typeof CAPABILITIES)[number];',
      ].join('\n');
    },
  },
  {
    name: 'order-enums.ts',
    sources: () => [ORDER_SPEC_FILE],
    body: ([file]) => {
      const doc = parse(readFileSync(file!, 'utf8')) as { components?: { schemas?: Record<string, Schema> } } | null;
      const schemas = doc?.components?.schemas ?? {};
      return Object.entries(ORDER_ENUMS)
        .flatMap(([name, schema]) => {
          const values = schemas[schema]?.enum;
          if (!Array.isArray(values) || values.length === 0) throw new Error(`${displayPath(file!)}: no enum ${schema}`);
          return [
            `/** components.schemas.${schema} */`,
            `export const ${name} = [${values.map((v) => `'${String(v)}'`).join(', ')}] as const;`,
          ];
        })
        .join('\n');
    },
  },
  {
    name: 'pubkey-positions.ts',
    sources: () => [QUOTE_SPEC_FILE],
    body: ([file]) => {
      const doc = parse(readFileSync(file!, 'utf8')) as { components?: { schemas?: Record<string, Schema> } } | null;
      const schemas = doc?.components?.schemas ?? {};
      const missing = KEYED_RESPONSES.filter((name) => !schemas[name]);
      if (missing.length > 0) throw new Error(`${displayPath(file!)}: no schema ${missing.join(', ')}`);
      const positions = [...new Set(KEYED_RESPONSES.flatMap((name) => pubkeyPaths(schemas, schemas[name]!)))];
      return [
        `/** Where ${KEYED_RESPONSES.join(' and ')} carry a Base58Pubkey, from the body's root (\`*\`: any key or index). */`,
        'export const PUBKEY_POSITIONS = [',
        ...positions.map((p) => `  '${p}',`),
        '] as const;',
      ].join('\n');
    },
  },
];

function header(sources: readonly string[]): string[] {
  return [
    'generated — do not edit; regenerate with `npm run generate` (generators/generate.ts)',
    ...sources.map((s) => `source: ${displayPath(s)} sha256 ${sha256(readFileSync(s))}`),
    `generator: ${displayPath(SELF)} sha256 ${sha256(readFileSync(SELF))}`,
  ].map((l) => `// ${l}`);
}

/** The files of `outDir` that are missing or stale, each with the reason. */
export function staleVocabulary(outDir: string): string[] {
  const stale: string[] = [];
  for (const f of FILES) {
    const path = join(outDir, f.name);
    if (!existsSync(path)) {
      stale.push(`${f.name} is missing`);
      continue;
    }
    const expected = header(f.sources());
    const actual = readFileSync(path, 'utf8')
      .split('\n')
      .slice(0, expected.length + 1);
    if (actual.join('\n') !== [...expected, ''].join('\n')) stale.push(`${f.name} does not match its sources`);
  }
  return stale;
}

/** Write every vocabulary file to `outDir`; returns the names written. */
export function generateVocabulary(outDir: string): string[] {
  mkdirSync(outDir, { recursive: true });
  for (const f of FILES) {
    const sources = f.sources();
    const path = join(outDir, f.name);
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${header(sources).join('\n')}\n\n${f.body(sources)}\n`);
    renameSync(tmp, path);
  }
  return FILES.map((f) => f.name);
}

/** Regenerate the vocabulary files of `outDir` when one is missing or stale (atomic writes: concurrent callers are safe). */
export function ensureVocabulary(outDir: string): void {
  if (staleVocabulary(outDir).length > 0) generateVocabulary(outDir);
}
