// Shared by the valid and invalid arbitraries: options, a filter that gives up with a clear error instead of
// looping forever, and schema normalisation ($ref and allOf folded into one flat set of keywords).
import * as fc from 'fast-check';
import { jsonEqual } from './json-schema-match.js';
import type { JsonSchema, JsonSchemaObject } from './model.js';
import { getByRef, isSchema, isSchemaObject } from './schema-walk.js';

export interface ArbitraryOptions {
  /** Resolves `#/components/schemas/...` references: a service entry of schemas.json (or a whole spec). */
  root?: unknown;
  /** Longest generated string when the schema sets no maxLength (default 16). */
  maxLength?: number;
  /** Most array items when the schema sets no smaller maxItems (default 4). */
  maxItems?: number;
  /** Most map entries (additionalProperties / patternProperties) per object (default 4). */
  maxKeys?: number;
  /** Nesting depth past which optional properties are left out and arrays kept at minItems (default 4). */
  maxDepth?: number;
}

export interface Ctx {
  root: unknown;
  maxLength: number;
  maxItems: number;
  maxKeys: number;
  maxDepth: number;
  /** Valid arbitraries by schema object and depth (schemas are shared through $refs). */
  validCache: WeakMap<object, Map<number, fc.Arbitrary<unknown>>>;
}

const ctxCache = new WeakMap<object, Map<string, Ctx>>();
const NO_ROOT = {};

/** The context for these options; shared between calls with the same root and sizes (arbitraries are pure). */
export function makeCtx(o: ArbitraryOptions = {}): Ctx {
  const key = typeof o.root === 'object' && o.root !== null ? o.root : NO_ROOT;
  const sizes = [o.maxLength, o.maxItems, o.maxKeys, o.maxDepth].join(',');
  let byRoot = ctxCache.get(key);
  if (!byRoot) {
    byRoot = new Map();
    ctxCache.set(key, byRoot);
  }
  const hit = byRoot.get(sizes);
  if (hit && hit.root === o.root) return hit;
  const ctx = newCtx(o);
  byRoot.set(sizes, ctx);
  return ctx;
}

function newCtx(o: ArbitraryOptions): Ctx {
  return {
    root: o.root,
    maxLength: o.maxLength ?? 16,
    maxItems: o.maxItems ?? 4,
    maxKeys: o.maxKeys ?? 4,
    maxDepth: o.maxDepth ?? 4,
    validCache: new WeakMap(),
  };
}

/** A schema construct the arbitraries cannot generate values for. */
export class UnsupportedSchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedSchemaError';
  }
}

class BoundedFilterArbitrary<T> extends fc.Arbitrary<T> {
  constructor(
    private readonly arb: fc.Arbitrary<T>,
    private readonly pred: (t: T) => boolean,
    private readonly what: string,
    private readonly tries: number,
  ) {
    super();
  }
  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<T> {
    for (let i = 0; i < this.tries; i++) {
      const g = this.arb.generate(mrng, biasFactor);
      if (this.pred(g.value)) return g;
    }
    throw new UnsupportedSchemaError(`no value satisfying ${this.what} in ${this.tries} tries`);
  }
  canShrinkWithoutContext(value: unknown): value is T {
    return this.arb.canShrinkWithoutContext(value) && this.pred(value as T);
  }
  shrink(value: T, context: unknown): fc.Stream<fc.Value<T>> {
    return this.arb.shrink(value, context).filter((v) => this.pred(v.value));
  }
}

/** `arb.filter(pred)` that throws UnsupportedSchemaError after `tries` rejections in a row. */
export function boundedFilter<T>(arb: fc.Arbitrary<T>, pred: (t: T) => boolean, what: string, tries = 100): fc.Arbitrary<T> {
  return new BoundedFilterArbitrary(arb, pred, what, tries);
}

/** Small JSON primitives, for schemas that say nothing about a value. */
export function anyPrimitive(): fc.Arbitrary<unknown> {
  return fc.oneof(fc.string({ maxLength: 8 }), fc.integer({ min: -1000, max: 1000 }), fc.boolean(), fc.constant(null));
}

/**
 * A schema with its `$ref`s and `allOf`s folded in. `s` holds the merged keywords; what cannot be merged
 * is kept aside: alternatives (anyOf/oneOf groups), conditionals, `not`s, extra patterns, extra checks.
 */
export interface Norm {
  s: JsonSchemaObject;
  alts: { kind: 'anyOf' | 'oneOf'; branches: JsonSchema[] }[];
  conds: { if: JsonSchema; then?: JsonSchema; else?: JsonSchema }[];
  nots: JsonSchema[];
  patterns: string[];
  /** Schemas the value must also match (checked by filtering where the value is built). */
  checks: JsonSchema[];
  /** Branch exclusions (`not` the other oneOf branches, `not` the `if` of a chosen `else`): enforced by the
   * caller's filter against the original schema, not where the value is built. */
  excl: JsonSchema[];
  assumed: boolean;
  /** Why no value can match (false schema, empty enum intersection, contradicting types). */
  unsat?: string;
}

export function emptyNorm(): Norm {
  return { s: {}, alts: [], conds: [], nots: [], patterns: [], checks: [], excl: [], assumed: false };
}

export function cloneNorm(n: Norm): Norm {
  return {
    s: { ...n.s },
    alts: [...n.alts],
    conds: [...n.conds],
    nots: [...n.nots],
    patterns: [...n.patterns],
    checks: [...n.checks],
    excl: [...n.excl],
    assumed: n.assumed,
    ...(n.unsat ? { unsat: n.unsat } : {}),
  };
}

export function resolveRef(ref: string, ctx: Ctx): JsonSchema {
  if (ctx.root === undefined) throw new UnsupportedSchemaError(`$ref ${ref} needs options.root (a service entry of schemas.json)`);
  const t = getByRef(ctx.root, ref);
  if (!isSchema(t)) throw new UnsupportedSchemaError(`$ref ${ref} does not resolve against options.root`);
  return t;
}

export function normalize(schema: JsonSchema, ctx: Ctx): Norm {
  const n = emptyNorm();
  absorb(n, schema, ctx, 0);
  return n;
}

const MIN_KEYS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties', 'minContains'];
const MAX_KEYS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties', 'maxContains'];
const SUBSCHEMA_KEYS = ['items', 'additionalProperties', 'propertyNames', 'contains', 'unevaluatedProperties', 'unevaluatedItems'];
const MAP_KEYS = ['properties', 'patternProperties', 'dependentSchemas'];

/** Fold `schema` into `n` (in place). */
export function absorb(n: Norm, schema: JsonSchema, ctx: Ctx, depth: number): void {
  if (depth > 64) throw new UnsupportedSchemaError('$ref/allOf chain too deep (a schema that is only a reference to itself?)');
  if (schema === true) return;
  if (schema === false) {
    n.unsat = 'false schema';
    return;
  }
  for (const [k, v] of Object.entries(schema)) {
    switch (k) {
      case '$ref':
        if (typeof v === 'string') absorb(n, resolveRef(v, ctx), ctx, depth + 1);
        break;
      case 'allOf':
        if (Array.isArray(v)) for (const b of v) if (isSchema(b)) absorb(n, b, ctx, depth + 1);
        break;
      case 'anyOf':
      case 'oneOf':
        if (Array.isArray(v)) n.alts.push({ kind: k, branches: v.filter(isSchema) });
        break;
      case 'not':
        if (isSchema(v)) n.nots.push(v);
        break;
      case 'if':
        if (isSchema(v)) {
          const c: Norm['conds'][number] = { if: v };
          // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else, not a thenable
          if (isSchema(schema['then'])) c.then = schema['then'];
          if (isSchema(schema['else'])) c.else = schema['else'];
          n.conds.push(c);
        }
        break;
      case 'then':
      case 'else':
        break;
      case 'pattern':
        if (typeof v === 'string' && !n.patterns.includes(v)) n.patterns.push(v);
        break;
      case 'x-assumed':
        n.assumed ||= v === true;
        break;
      default:
        mergeKeyword(n, k, v);
    }
  }
}

function intersectTypes(a: string[], b: string[]): string[] {
  const out = new Set<string>();
  for (const t of a) {
    for (const u of b) {
      if (t === u) out.add(t);
      else if ((t === 'number' && u === 'integer') || (t === 'integer' && u === 'number')) out.add('integer');
    }
  }
  return [...out];
}

function mergeKeyword(n: Norm, k: string, v: unknown): void {
  const s = n.s;
  if (!(k in s)) {
    s[k] = k === 'type' && !Array.isArray(v) ? [v] : v;
    return;
  }
  const old = s[k];
  if (k === 'type') {
    const t = intersectTypes(old as string[], (Array.isArray(v) ? v : [v]) as string[]);
    if (t.length === 0) n.unsat = `types ${JSON.stringify(old)} and ${JSON.stringify(v)} do not intersect`;
    s[k] = t;
  } else if (k === 'required' && Array.isArray(old) && Array.isArray(v)) {
    s[k] = [...new Set([...old, ...v])];
  } else if (k === 'enum' && Array.isArray(old) && Array.isArray(v)) {
    const both = old.filter((x) => v.some((y) => jsonEqual(x, y)));
    if (both.length === 0) n.unsat = 'enums do not intersect';
    s[k] = both;
  } else if (k === 'const') {
    if (!jsonEqual(old, v)) n.unsat = 'two different consts';
  } else if (MIN_KEYS.includes(k) && typeof old === 'number' && typeof v === 'number') {
    s[k] = Math.max(old, v);
  } else if (MAX_KEYS.includes(k) && typeof old === 'number' && typeof v === 'number') {
    s[k] = Math.min(old, v);
  } else if (k === 'uniqueItems') {
    s[k] = old === true || v === true;
  } else if (SUBSCHEMA_KEYS.includes(k) && isSchema(old) && isSchema(v)) {
    s[k] = { allOf: [old, v] };
  } else if (MAP_KEYS.includes(k) && isSchemaObject(old) && isSchemaObject(v)) {
    const m: JsonSchemaObject = { ...old };
    for (const [name, x] of Object.entries(v)) m[name] = name in m && isSchema(m[name]) && isSchema(x) ? { allOf: [m[name], x] } : x;
    s[k] = m;
  } else if (k === 'prefixItems' && Array.isArray(old) && Array.isArray(v)) {
    const len = Math.max(old.length, v.length);
    s[k] = Array.from({ length: len }, (_, i) =>
      i < old.length && i < v.length ? { allOf: [old[i], v[i]] } : i < old.length ? old[i] : v[i],
    );
  } else if (k === 'dependentRequired' && isSchemaObject(old) && isSchemaObject(v)) {
    const m: JsonSchemaObject = { ...old };
    for (const [name, x] of Object.entries(v)) {
      const prev = m[name];
      m[name] = Array.isArray(prev) && Array.isArray(x) ? [...new Set([...prev, ...x])] : x;
    }
    s[k] = m;
  } else if (k === 'multipleOf' && old !== v) {
    n.checks.push({ multipleOf: v });
  }
  // Annotations and anything else: the first one wins.
}

/** An equivalent plain schema of a Norm (for matching); without the branch exclusions when `withExcl` is false. */
export function normToSchema(n: Norm, withExcl = true): JsonSchema {
  if (n.unsat) return false;
  const s: JsonSchemaObject = { ...n.s };
  const all: JsonSchema[] = [...n.checks, ...(withExcl ? n.excl : []), ...n.patterns.map((p) => ({ pattern: p }))];
  for (const a of n.alts) all.push({ [a.kind]: a.branches });
  for (const c of n.conds) {
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else, not a thenable
    all.push({ if: c.if, ...(c.then !== undefined ? { then: c.then } : {}), ...(c.else !== undefined ? { else: c.else } : {}) });
  }
  for (const x of n.nots) all.push({ not: x });
  if (all.length > 0) s['allOf'] = all;
  return s;
}

const MAX_COMBOS = 24;

/**
 * Expand anyOf/oneOf groups into Norms without alternatives, one per choice of branch (at most MAX_COMBOS).
 * oneOf exclusivity becomes a check (`not` the other branches). Conditionals stay in `conds`.
 */
export function expandAlts(n: Norm, ctx: Ctx): Norm[] {
  if (n.unsat) return [];
  if (n.alts.length === 0) return [n];
  const base = cloneNorm(n);
  const [first, ...rest] = base.alts;
  base.alts = rest;
  const out: Norm[] = [];
  for (const b of first?.branches ?? []) {
    const c = cloneNorm(base);
    absorb(c, b, ctx, 0);
    if (first?.kind === 'oneOf') for (const other of first.branches) if (other !== b) c.excl.push({ not: other });
    out.push(...expandAlts(c, ctx));
    if (out.length >= MAX_COMBOS) break;
  }
  return out.slice(0, MAX_COMBOS);
}

/** Resolve the conditionals of `n`: `bits[i]` true takes `if` + `then`, false takes `not if` + `else`. */
export function chooseConds(n: Norm, bits: readonly boolean[], ctx: Ctx): Norm {
  const c = cloneNorm(n);
  c.conds = [];
  n.conds.forEach((cond, i) => {
    if (bits[i]) {
      absorb(c, cond.if, ctx, 0);
      if (cond.then !== undefined) absorb(c, cond.then, ctx, 0);
    } else {
      c.excl.push({ not: cond.if });
      if (cond.else !== undefined) absorb(c, cond.else, ctx, 0);
    }
  });
  return c;
}

/** Marks a value that could not be generated (an unsatisfiable choice of branches); always filtered out. */
export const NO_VALUE: unique symbol = Symbol('no value');

class SafeArbitrary<T> extends fc.Arbitrary<T | typeof NO_VALUE> {
  constructor(private readonly arb: fc.Arbitrary<T>) {
    super();
  }
  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<T | typeof NO_VALUE> {
    try {
      return this.arb.generate(mrng, biasFactor);
    } catch (e) {
      if (e instanceof UnsupportedSchemaError) return new fc.Value<T | typeof NO_VALUE>(NO_VALUE, undefined);
      throw e;
    }
  }
  canShrinkWithoutContext(value: unknown): value is T | typeof NO_VALUE {
    return value !== NO_VALUE && this.arb.canShrinkWithoutContext(value);
  }
  shrink(value: T | typeof NO_VALUE, context: unknown): fc.Stream<fc.Value<T | typeof NO_VALUE>> {
    if (value === NO_VALUE) return fc.Stream.nil();
    return this.arb.shrink(value, context) as fc.Stream<fc.Value<T | typeof NO_VALUE>>;
  }
}

/** `arb`, yielding NO_VALUE instead of throwing UnsupportedSchemaError. */
export function safe<T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | typeof NO_VALUE> {
  return new SafeArbitrary(arb);
}

/** Seed for construction-time screening (independent of the caller's seed, so results stay reproducible). */
export const SCREEN_SEED = 0x5eed;

/** Does `arb` produce at least one value passing `good` among `runs` samples (errors count as no)? */
export function produces<T>(arb: fc.Arbitrary<T>, good: (v: T) => boolean, runs = 5): boolean {
  try {
    return fc.sample(arb, { seed: SCREEN_SEED, numRuns: runs }).some(good);
  } catch (e) {
    if (e instanceof UnsupportedSchemaError) return false;
    throw e;
  }
}

/** JSON types a flat Norm admits: its `type`, else inferred from the keywords present, else all. */
export function typesOf(n: Norm): string[] {
  const t = n.s['type'];
  if (Array.isArray(t)) return t as string[];
  const s = n.s;
  const out: string[] = [];
  if (
    [
      'properties',
      'required',
      'additionalProperties',
      'patternProperties',
      'minProperties',
      'maxProperties',
      'propertyNames',
      'dependentRequired',
    ].some((k) => k in s)
  )
    out.push('object');
  if (['items', 'prefixItems', 'minItems', 'maxItems', 'contains', 'uniqueItems'].some((k) => k in s)) out.push('array');
  if (n.patterns.length > 0 || ['minLength', 'maxLength', 'format'].some((k) => k in s)) out.push('string');
  if (['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'].some((k) => k in s)) out.push('number');
  return out;
}

/** `{ required: [...] }` nots, which object generation can honour by construction. */
export function notRequiredSets(n: Norm): string[][] {
  return n.nots
    .filter((x): x is JsonSchemaObject => isSchemaObject(x) && Object.keys(x).length === 1 && Array.isArray(x['required']))
    .map((x) => (x['required'] as unknown[]).filter((k): k is string => typeof k === 'string'));
}
