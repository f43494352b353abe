// Shared by the generator property tests: the fixed seed, and generating a spec into a temporary directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, type GenerateResult } from '../../generators/build.ts';
import type { SpecSource } from '../../generators/config.ts';
import { loadGenerated, type GeneratedApi } from '../../generators/runtime.ts';

export const HERE = fileURLToPath(new URL('.', import.meta.url));
export const REPO = resolve(HERE, '..', '..');
export const FIXTURE_SPEC = join(HERE, 'fixture.openapi.yaml');
export const FIXTURE_SERVICE = 'fixture';

/** One seed for every property in these tests; override with GENERATOR_SEED to explore. */
export const SEED = Number(process.env['GENERATOR_SEED'] ?? 20_240_611);
export const NUM_RUNS = Number(process.env['GENERATOR_RUNS'] ?? 100);
export const FC = { seed: SEED, numRuns: NUM_RUNS } as const;

export function announceSeed(file: string): void {
  console.log(`[${file}] fast-check seed ${SEED}, ${NUM_RUNS} runs (replay: GENERATOR_SEED=${SEED})`);
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `gen-${prefix}-`));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export interface Generated {
  outDir: string;
  api: GeneratedApi;
  result: GenerateResult;
}

/** Generate `specs` into a fresh temporary directory and load it. */
export async function generateInto(specs: SpecSource[], prefix: string): Promise<Generated> {
  const outDir = tempDir(prefix);
  const result = await generate({ specs, outDir, log: () => {} });
  const api = await loadGenerated(outDir);
  return { outDir, api, result };
}

export function generateFixture(prefix = 'fixture'): Promise<Generated> {
  return generateInto([{ service: FIXTURE_SERVICE, path: FIXTURE_SPEC }], prefix);
}
