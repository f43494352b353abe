// specs/rules/*.yaml and specs/capabilities.yaml -> generators/out/rule-ids.ts (the `RuleId` union) and
// generators/out/capabilities.ts (the closed capability list). Each file starts with the generated-code header: its
// sources with their sha256 and this generator's own sha256; a file whose header differs from the one the current
// sources give is stale (no parsing needed to tell).
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { ROOT, displayPath } from './config.js';
import { sha256 } from './stamp.js';

export const RULES_DIR = join(ROOT, 'specs', 'rules');
export const CAPABILITIES_FILE = join(ROOT, 'specs', 'capabilities.yaml');
const SELF = fileURLToPath(import.meta.url);

interface VocabularyFile {
  /** Name inside the output directory. */
  name: string;
  sources(): string[];
  body(sources: readonly string[]): string;
}

const FILES: readonly VocabularyFile[] = [
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
