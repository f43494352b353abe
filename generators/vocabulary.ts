// The shared vocabularies of specs/ as TypeScript, for suites/, fixtures/, bin/ and test/: rule ids (a type), the
// capability list (a value), the order service's order types and statuses, and the public-key positions of the quote
// service's answers (with their walker). Made by vocabulary-build.ts into generators/out/, regenerated here first
// when missing or stale; import them from here, never from out/ directly.
import { DEFAULT_OUT_DIR } from './config.js';
import type { RuleId } from './out/rule-ids.js';
import { ensureVocabulary } from './vocabulary-build.js';

export type { RuleId };
export type { Capability } from './out/capabilities.js';

ensureVocabulary(DEFAULT_OUT_DIR);
const capabilities: typeof import('./out/capabilities.js') = await import('./out/capabilities.js');

/** The closed capability list of specs/capabilities.yaml. */
export const CAPABILITIES = capabilities.CAPABILITIES;

const orderEnums: typeof import('./out/order-enums.js') = await import('./out/order-enums.js');

/** The order service's order types, statuses and terminal statuses (components.schemas of its OpenAPI document). */
export const ORDER_TYPES = orderEnums.ORDER_TYPES;
export const ORDER_STATUSES = orderEnums.ORDER_STATUSES;
export const TERMINAL_ORDER_STATUSES = orderEnums.TERMINAL_ORDER_STATUSES;

const pubkeys: typeof import('./out/pubkey-positions.js') = await import('./out/pubkey-positions.js');

/**
 * Where the quote service's answers carry public keys: every position specs/swap-quote.openapi.yaml types as
 * Base58Pubkey in a quote or venues response, from the body's root (`*` is any key or index). Instruction data `d` is
 * no key.
 */
export const PUBKEY_POSITIONS: readonly string[] = pubkeys.PUBKEY_POSITIONS;

/** The dotted segments of a position, walked by mapPubkeys. */
const PUBKEY_SEGMENTS = PUBKEY_POSITIONS.map((position) => position.split('.'));

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

function joinPath(at: string, key: string | number): string {
  return at ? `${at}.${key}` : String(key);
}

/** `value` with `change` applied at every position `path` reaches (copies along the way; nothing else touched). */
function mapAt(value: unknown, path: readonly string[], change: (v: unknown, at: string) => unknown, at: string): unknown {
  if (path.length === 0) return change(value, at);
  const [head, ...rest] = path as [string, ...string[]];
  if (Array.isArray(value)) return head === '*' ? value.map((v, i) => mapAt(v, rest, change, joinPath(at, i))) : value;
  if (!isMap(value)) return value;
  if (head === '*') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapAt(v, rest, change, joinPath(at, k))]));
  return head in value ? { ...value, [head]: mapAt(value[head], rest, change, joinPath(at, head)) } : value;
}

/**
 * A body with `change` applied to the value at every public-key position, one position after the other (copies along
 * the way; nothing else touched); `at` says where the value sits (`quotes.titan.steps.0.ammKey`).
 */
export function mapPubkeys(body: unknown, change: (key: unknown, at: string) => unknown): unknown {
  return PUBKEY_SEGMENTS.reduce((value, path) => mapAt(value, path, change, ''), body);
}

/**
 * A rule id read from specs/*.openapi.yaml (`x-rule`, `x-default-rule`) or from the catalogue itself, as a `RuleId`.
 * Those files are data, so the type cannot see their ids; test/specs/rules.test.ts asserts every one is in the
 * catalogue ("every x-rule in the specs exists").
 */
export function specRule(id: string): RuleId {
  return id as RuleId;
}
