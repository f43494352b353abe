// `npm run generate`: specs -> generators/out/ (build.ts from the OpenAPI specs; vocabulary-build.ts from the rule
// catalogue and the capability list). `--check`: exit 1 when the output is missing or stale.
// Options: --specs [service=]a.yaml,... --out dir --quiet (see config.ts USAGE).
import { pathToFileURL } from 'node:url';
import { displayPath, parseCli } from './config.js';
import { checkFreshness } from './stamp.js';
import { generateVocabulary, staleVocabulary } from './vocabulary-build.js';

export async function main(argv: readonly string[]): Promise<number> {
  let opts;
  try {
    opts = parseCli(argv);
  } catch (e) {
    console.error((e as Error).message);
    return 2;
  }
  const out = displayPath(opts.outDir);
  if (opts.check) {
    const f = checkFreshness(opts.outDir, opts.specs);
    const reasons = [...(f.fresh ? [] : [f.reason]), ...staleVocabulary(opts.outDir)];
    if (reasons.length === 0) {
      if (!opts.quiet) console.log(`${out} is up to date`);
      return 0;
    }
    console.error(`${out} is stale: ${reasons.join('; ')}. Run \`npm run generate\`.`);
    return 1;
  }
  // Loaded lazily: --check must not pay for ajv and openapi-typescript.
  const { generate } = await import('./build.js');
  const log = opts.quiet ? () => {} : (l: string) => console.log(l);
  try {
    const r = await generate({ specs: opts.specs, outDir: opts.outDir, log });
    const vocabulary = generateVocabulary(opts.outDir);
    if (!opts.quiet) {
      for (const w of r.warnings.filter((w) => !w.includes('is missing; service'))) console.log(w);
      console.log(
        `generated ${out}: ${r.services.length ? r.services.join(', ') : 'no services'}` +
          `${r.skipped.length ? ` (skipped: ${r.skipped.join(', ')})` : ''}; ` +
          `${r.operations} operations, ${r.validators} validators in ${r.ms} ms ` +
          `(${Object.entries(r.phases)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}); ${vocabulary.join(', ')}`,
      );
    }
    return 0;
  } catch (e) {
    console.error(`generation failed: ${(e as Error).message}`);
    return 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await main(process.argv.slice(2));
}
