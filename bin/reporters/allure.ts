/**
 * allure-vitest's reporter, writing its files plainly. Its own writer (allure-js-commons FileSystemWriter) writes each
 * file to a temporary name, fsyncs it and renames it: some 400 fsyncs at the end of a run, seconds on a busy disk, for
 * a durability a report that is rewritten on the next run does not need (and the matrix reporter rewrites each result
 * once more, bin/reporters/allure-results.ts). The files and their content are the same.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Globals, TestResult, TestResultContainer } from 'allure-js-commons';
import type { Category, EnvironmentInfo } from 'allure-js-commons/sdk';
import { stringifyEnvInfo, type Writer } from 'allure-js-commons/sdk/reporter';
import AllureVitestReporter, { type AllureVitestReporterConfig } from 'allure-vitest/reporter';
import type { Vitest } from 'vitest/node';

/** FileSystemWriter's files, written in place with no fsync. */
export class PlainWriter implements Writer {
  constructor(private readonly resultsDir: string) {}

  private path(name: string): string {
    mkdirSync(this.resultsDir, { recursive: true });
    return join(this.resultsDir, name);
  }

  writeResult(result: TestResult): void {
    writeFileSync(this.path(`${result.uuid}-result.json`), JSON.stringify(result), 'utf8');
  }

  writeGroup(result: TestResultContainer): void {
    writeFileSync(this.path(`${result.uuid}-container.json`), JSON.stringify(result), 'utf8');
  }

  writeAttachment(distFileName: string, content: Buffer): void {
    writeFileSync(this.path(distFileName), content);
  }

  writeAttachmentFromPath(distFileName: string, from: string): void {
    copyFileSync(from, this.path(distFileName));
  }

  writeEnvironmentInfo(info: EnvironmentInfo): void {
    writeFileSync(this.path('environment.properties'), stringifyEnvInfo(info), 'utf8');
  }

  writeCategoriesDefinitions(categories: Category[]): void {
    writeFileSync(this.path('categories.json'), JSON.stringify(categories), 'utf8');
  }

  writeGlobals(distFileName: string, info: Globals): void {
    writeFileSync(this.path(distFileName), JSON.stringify(info), 'utf8');
  }
}

/** The runtime allure-vitest keeps privately (its declarations hide it); only its writer is replaced. */
interface WithRuntime {
  allureReporterRuntime?: { writer: Writer };
}

export default class AllureReporter extends AllureVitestReporter {
  constructor(private readonly resultsDir: string) {
    super({ resultsDir } satisfies AllureVitestReporterConfig);
  }

  override onInit(vitest: Vitest): void {
    super.onInit(vitest);
    const runtime = (this as unknown as WithRuntime).allureReporterRuntime;
    if (!runtime) throw new Error('allure-vitest changed: its reporter has no allureReporterRuntime to give a writer to');
    runtime.writer = new PlainWriter(this.resultsDir);
  }
}
