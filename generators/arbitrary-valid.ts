// Values that match a JSON Schema: built from the schema's keywords (patterns via fc.stringMatching), with
// sizes bounded by the options; alternatives, `not`s and anything not built by construction are enforced by
// a bounded filter with matchesSchema.
import * as fc from 'fast-check';
import {
  NO_VALUE,
  UnsupportedSchemaError,
  anyPrimitive,
  boundedFilter,
  chooseConds,
  expandAlts,
  normToSchema,
  normalize,
  notRequiredSets,
  safe,
  typesOf,
  type Ctx,
  type Norm,
} from './arbitrary-core.js';
import { canonicalJson, codePointLength, matchesSchema, schemaRegExp } from './json-schema-match.js';
import type { JsonSchema, JsonSchemaObject } from './model.js';
import { isSchema, isSchemaObject } from './schema-walk.js';

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Past maxDepth, only required recursion continues; this much further means it never ends. */
const RECURSION_LIMIT = 24;

export function validArb(schema: JsonSchema, ctx: Ctx, depth: number): fc.Arbitrary<unknown> {
  if (schema === true) return anyPrimitive();
  if (schema === false) throw new UnsupportedSchemaError('false schema: no value is valid');
  if (depth > ctx.maxDepth + RECURSION_LIMIT) throw new UnsupportedSchemaError('required properties recurse without end');
  let byDepth = ctx.validCache.get(schema);
  const hit = byDepth?.get(depth);
  if (hit) return hit;
  const arb = validNorm(normalize(schema, ctx), schema, ctx, depth);
  if (!byDepth) {
    byDepth = new Map();
    ctx.validCache.set(schema, byDepth);
  }
  byDepth.set(depth, arb);
  return arb;
}

export function validNorm(n: Norm, original: JsonSchema, ctx: Ctx, depth: number): fc.Arbitrary<unknown> {
  if (n.unsat) throw new UnsupportedSchemaError(`no valid value: ${n.unsat}`);
  if (n.alts.length === 0 && n.conds.length === 0) return validFlat(n, ctx, depth);
  return boundedFilter(
    choiceArb(n, ctx, depth),
    (v) => v !== NO_VALUE && matchesSchema(v, original, ctx.root),
    'anyOf/oneOf/if-then-else (branch exclusivity)',
  );
}

/**
 * Alternatives are expanded up front (one arbitrary per branch choice, unsatisfiable ones dropped);
 * conditionals are chosen per value (one boolean each) and the Norm for each choice is built on first use.
 * May yield NO_VALUE: callers filter.
 */
function choiceArb(n: Norm, ctx: Ctx, depth: number): fc.Arbitrary<unknown> {
  if (n.unsat) throw new UnsupportedSchemaError(`no valid value: ${n.unsat}`);
  const arbs: fc.Arbitrary<unknown>[] = [];
  const reasons: string[] = [];
  for (const c of expandAlts(n, ctx)) {
    try {
      arbs.push(c.conds.length > 0 ? condArb(c, ctx, depth) : safe(validFlat(c, ctx, depth)));
    } catch (e) {
      if (!(e instanceof UnsupportedSchemaError)) throw e;
      reasons.push(e.message);
    }
  }
  const [first] = arbs;
  if (!first) throw new UnsupportedSchemaError(`no branch can be generated (${[...new Set(reasons)].join('; ') || 'no branches'})`);
  return arbs.length === 1 ? first : fc.oneof(...arbs);
}

function condArb(c: Norm, ctx: Ctx, depth: number): fc.Arbitrary<unknown> {
  const memo = new Map<string, fc.Arbitrary<unknown>>();
  const build = (bits: boolean[]): fc.Arbitrary<unknown> => {
    try {
      return safe(choiceArb(chooseConds(c, bits, ctx), ctx, depth));
    } catch (e) {
      if (!(e instanceof UnsupportedSchemaError)) throw e;
      return fc.constant(NO_VALUE);
    }
  };
  return fc.tuple(...c.conds.map(() => fc.boolean())).chain((bits) => {
    const key = bits.map((b) => (b ? '1' : '0')).join('');
    let a = memo.get(key);
    if (!a) {
      a = build(bits);
      memo.set(key, a);
    }
    return a;
  });
}

/** A Norm without alternatives. */
export function validFlat(n: Norm, ctx: Ctx, depth: number): fc.Arbitrary<unknown> {
  if (n.unsat) throw new UnsupportedSchemaError(`no valid value: ${n.unsat}`);
  const full = normToSchema(n, false);
  const s = n.s;
  let arb: fc.Arbitrary<unknown>;
  if ('const' in s) {
    if (!matchesSchema(s['const'], full, ctx.root)) throw new UnsupportedSchemaError('const contradicts the other keywords');
    return fc.constant(s['const']);
  }
  if (Array.isArray(s['enum'])) {
    const ok = s['enum'].filter((e) => matchesSchema(e, full, ctx.root));
    if (ok.length === 0) throw new UnsupportedSchemaError('no enum value satisfies the other keywords');
    return fc.constantFrom(...ok);
  }
  const types = typesOf(n);
  if (types.length === 0) arb = anyPrimitive();
  else {
    const arbs = types.flatMap((t) => {
      const a = typeArb(t, n, ctx, depth);
      return a ? [a] : [];
    });
    const [first] = arbs;
    if (!first) throw new UnsupportedSchemaError(`no generator for types ${types.join(', ')}`);
    arb = arbs.length === 1 ? first : fc.oneof(...arbs);
  }
  const needsCheck = n.nots.length > 0 || n.checks.length > 0 || n.patterns.length > 1 || types.length === 0;
  return needsCheck ? boundedFilter(arb, (v) => matchesSchema(v, full, ctx.root), 'not/extra constraints') : arb;
}

function typeArb(t: string, n: Norm, ctx: Ctx, depth: number): fc.Arbitrary<unknown> | undefined {
  switch (t) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integerArb(n.s);
    case 'number':
      return numberArb(n.s);
    case 'string':
      return stringArb(n, ctx);
    case 'array':
      return arrayArb(n, ctx, depth);
    case 'object':
      return objectArb(n, ctx, depth);
    default:
      return undefined;
  }
}

export function integerBounds(s: JsonSchemaObject): { lo: number; hi: number } {
  const min = num(s['minimum']);
  const max = num(s['maximum']);
  const xmin = num(s['exclusiveMinimum']);
  const xmax = num(s['exclusiveMaximum']);
  let lo: number | undefined;
  let hi: number | undefined;
  if (min !== undefined) lo = Math.ceil(min);
  if (xmin !== undefined) lo = Math.max(lo ?? -Infinity, Math.floor(xmin) + 1);
  if (max !== undefined) hi = Math.floor(max);
  if (xmax !== undefined) hi = Math.min(hi ?? Infinity, Math.ceil(xmax) - 1);
  if (lo === undefined && hi === undefined) {
    lo = -(2 ** 31);
    hi = 2 ** 31 - 1;
  } else if (lo === undefined) lo = (hi as number) - 2 ** 31;
  else if (hi === undefined) hi = lo + 2 ** 31;
  return { lo: Math.max(lo, Number.MIN_SAFE_INTEGER), hi: Math.min(hi as number, Number.MAX_SAFE_INTEGER) };
}

function integerArb(s: JsonSchemaObject): fc.Arbitrary<number> {
  const { lo, hi } = integerBounds(s);
  if (lo > hi) throw new UnsupportedSchemaError(`no integer in [${lo}, ${hi}]`);
  const m = num(s['multipleOf']);
  if (m === undefined) return fc.integer({ min: lo, max: hi });
  const kLo = Math.ceil(lo / m);
  const kHi = Math.floor(hi / m);
  if (kLo > kHi) throw new UnsupportedSchemaError(`no multiple of ${m} in [${lo}, ${hi}]`);
  const arb = fc.integer({ min: kLo, max: kHi }).map((k) => k * m);
  return Number.isInteger(m) ? arb : boundedFilter(arb, (v) => Number.isInteger(v) && Number.isInteger(v / m), `integer multipleOf ${m}`);
}

function numberArb(s: JsonSchemaObject): fc.Arbitrary<number> {
  const min = num(s['minimum']);
  const max = num(s['maximum']);
  const xmin = num(s['exclusiveMinimum']);
  const xmax = num(s['exclusiveMaximum']);
  let lo = min;
  let loEx = false;
  if (xmin !== undefined && (lo === undefined || xmin >= lo)) {
    lo = xmin;
    loEx = true;
  }
  let hi = max;
  let hiEx = false;
  if (xmax !== undefined && (hi === undefined || xmax <= hi)) {
    hi = xmax;
    hiEx = true;
  }
  if (lo === undefined) lo = hi === undefined ? -1e9 : Math.min(hi, 0) - 1e9;
  if (hi === undefined) hi = Math.max(lo, 0) + 1e9;
  const m = num(s['multipleOf']);
  const inRange = (v: number): boolean =>
    (loEx ? v > (lo as number) : v >= (lo as number)) && (hiEx ? v < (hi as number) : v <= (hi as number));
  if (m !== undefined) {
    const kLo = Math.ceil(lo / m);
    const kHi = Math.floor(hi / m);
    if (kLo > kHi) throw new UnsupportedSchemaError(`no multiple of ${m} in [${lo}, ${hi}]`);
    return boundedFilter(
      fc.integer({ min: kLo, max: kHi }).map((k) => k * m),
      (v) => inRange(v) && Number.isInteger(v / m),
      `number multipleOf ${m}`,
    );
  }
  if (lo > hi || (lo === hi && (loEx || hiEx))) throw new UnsupportedSchemaError(`no number in (${lo}, ${hi})`);
  return fc
    .double({ min: lo, max: hi, minExcluded: loEx, maxExcluded: hiEx, noNaN: true, noDefaultInfinity: true })
    .map((v) => (Object.is(v, -0) ? 0 : v));
}

/** fc.stringMatching is costly to build (it tokenizes its default slices) and immutable: one per pattern and bound. */
const matching = new Map<string, fc.Arbitrary<string>>();
function stringMatching(pattern: string, maxLength: number | undefined): fc.Arbitrary<string> {
  const key = `${maxLength}\u0000${pattern}`;
  let arb = matching.get(key);
  if (!arb) {
    arb = fc.stringMatching(schemaRegExp(pattern), maxLength !== undefined ? { maxLength } : {});
    matching.set(key, arb);
  }
  return arb;
}

function stringArb(n: Norm, ctx: Ctx): fc.Arbitrary<string> {
  const s = n.s;
  const minL = num(s['minLength']) ?? 0;
  const maxL = num(s['maxLength']);
  const [p, ...rest] = n.patterns;
  if (p !== undefined) {
    const base = stringMatching(p, maxL);
    if (minL === 0 && rest.length === 0) return base;
    return boundedFilter(
      base,
      (x) => codePointLength(x) >= minL && rest.every((r) => schemaRegExp(r).test(x)),
      `pattern ${p} with minLength ${minL}${rest.length ? ` and ${rest.join(', ')}` : ''}`,
    );
  }
  const hi = Math.min(maxL ?? Infinity, minL + ctx.maxLength);
  if (hi < minL) throw new UnsupportedSchemaError(`minLength ${minL} > maxLength ${maxL}`);
  const fitting = (a: fc.Arbitrary<string>, what: string): fc.Arbitrary<string> =>
    boundedFilter(a, (x) => codePointLength(x) >= minL && codePointLength(x) <= (maxL ?? Infinity), `format ${what} within length bounds`);
  switch (s['format']) {
    case 'date-time':
      return fitting(
        dateArb().map((d) => d.toISOString()),
        'date-time',
      );
    case 'date':
      return fitting(
        dateArb().map((d) => d.toISOString().slice(0, 10)),
        'date',
      );
    case 'uuid':
      return fitting(fc.uuid({ version: 4 }), 'uuid');
    case 'email':
      return fitting(fc.emailAddress(), 'email');
    case 'uri':
    case 'url':
      return fitting(fc.webUrl(), 'uri');
    case 'ipv4':
      return fitting(fc.ipV4(), 'ipv4');
    default:
      return fc.string({ minLength: minL, maxLength: hi });
  }
}

function dateArb(): fc.Arbitrary<Date> {
  return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true });
}

/** Length bounds of a generated array at this depth. */
export function arrayBounds(s: JsonSchemaObject, ctx: Ctx, depth: number): { min: number; max: number } {
  const min = num(s['minItems']) ?? 0;
  const declaredMax = num(s['maxItems']) ?? Infinity;
  if (declaredMax < min) throw new UnsupportedSchemaError(`minItems ${min} > maxItems ${declaredMax}`);
  const max = depth >= ctx.maxDepth ? min : Math.min(declaredMax, Math.max(min, ctx.maxItems));
  return { min, max };
}

function arrayArb(n: Norm, ctx: Ctx, depth: number): fc.Arbitrary<unknown[]> {
  const s = n.s;
  const { min, max } = arrayBounds(s, ctx, depth);
  const unique = s['uniqueItems'] === true;
  const prefix = Array.isArray(s['prefixItems']) ? s['prefixItems'].filter(isSchema) : [];
  const items = isSchema(s['items']) ? s['items'] : undefined;
  const itemArb = (): fc.Arbitrary<unknown> => (items === undefined ? anyPrimitive() : validArb(items, ctx, depth + 1));
  let arb: fc.Arbitrary<unknown[]>;
  if (prefix.length === 0) {
    if (items === false) {
      if (min > 0) throw new UnsupportedSchemaError('items: false with minItems > 0');
      arb = fc.constant([]);
    } else if (max === 0) arb = fc.constant([]);
    else if (unique) arb = fc.uniqueArray(itemArb(), { minLength: min, maxLength: max, selector: canonicalJson });
    else arb = fc.array(itemArb(), { minLength: min, maxLength: max });
  } else {
    const p = Math.min(prefix.length, max);
    const head = fc.tuple(...prefix.slice(0, p).map((x) => validArb(x, ctx, depth + 1)));
    const restMax = items === false ? 0 : Math.max(0, max - p);
    const restMin = Math.min(restMax, Math.max(0, min - p));
    if (p + restMax < min) throw new UnsupportedSchemaError('prefixItems with items: false cannot reach minItems');
    const tail = restMax === 0 ? fc.constant([] as unknown[]) : fc.array(itemArb(), { minLength: restMin, maxLength: restMax });
    arb = fc.tuple(head, tail).map(([h, t]) => [...h, ...t]);
    if (unique) arb = boundedFilter(arb, (a) => new Set(a.map(canonicalJson)).size === a.length, 'uniqueItems with prefixItems');
  }
  if (isSchema(s['contains'])) {
    const minC = num(s['minContains']) ?? 1;
    const containsArb = fc.array(validArb(s['contains'], ctx, depth + 1), { minLength: minC, maxLength: minC });
    arb = fc.tuple(arb, containsArb, fc.nat()).map(([a, c, at]) => {
      const out = [...a];
      out.splice(at % (out.length + 1), 0, ...c);
      return out.slice(0, Math.max(num(s['maxItems']) ?? Infinity, c.length));
    });
    arb = boundedFilter(arb, (a) => matchesSchema(a, normToSchema(n, false), ctx.root), 'contains');
  }
  return arb;
}

function objectArb(n: Norm, ctx: Ctx, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const s = n.s;
  const props = isSchemaObject(s['properties']) ? s['properties'] : {};
  const patternProps = isSchemaObject(s['patternProperties']) ? Object.entries(s['patternProperties']).filter(([, v]) => isSchema(v)) : [];
  const ap = s['additionalProperties'];
  const required = (Array.isArray(s['required']) ? s['required'] : []).filter((k): k is string => typeof k === 'string');
  const atLimit = depth >= ctx.maxDepth;
  const matchesPattern = (k: string): boolean => patternProps.some(([p]) => schemaRegExp(p).test(k));

  // Schema for a key: declared property, else matching patternProperties, else additionalProperties.
  const schemaForKey = (k: string): JsonSchema => {
    if (k in props && isSchema(props[k])) return props[k];
    const pats = patternProps.filter(([p]) => schemaRegExp(p).test(k)).map(([, v]) => v as JsonSchema);
    if (pats.length > 0) return pats.length === 1 ? (pats[0] as JsonSchema) : { allOf: pats };
    if (ap === false) throw new UnsupportedSchemaError(`required property ${k} is forbidden by additionalProperties: false`);
    return isSchema(ap) ? ap : true;
  };

  const declared = Object.keys(props).filter((k) => isSchema(props[k]));
  const requiredKeys = [...required];
  const minProps = num(s['minProperties']) ?? 0;
  for (const k of declared) {
    if (requiredKeys.length >= minProps) break;
    if (!requiredKeys.includes(k)) requiredKeys.push(k);
  }
  const keys = atLimit ? requiredKeys : [...new Set([...declared, ...requiredKeys])];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const k of keys) {
    try {
      model[k] = validArb(schemaForKey(k), ctx, depth + 1);
    } catch (e) {
      // An optional property no value can satisfy (`false`, as in `properties: {tenantId: false}`) is left out.
      if (!(e instanceof UnsupportedSchemaError) || requiredKeys.includes(k)) throw e;
    }
  }
  const presentRequired = requiredKeys.filter((k) => k in model);
  let arb: fc.Arbitrary<Record<string, unknown>> = fc.record(model, {
    requiredKeys: presentRequired,
    noNullPrototype: true,
  }) as fc.Arbitrary<Record<string, unknown>>;

  // Map entries: patternProperties, and additionalProperties when it is a schema.
  const entryArbs: fc.Arbitrary<[string, unknown]>[] = [];
  const propertyNames = isSchema(s['propertyNames']) ? s['propertyNames'] : undefined;
  const keyOk = (k: string): boolean => !(k in props) && (propertyNames === undefined || matchesSchema(k, propertyNames, ctx.root));
  for (const [p, ps] of patternProps) {
    const keyArb = boundedFilter(fc.stringMatching(schemaRegExp(p)), keyOk, `a new key matching ${p}`);
    entryArbs.push(fc.tuple(keyArb, validArb(ps as JsonSchema, ctx, depth + 1)));
  }
  if (isSchemaObject(ap)) {
    const baseKey =
      propertyNames !== undefined
        ? (boundedFilter(
            validArb(propertyNames, ctx, depth + 1),
            (k) => typeof k === 'string',
            'a string key from propertyNames',
          ) as fc.Arbitrary<string>)
        : fc.string({ minLength: 1, maxLength: 10 });
    const keyArb = boundedFilter(baseKey, (k) => keyOk(k) && !matchesPattern(k), 'a new additionalProperties key');
    entryArbs.push(fc.tuple(keyArb, validArb(ap, ctx, depth + 1)));
  }
  const maxProps = num(s['maxProperties']) ?? Infinity;
  const extrasMin = Math.max(0, minProps - keys.length);
  const extrasMax = Math.min(Math.max(extrasMin, atLimit ? 0 : ctx.maxKeys), Math.max(0, maxProps - requiredKeys.length));
  if (entryArbs.length > 0 && extrasMax > 0) {
    const entries = fc.uniqueArray(entryArbs.length === 1 ? (entryArbs[0] as fc.Arbitrary<[string, unknown]>) : fc.oneof(...entryArbs), {
      minLength: extrasMin,
      maxLength: extrasMax,
      selector: (e) => e[0],
    });
    arb = fc.tuple(arb, entries).map(([o, e]) => {
      const out: Record<string, unknown> = {};
      for (const [k, v] of e) out[k] = v;
      return Object.assign(out, o);
    });
  } else if (extrasMin > 0) {
    throw new UnsupportedSchemaError(`minProperties ${minProps} needs more keys than the schema declares`);
  }

  // not: {required: [a, b]} -> never all of them.
  const notSets = notRequiredSets(n);
  if (notSets.length > 0) {
    arb = arb.map((o) => {
      const out = { ...o };
      for (const set of notSets) {
        if (set.length > 0 && set.every((k) => k in out)) {
          const removable = [...set].reverse().find((k) => !required.includes(k));
          if (removable !== undefined) delete out[removable];
        }
      }
      return out;
    });
  }
  const needsCheck =
    notSets.length > 0 ||
    'maxProperties' in s ||
    'minProperties' in s ||
    'dependentRequired' in s ||
    'dependentSchemas' in s ||
    patternProps.length > 1 ||
    propertyNames !== undefined;
  if (needsCheck) {
    const full = normToSchema(
      { ...n, alts: [], conds: [], checks: [], nots: n.nots.filter((x) => isSchemaObject(x) && Array.isArray(x['required'])) },
      false,
    );
    arb = boundedFilter(arb, (o) => matchesSchema(o, full, ctx.root), 'object constraints (not/min/maxProperties/dependencies)');
  }
  return arb;
}
