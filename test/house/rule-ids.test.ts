/**
 * Rule ids are typed (issue 14): `RuleId` is generated from specs/rules/*.yaml (generators/vocabulary-build.ts), and
 * a misspelt id is a type error where code writes one. `npm test` type-checks this file (tsc) before vitest runs it;
 * each `@ts-expect-error` below fails the type check when its line stops being an error, so these lines prove it.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Mutant, Variant } from '../../fixtures/mutants/index.ts';
import type { RuleId } from '../../generators/vocabulary.ts';
import { defineCheck } from '../../suites/harness/check.ts';
import { loadCatalogue } from '../../suites/harness/rules.ts';

const hooks = {};

const typed = {
  rule: 'OA-TRIG-040' satisfies RuleId,
  // @ts-expect-error: the letter O for a zero
  misspelt: 'OA-TRIG-O40' satisfies RuleId,
  mutant: { name: 'a-mutant', rule: 'Q-INFO-003', description: 'breaks Q-INFO-003', hooks } satisfies Mutant,
  // @ts-expect-error: a digit missing
  misspeltMutant: { name: 'a-mutant', rule: 'Q-INFO-03', description: 'breaks nothing', hooks } satisfies Mutant,
  // @ts-expect-error: a rule id of no catalogue
  misspeltVariant: { name: 'a-variant', rules: ['Q-VEN-999'], description: 'allows nothing', hooks } satisfies Variant,
};

const check = defineCheck({
  name: 'rule-ids-are-typed',
  service: 'quotes',
  rules: ['Q-INFO-003', 'Q-INFO-004'],
  profile: 'smoke',
  async run(t) {
    await t.property('Q-INFO-003', fc.constant(1), async () => true);
    // @ts-expect-error: the area misspelt
    await t.property('Q-INOF-003', fc.constant(1), async () => true);
  },
});

defineCheck({
  name: 'a-check-citing-a-misspelt-rule',
  service: 'quotes',
  // @ts-expect-error: no such rule
  rules: ['Q-INFO-003', 'Q-INFO-0003'],
  profile: 'smoke',
  async run() {},
});

describe('typed rule ids', () => {
  test('the generated RuleId union lists every rule id of the catalogue, once', () => {
    const generated = readFileSync(new URL('../../generators/out/rule-ids.ts', import.meta.url), 'utf8');
    const ids = [...generated.matchAll(/^ {2}\| '([^']+)';?$/gm)].map((m) => m[1]);
    expect(ids).toEqual([...loadCatalogue().rules.keys()]);
  });

  test('the checks above are ordinary checks (the types only narrow what may be written)', () => {
    expect(check.rules).toEqual(['Q-INFO-003', 'Q-INFO-004']);
    expect(typed.rule).toBe('OA-TRIG-040');
  });
});
