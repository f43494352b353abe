/**
 * The suite tests itself (STYLE.md 7): against the faithful reference server every check passes; every mutant
 * makes a check that cites the mutant's rule fail on that very rule; every benign variant keeps the suite green.
 * Each mutant runs only the checks that cite its rule, one after another, and no further than the first that fails on
 * the rule: the verdict (caught or missed) is that of the whole list, and a missed mutant still runs them all. The
 * faithful server and the variants run every check.
 *
 * The catalogue is cut into shards, one test file each (mutants-N.test.ts, variants-N.test.ts), so that vitest's
 * workers share it.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { mutants, variants } from '../../fixtures/mutants/index.ts';
import type { CheckResult } from '../../suites/harness/runner.ts';
import { allChecks } from '../../suites/index.ts';
import { describeResults, runAgainstReference, SELF_TEST_SEED } from './run.ts';

export const MUTANT_SHARDS = 3;

/** Every mutant of shard `shard` (0-based) of MUTANT_SHARDS, caught on the rule it breaks. */
export function describeMutantShard(shard: number): void {
  const caught: string[] = [];
  const missed: string[] = [];
  const mine = mutants.filter((_mutant, i) => i % MUTANT_SHARDS === shard);
  describe(`every mutant is caught on the rule it breaks (shard ${shard + 1}/${MUTANT_SHARDS})`, () => {
    for (const mutant of mine) {
      test(`${mutant.name} breaks ${mutant.rule}: ${mutant.description}`, async () => {
        const checks = allChecks.filter((c) => c.rules.includes(mutant.rule));
        expect(
          checks.map((c) => c.name),
          `no check cites ${mutant.rule}`,
        ).not.toEqual([]);
        const failsOnRule = (r: CheckResult) => r.verdict === 'fail' && r.rule === mutant.rule;
        const results = await runAgainstReference({ mutant: mutant.name }, checks, { stopAfter: failsOnRule });
        const onRule = results.filter(failsOnRule);
        (onRule.length > 0 ? caught : missed).push(mutant.name);
        expect(onRule.length, `no check failed on ${mutant.rule}:\n${describeResults(results)}`).toBeGreaterThan(0);
      });
    }
  });
  afterAll(() => {
    const total = caught.length + missed.length;
    if (total === 0) return;
    console.log(
      `\nmutation score, shard ${shard + 1}/${MUTANT_SHARDS}: ${caught.length}/${total} mutants caught (${Math.round((100 * caught.length) / total)}%)` +
        (missed.length ? `; missed: ${missed.join(', ')}` : ''),
    );
  });
}

export const VARIANT_SHARDS = 2;

/** The faithful server (shard 0) and the benign variants of shard `shard`: every check passes. */
export function describeVariantShard(shard: number): void {
  if (shard === 0) {
    describe(`the faithful reference server (seed ${SELF_TEST_SEED})`, () => {
      test('passes every check', async () => {
        const results = await runAgainstReference({}, allChecks);
        const notPassing = results.filter((r) => r.verdict !== 'pass');
        expect(notPassing, describeResults(notPassing)).toEqual([]);
      });
    });
  }
  describe(`benign variants keep the suite green (shard ${shard + 1}/${VARIANT_SHARDS})`, () => {
    for (const variant of variants.filter((_variant, i) => (i + 1) % VARIANT_SHARDS === shard)) {
      test(`${variant.name}: ${variant.description}`, async () => {
        const results = await runAgainstReference({ variant: variant.name }, allChecks);
        const notPassing = results.filter((r) => r.verdict !== 'pass');
        expect(notPassing, describeResults(notPassing)).toEqual([]);
      });
    }
  });
}
