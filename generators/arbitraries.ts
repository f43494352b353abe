// fast-check arbitraries from the specs' JSON Schemas: valid values, invalid values that say which
// constraint they break, and whole requests (path, query, headers, body) for an operation.
//
//   validValue(schema, { root })      Arbitrary<unknown>         every value matches the schema
//   invalidValue(schema, { root })    Arbitrary<InvalidValue>    every value fails it, { value, violation }
//   requestArbitraries(service, operationId)  { valid, invalid, assumed }
//
// `root` resolves `#/components/schemas/...`: pass a service entry of generators/out/schemas.json
// (schemaRoot(service) gives it). `x-assumed` is only reported (Violation.assumed, RequestArbitraries.assumed).
import * as fc from 'fast-check';
import {
  NO_VALUE,
  UnsupportedSchemaError,
  boundedFilter,
  expandAlts,
  makeCtx,
  produces,
  safe,
  normalize,
  typesOf,
  type ArbitraryOptions,
  type Ctx,
} from './arbitrary-core.js';
import { invalidCandidates, type InvalidValue, type Violation } from './arbitrary-invalid.js';
import { validArb } from './arbitrary-valid.js';
import { DEFAULT_OUT_DIR } from './config.js';
import { jsonEqual, matchesSchema, schemaErrors } from './json-schema-match.js';
import type { JsonSchema, OperationInfo, ParameterInfo } from './model.js';
import { collectAnnotationPointers } from './rule-map.js';
import { loadIndex, type GeneratedIndex } from './runtime.js';
import { isSchemaObject } from './schema-walk.js';

export { UnsupportedSchemaError, type ArbitraryOptions } from './arbitrary-core.js';
export type { InvalidValue, Violation } from './arbitrary-invalid.js';
export { matchesSchema } from './json-schema-match.js';

/** Values valid for `schema`. Throws UnsupportedSchemaError when the schema cannot be generated. */
export function validValue(schema: JsonSchema, options: ArbitraryOptions = {}): fc.Arbitrary<unknown> {
  const ctx = makeCtx(options);
  return boundedFilter(validArb(schema, ctx, 0), (v) => matchesSchema(v, schema, ctx.root), 'a valid value (final check)', 50);
}

/** Most invalid-value candidates kept per schema (evenly spread over the sites found). */
const MAX_INVALID_CANDIDATES = 150;

/**
 * Values invalid for `schema`, each with the violation it was built to carry (keyword and instance path, as
 * Ajv reports them). A candidate that turns out valid (another anyOf branch accepts it) is retried.
 * Throws UnsupportedSchemaError when no invalid value can be built (a schema such as `{}` accepts everything).
 */
export function invalidValue(schema: JsonSchema, options: ArbitraryOptions = {}): fc.Arbitrary<InvalidValue> {
  const ctx = makeCtx(options);
  // Invalid, and for the announced reason (an error Ajv would report at that keyword and path).
  const fails = (v: InvalidValue | typeof NO_VALUE): v is InvalidValue =>
    v !== NO_VALUE &&
    schemaErrors(v.value, schema, ctx.root).some(
      (e) =>
        e.keyword === v.violation.keyword &&
        e.instancePath === v.violation.path &&
        (v.violation.property === undefined || e.property === undefined || e.property === v.violation.property),
    );
  const all = invalidCandidates(schema, ctx, 0, false);
  const step = Math.max(1, all.length / MAX_INVALID_CANDIDATES);
  const candidates: fc.Arbitrary<InvalidValue | typeof NO_VALUE>[] = [];
  for (let i = 0; i < all.length && candidates.length < MAX_INVALID_CANDIDATES; i += step)
    candidates.push(safe(all[Math.floor(i)] as fc.Arbitrary<InvalidValue>));
  const [first] = candidates;
  const arb = first === undefined ? undefined : candidates.length === 1 ? first : fc.oneof(...candidates);
  if (!arb || !produces(arb, fails, 10))
    throw new UnsupportedSchemaError('no invalid value can be built for this schema (it accepts any value?)');
  return boundedFilter(arb, fails, 'an invalid value', 500) as fc.Arbitrary<InvalidValue>;
}

/** Instance-path patterns (`*` = any index/key) of the subschemas marked `x-assumed: true`. */
export function assumedPaths(schema: JsonSchema, options: ArbitraryOptions = {}): string[] {
  return collectAnnotationPointers(schema, options.root, (s) => (s['x-assumed'] === true ? 'assumed' : undefined)).map((p) => p.pointer);
}

// ---------------------------------------------------------------------------------------------------------
// Requests

export interface RequestSample {
  /** Path parameters, serialised (style simple). */
  path: Record<string, string>;
  /** Query parameters, serialised (style form: arrays are repeated keys). */
  query: Record<string, string | string[]>;
  /** Header parameters, serialised, names as in the spec. */
  headers: Record<string, string>;
  /** Request body as a value (encode it for `mediaType`); undefined when none is sent. */
  body: unknown;
  mediaType?: string;
}

export interface InvalidRequestSample extends RequestSample {
  violation: Violation;
  /** What is wrong: `body`, or `<in>:<name>` of a parameter (`query:limit`, `header:Idempotency-Key`). */
  target: string;
}

export interface RequestArbitraries {
  operation: OperationInfo;
  valid: fc.Arbitrary<RequestSample>;
  /** null when nothing in the request can be made invalid (no parameters, no body constraints). */
  invalid: fc.Arbitrary<InvalidRequestSample> | null;
  /** Targets resting on a suite assumption: `<in>:<name>`, `body`, `body:/pointer`. */
  assumed: string[];
}

export interface RequestOptions extends ArbitraryOptions {
  /** Generated indexes to use instead of generators/out (tests pass a temporary directory's). */
  index?: GeneratedIndex;
}

let defaultIndex: GeneratedIndex | undefined;
function getIndex(options: RequestOptions): GeneratedIndex {
  if (options.index) return options.index;
  defaultIndex ??= loadIndex(DEFAULT_OUT_DIR);
  return defaultIndex;
}

/** The `root` for a service's schemas (a service entry of schemas.json). */
export function schemaRoot(service: string, index?: GeneratedIndex): unknown {
  const idx = index ?? getIndex({});
  const root = idx.schemas.services[service];
  if (!root) throw new Error(`no schemas generated for service ${service}`);
  return root;
}

const HEADER_VALUE = /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/;

function scalarToWire(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Serialise a parameter value: arrays as repeated query keys (form, explode) or comma-separated (simple). */
export function toWire(v: unknown, p: Pick<ParameterInfo, 'in'>): string | string[] {
  if (Array.isArray(v)) return p.in === 'query' ? v.map(scalarToWire) : v.map(scalarToWire).join(',');
  return scalarToWire(v);
}

function wireTypes(schema: JsonSchema, ctx: Ctx): { types: string[]; items: JsonSchema | undefined } {
  const n = normalize(schema, ctx);
  const combos = expandAlts(n, ctx);
  const types = [...new Set(combos.flatMap((c) => typesOf(c)))];
  const items = combos.map((c) => c.s['items']).find((x) => x !== undefined);
  return { types, items: items === undefined ? undefined : (items as JsonSchema) };
}

function isArraySchema(schema: JsonSchema, ctx: Ctx): boolean {
  return wireTypes(schema, ctx).types.includes('array');
}

function coerce(s: string, types: readonly string[]): unknown {
  if (types.includes('null') && s === 'null') return null;
  if (types.includes('boolean') && (s === 'true' || s === 'false')) return s === 'true';
  if ((types.includes('integer') || types.includes('number')) && /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(s))
    return Number(s);
  return s;
}

/** How a server reading a parameter per its schema would see the serialised value (strings become numbers,
 * booleans or null where the schema's types allow; arrays split on commas unless already repeated). */
export function readParameter(w: string | string[], schema: JsonSchema, options: ArbitraryOptions = {}): unknown {
  return fromWire(w, schema, makeCtx(options));
}

function fromWire(w: string | string[], schema: JsonSchema, ctx: Ctx): unknown {
  const { types, items } = wireTypes(schema, ctx);
  if (Array.isArray(w) || types.includes('array')) {
    const parts = Array.isArray(w) ? w : w === '' ? [] : w.split(',');
    const itemTypes = items === undefined ? ['string'] : wireTypes(items, ctx).types;
    return parts.map((x) => coerce(x, itemTypes));
  }
  return coerce(w, types);
}

function wireOk(p: ParameterInfo, w: string | string[]): boolean {
  const values = Array.isArray(w) ? w : [w];
  if (p.in === 'header') return values.every((x) => HEADER_VALUE.test(x));
  if (p.in === 'path') return values.every((x) => x !== '' && x !== '.' && x !== '..');
  return true;
}

function place(req: RequestSample, p: ParameterInfo, w: string | string[] | undefined): RequestSample {
  const out: RequestSample = { ...req, path: { ...req.path }, query: { ...req.query }, headers: { ...req.headers } };
  const bag: Record<string, string | string[]> = p.in === 'path' ? out.path : p.in === 'query' ? out.query : out.headers;
  if (w === undefined) delete bag[p.name];
  else bag[p.name] = p.in === 'query' ? w : Array.isArray(w) ? w.join(',') : w;
  return out;
}

export function requestArbitraries(service: string, operationId: string, options: RequestOptions = {}): RequestArbitraries {
  const index = getIndex(options);
  const op = index.operations.operations.find((o) => o.service === service && o.operationId === operationId);
  if (!op) throw new Error(`unknown operation ${service}.${operationId}`);
  const root = index.schemas.services[service];
  const opts: ArbitraryOptions = { ...options, root };
  const ctx = makeCtx(opts);
  const params = op.parameters.filter((p) => p.in !== 'cookie');

  // 1. Valid parameters, as a server would read them back.
  const validWire = (p: ParameterInfo): fc.Arbitrary<string | string[]> =>
    boundedFilter(
      validValue(p.schema, opts).map((v) => toWire(v, p)),
      (w) =>
        wireOk(p, w) && !(Array.isArray(w) && w.length === 0 && p.required) && matchesSchema(fromWire(w, p.schema, ctx), p.schema, root),
      `a valid ${p.in} parameter ${p.name} that survives serialisation`,
    );
  const group = (loc: ParameterInfo['in']): fc.Arbitrary<Record<string, string | string[]>> => {
    const ps = params.filter((p) => p.in === loc);
    const model: Record<string, fc.Arbitrary<string | string[]>> = {};
    for (const p of ps) model[p.name] = validWire(p);
    return fc.record(model, { requiredKeys: ps.filter((p) => p.required).map((p) => p.name), noNullPrototype: true }) as fc.Arbitrary<
      Record<string, string | string[]>
    >;
  };
  const rb = op.requestBody;
  const bodyArbs = rb
    ? Object.entries(rb.mediaTypes).map(([mt, info]) =>
        validValue(info.schema, opts).map((body) => ({ mediaType: mt as string | undefined, body })),
      )
    : [];
  let bodyArb: fc.Arbitrary<{ mediaType: string | undefined; body: unknown }> = fc.constant({ mediaType: undefined, body: undefined });
  if (bodyArbs.length > 0) {
    const any = bodyArbs.length === 1 ? (bodyArbs[0] as (typeof bodyArbs)[number]) : fc.oneof(...bodyArbs);
    bodyArb = rb?.required ? any : fc.option(any, { nil: undefined }).map((x) => x ?? { mediaType: undefined, body: undefined });
  }
  const valid: fc.Arbitrary<RequestSample> = fc
    .record({ path: group('path'), query: group('query'), headers: group('header'), body: bodyArb })
    .map(({ path, query, headers, body }) => {
      const r: RequestSample = { path: path as Record<string, string>, query, headers: headers as Record<string, string>, body: body.body };
      if (body.mediaType !== undefined) r.mediaType = body.mediaType;
      return r;
    });

  // 2. Invalid requests: one thing wrong, everything else valid.
  const targets: fc.Arbitrary<InvalidRequestSample>[] = [];
  for (const p of params) {
    const target = `${p.in}:${p.name}`;
    try {
      const inv = invalidValue(p.schema, opts).map((iv) => ({ w: toWire(iv.value, p), iv }));
      // Only values whose serialised form reads back as the same (invalid) value keep their violation.
      const faithful = ({ w, iv }: { w: string | string[]; iv: InvalidValue }): boolean =>
        wireOk(p, w) &&
        !(Array.isArray(w) && (w.length === 0 || !isArraySchema(p.schema, ctx))) &&
        jsonEqual(fromWire(w, p.schema, ctx), iv.value);
      if (produces(inv, faithful, 20)) {
        const wire = boundedFilter(inv, faithful, `an invalid ${target} that survives serialisation`, 300);
        targets.push(
          fc.tuple(valid, wire).map(([req, { w, iv }]) => ({
            ...place(req, p, w),
            violation: { ...iv.violation, assumed: iv.violation.assumed || p.assumed },
            target,
          })),
        );
      }
    } catch (e) {
      if (!(e instanceof UnsupportedSchemaError)) throw e;
    }
    if (p.required && p.in !== 'path') {
      targets.push(
        valid.map((req) => ({
          ...place(req, p, undefined),
          violation: {
            keyword: 'required',
            path: '',
            message: `missing required ${p.in} parameter ${p.name}`,
            assumed: p.assumed,
            property: p.name,
          },
          target,
        })),
      );
    }
  }
  if (rb) {
    for (const [mt, info] of Object.entries(rb.mediaTypes)) {
      try {
        const inv = invalidValue(info.schema, opts);
        targets.push(
          fc.tuple(valid, inv).map(([req, iv]) => ({
            ...req,
            body: iv.value,
            mediaType: mt,
            violation: { ...iv.violation, assumed: iv.violation.assumed || rb.assumed },
            target: 'body',
          })),
        );
      } catch (e) {
        if (!(e instanceof UnsupportedSchemaError)) throw e;
      }
    }
    if (rb.required) {
      targets.push(
        valid.map((req) => {
          const { mediaType: _mt, ...rest } = req;
          return {
            ...rest,
            body: undefined,
            violation: { keyword: 'required', path: '', message: 'missing required request body', assumed: rb.assumed },
            target: 'body',
          };
        }),
      );
    }
  }
  const [firstTarget] = targets;
  const invalid = firstTarget === undefined ? null : targets.length === 1 ? firstTarget : fc.oneof(...targets);

  // 3. What rests on suite assumptions.
  const assumed: string[] = params.filter((p) => p.assumed).map((p) => `${p.in}:${p.name}`);
  if (rb?.assumed) assumed.push('body');
  if (rb) {
    for (const info of Object.values(rb.mediaTypes)) {
      for (const ptr of assumedPaths(info.schema, opts)) if (ptr !== '' && !assumed.includes(`body:${ptr}`)) assumed.push(`body:${ptr}`);
    }
  }
  return { operation: op, valid, invalid, assumed };
}

/** True for a plain JSON object (not an array, not null). */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return isSchemaObject(v);
}
