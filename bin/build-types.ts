/**
 * `npm pack` (prepack): the declaration files of the package's API (bin/api.ts) and of what its types reach (the
 * matrix, the config file, the generated types of both services) into dist/types/, for partners' TypeScript. Each file
 * is transpiled on its own (ts.transpileDeclaration), and its `.ts` import specifiers become `.js`, which TypeScript
 * resolves to the `.d.ts` beside them.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'dist/types');

export function buildTypes(entry = join(ROOT, 'bin/api.ts')): string[] {
  rmSync(OUT, { recursive: true, force: true });
  const done = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (done.has(file)) continue;
    done.add(file);
    const { outputText } = ts.transpileDeclaration(readFileSync(file, 'utf8'), {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.NodeNext, target: ts.ScriptTarget.ES2022, allowImportingTsExtensions: true },
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
  return [...done].map((f) => relative(ROOT, f));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = buildTypes();
  console.log(`dist/types: ${files.length} declaration files`);
}
