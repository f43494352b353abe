/**
 * Checks that never reached a verdict of their own: one that hit vitest's test timeout, threw outside the harness or
 * died with its worker (a crash, out of memory). Each is a failure of that check, in the matrix and in the exit code,
 * whatever its rules' levels: never a silent pass. A reporter of the conformance run, placed before the matrix
 * reporter (bin/conformance.ts): it writes such verdicts into the task meta the matrix reads.
 */
import type { Reporter, TestCase, TestModule, TestRunEndReason } from 'vitest/node';
import { allChecks } from '../../suites/index.ts';
import type { Check } from '../../suites/harness/check.ts';
import { crashedResult, type CheckResult } from '../../suites/harness/runner.ts';

/** A check left out because its worker died during an earlier one: skipped, saying why. */
function notRunResult(check: Check, crashed: string): CheckResult {
  return {
    check: check.name,
    service: check.service,
    rules: [...check.rules],
    verdict: 'skipped',
    gating: false,
    notes: [],
    requests: 0,
    waitMs: 0,
    durationMs: 0,
    message: `not run: the worker running this file died during check "${crashed}"`,
    notJudged: 'precondition',
    unjudged: {
      id: 'worker-died',
      problem: 'a worker of the run died, leaving the checks after the one under way unrun',
      fix: `see the failure of check "${crashed}"; run again`,
    },
  };
}

function checkOf(test: TestCase): Check | undefined {
  const name = test.name.split(' [')[0];
  return allChecks.find((c) => c.name === name);
}

export default class UnfinishedChecksReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, errors: ReadonlyArray<{ message?: string }>, reason: TestRunEndReason): void {
    const runErrors = errors
      .map((e) => e.message?.split('\n')[0])
      .filter(Boolean)
      .join('; ');
    for (const module of testModules) {
      let crashed: string | undefined;
      for (const test of module.children.allTests()) {
        const check = checkOf(test);
        if (!check) continue;
        const result = test.result();
        const meta = test.meta();
        if (result.state === 'failed' && !(meta.conformance?.verdict === 'fail' && meta.conformance.gating)) {
          const why = result.errors?.map((e) => e.message.split('\n')[0]).join('; ') || 'vitest reported the test failed';
          meta.conformance = crashedResult(check, why, test.diagnostic()?.duration);
        } else if (result.state === 'pending' && reason !== 'interrupted') {
          // Tests of a file run one after another: the first one left pending was running when its worker died.
          if (crashed === undefined) {
            crashed = check.name;
            meta.conformance = crashedResult(check, `its worker died before it finished${runErrors ? ` (${runErrors})` : ''}`);
          } else {
            meta.conformance = notRunResult(check, crashed);
          }
        }
      }
    }
  }
}
