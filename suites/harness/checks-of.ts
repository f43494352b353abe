import type { Check } from './check.ts';

/** Checks exported by a module, single or in arrays, in declaration order. */
export function checksOf(module: Record<string, unknown>): Check[] {
  return Object.values(module)
    .flatMap((v) => (Array.isArray(v) ? v : [v]))
    .filter((v): v is Check => typeof v === 'object' && v !== null && 'run' in v && 'rules' in v);
}
