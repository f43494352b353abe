/**
 * Checks that never reached a verdict of their own: one that hit vitest's test timeout, threw outside the harness or
 * died with its worker (a crash, out of memory). Each is a failure of that check, in the matrix and in the exit code,
 * whatever its rules' levels: never a silent pass. A reporter of the conformance run, placed before the matrix
 * reporter (bin/conformance.ts): it writes such verdicts into the task meta the matrix reads.
 */
import type { Reporter, TestCase, TestModule, TestRunEndReason } from 'vitest/node';
import { allChecks } from '../../suites/index.ts';
import type { Check } from '../../suites/harness/check.ts';
import { crashedResult, type CheckResult, notRunResult } from '../../suites/harness/runner.ts';

/** A check left out because its worker died during others: skipped, saying why. */
function leftByDeadWorker(check: Check, crashed: readonly string[]): CheckResult {
  const during = crashed.map((name) => `"${name}"`).join(', ');
  return notRunResult(check, `not run: the worker running this file died during check${crashed.length > 1 ? 's' : ''} ${during}`, {
    notJudged: 'precondition',
    unjudged: {
      id: 'worker-died',
      problem: 'a worker of the run died, leaving the checks not yet started unrun',
      fix: `see the failure of check${crashed.length > 1 ? 's' : ''} ${during}; run again`,
    },
  });
}

function checkOf(test: TestCase): Check | undefined {
  const name = test.name.split(' [')[0];
  return allChecks.find((c) => c.name === name);
}

export default class UnfinishedChecksReporter implements Reporter {
  /** The tests vitest reported as started (its runner reports a start in a batch, at most 100 ms later). */
  private readonly started = new Set<string>();

  onTestRunStart(): void {
    this.started.clear();
  }

  onTestCaseReady(test: TestCase): void {
    this.started.add(test.id);
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, errors: ReadonlyArray<{ message?: string }>, reason: TestRunEndReason): void {
    const runErrors = errors
      .map((e) => e.message?.split('\n')[0])
      .filter(Boolean)
      .join('; ');
    for (const module of testModules) {
      const unfinished: Array<{ test: TestCase; check: Check }> = [];
      for (const test of module.children.allTests()) {
        const check = checkOf(test);
        if (!check) continue;
        const result = test.result();
        const meta = test.meta();
        if (result.state === 'failed' && !(meta.conformance?.verdict === 'fail' && meta.conformance.gating)) {
          const why = result.errors?.map((e) => e.message.split('\n')[0]).join('; ') || 'vitest reported the test failed';
          meta.conformance = crashedResult(check, why, test.diagnostic()?.duration);
        } else if (result.state === 'pending' && reason !== 'interrupted') {
          unfinished.push({ test, check });
        }
      }
      // Checks run concurrently (suites/harness/vitest.ts): every one that had started was under way when its worker
      // died (vitest reports a start once the check's turn has come, suites/harness/check-runner.mjs).
      // When no start had been reported yet (the last batch died with the worker), the first left pending was: checks
      // start in their order.
      const running = unfinished.filter(({ test }) => this.started.has(test.id));
      if (running.length === 0 && unfinished[0]) running.push(unfinished[0]);
      const crashed = running.map(({ check }) => check.name);
      for (const { test, check } of unfinished) {
        test.meta().conformance = running.some((r) => r.test === test)
          ? crashedResult(check, `its worker died before it finished${runErrors ? ` (${runErrors})` : ''}`)
          : leftByDeadWorker(check, crashed);
      }
    }
  }
}
