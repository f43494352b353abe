// Properties of the arbitraries on the fixture spec: same seed -> same values; valid values pass their
// generated validator; invalid values fail it with the violation they announce; request arbitraries.
import * as fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import {
  UnsupportedSchemaError,
  assumedPaths,
  invalidValue,
  matchesSchema,
  requestArbitraries,
  schemaRoot,
  validValue,
} from '../../generators/arbitraries.ts';
import type { JsonSchema } from '../../generators/model.ts';
import { FC, announceSeed, generateFixture, removeDir } from './helpers.ts';
import { assertInvalidValuesFail, assertRequests, assertValidValuesPass, schemaCases } from './property-helpers.ts';

announceSeed('arbitraries.test.ts');

// Generated at collection time so that every schema gets its own named test.
const g = await generateFixture('arbitraries');
afterAll(() => removeDir(g.outDir));
const root = schemaRoot('fixture', g.api.index);
const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const cases = schemaCases(g.api, 'fixture');

describe('same seed, same values', () => {
  test.each(['Info', 'CreateOrderRequest', 'Order', 'Tree', 'OrderIntent'])('%s: valid and invalid values repeat for a seed', (name) => {
    const a = fc.sample(validValue(ref(name), { root }), { seed: FC.seed, numRuns: 30 });
    const b = fc.sample(validValue(ref(name), { root }), { seed: FC.seed, numRuns: 30 });
    expect(b).toEqual(a);
    const i1 = fc.sample(invalidValue(ref(name), { root }), { seed: FC.seed, numRuns: 30 });
    const i2 = fc.sample(invalidValue(ref(name), { root }), { seed: FC.seed, numRuns: 30 });
    expect(i2).toEqual(i1);
    expect(fc.sample(validValue(ref(name), { root }), { seed: FC.seed + 1, numRuns: 30 })).not.toEqual(a);
  });

  test('request arbitraries repeat for a seed', () => {
    const one = requestArbitraries('fixture', 'createOrder', { index: g.api.index });
    const two = requestArbitraries('fixture', 'createOrder', { index: g.api.index });
    expect(fc.sample(two.valid, { seed: FC.seed, numRuns: 20 })).toEqual(fc.sample(one.valid, { seed: FC.seed, numRuns: 20 }));
    expect(fc.sample(two.invalid!, { seed: FC.seed, numRuns: 20 })).toEqual(fc.sample(one.invalid!, { seed: FC.seed, numRuns: 20 }));
  });
});

describe('every valid value passes its generated validator', () => {
  test.each(cases.map((c) => [c.label, c] as const))('%s', (_label, c) => {
    assertValidValuesPass(g.api, 'fixture', c);
  });
});

describe('every invalid value fails its generated validator, with the violation it announces', () => {
  test.each(cases.map((c) => [c.label, c] as const))('%s', (_label, c) => {
    expect(assertInvalidValuesFail(g.api, 'fixture', c), 'every fixture schema has invalid values').toBe(true);
  });
});

describe('invalid values cover the constraint kinds', () => {
  test('the fixture yields every violation keyword the arbitraries know', () => {
    const seen = new Set<string>();
    // Each schema, and each property of each component schema on its own (so no site is crowded out).
    const schemas: JsonSchema[] = cases.map((c) => c.schema);
    for (const [name, s] of Object.entries(g.api.index.schemas.services['fixture']?.components.schemas ?? {})) {
      const props = typeof s === 'object' && typeof s['properties'] === 'object' ? Object.keys(s['properties'] as object) : [];
      for (const p of props) schemas.push({ $ref: `#/components/schemas/${name}/properties/${p}` });
    }
    for (const schema of schemas) {
      try {
        for (const v of fc.sample(invalidValue(schema, { root }), { seed: FC.seed, numRuns: 100 })) seen.add(v.violation.keyword);
      } catch (e) {
        if (!(e instanceof UnsupportedSchemaError)) throw e;
      }
    }
    for (const k of [
      'type',
      'enum',
      'const',
      'pattern',
      'minimum',
      'maximum',
      'exclusiveMinimum',
      'multipleOf',
      'minLength',
      'maxLength',
      'minItems',
      'maxItems',
      'uniqueItems',
      'items',
      'required',
      'additionalProperties',
      'maxProperties',
      'not',
    ]) {
      expect(seen, k).toContain(k);
    }
  });

  test('a schema that accepts everything has no invalid values', () => {
    expect(() => invalidValue({})).toThrow(UnsupportedSchemaError);
    expect(() => invalidValue({ description: 'anything' })).toThrow(UnsupportedSchemaError);
  });

  test('sizes stay bounded by the options', () => {
    const big: JsonSchema = { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } };
    fc.assert(
      fc.property(validValue(big, { maxKeys: 3, maxItems: 2, maxLength: 5 }), (v) => {
        const o = v as Record<string, string[]>;
        expect(Object.keys(o).length).toBeLessThanOrEqual(3);
        for (const a of Object.values(o)) {
          expect(a.length).toBeLessThanOrEqual(2);
          for (const s of a) expect([...s].length).toBeLessThanOrEqual(5);
        }
      }),
      FC,
    );
  });

  test('recursive schemas terminate (depth bounded)', () => {
    const depth = (t: unknown): number => {
      const children = (t as { children?: unknown[] }).children ?? [];
      return 1 + Math.max(0, ...children.map(depth));
    };
    for (const t of fc.sample(validValue(ref('Tree'), { root, maxDepth: 3 }), { seed: FC.seed, numRuns: 100 })) {
      expect(depth(t)).toBeLessThanOrEqual(3);
    }
  });

  test('not: {required: [a, b]} is honoured by construction (never both)', () => {
    for (const v of fc.sample(validValue(ref('StopIntent'), { root }), { seed: FC.seed, numRuns: 200 })) {
      const o = v as Record<string, unknown>;
      expect('takeProfit' in o && 'stopLoss' in o).toBe(false);
    }
  });

  test('matchesSchema agrees with the generated validator on valid and invalid values', () => {
    const validate = g.api.validator('fixture_schema_CreateOrderRequest');
    fc.assert(
      fc.property(
        fc.oneof(
          validValue(ref('CreateOrderRequest'), { root }),
          invalidValue(ref('CreateOrderRequest'), { root }).map((x) => x.value),
        ),
        (v) => {
          expect(matchesSchema(v, ref('CreateOrderRequest'), root)).toBe(validate?.(v));
        },
      ),
      FC,
    );
  });
});

describe('x-assumed is exposed as metadata', () => {
  test('assumedPaths lists the x-assumed subschemas', () => {
    expect(assumedPaths(ref('CreateOrderRequest'), { root })).toEqual(['/config']);
  });

  test('violations under an x-assumed schema or parameter say so', () => {
    const samples = fc.sample(invalidValue(ref('CreateOrderRequest'), { root }), { seed: FC.seed, numRuns: 300 });
    const config = samples.filter((s) => s.violation.path.startsWith('/config'));
    const other = samples.filter((s) => !s.violation.path.startsWith('/config'));
    expect(config.length).toBeGreaterThan(0);
    expect(config.every((s) => s.violation.assumed)).toBe(true);
    expect(other.every((s) => !s.violation.assumed)).toBe(true);
  });
});

describe('request arbitraries', () => {
  const opIds = g.api.listOperations('fixture').map((o) => o.operationId);

  test.each(opIds)('%s: valid requests pass every validator; invalid ones break exactly their target', (operationId) => {
    assertRequests(g.api, 'fixture', operationId);
  });

  test('assumed targets are listed', () => {
    expect(requestArbitraries('fixture', 'createOrder', { index: g.api.index }).assumed).toEqual([
      'header:Idempotency-Key',
      'body:/config',
    ]);
  });

  test('an unknown operation throws', () => {
    expect(() => requestArbitraries('fixture', 'nope', { index: g.api.index })).toThrow(/unknown operation/);
  });
});
