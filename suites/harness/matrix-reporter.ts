import type { Reporter, TestModule, TestRunEndReason, Vitest } from 'vitest/node';
import { allChecks } from '../index.ts';
import { buildMatrix, writeMatrix, type RunInfo } from './matrix.ts';
import { registerCredentials } from './redact.ts';
import type { CheckResult } from './runner.ts';

export interface MatrixReporterOptions {
  reportDir: string;
  run: Omit<RunInfo, 'finishedAt'>;
  version: string;
}

/** Collects each check's verdict from task meta and writes the conformance matrix when the run ends. */
export default class MatrixReporter implements Reporter {
  constructor(private readonly options: MatrixReporterOptions) {}

  /**
   * This reporter runs in vitest's module graph, not the CLI's: the run's credentials are registered here too, so that
   * what the matrix shows of the target outside the check results (its /api/v1/info) is redacted as well.
   */
  onInit(vitest: Vitest): void {
    const target = vitest.config.provide?.target;
    if (target) registerCredentials(target.credentials);
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, _errors: unknown, reason: TestRunEndReason): void {
    const results: CheckResult[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const meta = test.meta().conformance;
        if (meta) results.push(meta);
      }
    }
    const run: RunInfo = { ...this.options.run, finishedAt: new Date().toISOString() };
    writeMatrix(this.options.reportDir, buildMatrix(results, allChecks, run, this.options.version, reason === 'interrupted'));
  }
}
