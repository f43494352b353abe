// JSON Schema 2020-12: which keywords hold subschemas, and JSON pointers. No dependencies.
import type { JsonSchema, JsonSchemaObject } from './model.js';

/** Keywords whose value is one subschema. */
export const SINGLE_SUBSCHEMA = [
  'additionalProperties',
  'items',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
] as const;
/** Keywords whose value is an array of subschemas. */
export const ARRAY_SUBSCHEMA = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;
/** Keywords whose value is a map of subschemas. */
export const MAP_SUBSCHEMA = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'] as const;

export function isSchemaObject(s: unknown): s is JsonSchemaObject {
  return typeof s === 'object' && s !== null && !Array.isArray(s);
}

export function isSchema(s: unknown): s is JsonSchema {
  return typeof s === 'boolean' || isSchemaObject(s);
}

/** A copy of `schema` where `fn` has rewritten each subschema object (post-order; `fn` sees copies). */
export function mapSchema(schema: JsonSchema, fn: (s: JsonSchemaObject) => JsonSchemaObject): JsonSchema {
  if (!isSchemaObject(schema)) return schema;
  const out: JsonSchemaObject = { ...schema };
  for (const k of SINGLE_SUBSCHEMA) {
    const v = out[k];
    if (isSchema(v)) out[k] = mapSchema(v, fn);
  }
  for (const k of ARRAY_SUBSCHEMA) {
    const v = out[k];
    if (Array.isArray(v)) out[k] = v.map((x) => (isSchema(x) ? mapSchema(x, fn) : x));
  }
  for (const k of MAP_SUBSCHEMA) {
    const v = out[k];
    if (isSchemaObject(v)) {
      const m: JsonSchemaObject = {};
      for (const [name, x] of Object.entries(v)) m[name] = isSchema(x) ? mapSchema(x, fn) : x;
      out[k] = m;
    }
  }
  return fn(out);
}

/** Visit every subschema object (pre-order), including the root. */
export function forEachSchema(schema: JsonSchema, fn: (s: JsonSchemaObject) => void): void {
  if (!isSchemaObject(schema)) return;
  fn(schema);
  for (const k of SINGLE_SUBSCHEMA) {
    const v = schema[k];
    if (isSchema(v)) forEachSchema(v, fn);
  }
  for (const k of ARRAY_SUBSCHEMA) {
    const v = schema[k];
    if (Array.isArray(v)) for (const x of v) if (isSchema(x)) forEachSchema(x, fn);
  }
  for (const k of MAP_SUBSCHEMA) {
    const v = schema[k];
    if (isSchemaObject(v)) for (const x of Object.values(v)) if (isSchema(x)) forEachSchema(x, fn);
  }
}

export function escapePointerSegment(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function unescapePointerSegment(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Segments of a JSON pointer ('' -> []). */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer.slice(1).split('/').map(unescapePointerSegment);
}

/** Segments of a `#/...` URI fragment (percent-decoded, then pointer-unescaped). */
export function fragmentSegments(ref: string): string[] {
  if (!ref.startsWith('#')) throw new Error(`only local references are supported, got ${JSON.stringify(ref)}`);
  const frag = ref.slice(1);
  if (frag === '') return [];
  if (!frag.startsWith('/')) throw new Error(`only JSON-pointer references are supported, got ${JSON.stringify(ref)}`);
  return frag
    .slice(1)
    .split('/')
    .map((s) => unescapePointerSegment(decodeURIComponent(s)));
}

/** Value at a `#/...` reference inside `root`, or undefined. */
export function getByRef(root: unknown, ref: string): unknown {
  let cur: unknown = root;
  for (const seg of fragmentSegments(ref)) {
    if (Array.isArray(cur)) cur = cur[Number(seg)];
    else if (isSchemaObject(cur)) cur = Object.hasOwn(cur, seg) ? cur[seg] : undefined;
    else return undefined;
  }
  return cur;
}

export const COMPONENT_SCHEMA_PREFIX = '#/components/schemas/';
