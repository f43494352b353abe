// Values that break a JSON Schema in one named way: each candidate starts from a valid value and breaks one
// keyword at one instance path (wrong type, out of range, pattern, enum/const, length, item count,
// uniqueness, missing required property, unexpected property, property count, `not: {required}`), recursing
// into properties, items and map values. The public invalidValue() keeps only candidates that really fail.
import * as fc from 'fast-check';
import {
  UnsupportedSchemaError,
  boundedFilter,
  cloneNorm,
  expandAlts,
  normToSchema,
  normalize,
  notRequiredSets,
  produces,
  typesOf,
  type Ctx,
  type Norm,
} from './arbitrary-core.js';
import { arrayBounds, validArb, validNorm } from './arbitrary-valid.js';
import { jsonEqual, matchesSchema, schemaRegExp } from './json-schema-match.js';
import type { JsonSchema, JsonSchemaObject } from './model.js';
import { escapePointerSegment, isSchema, isSchemaObject } from './schema-walk.js';

export interface Violation {
  /** The JSON Schema keyword broken, as Ajv names it in its errors (`type`, `minimum`, `pattern`, `required`, ...). */
  keyword: string;
  /** Instance path (JSON pointer) of the value that breaks it; for `required`, the object missing the property. */
  path: string;
  message: string;
  /** The broken schema (or one enclosing it) carries `x-assumed: true`. */
  assumed: boolean;
  /** For `required` / `additionalProperties`: the property concerned. */
  property?: string;
}

export interface InvalidValue<T = unknown> {
  value: T;
  violation: Violation;
}

type Cand = fc.Arbitrary<InvalidValue>;

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const MAX_CANDIDATES = 400;

/** One sample value per JSON type. */
const TYPE_SAMPLES: Record<string, unknown[]> = {
  string: ['x'],
  integer: [7],
  number: [1.5],
  boolean: [true],
  null: [null],
  object: [{}],
  array: [[]],
};

function allowsType(types: readonly string[], value: unknown): boolean {
  if (value === null) return types.includes('null');
  if (typeof value === 'boolean') return types.includes('boolean');
  if (typeof value === 'number') return types.includes('number') || (Number.isInteger(value) && types.includes('integer'));
  if (typeof value === 'string') return types.includes('string');
  if (Array.isArray(value)) return types.includes('array');
  return types.includes('object');
}

function prefixed(v: Violation, key: string | number): Violation {
  return { ...v, path: `/${escapePointerSegment(String(key))}${v.path}` };
}

export function invalidCandidates(schema: JsonSchema, ctx: Ctx, depth: number, assumed: boolean): Cand[] {
  if (schema === true) return [];
  const mk = maker(assumed);
  if (schema === false) return [mk('false schema', 'no value is allowed here', fc.constantFrom<unknown>('x', 1, null, {}))];
  if (depth > ctx.maxDepth) return [];
  const n = normalize(schema, ctx);
  const isAssumed = assumed || n.assumed;
  const out: Cand[] = [];
  for (const c of expandAlts(n, ctx)) {
    try {
      out.push(...flatCandidates(c, ctx, depth, isAssumed));
    } catch (e) {
      if (!(e instanceof UnsupportedSchemaError)) throw e;
    }
    if (out.length >= MAX_CANDIDATES) break;
  }
  return out.slice(0, MAX_CANDIDATES);
}

function flatCandidates(n: Norm, ctx: Ctx, depth: number, assumed: boolean): Cand[] {
  const s = n.s;
  const out: Cand[] = [];
  const mk = maker(assumed);
  const declaredTypes = Array.isArray(s['type']) ? (s['type'] as string[]) : undefined;
  const types = declaredTypes ?? typesOf(n);
  const may = (t: string): boolean => types.length === 0 || types.includes(t) || (t === 'number' && types.includes('integer'));
  let validSelf: fc.Arbitrary<unknown> | undefined;
  const valid = (): fc.Arbitrary<unknown> => (validSelf ??= validNorm(n, normToSchema(n), ctx, depth));
  const withBounds = (patch: JsonSchemaObject): fc.Arbitrary<unknown> => {
    const c = cloneNorm(n);
    Object.assign(c.s, patch);
    return validNorm(c, normToSchema(c), ctx, depth);
  };

  // Local violations break one keyword and keep every other keyword of this schema satisfied, so that the
  // value fails here for that keyword only (an alternative elsewhere cannot hide it behind another error).
  const restNorm = (keyword: string, pattern?: string): Norm => {
    const c = cloneNorm(n);
    if (keyword === 'pattern') c.patterns = c.patterns.filter((p) => p !== pattern);
    else delete c.s[keyword];
    return c;
  };
  const local = (keyword: string, message: string, a: fc.Arbitrary<unknown>, pattern?: string): void => {
    const rest = normToSchema(restNorm(keyword, pattern));
    const arb = boundedFilter(a, (v) => matchesSchema(v, rest, ctx.root), `a value breaking only ${keyword}`, 30);
    if (produces(arb, () => true, 3)) out.push(mk(keyword, message, arb));
  };
  const validOfRest = (keyword: string): fc.Arbitrary<unknown> | undefined => {
    try {
      const r = restNorm(keyword);
      return validNorm(r, normToSchema(r), ctx, depth);
    } catch (e) {
      if (!(e instanceof UnsupportedSchemaError)) throw e;
      return undefined;
    }
  };

  // 1. type
  if (declaredTypes) {
    const wrong = Object.values(TYPE_SAMPLES)
      .flat()
      .filter((v) => !allowsType(declaredTypes, v));
    if (wrong.length > 0) local('type', `a value whose type is not ${declaredTypes.join(' | ')}`, fc.constantFrom(...wrong));
  }
  // 2. const / enum: another value allowed by everything else
  if ('const' in s) {
    const c = s['const'];
    const other =
      typeof c === 'string'
        ? `${c}~`
        : typeof c === 'number'
          ? c + 1
          : typeof c === 'boolean'
            ? !c
            : c === null
              ? 0
              : Array.isArray(c)
                ? [...c, 0]
                : { ...(c as object), 'x-not-const': 1 };
    const fromRest = validOfRest('const');
    const a = fromRest ? fc.oneof(fromRest, fc.constant(other)) : fc.constant(other);
    local(
      'const',
      `a value other than ${JSON.stringify(c)}`,
      a.map((v) => (jsonEqual(v, c) ? other : v)),
    );
  } else if (Array.isArray(s['enum']) && s['enum'].length > 0) {
    const values = s['enum'];
    const notIn = (x: unknown): boolean => !values.some((e) => jsonEqual(e, x));
    const nums = values.filter((v): v is number => typeof v === 'number');
    let fallback: fc.Arbitrary<unknown>;
    if (values.some((v) => typeof v === 'string') || nums.length === 0) {
      fallback = fc.string({ minLength: 1, maxLength: 8 }).map((x) => {
        let y = x;
        while (!notIn(y)) y = `${y}~`;
        return y;
      });
    } else {
      const top = Math.max(...nums);
      fallback = fc.integer({ min: 1, max: 100 }).map((k) => Math.floor(top) + k);
    }
    const fromRest = validOfRest('enum');
    const a = fromRest ? fc.oneof(boundedFilter(fc.oneof(fromRest, fallback), notIn, 'a value outside the enum', 30), fallback) : fallback;
    local('enum', `a value outside the enum ${JSON.stringify(values)}`, a);
  }
  const constrained = 'const' in s || Array.isArray(s['enum']);

  // 3. numbers: values on the multipleOf grid (or the integers) just outside each bound
  if (!constrained && (may('integer') || may('number'))) {
    const min = num(s['minimum']);
    const max = num(s['maximum']);
    const xmin = num(s['exclusiveMinimum']);
    const xmax = num(s['exclusiveMaximum']);
    const m = num(s['multipleOf']);
    const g = m ?? 1;
    const k = fc.integer({ min: 0, max: 20 });
    if (min !== undefined)
      local(
        'minimum',
        `a number below minimum ${min}`,
        k.map((i) => (Math.ceil(min / g) - 1 - i) * g),
      );
    if (xmin !== undefined)
      local(
        'exclusiveMinimum',
        `a number not above exclusiveMinimum ${xmin}`,
        k.map((i) => (Math.floor(xmin / g) - i) * g),
      );
    if (max !== undefined)
      local(
        'maximum',
        `a number above maximum ${max}`,
        k.map((i) => (Math.floor(max / g) + 1 + i) * g),
      );
    if (xmax !== undefined)
      local(
        'exclusiveMaximum',
        `a number not below exclusiveMaximum ${xmax}`,
        k.map((i) => (Math.ceil(xmax / g) + i) * g),
      );
    if (m !== undefined) {
      const lo = min ?? (xmin !== undefined ? xmin + m : 0);
      const base = Math.ceil(lo / m) * m;
      const intOnly = declaredTypes !== undefined && !declaredTypes.includes('number');
      const offset = Number.isInteger(m) && m >= 2 ? 1 : intOnly ? undefined : m / 2;
      if (offset !== undefined)
        local(
          'multipleOf',
          `a number that is not a multiple of ${m}`,
          k.map((i) => base + i * m + offset),
        );
    }
  }

  // 4. strings
  if (!constrained && may('string')) {
    const minL = num(s['minLength']);
    const maxL = num(s['maxLength']);
    let validStrings: fc.Arbitrary<string> | undefined;
    try {
      validStrings = boundedFilter(valid(), (v) => typeof v === 'string', 'a valid string') as fc.Arbitrary<string>;
    } catch (e) {
      if (!(e instanceof UnsupportedSchemaError)) throw e;
    }
    if (minL !== undefined && minL > 0) {
      const repeat = fc.integer({ min: 0, max: minL - 1 }).map((l) => 'a'.repeat(l));
      const cut = validStrings ? fc.tuple(validStrings, fc.nat(minL - 1)).map(([v, l]) => [...v].slice(0, l).join('')) : undefined;
      local('minLength', `a string shorter than ${minL}`, cut ? fc.oneof(cut, repeat) : repeat);
    }
    if (maxL !== undefined && maxL <= 4096) {
      const repeat = fc.integer({ min: maxL + 1, max: maxL + 4 }).map((l) => 'a'.repeat(l));
      const pad = validStrings
        ? fc.tuple(validStrings, fc.integer({ min: maxL + 1, max: maxL + 4 })).map(([v, l]) => {
            const chars = [...v];
            const last = chars[chars.length - 1] ?? 'a';
            return chars.concat(Array.from({ length: Math.max(0, l - chars.length) }, () => last)).join('');
          })
        : undefined;
      local('maxLength', `a string longer than ${maxL}`, pad ? fc.oneof(pad, repeat) : repeat);
    }
    for (const p of n.patterns) {
      const re = schemaRegExp(p);
      const rest = normToSchema(restNorm('pattern', p));
      const source = validStrings ?? fc.string({ maxLength: 8 });
      const a = fc.tuple(source, fc.nat()).map(([v, i]) => {
        const tries = stringMutations(v);
        for (let j = 0; j < tries.length; j++) {
          const t = tries[(i + j) % tries.length] as string;
          if (!re.test(t) && matchesSchema(t, rest, ctx.root)) return t;
        }
        return `${v}\u0000`;
      });
      local('pattern', `a string not matching ${p}`, a, p);
    }
  }

  // 5. arrays
  if (!constrained && may('array') && (declaredTypes !== undefined || types.includes('array'))) {
    // The host of a nested violation is a valid array: with `type: [array, null]` the other types are left out.
    out.push(...arrayCandidates(n, ctx, depth, assumed, mk, (patch) => withBounds({ ...patch, type: 'array' })));
  }

  // 6. objects
  if (!constrained && may('object') && (declaredTypes !== undefined || types.includes('object'))) {
    out.push(...objectCandidates(n, ctx, depth, assumed, mk, valid));
  }
  return out;
}

function stringMutations(v: string): string[] {
  const chars = [...v];
  return [
    `${v}~`,
    `~${v}`,
    chars.slice(1).join(''),
    chars.slice(0, -1).join(''),
    ` ${chars.slice(1).join('')}`,
    v.toUpperCase(),
    v.toLowerCase(),
    `${v}${v}`,
    '',
    ' ',
    '~',
    '0',
    '-1',
    'a',
    'A',
    '!',
    '00',
    '1.5',
  ];
}

type Mk = (keyword: string, message: string, a: fc.Arbitrary<unknown>, extra?: Partial<Violation>) => Cand;

/** The candidate maker of a schema: each value of `a` with the violation of `keyword` it carries. */
function maker(assumed: boolean): Mk {
  return (keyword, message, a, extra = {}) => a.map((value) => ({ value, violation: { keyword, path: '', message, assumed, ...extra } }));
}

/** Adds the candidates `f` makes to `out`; a part of the schema the generator does not support adds none. */
function pushSupported(out: Cand[], f: () => Cand | Cand[]): void {
  try {
    const r = f();
    out.push(...(Array.isArray(r) ? r : [r]));
  } catch (e) {
    if (!(e instanceof UnsupportedSchemaError)) throw e;
  }
}

function arrayCandidates(
  n: Norm,
  ctx: Ctx,
  depth: number,
  assumed: boolean,
  mk: Mk,
  withBounds: (p: JsonSchemaObject) => fc.Arbitrary<unknown>,
): Cand[] {
  const s = n.s;
  const out: Cand[] = [];
  const tryPush = (f: () => Cand | Cand[]): void => pushSupported(out, f);
  const minI = num(s['minItems']);
  const maxI = num(s['maxItems']);
  const prefix = Array.isArray(s['prefixItems']) ? s['prefixItems'].filter(isSchema) : [];
  const items = isSchema(s['items']) ? s['items'] : undefined;
  if (minI !== undefined && minI > 0)
    tryPush(() => mk('minItems', `an array with fewer than ${minI} items`, withBounds({ minItems: 0, maxItems: minI - 1 })));
  if (maxI !== undefined && maxI < 50) {
    if (items !== false)
      tryPush(() => mk('maxItems', `an array with more than ${maxI} items`, withBounds({ minItems: maxI + 1, maxItems: maxI + 1 })));
  }
  if (items === false && prefix.length > 0) {
    tryPush(() =>
      mk(
        'items',
        `an array with more than the ${prefix.length} prefixItems`,
        fc.tuple(...prefix.map((p) => validArb(p, ctx, depth + 1))).map((t) => [...t, 'extra']),
      ),
    );
  }
  if (s['uniqueItems'] === true && (maxI === undefined || maxI >= 2)) {
    tryPush(() =>
      mk(
        'uniqueItems',
        'an array with a repeated item',
        (
          boundedFilter(
            withBounds({ minItems: Math.max(1, minI ?? 0), maxItems: Math.max(1, Math.min(maxI ?? 3, 3) - 1) }),
            // Ajv's uniqueItems misses repeated strings named like Object.prototype members ('__proto__').
            (a) => Array.isArray(a) && a.length > 0 && !(typeof a[0] === 'string' && a[0] in {}),
            'a non-empty valid array',
          ) as fc.Arbitrary<unknown[]>
        ).map((a) => [...a, a[0]]),
      ),
    );
  }
  if (depth >= ctx.maxDepth) return out;
  // Nested: one invalid item inside an otherwise valid array.
  prefix.forEach((p, j) => {
    tryPush(() => {
      const host = withBounds({
        minItems: Math.max(minI ?? 0, j + 1),
        maxItems: Math.max(maxI === undefined ? j + 1 : Math.min(maxI, j + 2), j + 1),
      });
      return invalidCandidates(p, ctx, depth + 1, assumed).map((c) =>
        fc.tuple(host, c).map(([a, iv]) => {
          const arr = [...(a as unknown[])];
          arr[j] = iv.value;
          return { value: arr, violation: prefixed(iv.violation, j) };
        }),
      );
    });
  });
  if (items !== undefined && items !== false && (maxI === undefined || maxI > prefix.length)) {
    tryPush(() => {
      const { max } = arrayBounds(s, ctx, 0);
      const host = withBounds({
        minItems: Math.max(minI ?? 0, prefix.length + 1),
        maxItems: Math.max(prefix.length + 1, Math.min(max, prefix.length + 2)),
      });
      return invalidCandidates(items, ctx, depth + 1, assumed).map((c) =>
        fc.tuple(host, c, fc.nat()).map(([a, iv, k]) => {
          const arr = [...(a as unknown[])];
          const i = prefix.length + (k % Math.max(1, arr.length - prefix.length));
          arr[i] = iv.value;
          return { value: arr, violation: prefixed(iv.violation, i) };
        }),
      );
    });
  }
  return out;
}

function objectCandidates(n: Norm, ctx: Ctx, depth: number, assumed: boolean, mk: Mk, valid: () => fc.Arbitrary<unknown>): Cand[] {
  const s = n.s;
  const out: Cand[] = [];
  const tryPush = (f: () => Cand | Cand[]): void => pushSupported(out, f);
  const props = isSchemaObject(s['properties']) ? s['properties'] : {};
  const patternProps = isSchemaObject(s['patternProperties']) ? Object.entries(s['patternProperties']).filter(([, v]) => isSchema(v)) : [];
  const ap = s['additionalProperties'];
  const required = (Array.isArray(s['required']) ? s['required'] : []).filter((k): k is string => typeof k === 'string');
  const host = (): fc.Arbitrary<Record<string, unknown>> =>
    boundedFilter(valid(), (o) => isSchemaObject(o), 'a valid object') as fc.Arbitrary<Record<string, unknown>>;
  const undeclaredKey = (base: string): string => {
    let k = base;
    for (let i = 0; (k in props || patternProps.some(([p]) => schemaRegExp(p).test(k))) && i < 50; i++) k = `${base}_${i}`;
    return k;
  };

  for (const r of required) {
    tryPush(() =>
      mk(
        'required',
        `object without required property ${JSON.stringify(r)}`,
        host().map((o) => {
          const c = { ...o };
          delete c[r];
          return c;
        }),
        { property: r },
      ),
    );
  }
  if (ap === false) {
    const key = undeclaredKey('zzUnexpected');
    tryPush(() =>
      mk(
        'additionalProperties',
        `object with undeclared property ${JSON.stringify(key)}`,
        host().map((o) => ({ ...o, [key]: 'x' })),
        { property: key },
      ),
    );
  }
  const maxP = num(s['maxProperties']);
  if (maxP !== undefined && maxP < 50) {
    tryPush(() =>
      mk(
        'maxProperties',
        `object with more than ${maxP} properties`,
        host().map((o) => {
          const c: Record<string, unknown> = { ...o };
          for (let i = 0; Object.keys(c).length <= maxP; i++) c[undeclaredKey(`zzExtra${i}`)] = 'x';
          return c;
        }),
      ),
    );
  }
  const minP = num(s['minProperties']);
  if (minP !== undefined && minP > 0) tryPush(() => mk('minProperties', `object with fewer than ${minP} properties`, fc.constant({})));
  for (const set of notRequiredSets(n)) {
    if (set.length === 0) continue;
    tryPush(() => {
      const vals = fc.tuple(...set.map((k) => validArb(isSchema(props[k]) ? props[k] : true, ctx, depth + 1)));
      return mk(
        'not',
        `object with all of ${set.join(', ')} (the schema forbids having them together)`,
        fc.tuple(host(), vals).map(([o, vs]) => {
          const c: Record<string, unknown> = { ...o };
          set.forEach((k, i) => {
            if (!(k in c)) c[k] = vs[i];
          });
          return c;
        }),
      );
    });
  }
  if (depth >= ctx.maxDepth) return out;

  // Nested: one invalid property value inside an otherwise valid object.
  for (const [k, ps] of Object.entries(props)) {
    if (!isSchema(ps)) continue;
    tryPush(() =>
      invalidCandidates(ps, ctx, depth + 1, assumed).map((c) =>
        fc.tuple(host(), c).map(([o, iv]) => ({ value: { ...o, [k]: iv.value }, violation: prefixed(iv.violation, k) })),
      ),
    );
  }
  for (const [p, ps] of patternProps) {
    tryPush(() => {
      const key = boundedFilter(fc.stringMatching(schemaRegExp(p)), (x) => !(x in props), `an undeclared key matching ${p}`);
      return invalidCandidates(ps as JsonSchema, ctx, depth + 1, assumed).map((c) =>
        fc.tuple(host(), key, c).map(([o, kk, iv]) => ({ value: { ...o, [kk]: iv.value }, violation: prefixed(iv.violation, kk) })),
      );
    });
  }
  if (isSchemaObject(ap)) {
    const key = undeclaredKey('zzExtra');
    tryPush(() =>
      invalidCandidates(ap, ctx, depth + 1, assumed).map((c) =>
        fc.tuple(host(), c).map(([o, iv]) => ({ value: { ...o, [key]: iv.value }, violation: prefixed(iv.violation, key) })),
      ),
    );
  }
  return out;
}
