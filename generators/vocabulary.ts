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
 * A rule id as code writes it where a type parameter can check it (a check's `rules`, `t.property`): a string literal
 * must be a `RuleId`, so a misspelt id is a type error ("Did you mean …?"); a value typed `string` (a helper's
 * parameter) passes and is checked at run time against the catalogue (test/specs/rules.test.ts).
 * TODO(issue 14): once the helpers that pass rule ids take `RuleId`, use `RuleId` alone.
 */
export type KnownRule<R extends string> = string extends R ? R : R extends RuleId ? R : RuleId;
