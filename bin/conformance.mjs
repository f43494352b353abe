#!/usr/bin/env node
/**
 * The package's `conformance` command (package.json "bin", and `npm start`): `conformance [options]` runs the suite
 * (bin/conformance.ts), `conformance serve [options]` the reference server (bin/serve.ts). The suite ships as TypeScript
 * (vitest loads the checks from their sources anyway), so this shim registers tsx, a runtime dependency, and hands over.
 */
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

const [command, ...rest] = process.argv.slice(2);
if (command !== 'serve' && !rest.includes('--help') && !rest.includes('-h') && command !== '--help' && command !== '-h') {
  // No colour codes in a log (bin/conformance.ts says the same): vitest reads it as it is first imported, just below.
  if (!process.stdout.isTTY && !('FORCE_COLOR' in process.env)) process.env.NO_COLOR = '1';
  // The big JavaScript dependencies of a run, loaded by Node itself before tsx's loader is registered: through its hooks
  // (on their own thread on Node 20) every module pays a round trip, about a second at the start of a run (issue 17).
  await Promise.all([import('vitest/node'), import('allure-vitest/reporter'), import('@solana/web3.js')]);
}
register();
if (command === 'serve') {
  const serve = fileURLToPath(new URL('./serve.ts', import.meta.url));
  process.argv = [process.argv[0], serve, ...rest];
  await import('./serve.ts');
} else {
  const { main, printInternalError } = await import('./conformance.ts');
  main(process.argv.slice(2)).then((code) => process.exit(code), printInternalError);
}
