// ensureGenerated(): regenerate generators/out only when it is missing or stale. A fresh check reads the three
// specs and the generator sources and hashes them (no ajv, no openapi-typescript). Concurrent callers (vitest
// workers) serialise on a lock directory in the OS temp dir; the one that wins regenerates, the others re-check.
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_OUT_DIR, DEFAULT_SPECS, type SpecSource } from './config.js';
import { checkFreshness } from './stamp.js';

export interface EnsureOptions {
  specs?: readonly SpecSource[];
  outDir?: string;
  /** Called with one line when a regeneration happens. */
  log?: (line: string) => void;
}

const LOCK_STALE_MS = 120_000;
const LOCK_WAIT_MS = 180_000;

export async function ensureGenerated(options: EnsureOptions = {}): Promise<void> {
  const specs = options.specs ?? DEFAULT_SPECS;
  const outDir = options.outDir ?? DEFAULT_OUT_DIR;
  if (checkFreshness(outDir, specs).fresh) return;
  const lock = join(tmpdir(), `conformance-generate-${createHash('sha1').update(outDir).digest('hex').slice(0, 16)}.lock`);
  await acquire(lock);
  try {
    const f = checkFreshness(outDir, specs);
    if (f.fresh) return;
    const { generate } = await import('./build.js');
    let r;
    try {
      r = await generate({ specs, outDir, log: () => {} });
    } catch (e) {
      throw new Error(`${outDir} is stale (${f.reason}) and regenerating it failed: ${(e as Error).message}`);
    }
    (options.log ?? ((l: string) => console.warn(l)))(
      `regenerated ${outDir} (${f.reason}): ${r.operations} operations, ${r.validators} validators in ${r.ms} ms` +
        (r.skipped.length ? `; missing specs skipped: ${r.skipped.join(', ')}` : ''),
    );
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

async function acquire(lock: string): Promise<void> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    try {
      if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) rmSync(lock, { recursive: true, force: true });
    } catch {
      // removed by its owner meanwhile
    }
    if (Date.now() > deadline) throw new Error(`ensureGenerated: timed out waiting for ${lock}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
