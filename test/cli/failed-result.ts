import { type ConformanceFailure, failingAnswer } from '../../suites/harness/failure.ts';
import type { RunInfo } from '../../suites/harness/matrix.ts';
import type { CheckResult } from '../../suites/harness/runner.ts';

/** A short readonly run of the embedded server with a mutant: the run the results of these tests come from. */
export const MUTANT_RUN: RunInfo = {
  startedAt: '2025-01-01T00:00:00.000Z',
  finishedAt: '2025-01-01T00:00:01.000Z',
  profile: 'readonly',
  seed: 5,
  strict: false,
  target: { ordersUrl: 'http://127.0.0.1:9', quotesUrl: 'http://127.0.0.1:9', capabilities: [], embedded: true, mutant: 'a-mutant' },
  specHashes: {},
};

/** The result of a gating quote check that failed with `f` (its failing answer attached when the failure has one). */
export function failed(check: string, rules: CheckResult['rules'], f: ConformanceFailure): CheckResult {
  const answer = failingAnswer(f);
  return {
    check,
    service: 'quotes',
    rules,
    verdict: 'fail',
    rule: f.rule,
    level: 'must',
    basis: 'documented',
    gating: true,
    assertionsHeld: !rules.includes(f.rule),
    message: `FAIL ${f.rule} in check "${check}"`,
    notes: [],
    requests: 1,
    waitMs: 0,
    durationMs: 1,
    ...(answer ? { failingAnswer: answer } : {}),
  };
}
