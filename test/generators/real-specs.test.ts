// The same generator properties over the real specs (specs/*.openapi.yaml): every component, parameter and
// request body schema. A spec that is missing or does not parse is skipped with the reason printed.
import { afterAll, describe, expect, test } from 'vitest';
import { DEFAULT_SPECS, displayPath } from '../../generators/config.ts';
import { loadSpec } from '../../generators/openapi.ts';
import { existsSync } from 'node:fs';
import { announceSeed, generateInto, removeDir, type Generated } from './helpers.ts';
import { assertInvalidValuesFail, assertRequests, assertValidValuesPass, schemaCases } from './property-helpers.ts';

announceSeed('real-specs.test.ts');

const RUNS = Number(process.env['GENERATOR_REAL_RUNS'] ?? 100);
const generated: Generated[] = [];
afterAll(() => generated.forEach((g) => removeDir(g.outDir)));

for (const spec of DEFAULT_SPECS) {
  const file = displayPath(spec.path);
  let reason: string | undefined;
  if (!existsSync(spec.path)) reason = `${file} is missing`;
  else {
    try {
      loadSpec(spec);
    } catch (e) {
      reason = `${file} does not parse: ${(e as Error).message.split('\n')[0]}`;
    }
  }
  if (reason) {
    console.warn(`[real-specs.test.ts] skipping service ${spec.service}: ${reason}`);
    describe.skip(`${spec.service} (${reason})`, () => {
      test('skipped', () => {});
    });
    continue;
  }
  // Generated at collection time so that every schema gets its own named test.
  const g = await generateInto([spec], spec.service);
  generated.push(g);
  const cases = schemaCases(g.api, spec.service);

  describe(`${spec.service} (${file})`, () => {
    test('the spec yields operations and validators', () => {
      expect(g.result.operations).toBeGreaterThan(0);
      expect(cases.length).toBeGreaterThan(0);
    });

    test.each(cases.map((c) => [c.label, c] as const))('valid values pass: %s', (_l, c) => {
      assertValidValuesPass(g.api, spec.service, c, RUNS);
    });

    test.each(cases.map((c) => [c.label, c] as const))('invalid values fail with their violation: %s', (label, c) => {
      if (!assertInvalidValuesFail(g.api, spec.service, c, RUNS)) {
        console.warn(`[real-specs.test.ts] ${spec.service} ${label}: the schema accepts any value, no invalid value to generate`);
      }
    });

    test.each(g.api.listOperations(spec.service).map((o) => o.operationId))('requests: %s', (operationId) => {
      assertRequests(g.api, spec.service, operationId, Math.min(RUNS, 30));
    });
  });
}
