#!/usr/bin/env node
/**
 * The package's `conformance` command (package.json "bin"): `conformance [options]` runs the suite (bin/conformance.ts),
 * `conformance serve [options]` the reference server (bin/serve.ts). The suite ships as TypeScript (vitest loads the
 * checks from their sources anyway), so this shim registers tsx, a runtime dependency, and hands over.
 */
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const [command, ...rest] = process.argv.slice(2);
if (command === 'serve') {
  const serve = fileURLToPath(new URL('./serve.ts', import.meta.url));
  process.argv = [process.argv[0], serve, ...rest];
  await import('./serve.ts');
} else {
  const { main, printInternalError } = await import('./conformance.ts');
  main(process.argv.slice(2)).then((code) => process.exit(code), printInternalError);
}
