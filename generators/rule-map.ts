// x-rule attribution: which rule a validation error at an instance path belongs to.
//
// 1. At generation, walk a schema (following `$ref`s) and list every instance-path pattern where a schema
//    carries `x-rule`: `properties` add the key, `items`/`prefixItems`/`additionalProperties`/
//    `patternProperties`/`contains`/`unevaluated*` add `*`, `allOf`/`anyOf`/`oneOf`/`not`/`if`/`then`/`else`/
//    `dependentSchemas` stay at the same path. A recursive `$ref` is unrolled RECURSION_UNROLL times (errors
//    deeper than that fall back to the nearest shallower pattern that is a prefix, else the operation rule).
// 2. At run time, an error at instance path P belongs to the rule of the longest pattern that is a prefix of P
//    (segment-wise, `*` matching any one segment), else to the fallback (the operation rule).
import type { JsonSchema, RulePointer } from './model.js';
import { escapePointerSegment, getByRef, isSchema, isSchemaObject, pointerSegments } from './schema-walk.js';

/** How many times one `$ref` may repeat on the current path (recursive schemas are unrolled this deep). */
const RECURSION_UNROLL = 3;
const SAME_PATH_ARRAYS = ['allOf', 'anyOf', 'oneOf'] as const;
const SAME_PATH_SINGLE = ['not', 'if', 'then', 'else'] as const;
const ANY_CHILD_SINGLE = ['items', 'additionalProperties', 'contains', 'unevaluatedItems', 'unevaluatedProperties'] as const;

/** Every `{pointer, rule}` under `schema`; `root` resolves `#/...` refs. */
export function collectRulePointers(schema: JsonSchema, root: unknown, at = ''): RulePointer[] {
  return collectAnnotationPointers(
    schema,
    root,
    (s) => (typeof s['x-rule'] === 'string' && s['x-rule'] !== '' ? s['x-rule'] : undefined),
    at,
  );
}

/** Instance-path patterns of the schemas for which `pick` returns a value (same walk as the rule map). */
export function collectAnnotationPointers(
  schema: JsonSchema,
  root: unknown,
  pick: (s: Record<string, unknown>) => string | undefined,
  at = '',
): RulePointer[] {
  const out: RulePointer[] = [];
  const seen = new Set<string>();
  const add = (pointer: string, rule: string): void => {
    const key = `${pointer}\0${rule}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ pointer, rule });
    }
  };
  const walk = (s: unknown, path: string, refStack: readonly string[]): void => {
    if (!isSchemaObject(s)) return;
    const rule = pick(s);
    if (rule !== undefined) add(path, rule);
    const ref = s['$ref'];
    if (typeof ref === 'string' && refStack.filter((r) => r === ref).length < RECURSION_UNROLL) {
      walk(getByRef(root, ref), path, [...refStack, ref]);
    }
    for (const k of SAME_PATH_ARRAYS) {
      const v = s[k];
      if (Array.isArray(v)) for (const x of v) walk(x, path, refStack);
    }
    for (const k of SAME_PATH_SINGLE) walk(s[k], path, refStack);
    const deps = s['dependentSchemas'];
    if (isSchemaObject(deps)) for (const x of Object.values(deps)) walk(x, path, refStack);
    const props = s['properties'];
    if (isSchemaObject(props)) {
      for (const [name, x] of Object.entries(props)) walk(x, `${path}/${escapePointerSegment(name)}`, refStack);
    }
    const patternProps = s['patternProperties'];
    if (isSchemaObject(patternProps)) for (const x of Object.values(patternProps)) walk(x, `${path}/*`, refStack);
    const prefix = s['prefixItems'];
    if (Array.isArray(prefix)) for (const x of prefix) walk(x, `${path}/*`, refStack);
    for (const k of ANY_CHILD_SINGLE) if (isSchema(s[k])) walk(s[k], `${path}/*`, refStack);
  };
  walk(schema, at, []);
  return out;
}

function matchesPrefix(pattern: readonly string[], path: readonly string[]): boolean {
  if (pattern.length > path.length) return false;
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== '*' && pattern[i] !== path[i]) return false;
  }
  return true;
}

/**
 * The rule an error at `instancePath` belongs to: the longest matching pattern's rule (ties: fewer `*`, then
 * first listed), else `fallback`.
 */
export function attributeRule(pointers: readonly RulePointer[] | undefined, instancePath: string, fallback: string): string {
  if (!pointers || pointers.length === 0) return fallback;
  const path = pointerSegments(instancePath);
  let best: { rule: string; len: number; stars: number } | undefined;
  for (const p of pointers) {
    const pattern = pointerSegments(p.pointer);
    if (!matchesPrefix(pattern, path)) continue;
    const stars = pattern.filter((x) => x === '*').length;
    if (!best || pattern.length > best.len || (pattern.length === best.len && stars < best.stars)) {
      best = { rule: p.rule, len: pattern.length, stars };
    }
  }
  return best ? best.rule : fallback;
}
