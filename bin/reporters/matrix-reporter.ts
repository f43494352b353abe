import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Reporter, TestModule, TestRunEndReason, Vitest } from 'vitest/node';
import { allChecks, checkGroups } from '../../suites/index.ts';
import { writeJUnit } from '../../suites/harness/junit.ts';
import { completeAllureResults } from './allure-results.ts';
import { buildMatrix, writeMatrix, type RunInfo, type Stopped } from '../../suites/harness/matrix.ts';
import { deadlineUnjudged, suiteErrorUnjudged } from '../../suites/harness/preconditions.ts';
import { redact, registerCredentials } from '../../suites/harness/redact.ts';
import { type CheckResult, notRunResult } from '../../suites/harness/runner.ts';
import { escapeControls } from '../../suites/harness/terminal.ts';

export interface MatrixReporterOptions {
  reportDir: string;
  run: Omit<RunInfo, 'finishedAt'>;
  version: string;
  /** the run's --max-duration deadline (epoch ms): a run cancelled past it stopped at its deadline, not by Ctrl-C */
  deadlineAt?: number;
  /** the checks the run selected (--grep), when it is not sharded: those a cut-short run never reached are listed as not run */
  selected?: string[];
  /** the selected checks of a service the run was given no URL for (bin/conformance.ts): not judged, outside the run */
  outsideRun?: CheckResult[];
}

/** The suite's git commit (with `+changes` when the work tree differs from it), or undefined without git or a repository. */
export function suiteCommit(): string | undefined {
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    }).trim();
  try {
    const commit = git('rev-parse', 'HEAD');
    return git('status', '--porcelain', '--untracked-files=no') === '' ? commit : `${commit}+changes`;
  } catch {
    return undefined;
  }
}

/** The group (vitest describe, junit testsuite) of each check. */
export function groupOf(check: string): string {
  return Object.entries(checkGroups).find(([, checks]) => checks.some((c) => c.name === check))?.[0] ?? 'unknown';
}

/**
 * Collects each check's verdict from task meta and writes the conformance matrix and junit.xml when the run ends: both
 * from the same results, so they agree.
 */
export default class MatrixReporter implements Reporter {
  constructor(private readonly options: MatrixReporterOptions) {}

  /**
   * The run's credentials, registered here too (the CLI, which creates this reporter in its own module graph, has done
   * so already; any other caller may not), so that what the matrix shows of the target outside the check results (its
   * /api/v1/info) is redacted as well.
   */
  onInit(vitest: Vitest): void {
    const target = vitest.config.provide?.target;
    if (target) registerCredentials(target.credentials);
  }

  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandled: ReadonlyArray<{ message?: string; stack?: string }>,
    reason: TestRunEndReason,
  ): void {
    const results: CheckResult[] = [];
    const errors = unhandled.map((e) => e.stack ?? e.message ?? String(e));
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const meta = test.meta().conformance;
        if (meta) results.push(meta);
      }
      for (const e of [...module.errors(), ...[...module.children.allSuites()].flatMap((s) => s.errors())]) {
        errors.push(`${module.relativeModuleId}: ${e.stack ?? e.message}`);
      }
    }
    const stopped: Stopped | undefined =
      reason !== 'interrupted'
        ? undefined
        : this.options.deadlineAt !== undefined && Date.now() >= this.options.deadlineAt
          ? 'deadline'
          : 'interrupted';
    const shownErrors = errors.map((e) => escapeControls(redact(e)));
    if (stopped) results.push(...this.notRun(results, stopped));
    // A file of the suite that did not load (or another error outside any check) left checks unrun: the suite's own
    // error, not judged (suite-error-outside-checks), so their rules stay in the denominators.
    else if (errors.length > 0) results.push(...this.notRun(results, 'suite-error', shownErrors));
    results.push(...(this.options.outsideRun ?? []));
    const run: RunInfo = { ...this.options.run, finishedAt: new Date().toISOString() };
    const matrix = buildMatrix(results, allChecks, run, this.options.version, {
      stopped,
      errors: shownErrors,
      commit: suiteCommit(),
    });
    writeMatrix(this.options.reportDir, matrix);
    writeJUnit(this.options.reportDir, matrix, groupOf);
    // After the Allure reporter wrote each test (it comes before this one, bin/conformance.ts).
    completeAllureResults(join(this.options.reportDir, 'allure-results'), matrix);
  }

  /**
   * The selected checks a cut-short run never reached, or an error of the suite outside any check left unrun: skipped,
   * saying why (at the deadline and for the suite's error: not judged, INCOMPLETE).
   */
  private notRun(results: CheckResult[], why: Stopped | 'suite-error', errors: readonly string[] = []): CheckResult[] {
    const seen = new Set(results.map((r) => r.check));
    const unjudged =
      why === 'deadline' ? deadlineUnjudged(this.options.run.maxDurationS) : why === 'suite-error' ? suiteErrorUnjudged(errors) : undefined;
    return allChecks
      .filter((c) => this.options.selected?.includes(c.name) && !seen.has(c.name))
      .map((c) =>
        unjudged
          ? notRunResult(c, `not run: ${unjudged.problem}`, { notJudged: 'precondition', unjudged })
          : notRunResult(c, 'not run: the run was interrupted (Ctrl-C) before it', { notJudged: 'interrupted' }),
      );
  }
}
