import { type ConformanceFailure, failingAnswer } from '../../suites/harness/failure.ts';
import type { CheckResult } from '../../suites/harness/runner.ts';

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
