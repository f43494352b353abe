/**
 * On a given target the hostile-input checks and the boolean-flag checks send one malformed value per branch
 * (`hostileInputs: 'per-branch'`, suites/shared/hostile.ts), while the mutation self-test runs against the embedded
 * server, which gets every value. Here the per-branch set alone must still catch every mutant of the rules those
 * checks cite: each mutant's server, the changed checks in per-branch mode, one after another until one fails on the
 * mutant's rule.
 */
import { describe, expect, test } from 'vitest';
import { mutants } from '../../fixtures/mutants/index.ts';
import type { Check } from '../../suites/harness/check.ts';
import { allChecks } from '../../suites/index.ts';
import type { CheckResult } from '../../suites/harness/runner.ts';
import { describeResults, runAgainstReference } from './run.ts';

/** The checks whose inputs depend on the per-branch mode, writes first (most hostile-input mutants break a write). */
const CHECKS = [
  'malformed-write-requests-get-client-errors-without-internals',
  'malformed-read-requests-get-client-errors-without-internals',
  'malformed-key-path-requests-get-documented-errors-without-internals',
  'malformed-distributor-path-requests-get-documented-statuses-without-internals',
  'venues-reject-a-malformed-includeprogramids-with-400',
  'providers-reject-a-malformed-includeicons-with-400',
].map((name) => allChecks.find((c) => c.name === name)!);
const RULES = new Set(CHECKS.flatMap((c) => c.rules));

/** The changed checks in per-branch mode against the reference server (faithful, or with `mutant`), until `stop`. */
const runPerBranch = (mutant: string | undefined, checks: readonly Check[], stopAfter: (r: CheckResult) => boolean) =>
  runAgainstReference(mutant ? { mutant } : {}, checks, { hostileInputs: 'per-branch', numRuns: 20, stopAfter });

describe('per-branch hostile inputs', () => {
  test('the faithful reference server passes them', { timeout: 120_000 }, async () => {
    const results = await runPerBranch(undefined, CHECKS, () => false);
    expect(
      results.map((r) => r.verdict),
      describeResults(results),
    ).toEqual(CHECKS.map(() => 'pass'));
  });

  const mine = mutants.filter((m) => RULES.has(m.rule));
  test('there are mutants of the rules they judge', () => {
    expect(mine.length).toBeGreaterThan(10);
  });
  for (const mutant of mine) {
    test(`alone, they catch ${mutant.name} (${mutant.rule})`, { timeout: 120_000 }, async () => {
      const failsOnRule = (r: CheckResult) => r.verdict === 'fail' && r.rule === mutant.rule;
      const results = await runPerBranch(
        mutant.name,
        CHECKS.filter((c) => c.rules.includes(mutant.rule)),
        failsOnRule,
      );
      expect(results.some(failsOnRule), describeResults(results)).toBe(true);
    });
  }
});
