// Freshness of generators/out: the spec hashes, the generator's own sources and tool versions.
// Light on purpose (node: modules only) so that a fresh check costs a few file reads.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { GENERATORS_DIR, displayPath, type SpecSource } from './config.js';
import type { SourceSpec, StampFile } from './model.js';

/** Files whose content shapes the output: editing one makes generators/out stale. */
export const GENERATOR_SOURCES = ['build.ts', 'openapi.ts', 'rule-map.ts', 'schema-walk.ts', 'config.ts', 'stamp.ts', 'model.ts'];
/** Packages whose version shapes the output. */
const TOOLS = ['ajv', 'openapi-typescript'];

export const STAMP_FILE = 'stamp.json';

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Hash each spec; a missing file gets `sha256: null`. */
export function hashSpecs(specs: readonly SpecSource[]): SourceSpec[] {
  return specs.map((s) => ({
    service: s.service,
    file: displayPath(s.path),
    sha256: existsSync(s.path) ? sha256(readFileSync(s.path)) : null,
  }));
}

let generatorHashCache: string | undefined;
export function generatorHash(): string {
  if (generatorHashCache) return generatorHashCache;
  const h = createHash('sha256');
  for (const f of GENERATOR_SOURCES) {
    h.update(`${f}\0`);
    h.update(readFileSync(join(GENERATORS_DIR, f)));
  }
  const require = createRequire(import.meta.url);
  for (const tool of TOOLS) {
    const pkg = JSON.parse(readFileSync(require.resolve(`${tool}/package.json`), 'utf8')) as { version: string };
    h.update(`${tool}@${pkg.version}\0`);
  }
  generatorHashCache = h.digest('hex');
  return generatorHashCache;
}

export function readStamp(outDir: string): StampFile | undefined {
  const p = join(outDir, STAMP_FILE);
  if (!existsSync(p)) return undefined;
  try {
    return JSON.parse(readFileSync(p, 'utf8')) as StampFile;
  } catch {
    return undefined;
  }
}

export type Freshness = { fresh: true } | { fresh: false; reason: string };

/** Is `outDir` the output of the given specs, with this generator? */
export function checkFreshness(outDir: string, specs: readonly SpecSource[]): Freshness {
  if (!existsSync(outDir)) return { fresh: false, reason: `${displayPath(outDir)} is missing` };
  const stamp = readStamp(outDir);
  if (!stamp) return { fresh: false, reason: `${displayPath(join(outDir, STAMP_FILE))} is missing or unreadable` };
  const now = hashSpecs(specs);
  const before = new Map(stamp.specs.map((s) => [`${s.service}\0${s.file}`, s.sha256]));
  if (before.size !== now.length) return { fresh: false, reason: 'the set of spec files changed' };
  for (const s of now) {
    const key = `${s.service}\0${s.file}`;
    if (!before.has(key)) return { fresh: false, reason: `${s.file} (${s.service}) was not an input of the last generation` };
    const old = before.get(key);
    if (old !== s.sha256) {
      const what =
        s.sha256 === null ? 'is now missing' : old === null ? 'appeared' : `changed (sha256 ${short(old)} -> ${short(s.sha256)})`;
      return { fresh: false, reason: `${s.file} ${what}` };
    }
  }
  if (stamp.generator !== generatorHash())
    return { fresh: false, reason: 'the generator (generators/*.ts or ajv/openapi-typescript) changed' };
  for (const f of stamp.files) {
    if (!existsSync(join(outDir, f))) return { fresh: false, reason: `${f} is missing from ${displayPath(outDir)}` };
  }
  return { fresh: true };
}

function short(h: string | null | undefined): string {
  return h ? h.slice(0, 12) : 'none';
}
