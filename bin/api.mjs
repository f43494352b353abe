/**
 * The package's entry point (package.json "exports"): bin/api.ts through tsx, a runtime dependency, since the suite
 * ships as TypeScript (vitest loads the checks from their sources).
 */
import { register } from 'tsx/esm/api';

register();
export const { run, RunError } = await import('./api.ts');
