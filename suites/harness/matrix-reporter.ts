import type { Reporter, TestModule, TestRunEndReason } from 'vitest/node';
import { allChecks } from '../index.ts';
import { buildMatrix, writeMatrix, type RunInfo } from './matrix.ts';
import type { CheckResult } from './runner.ts';

export interface MatrixReporterOptions {
  reportDir: string;
  run: Omit<RunInfo, 'finishedAt'>;
  version: string;
}

/** Collects each check's verdict from task meta and writes the conformance matrix when the run ends. */
export default class MatrixReporter implements Reporter {
  constructor(private readonly options: MatrixReporterOptions) {}

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
