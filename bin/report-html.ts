/**
 * `npm run report:html [-- --report-dir DIR]`: Allure's HTML report of a run as one file that opens from disk,
 * DIR/allure-report/index.html (`allure generate --single-file`: no web server needed). DIR is found as the run found
 * it: --report-dir, else CONFORMANCE_REPORT_DIR, else the config file's `reportDir` (--config or the working
 * directory's, bin/config-file.ts), else `reports`. A merged report (`--merge-reports` into --report-dir) is read the
 * same way. Needs Java 8 or later and allure-commandline (a devDependency; outside a clone: npx allure-commandline).
 * Exit codes: 0 written, 2 bad usage or no results to read, else Allure's own.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, readConfig } from './config-file.ts';

const USAGE = `Usage: npm run report:html -- [--report-dir DIR] [--config PATH]
  Writes DIR/allure-report/index.html, Allure's report of DIR/allure-results in one file that opens from disk.
  DIR: --report-dir, else CONFORMANCE_REPORT_DIR, else the config file's reportDir, else reports.`;

/** The report folder of the run to show, as the run chose it (bin/conformance.ts parseCli). */
export function reportDirOf(argv: string[], env: NodeJS.ProcessEnv = process.env): string {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: { 'report-dir': { type: 'string' }, config: { type: 'string' } },
  });
  const file = readConfig(values.config ?? (env.CONFORMANCE_CONFIG || undefined), env);
  return resolve(values['report-dir'] ?? (env.CONFORMANCE_REPORT_DIR || undefined) ?? file.options['report-dir'] ?? 'reports');
}

/** The allure command of allure-commandline, run with this Node; undefined when the package is not installed. */
function allureBin(): string | undefined {
  try {
    return join(dirname(createRequire(import.meta.url).resolve('allure-commandline/package.json')), 'bin', 'allure');
  } catch {
    return undefined;
  }
}

export async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  let dir: string;
  try {
    dir = reportDirOf(argv);
  } catch (e) {
    const message = e instanceof ConfigError ? e.message : (e as Error).message.split('\n')[0];
    console.error(`report:html: ${message} (see --help)`);
    return 2;
  }
  const results = join(dir, 'allure-results');
  if (!existsSync(results) || !readdirSync(results).some((f) => f.endsWith('-result.json'))) {
    console.error(`report:html: no Allure results in ${results}: run the suite with --report-dir ${dir} first`);
    return 2;
  }
  const allure = allureBin();
  if (!allure) {
    console.error(
      `report:html: allure-commandline is not installed (a devDependency): npm install --save-dev allure-commandline, ` +
        `or ALLURE_NO_ANALYTICS=true npx allure-commandline generate --single-file --clean -o ${join(dir, 'allure-report')} ${results}`,
    );
    return 2;
  }
  const out = join(dir, 'allure-report');
  const code = await new Promise<number>((done) => {
    // ALLURE_NO_ANALYTICS: Allure neither reports the generation to Google Analytics nor puts its tag into the page,
    // which would make a report opened from disk call out.
    const child = spawn(process.execPath, [allure, 'generate', '--single-file', '--clean', '-o', out, results], {
      stdio: 'inherit',
      env: { ...process.env, ALLURE_NO_ANALYTICS: 'true' },
    });
    child.on('error', () => done(1));
    child.on('close', (c) => done(c ?? 1));
  });
  if (code === 0) console.log(`report:html: ${join(out, 'index.html')} (one file: open it in a browser, from disk)`);
  return code;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  process.exitCode = await main(process.argv.slice(2));
}
