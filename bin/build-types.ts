/**
 * The declaration files of the package's API (bin/api.ts) and of what its types reach (the matrix, the config file,
 * the generated types of both services) into dist/types/, for partners' TypeScript. Each file is transpiled on its own
 * (ts.transpileDeclaration), and its `.ts` import specifiers become `.js`, which TypeScript resolves to the `.d.ts`
 * beside them.
 *
 * Run by two npm scripts (README "Installing from a git URL"):
 * - `prepack` (`npm pack`, `npm publish`): generators/out regenerated, then `tsx bin/build-types.ts`, always;
 * - `prepare` (`tsx bin/build-types.ts --if-stale`): npm runs it, after installing the devDependencies, in the clone
 *   of a git dependency (`npm install git+https://…`, `npx github:owner/repo`), where prepack does not run, and on a
 *   local `npm install`/`npm ci`. It regenerates generators/out and rebuilds the declarations only when they are
 *   missing or stale (dist/types-stamp.json: the hash of every source they were built from), so a second install
 *   costs a few file reads; without typescript (`npm ci --omit=dev`) it says so and leaves the types out.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'dist/types');
const STAMP = join(ROOT, 'dist/types-stamp.json');
const ENTRY = join(ROOT, 'bin/api.ts');

/** typescript, a devDependency: undefined where it is not installed. */
function typescript(): typeof ts | undefined {
  try {
    return createRequire(import.meta.url)('typescript') as typeof ts;
  } catch {
    return undefined;
  }
}

const hashOf = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

export function buildTypes(entry = ENTRY): string[] {
  const tsc = typescript();
  if (!tsc) throw new Error('building the declaration files needs typescript, a devDependency: it is not installed');
  rmSync(OUT, { recursive: true, force: true });
  rmSync(STAMP, { force: true });
  const done = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (done.has(file)) continue;
    done.add(file);
    const { outputText } = tsc.transpileDeclaration(readFileSync(file, 'utf8'), {
      fileName: file,
      compilerOptions: { module: tsc.ModuleKind.NodeNext, target: tsc.ScriptTarget.ES2022, allowImportingTsExtensions: true },
    });
    // `./x.ts` and `./x.js` (the generators' style) both name the source x.ts.
    const text = outputText.replace(/(from\s+|import\()(['"])(\.{1,2}\/[^'"]+)\.[jt]s\2/g, (_, pre, q, spec) => {
      const source = resolve(dirname(file), `${spec}.ts`);
      if (existsSync(source)) queue.push(source);
      return `${pre}${q}${spec}.js${q}`;
    });
    const out = join(OUT, relative(ROOT, file)).replace(/\.ts$/, '.d.ts');
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, text);
  }
  const sources = [...done].map((f) => relative(ROOT, f));
  writeFileSync(STAMP, `${JSON.stringify(Object.fromEntries(sources.map((f) => [f, hashOf(join(ROOT, f))])), null, 1)}\n`);
  return sources;
}

/** Why dist/types must be rebuilt, or undefined when it was built from the sources as they are now. */
export function staleTypes(): string | undefined {
  if (!existsSync(STAMP) || !existsSync(join(OUT, 'bin/api.d.ts'))) return 'missing';
  const built = JSON.parse(readFileSync(STAMP, 'utf8')) as Record<string, string>;
  const changed = Object.entries(built).find(([f, hash]) => !existsSync(join(ROOT, f)) || hashOf(join(ROOT, f)) !== hash);
  return changed ? `${changed[0]} changed` : undefined;
}

/** `--if-stale` (npm's prepare): generators/out, then the declarations, each only when missing or stale. */
async function prepare(): Promise<void> {
  if (!typescript()) {
    console.log('dist/types: not built: typescript (a devDependency) is not installed; `npm pack` and git installs build it');
    return;
  }
  const { checkFreshness } = await import('../generators/stamp.ts');
  const { staleVocabulary } = await import('../generators/vocabulary-build.ts');
  const { DEFAULT_OUT_DIR, DEFAULT_SPECS } = await import('../generators/config.ts');
  const fresh = checkFreshness(DEFAULT_OUT_DIR, DEFAULT_SPECS);
  const reasons = [...(fresh.fresh ? [] : [fresh.reason]), ...staleVocabulary(DEFAULT_OUT_DIR)];
  if (reasons.length > 0) {
    const { main } = await import('../generators/generate.ts');
    if ((await main(['--quiet'])) !== 0) throw new Error('generating generators/out failed (see above)');
    console.log(`generators/out: regenerated (${reasons.join('; ')})`);
  }
  const stale = staleTypes();
  if (stale === undefined) {
    console.log('dist/types: up to date');
    return;
  }
  console.log(`dist/types: ${buildTypes().length} declaration files (${stale})`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--if-stale')) await prepare();
  else console.log(`dist/types: ${buildTypes().length} declaration files`);
}
