// The shared vocabularies of specs/ as TypeScript, for suites/, fixtures/, bin/ and test/: rule ids (a type) and the
// capability list (a value). Made by vocabulary-build.ts into generators/out/, regenerated here first when missing or
// stale; import them from here, never from out/ directly.
import { DEFAULT_OUT_DIR } from './config.js';
import type { RuleId } from './out/rule-ids.js';
import { ensureVocabulary } from './vocabulary-build.js';

export type { RuleId };
export type { Capability } from './out/capabilities.js';

ensureVocabulary(DEFAULT_OUT_DIR);
const capabilities: typeof import('./out/capabilities.js') = await import('./out/capabilities.js');

/** The closed capability list of specs/capabilities.yaml. */
export const CAPABILITIES = capabilities.CAPABILITIES;

/**
 * A rule id read from specs/*.openapi.yaml (`x-rule`, `x-default-rule`) or from the catalogue itself, as a `RuleId`.
 * Those files are data, so the type cannot see their ids; test/specs/rules.test.ts asserts every one is in the
 * catalogue ("every x-rule in the specs exists").
 */
export function specRule(id: string): RuleId {
  return id as RuleId;
}
