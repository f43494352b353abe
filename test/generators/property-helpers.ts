// The generator properties shared by the fixture and real-spec tests: valid values pass the generated
// validator, invalid values fail it with the violation they announce.
import * as fc from 'fast-check';
import { expect } from 'vitest';
import {
  UnsupportedSchemaError,
  invalidValue,
  readParameter,
  requestArbitraries,
  validValue,
  type RequestSample,
} from '../../generators/arbitraries.ts';
import type { JsonSchema } from '../../generators/model.ts';
import type { GeneratedApi } from '../../generators/runtime.ts';
import { FC } from './helpers.ts';

export interface SchemaCase {
  label: string;
  schema: JsonSchema;
  validator: string;
}

/** Every component schema, parameter schema and request body schema of a service. */
export function schemaCases(api: GeneratedApi, service: string): SchemaCase[] {
  const s = api.index.schemas.services[service];
  if (!s) return [];
  const cases: SchemaCase[] = Object.entries(s.componentValidators).map(([name, validator]) => ({
    label: `schema ${name}`,
    schema: { $ref: `#/components/schemas/${name}` },
    validator,
  }));
  for (const op of api.listOperations(service)) {
    for (const p of op.parameters)
      cases.push({ label: `${op.operationId} ${p.in} parameter ${p.name}`, schema: p.schema, validator: p.validator });
    for (const [mt, b] of Object.entries(op.requestBody?.mediaTypes ?? {})) {
      cases.push({ label: `${op.operationId} request body ${mt}`, schema: b.schema, validator: b.validator });
    }
  }
  return cases;
}

export function assertValidValuesPass(api: GeneratedApi, service: string, c: SchemaCase, runs = FC.numRuns): void {
  const validate = api.validator(c.validator);
  if (!validate) throw new Error(`no validator ${c.validator}`);
  const root = api.index.schemas.services[service];
  fc.assert(
    fc.property(validValue(c.schema, { root }), (v) => {
      const ok = validate(v);
      expect(ok, `${JSON.stringify(v)}\n${JSON.stringify(validate.errors)}`).toBe(true);
    }),
    { ...FC, numRuns: runs },
  );
}

/**
 * Invalid values fail the validator, and Ajv reports the announced violation (same keyword at the same
 * instance path; for `required`, the same missing property). Returns false when the schema accepts
 * everything (no invalid value exists), so callers can report a skip.
 */
export function assertInvalidValuesFail(api: GeneratedApi, service: string, c: SchemaCase, runs = FC.numRuns): boolean {
  const validate = api.validator(c.validator);
  if (!validate) throw new Error(`no validator ${c.validator}`);
  const root = api.index.schemas.services[service];
  let arb;
  try {
    arb = invalidValue(c.schema, { root });
  } catch (e) {
    if (e instanceof UnsupportedSchemaError) return false;
    throw e;
  }
  fc.assert(
    fc.property(arb, ({ value, violation }) => {
      const ok = validate(value);
      const errors = validate.errors ?? [];
      expect(ok, `valid although built to break ${violation.keyword} at '${violation.path}': ${JSON.stringify(value)}`).toBe(false);
      const reported = errors.some(
        (e) =>
          e.keyword === violation.keyword &&
          e.instancePath === violation.path &&
          (violation.property === undefined || e.keyword !== 'required' || e.params['missingProperty'] === violation.property),
      );
      expect(
        reported,
        `${violation.keyword} at '${violation.path}' not among ${JSON.stringify(errors.map((e) => [e.keyword, e.instancePath]))}`,
      ).toBe(true);
    }),
    { ...FC, numRuns: runs },
  );
  return true;
}

/** Which parts of a request fail their validators: `<in>:<name>` for parameters, `body`. */
function brokenTargets(api: GeneratedApi, service: string, operationId: string, req: RequestSample): string[] {
  const op = api.getOperation(service, operationId);
  const root = api.index.schemas.services[service];
  const broken: string[] = [];
  for (const p of op.parameters) {
    if (p.in === 'cookie') continue;
    const bag: Record<string, string | string[]> = p.in === 'path' ? req.path : p.in === 'query' ? req.query : req.headers;
    const raw = bag[p.name];
    if (raw === undefined) {
      if (p.required) broken.push(`${p.in}:${p.name}`);
      continue;
    }
    if (p.in === 'header' && !/^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/.test(String(raw)))
      broken.push(`${p.in}:${p.name} (not sendable)`);
    if (!api.validator(p.validator)?.(readParameter(raw, p.schema, { root }))) broken.push(`${p.in}:${p.name}`);
  }
  const rb = op.requestBody;
  if (rb) {
    if (req.body === undefined) {
      if (rb.required) broken.push('body');
    } else {
      const mt = rb.mediaTypes[req.mediaType ?? ''];
      if (!mt || !api.validator(mt.validator)?.(req.body)) broken.push('body');
    }
  }
  return broken;
}

/** Valid requests break nothing; invalid requests break exactly their target. */
export function assertRequests(api: GeneratedApi, service: string, operationId: string, runs = 50): void {
  const { valid, invalid } = requestArbitraries(service, operationId, { index: api.index });
  fc.assert(
    fc.property(valid, (req) => {
      expect(brokenTargets(api, service, operationId, req), JSON.stringify(req)).toEqual([]);
    }),
    { ...FC, numRuns: runs },
  );
  if (invalid === null) {
    const op = api.getOperation(service, operationId);
    const constrained = op.parameters.some((p) => p.in !== 'cookie' && p.required && p.in !== 'path') || op.requestBody?.required === true;
    expect(constrained, 'invalid is null only when nothing can be made invalid').toBe(false);
    return;
  }
  fc.assert(
    fc.property(invalid, (req) => {
      expect(brokenTargets(api, service, operationId, req), JSON.stringify(req)).toEqual([req.target]);
    }),
    { ...FC, numRuns: runs },
  );
}
