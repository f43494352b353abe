// A small JSON Schema 2020-12 matcher used by the arbitraries to keep their promises (a "valid" value matches,
// an "invalid" one does not) without compiling schemas at run time. Covers the keywords the arbitraries
// understand; unknown keywords and annotations are ignored (treated as satisfied), `format` is never checked
// (the generated validators use validateFormats: false too). The property tests check it against Ajv.
import type { JsonSchema } from './model.js';
import { getByRef, isSchema, isSchemaObject } from './schema-walk.js';

const patternCache = new Map<string, RegExp>();
export function schemaRegExp(pattern: string): RegExp {
  let re = patternCache.get(pattern);
  if (!re) {
    re = new RegExp(pattern, 'u');
    patternCache.set(pattern, re);
  }
  return re;
}

/** JSON with sorted keys: equal JSON values give equal strings. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isSchemaObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'undefined';
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return canonicalJson(a) === canonicalJson(b);
}

export function jsonType(v: unknown): 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object' | 'other' {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isFinite(v) ? (Number.isInteger(v) ? 'integer' : 'number') : 'other';
  if (typeof v === 'string') return 'string';
  if (Array.isArray(v)) return 'array';
  if (isSchemaObject(v)) return 'object';
  return 'other';
}

function typeMatches(v: unknown, t: unknown): boolean {
  const actual = jsonType(v);
  if (t === 'number') return actual === 'number' || actual === 'integer';
  return actual === t;
}

/** Code points, as JSON Schema (and Ajv) count string length. */
export function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const own = (o: object, k: string): boolean => Object.hasOwn(o, k);

/** Does `value` match `schema`? `root` resolves `#/...` references. */
export function matchesSchema(value: unknown, schema: JsonSchema, root?: unknown): boolean {
  return check(value, schema, root, 0);
}

const refCache = new WeakMap<object, Map<string, unknown>>();
const NO_ROOT = {};
function deref(root: unknown, ref: string): unknown {
  const key = typeof root === 'object' && root !== null ? root : NO_ROOT;
  let m = refCache.get(key);
  if (!m) {
    m = new Map();
    refCache.set(key, m);
  }
  if (m.has(ref)) return m.get(ref);
  const t = getByRef(root, ref);
  if (!isSchema(t)) throw new Error(`matchesSchema: $ref ${ref} does not resolve`);
  m.set(ref, t);
  return t;
}

/** The numeric keywords of a schema that bound a number (those not written as numbers are absent). */
function numberKeywords(s: Record<string, unknown>) {
  const num = (k: string): number | undefined => (typeof s[k] === 'number' ? (s[k] as number) : undefined);
  return {
    min: num('minimum'),
    max: num('maximum'),
    xmin: num('exclusiveMinimum'),
    xmax: num('exclusiveMaximum'),
    mult: num('multipleOf'),
  };
}

function check(v: unknown, schema: unknown, root: unknown, depth: number): boolean {
  if (schema === true || schema === undefined) return true;
  if (schema === false) return false;
  if (!isSchemaObject(schema)) return true;
  if (depth > 200) throw new Error('matchesSchema: schema recursion too deep');
  const s = schema;
  const d = depth + 1;

  if (typeof s['$ref'] === 'string' && !check(v, deref(root, s['$ref']), root, d)) return false;
  const type = s['type'];
  if (type !== undefined) {
    if (Array.isArray(type)) {
      if (!type.some((t) => typeMatches(v, t))) return false;
    } else if (!typeMatches(v, type)) return false;
  }
  if (own(s, 'const') && !jsonEqual(v, s['const'])) return false;
  const en = s['enum'];
  if (Array.isArray(en) && !en.some((e) => jsonEqual(v, e))) return false;
  const allOf = s['allOf'];
  if (Array.isArray(allOf)) for (const x of allOf) if (!check(v, x, root, d)) return false;
  const anyOf = s['anyOf'];
  if (Array.isArray(anyOf) && !anyOf.some((x) => check(v, x, root, d))) return false;
  const oneOf = s['oneOf'];
  if (Array.isArray(oneOf)) {
    let n = 0;
    for (const x of oneOf) if (check(v, x, root, d) && ++n > 1) return false;
    if (n !== 1) return false;
  }
  if (s['not'] !== undefined && check(v, s['not'], root, d)) return false;
  if (s['if'] !== undefined) {
    if (check(v, s['if'], root, d)) {
      if (s['then'] !== undefined && !check(v, s['then'], root, d)) return false;
    } else if (s['else'] !== undefined && !check(v, s['else'], root, d)) return false;
  }

  if (typeof v === 'number') {
    const { min, max, xmin, xmax, mult } = numberKeywords(s);
    if (min !== undefined && !(v >= min)) return false;
    if (max !== undefined && !(v <= max)) return false;
    if (xmin !== undefined && !(v > xmin)) return false;
    if (xmax !== undefined && !(v < xmax)) return false;
    // Ajv's test: data / multipleOf must be an integer.
    if (mult !== undefined && !Number.isInteger(v / mult)) return false;
  }

  if (typeof v === 'string') {
    const len = typeof s['minLength'] === 'number' || typeof s['maxLength'] === 'number' ? codePointLength(v) : 0;
    if (typeof s['minLength'] === 'number' && len < s['minLength']) return false;
    if (typeof s['maxLength'] === 'number' && len > s['maxLength']) return false;
    if (typeof s['pattern'] === 'string' && !schemaRegExp(s['pattern']).test(v)) return false;
  }

  if (Array.isArray(v)) {
    if (typeof s['minItems'] === 'number' && v.length < s['minItems']) return false;
    if (typeof s['maxItems'] === 'number' && v.length > s['maxItems']) return false;
    if (s['uniqueItems'] === true && new Set(v.map(canonicalJson)).size !== v.length) return false;
    const prefix = Array.isArray(s['prefixItems']) ? s['prefixItems'] : [];
    for (let i = 0; i < prefix.length && i < v.length; i++) if (!check(v[i], prefix[i], root, d)) return false;
    const items = s['items'];
    if (items !== undefined) for (let i = prefix.length; i < v.length; i++) if (!check(v[i], items, root, d)) return false;
    const contains = s['contains'];
    if (contains !== undefined) {
      let n = 0;
      for (const x of v) if (check(x, contains, root, d)) n++;
      const minC = typeof s['minContains'] === 'number' ? s['minContains'] : 1;
      if (n < minC) return false;
      if (typeof s['maxContains'] === 'number' && n > s['maxContains']) return false;
    }
  }

  if (isSchemaObject(v)) {
    const keys = Object.keys(v);
    if (typeof s['minProperties'] === 'number' && keys.length < s['minProperties']) return false;
    if (typeof s['maxProperties'] === 'number' && keys.length > s['maxProperties']) return false;
    const required = s['required'];
    if (Array.isArray(required)) for (const k of required) if (typeof k === 'string' && !own(v, k)) return false;
    const props = isSchemaObject(s['properties']) ? s['properties'] : {};
    const patterns = isSchemaObject(s['patternProperties']) ? Object.entries(s['patternProperties']) : [];
    for (const k of keys) {
      let evaluated = false;
      if (own(props, k)) {
        evaluated = true;
        if (!check(v[k], props[k], root, d)) return false;
      }
      for (const [p, ps] of patterns) {
        if (schemaRegExp(p).test(k)) {
          evaluated = true;
          if (!check(v[k], ps, root, d)) return false;
        }
      }
      if (!evaluated && s['additionalProperties'] !== undefined && !check(v[k], s['additionalProperties'], root, d)) return false;
      if (s['propertyNames'] !== undefined && !check(k, s['propertyNames'], root, d)) return false;
    }
    if (isSchemaObject(s['dependentRequired'])) {
      for (const [k, deps] of Object.entries(s['dependentRequired'])) {
        if (own(v, k) && Array.isArray(deps) && !deps.every((d) => typeof d !== 'string' || own(v, d))) return false;
      }
    }
    if (isSchemaObject(s['dependentSchemas'])) {
      for (const [k, ds] of Object.entries(s['dependentSchemas'])) if (own(v, k) && !check(v, ds, root, d)) return false;
    }
  }
  return true;
}

/** One error as Ajv (allErrors) would report it: keyword and instance path (and the missing property). */
export interface MatchError {
  keyword: string;
  instancePath: string;
  property?: string;
}

/**
 * The errors Ajv would report for `value` (allErrors): like matchesSchema, but collecting keyword and instance
 * path, and dropping the errors of anyOf/oneOf branches when the alternative as a whole passes. Used to make
 * sure an invalid value is rejected for the reason it announces.
 */
export function schemaErrors(value: unknown, schema: JsonSchema, root?: unknown): MatchError[] {
  const out: MatchError[] = [];
  collect(value, schema, root, '', out, 0);
  return out;
}

function collect(v: unknown, schema: unknown, root: unknown, path: string, out: MatchError[], depth: number): void {
  if (schema === true || schema === undefined) return;
  if (schema === false) {
    out.push({ keyword: 'false schema', instancePath: path });
    return;
  }
  if (!isSchemaObject(schema)) return;
  if (depth > 200) throw new Error('schemaErrors: schema recursion too deep');
  const s = schema;
  const d = depth + 1;
  const push = (keyword: string, extra: Partial<MatchError> = {}): void => {
    out.push({ keyword, instancePath: path, ...extra });
  };
  const sub = (x: unknown, sch: unknown, at: string): MatchError[] => {
    const errs: MatchError[] = [];
    collect(x, sch, root, at, errs, d);
    return errs;
  };
  const child = (key: string | number): string => `${path}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

  if (typeof s['$ref'] === 'string') collect(v, deref(root, s['$ref']), root, path, out, d);
  if (s['type'] !== undefined) {
    const types = Array.isArray(s['type']) ? s['type'] : [s['type']];
    if (!types.some((t) => typeMatches(v, t))) push('type');
  }
  if (own(s, 'const') && !jsonEqual(v, s['const'])) push('const');
  if (Array.isArray(s['enum']) && !s['enum'].some((e) => jsonEqual(v, e))) push('enum');
  if (Array.isArray(s['allOf'])) for (const x of s['allOf']) collect(v, x, root, path, out, d);
  if (Array.isArray(s['anyOf'])) {
    const branches = s['anyOf'].map((x) => sub(v, x, path));
    if (!branches.some((b) => b.length === 0)) {
      out.push(...branches.flat());
      push('anyOf');
    }
  }
  if (Array.isArray(s['oneOf'])) {
    const branches = s['oneOf'].map((x) => sub(v, x, path));
    const passing = branches.filter((b) => b.length === 0).length;
    if (passing === 0) out.push(...branches.flat());
    if (passing !== 1) push('oneOf');
  }
  if (s['not'] !== undefined && sub(v, s['not'], path).length === 0) push('not');
  if (s['if'] !== undefined) {
    const ifOk = sub(v, s['if'], path).length === 0;
    const branch = ifOk ? s['then'] : s['else'];
    if (branch !== undefined) {
      const errs = sub(v, branch, path);
      if (errs.length > 0) {
        out.push(...errs);
        push('if');
      }
    }
  }
  if (typeof v === 'number') {
    const { min, max, xmin, xmax, mult } = numberKeywords(s);
    if (max !== undefined && !(v <= max)) push('maximum');
    if (min !== undefined && !(v >= min)) push('minimum');
    if (xmax !== undefined && !(v < xmax)) push('exclusiveMaximum');
    if (xmin !== undefined && !(v > xmin)) push('exclusiveMinimum');
    if (mult !== undefined && !Number.isInteger(v / mult)) push('multipleOf');
  }
  if (typeof v === 'string') {
    const len = codePointLength(v);
    if (typeof s['maxLength'] === 'number' && len > s['maxLength']) push('maxLength');
    if (typeof s['minLength'] === 'number' && len < s['minLength']) push('minLength');
    if (typeof s['pattern'] === 'string' && !schemaRegExp(s['pattern']).test(v)) push('pattern');
  }
  if (Array.isArray(v)) {
    if (typeof s['maxItems'] === 'number' && v.length > s['maxItems']) push('maxItems');
    if (typeof s['minItems'] === 'number' && v.length < s['minItems']) push('minItems');
    if (s['uniqueItems'] === true && new Set(v.map(canonicalJson)).size !== v.length) push('uniqueItems');
    const prefix = Array.isArray(s['prefixItems']) ? s['prefixItems'] : [];
    for (let i = 0; i < prefix.length && i < v.length; i++) collect(v[i], prefix[i], root, child(i), out, d);
    if (s['items'] === false) {
      if (v.length > prefix.length) push('items');
    } else if (s['items'] !== undefined) {
      for (let i = prefix.length; i < v.length; i++) collect(v[i], s['items'], root, child(i), out, d);
    }
    if (s['contains'] !== undefined) {
      const n = v.filter((x) => sub(x, s['contains'], path).length === 0).length;
      const minC = typeof s['minContains'] === 'number' ? s['minContains'] : 1;
      if (n < minC || (typeof s['maxContains'] === 'number' && n > s['maxContains'])) push('contains');
    }
  }
  if (isSchemaObject(v)) {
    const keys = Object.keys(v);
    if (typeof s['maxProperties'] === 'number' && keys.length > s['maxProperties']) push('maxProperties');
    if (typeof s['minProperties'] === 'number' && keys.length < s['minProperties']) push('minProperties');
    if (Array.isArray(s['required'])) {
      for (const k of s['required']) if (typeof k === 'string' && !own(v, k)) push('required', { property: k });
    }
    if (isSchemaObject(s['dependentRequired'])) {
      for (const [k, deps] of Object.entries(s['dependentRequired'])) {
        if (own(v, k) && Array.isArray(deps))
          for (const dep of deps) if (typeof dep === 'string' && !own(v, dep)) push('dependentRequired', { property: dep });
      }
    }
    const props = isSchemaObject(s['properties']) ? s['properties'] : {};
    const patterns = isSchemaObject(s['patternProperties']) ? Object.entries(s['patternProperties']) : [];
    for (const k of keys) {
      if (s['propertyNames'] !== undefined && sub(k, s['propertyNames'], path).length > 0) push('propertyNames');
      let evaluated = false;
      if (own(props, k)) {
        evaluated = true;
        collect(v[k], props[k], root, child(k), out, d);
      }
      for (const [p, ps] of patterns) {
        if (schemaRegExp(p).test(k)) {
          evaluated = true;
          collect(v[k], ps, root, child(k), out, d);
        }
      }
      if (!evaluated && s['additionalProperties'] !== undefined) {
        if (s['additionalProperties'] === false) push('additionalProperties', { property: k });
        else collect(v[k], s['additionalProperties'], root, child(k), out, d);
      }
    }
    if (isSchemaObject(s['dependentSchemas'])) {
      for (const [k, ds] of Object.entries(s['dependentSchemas'])) if (own(v, k)) collect(v, ds, root, path, out, d);
    }
  }
}
