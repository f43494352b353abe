/**
 * `npm run conformance -- [options]` (and `npm start`): the suite against a target, or against the embedded
 * reference server when no target URL is given. Exit codes (DESIGN.md): 0 every gating rule that could be judged on
 * this target was judged and held; 1 a conformance failure (a gating failure, a check that crashed or never finished);
 * 2 bad usage or configuration; 3 the target could not be reached; 4 INCOMPLETE: gating checks could not be judged for
 * a broken precondition of the run (a misconfiguration, a 429 not waited out, an answer later than --timeout, the
 * deadline, the suite's own error outside any check), each said once with its fix; 130 interrupted. 1 wins over 4.
 */
import { accessSync, constants, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureGenerated } from '../generators/ensure.ts';
import { ConfigError, type LoadedConfig, readConfig } from './config-file.ts';
import { canonicalOrder, mergeProblem, parseShard, shardMaxRps, shardOf, shardPattern } from './shard.ts';
import { parseFcPath } from '../suites/harness/fc-path.ts';
import type { Check } from '../suites/harness/check.ts';
import {
  checkCounts,
  failureLines,
  gatingLine,
  judgedThroughLine,
  headline,
  outsideRunReason,
  preconditionLines,
  targetUrl,
  ruleCounts,
  type Matrix,
  type RunInfo,
} from '../suites/harness/matrix.ts';
import { lateAnswerIn } from '../suites/harness/preconditions.ts';
import { redact, registerCredentials } from '../suites/harness/redact.ts';
import { escapeControls } from '../suites/harness/terminal.ts';
import { DEFAULT_BOUNDS, DEFAULT_MAX_CONCURRENCY } from '../suites/harness/pacer.ts';
import type { TargetConfig } from '../suites/harness/target.ts';
import { PROFILES, profileIncludes, type Profile } from '../suites/harness/types.ts';
import { orderTemplates } from '../suites/orders/templates.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

export const USAGE = `Usage: conformance [options]          the suite; in a clone: npm run conformance -- [options] (npm start = all defaults)
       conformance serve [options]    the reference server (sandbox); conformance serve --help

Target (each option also reads the environment variable in brackets):
  --orders-url URL      Order Automation Service base URL        [CONFORMANCE_ORDERS_URL]
  --quotes-url URL      Swap Quote Service base URL (host; paths are /api/v1/...) [CONFORMANCE_QUOTES_URL]
  --control-url URL     control API of the target, optional       [CONFORMANCE_CONTROL_URL]
  --gateway-url URL     distributor-path (Gateway) base, optional; needs QUOTES_JWT [CONFORMANCE_GATEWAY_URL]
                        Without --orders-url and --quotes-url the embedded reference server is started. With
                        one of them, only that service's checks run: the other's are not judged (outside the run).
Run:
  --profile NAME        smoke | readonly | full (default: full on the embedded server, readonly otherwise) [CONFORMANCE_PROFILE]
  --seed N              fast-check seed (default: random, printed) [CONFORMANCE_SEED]
  --report-dir DIR      where reports go (default: reports)        [CONFORMANCE_REPORT_DIR]
  --grep PATTERN        run only checks whose name or rule ids match [CONFORMANCE_GREP]
  --shard I/N           run shard I of N: about 1/N of the checks (CI matrices); merge with --merge-reports;
                        refused with --profile full on a given target (the shards would share its state) [CONFORMANCE_SHARD]
  --strict              failures of assumed rules fail the gate too [CONFORMANCE_STRICT=1]
  --num-runs N          fast-check runs per property (default 100, 25 when CI is set) [CONFORMANCE_NUM_RUNS]
  --fc-path PATH        replay one property straight to its counterexample, with --seed and a --grep selecting one
                        check: PATH (the check's first property) or N@PATH (its N-th), as a printed replay gives it [CONFORMANCE_FC_PATH]
  --timeout MS          per-request timeout (default 30000)        [CONFORMANCE_TIMEOUT_MS]
  --max-rps N           request budget, requests per second (default 10 on a given target, none on the
                        embedded server; 0 = none); with --shard I/N on a given target, each shard gets 1/N [CONFORMANCE_MAX_RPS]
  --max-concurrency N   checks and requests in flight at once, at most (default 8; 0 = no cap; 1 = one check at a
                        time; checks sharing the target's state run alone, the trigger checks trading in markets
                        of their own side by side with each other only) [CONFORMANCE_MAX_CONCURRENCY]
  --max-body-bytes N    the largest response body read; a larger one fails the rule (default 8388608) [CONFORMANCE_MAX_BODY_BYTES]
  --max-duration S      the run stops after S seconds: INCOMPLETE, "deadline reached" (default 1800; 0 = none) [CONFORMANCE_MAX_DURATION]
  --max-retry-after S   the longest retry-after of a 429 waited out (default 65) [CONFORMANCE_MAX_RETRY_AFTER]
  --max-retry-wait S    all retry-after waits of the run together, at most (default 300) [CONFORMANCE_MAX_RETRY_WAIT]
  --expected-providers N  providers the key path offers (default 2) [CONFORMANCE_EXPECTED_PROVIDERS]
Partner mode (a target without --control-url; README "Pointing it at your staging"):
  --budget-minutes N    wall time the black-box checks may wait for cycles, fills and expiry, all together (default 8) [CONFORMANCE_BUDGET_MINUTES]
  --budget-lamports N   lamports the partner's wallets may spend on fees: every deposit they sign, the black-box withdrawals (default 50000000) [CONFORMANCE_BUDGET_LAMPORTS]
  --allow-rate-limit-probes  opt in to probes that spend the rate-limit allowance [CONFORMANCE_ALLOW_RATE_LIMIT_PROBES=1]
  --mutant NAME         embedded server only: start it with one deliberate defect
  --variant NAME        embedded server only: start it with one benign variation
  --merge-reports DIR   merge the report dirs of shards found under DIR into --report-dir, then exit
  --config PATH         a config file (default: conformance.config.json, .yaml or .yml in the working directory)
                        holding any option above and the CONFORMANCE_* settings, never a secret; options and the
                        environment win over it (specs/conformance-config.schema.json) [CONFORMANCE_CONFIG]
  --help                this text
Credentials, only from the environment: ORDERS_API_KEY, ORDERS_API_KEY_ALT, QUOTES_API_KEY, QUOTES_JWT,
SWAP_API_KEY (a key of the separate swap API, optional), TEST_WALLET_SECRET_KEY, TEST_WALLET_SECRET_KEY_ALT (a second funded wallet). With a control URL that offers tenants and quote-keys the suite provisions its own.
Exit codes: 0 pass, 1 conformance failure, 2 bad usage or configuration, 3 target unreachable,
4 INCOMPLETE (gating checks could not be judged: a broken precondition, an answer later than --timeout or the suite's
own error, fix printed; the deadline), 130 interrupted.`;

export class UsageError extends Error {}

/** SIGINTs this close to the first are one Ctrl-C relayed by npm or tsx (see `interrupt` in `execute`). */
const SAME_CTRL_C_MS = 1500;

/** The default of --max-duration: a whole run within a usual CI job. */
export const DEFAULT_MAX_DURATION_S = 1800;
/**
 * How long a run cancelled at its deadline may take to stop: the check under way (vitest's test timeout, 300 s) and
 * the cleanup of what the run created (600 s). Past it the CLI quits at once.
 */
const DEADLINE_GRACE_MS = 900_000;

export interface CliOptions {
  config: Omit<TargetConfig, 'credentials' | 'ordersUrl' | 'quotesUrl'> & { ordersUrl?: string; quotesUrl?: string };
  reportDir: string;
  grep?: string;
  shard?: string;
  mutant?: string;
  variant?: string;
  mergeReports?: string;
  /** --max-duration in seconds; 0 = no deadline. */
  maxDurationS: number;
  /** the config file read, if any */
  configFile?: string;
}

function parseUrl(name: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${name} is not a URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${name} must be http or https: ${value}`);
  return value.replace(/\/$/, '');
}

function parseInteger(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`${name} must be an integer >= ${min}: ${value}`);
  }
  return Number(value);
}

/**
 * `--timeout -5` as `--timeout=-5`: parseArgs takes a value that starts with a dash for an option ("ambiguous"), so a
 * negative number would never reach the check that says what the option needs.
 */
function joinNegativeNumbers(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const next = argv[i + 1];
    if (/^--[a-z-]+$/.test(argv[i]!) && next !== undefined && /^-\d/.test(next)) out.push(`${argv[i]}=${argv[++i]}`);
    else out.push(argv[i]!);
  }
  return out;
}

/** Options from argv and the environment; throws UsageError with a one-line message. */
export function parseCli(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: joinNegativeNumbers(argv),
      strict: true,
      allowPositionals: false,
      options: {
        'orders-url': { type: 'string' },
        'quotes-url': { type: 'string' },
        'control-url': { type: 'string' },
        'gateway-url': { type: 'string' },
        profile: { type: 'string' },
        seed: { type: 'string' },
        'report-dir': { type: 'string' },
        grep: { type: 'string' },
        shard: { type: 'string' },
        strict: { type: 'boolean' },
        'num-runs': { type: 'string' },
        'fc-path': { type: 'string' },
        timeout: { type: 'string' },
        'max-rps': { type: 'string' },
        'max-concurrency': { type: 'string' },
        'max-body-bytes': { type: 'string' },
        'max-duration': { type: 'string' },
        'max-retry-after': { type: 'string' },
        'max-retry-wait': { type: 'string' },
        'expected-providers': { type: 'string' },
        'budget-minutes': { type: 'string' },
        'budget-lamports': { type: 'string' },
        'allow-rate-limit-probes': { type: 'boolean' },
        mutant: { type: 'string' },
        variant: { type: 'string' },
        'merge-reports': { type: 'string' },
        config: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw new UsageError((e as Error).message.split('\n')[0]!);
  }
  let file: LoadedConfig;
  try {
    file = readConfig((values.config as string | undefined) ?? (env.CONFORMANCE_CONFIG || undefined), env);
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(e.message);
    throw e;
  }
  // Options win over the environment, the environment over the config file (bin/config-file.ts).
  const str = (opt: string, envName: string) => (values[opt] as string | undefined) ?? env[envName] ?? file.options[opt];
  const mutant = (values.mutant as string | undefined) ?? file.options.mutant;
  const variant = (values.variant as string | undefined) ?? file.options.variant;
  const ordersUrl = parseUrl('--orders-url', str('orders-url', 'CONFORMANCE_ORDERS_URL'));
  const quotesUrl = parseUrl('--quotes-url', str('quotes-url', 'CONFORMANCE_QUOTES_URL'));
  const controlUrl = parseUrl('--control-url', str('control-url', 'CONFORMANCE_CONTROL_URL'));
  const gatewayUrl = parseUrl('--gateway-url', str('gateway-url', 'CONFORMANCE_GATEWAY_URL'));
  // One URL alone runs that service's checks only; the other's are reported not judged, outside the run (servicesGiven).
  const embedded = !ordersUrl && !quotesUrl;
  if (gatewayUrl && ordersUrl && !quotesUrl)
    throw new UsageError(
      "--gateway-url is the quote service's distributor path: give --quotes-url too (an orders-only run sends no quote request)",
    );
  if (!embedded && (mutant || variant)) throw new UsageError('--mutant and --variant apply to the embedded reference server only');
  const profile = str('profile', 'CONFORMANCE_PROFILE') ?? (embedded ? 'full' : 'readonly');
  if (!PROFILES.includes(profile as Profile)) throw new UsageError(`--profile must be one of ${PROFILES.join(', ')}: ${profile}`);
  const shard = str('shard', 'CONFORMANCE_SHARD') || undefined;
  if (shard) {
    if (!parseShard(shard)) throw new UsageError(`--shard must be I/N with 1 <= I <= N: ${shard}`);
    if (!embedded && profile === 'full') {
      throw new UsageError(
        `--shard with --profile full on a given target is refused: the shards would run at once against one target and ` +
          `share its state (the wallet's balances and orders, the control API's clock, faults and prices), so their verdicts ` +
          `would not hold; run full unsharded, or shard smoke or readonly`,
      );
    }
  }
  const grep = str('grep', 'CONFORMANCE_GREP') || undefined;
  try {
    if (grep) new RegExp(grep);
  } catch {
    throw new UsageError(`--grep is not a regular expression: ${grep}`);
  }
  const seed = parseInteger('--seed', str('seed', 'CONFORMANCE_SEED'), 0) ?? Math.floor(Math.random() * 2 ** 31);
  const fcPathText = str('fc-path', 'CONFORMANCE_FC_PATH') || undefined;
  const fcPath = fcPathText === undefined ? undefined : parseFcPath(fcPathText);
  if (fcPathText !== undefined && !fcPath) {
    throw new UsageError(`--fc-path must be PATH or N@PATH, a fast-check path such as 3:0:1 (as a printed replay gives it): ${fcPathText}`);
  }
  try {
    orderTemplates();
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  // The checks read these in their workers, which inherit this process's environment.
  for (const [name, value] of Object.entries(file.env)) process.env[name] ??= value;
  const strictEnv = env.CONFORMANCE_STRICT;
  return {
    config: {
      ordersUrl,
      quotesUrl,
      controlUrl,
      gatewayUrl,
      profile: profile as Profile,
      seed,
      strict:
        Boolean(values.strict) ||
        (strictEnv !== undefined && strictEnv !== '' ? strictEnv === '1' || strictEnv === 'true' : file.options.strict === 'true'),
      numRuns: parseInteger('--num-runs', str('num-runs', 'CONFORMANCE_NUM_RUNS'), 1) ?? (env.CI ? 25 : 100),
      ...(fcPath ? { fcPath } : {}),
      timeoutMs: parseInteger('--timeout', str('timeout', 'CONFORMANCE_TIMEOUT_MS'), 1) ?? 30_000,
      // On a given target --max-rps is the whole sharded run's: each of N shards gets an N-th (bin/shard.ts).
      maxRps: shardMaxRps(
        parseInteger('--max-rps', str('max-rps', 'CONFORMANCE_MAX_RPS'), 0) ?? (embedded ? 0 : 10),
        shard ? parseShard(shard) : undefined,
        embedded,
      ),
      maxConcurrency:
        parseInteger('--max-concurrency', str('max-concurrency', 'CONFORMANCE_MAX_CONCURRENCY'), 0) ?? DEFAULT_MAX_CONCURRENCY,
      expectedProviders: parseInteger('--expected-providers', str('expected-providers', 'CONFORMANCE_EXPECTED_PROVIDERS'), 0) ?? 2,
      budgetMinutes: parseInteger('--budget-minutes', str('budget-minutes', 'CONFORMANCE_BUDGET_MINUTES'), 0),
      budgetLamports: parseInteger('--budget-lamports', str('budget-lamports', 'CONFORMANCE_BUDGET_LAMPORTS'), 0),
      allowRateLimitProbes:
        Boolean(values['allow-rate-limit-probes']) ||
        ['1', 'true'].includes(str('allow-rate-limit-probes', 'CONFORMANCE_ALLOW_RATE_LIMIT_PROBES') ?? ''),
      bounds: {
        maxBodyBytes:
          parseInteger('--max-body-bytes', str('max-body-bytes', 'CONFORMANCE_MAX_BODY_BYTES'), 1) ?? DEFAULT_BOUNDS.maxBodyBytes,
        maxRetryAfterMs:
          1000 *
          (parseInteger('--max-retry-after', str('max-retry-after', 'CONFORMANCE_MAX_RETRY_AFTER'), 0) ??
            DEFAULT_BOUNDS.maxRetryAfterMs / 1000),
        maxRetryWaitMs:
          1000 *
          (parseInteger('--max-retry-wait', str('max-retry-wait', 'CONFORMANCE_MAX_RETRY_WAIT'), 0) ??
            DEFAULT_BOUNDS.maxRetryWaitMs / 1000),
      },
    },
    reportDir: resolve(str('report-dir', 'CONFORMANCE_REPORT_DIR') ?? 'reports'),
    grep,
    shard,
    mutant,
    variant,
    configFile: file.path,
    mergeReports: values['merge-reports'] as string | undefined,
    maxDurationS: parseInteger('--max-duration', str('max-duration', 'CONFORMANCE_MAX_DURATION'), 0) ?? DEFAULT_MAX_DURATION_S,
  };
}

/** What the CLI prints of the target's text (URLs, messages, error codes): redacted, its control characters escaped. */
function shown(text: string): string {
  return escapeControls(redact(text));
}

/** The failing checks per rule, the broken preconditions with their fixes, the errors outside any check. */
function printSummary(m: Matrix, reportDir: string): void {
  const lines = [
    '',
    `Conformance ${headline(m)} — profile ${m.run.profile}, seed ${m.run.seed}${m.run.target.mutant ? `, mutant ${m.run.target.mutant}` : ''}`,
    `  target:  orders ${targetUrl(m.run.target, 'orders')}  quotes ${targetUrl(m.run.target, 'quotes')}` +
      `${m.run.target.embedded ? '  (embedded reference server)' : ''}`,
    `  checks:  ${checkCounts(m)}`,
    `  rules:   ${m.summary.rules.total} in the catalogue, ${m.summary.rules.covered} covered by a check: ${ruleCounts(m)}`,
    `  gating:  ${gatingLine(m)}`,
    `  judged:  ${judgedThroughLine(m)}`,
  ];
  // Each root cause once, with the checks it blocked and its replay (matrix.ts).
  lines.push(...failureLines(m).map((l) => `  ${l}`));
  if (m.summary.preconditions.length > 0) {
    lines.push(
      m.summary.verdict === 'incomplete'
        ? '  INCOMPLETE: gating checks could not be judged; what broke, once each, and the fix:'
        : '  broken preconditions of the run, once each, and the fix:',
    );
    lines.push(...preconditionLines(m).map((l) => `    ${l}`));
    // A setup that broke for a reason the suite does not name: each check says what.
    const own = m.checks.filter((r) => r.unjudged && ['setup', 'suite-error'].includes(r.unjudged.id));
    for (const r of own.slice(0, 10)) lines.push(`  SETUP-FAILED ${r.check}: ${r.message?.split('\n')[0]}`);
    if (own.length > 10) lines.push(`  … ${own.length - 10} more SETUP-FAILED in matrix.md`);
  }
  for (const e of m.summary.errors) lines.push(`  ERROR outside any check: ${e.split('\n')[0]}`);
  lines.push(`  reports: ${join(reportDir, 'matrix.html')}, matrix.md, matrix.json, junit.xml, allure-results/`);
  console.log(shown(lines.join('\n')));
}

/** vitest's failed tests (the checks among its tasks: files and suites that failed are errors outside any check). */
function failedTestsOf(tasks: ReadonlyArray<{ type: string; result?: { state?: string }; tasks?: unknown }>): number {
  return tasks.reduce(
    (n, task) =>
      n + (task.type === 'test' && task.result?.state === 'fail' ? 1 : 0) + (Array.isArray(task.tasks) ? failedTestsOf(task.tasks) : 0),
    0,
  );
}

/** The exit code of a finished run's matrix: 1 wins over 4 (DESIGN.md, exit codes). */
function exitCode(m: Matrix): number {
  return { pass: 0, fail: 1, incomplete: 4, interrupted: 130 }[m.summary.verdict];
}

/**
 * The checks `--grep` selects, as vitest matches it (the test's full name: group, check name, rule ids). The preflight
 * needs it to know which services the run reaches; a run cut short at its deadline lists the ones it never reached.
 */
function selectedChecks(groups: Record<string, Check[]>, grep: string | undefined): Check[] {
  const pattern = grep ? new RegExp(grep) : undefined;
  return Object.entries(groups).flatMap(([group, checks]) =>
    checks.filter((c) => !pattern || pattern.test(`${group} ${c.name} [${c.rules.join(' ')}]`)),
  );
}

/** The services a run reaches: both on the embedded server, else those whose URL was given. */
function servicesGiven(cfg: CliOptions['config']): Array<Check['service']> {
  if (!cfg.ordersUrl && !cfg.quotesUrl) return ['orders', 'quotes'];
  return [...(cfg.ordersUrl ? (['orders'] as const) : []), ...(cfg.quotesUrl ? (['quotes'] as const) : [])];
}

/**
 * The services of the checks the run selected (a selected check outside the profile too, since it reports so): the
 * conformance file (suites/conformance.test.ts, both services' checks in one process) loads only their checks, and the
 * order cleanup only with the order checks.
 */
function servicesOf(inRun: readonly Check[]): Array<Check['service']> {
  return [...new Set(inRun.map((c) => c.service))].sort();
}

function findFiles(dir: string, name: RegExp, out: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) findFiles(path, name, out);
    else if (name.test(entry)) out.push(path);
  }
  return out;
}

/** Merge the report dirs of a sharded run: one matrix, one JUnit file (from the merged matrix), one Allure results folder. */
async function mergeReports(from: string, reportDir: string): Promise<number> {
  const { buildMatrix, writeMatrix } = await import('../suites/harness/matrix.ts');
  const { writeJUnit } = await import('../suites/harness/junit.ts');
  const { groupOf } = await import('./reporters/matrix-reporter.ts');
  const { allChecks } = await import('../suites/index.ts');
  if (!existsSync(from) || !statSync(from).isDirectory()) throw new UsageError(`--merge-reports: no folder ${from}`);
  const matrices = findFiles(resolve(from), /^matrix\.json$/).map((f) => JSON.parse(readFileSync(f, 'utf8')) as Matrix);
  if (matrices.length === 0) throw new UsageError(`no matrix.json under ${from}`);
  const problem = mergeProblem(matrices.map((m) => m.run));
  if (problem) throw new UsageError(problem);
  mkdirSync(reportDir, { recursive: true });
  const allureDirs = new Set(findFiles(resolve(from), /-result\.json$/).map((f) => f.slice(0, f.lastIndexOf('/'))));
  for (const dir of allureDirs) {
    if (resolve(dir) !== resolve(reportDir, 'allure-results')) cpSync(dir, join(reportDir, 'allure-results'), { recursive: true });
  }
  const first = matrices[0]!;
  const preconditions = new Map(matrices.flatMap((m) => m.run.preconditions ?? []).map((p) => [p.id, p]));
  const run: RunInfo = {
    ...first.run,
    shard: `merged ${matrices.map((m) => m.run.shard ?? '?').join(', ')}`,
    startedAt: matrices.map((m) => m.run.startedAt).sort()[0]!,
    finishedAt: matrices
      .map((m) => m.run.finishedAt)
      .sort()
      .at(-1)!,
    preconditions: [...preconditions.values()],
  };
  const stopped =
    matrices.map((m) => m.summary.stopped).find((s) => s === 'interrupted') ?? matrices.map((m) => m.summary.stopped).find(Boolean);
  // A check outside the run (one URL alone) is in every shard's matrix: once in the merged one.
  const outsideOnce = new Set<string>();
  const matrix = buildMatrix(
    matrices
      .flatMap((m) => m.checks)
      .filter((r) => r.notJudged !== 'outside-run' || (!outsideOnce.has(r.check) && Boolean(outsideOnce.add(r.check)))),
    allChecks,
    run,
    VERSION,
    { stopped, errors: matrices.flatMap((m) => m.summary.errors ?? []), commit: first.suite?.commit },
  );
  writeMatrix(reportDir, matrix);
  writeJUnit(reportDir, matrix, groupOf);
  // The merged Allure results say what the merged matrix says (one root cause once, the run's environment).
  const { completeAllureResults } = await import('./reporters/allure-results.ts');
  completeAllureResults(join(reportDir, 'allure-results'), matrix);
  printSummary(matrix, reportDir);
  return exitCode(matrix);
}

/**
 * vitest's API and the CLI's reporters, as instances from the modules this process loads anyway (the suite among them):
 * given as paths, vitest would transform and load the whole suite a second time in this process. A run that ends before
 * vitest starts leaves the promise unawaited: its failure is then nobody's.
 */
function loadVitest() {
  const loading = Promise.all([
    import('vitest/node'),
    import('./reporters/progress.ts'),
    import('./reporters/unfinished.ts'),
    import('./reporters/matrix-reporter.ts'),
    import('./reporters/allure.ts'),
  ]).then(([{ startVitest }, progress, unfinished, matrix, allure]) => ({
    startVitest,
    ProgressReporter: progress.default,
    UnfinishedChecksReporter: unfinished.default,
    MatrixReporter: matrix.default,
    AllureReporter: allure.default,
  }));
  loading.catch(() => {});
  return loading;
}

/**
 * Where vitest keeps the suite's transformed modules between runs (its experimental `fsModuleCache`: each file's
 * cached form is keyed by its content, vitest's version and config, so a changed file is transformed again; about a
 * second of a run's start, issue 17): `modules` in CONFORMANCE_CACHE_DIR (`off` turns the cache off), by default in
 * `.cache/solana-trading-conformance` of the node_modules beside the package (a clone's own, or the one the package is
 * installed in). A folder of its own, since vitest empties it when the lockfile changes. Undefined, no cache, when it
 * cannot be made or written, or when someone else could write in it (the run executes what it holds).
 */
export function moduleCacheDir(env: NodeJS.ProcessEnv = process.env, root = ROOT): string | undefined {
  const asked = env.CONFORMANCE_CACHE_DIR;
  if (asked === 'off') return undefined;
  const parts = resolve(root).split(sep);
  const installedIn = parts.lastIndexOf('node_modules');
  const nodeModules = installedIn >= 0 ? parts.slice(0, installedIn + 1).join(sep) : join(root, 'node_modules');
  const dir = join(asked ? resolve(asked) : join(nodeModules, '.cache', 'solana-trading-conformance'), 'modules');
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    accessSync(dir, constants.W_OK);
    const { uid, mode } = statSync(dir);
    if ((process.getuid && uid !== process.getuid()) || (mode & 0o022) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

/** An unknown --mutant or --variant, said in one line with the closest names; undefined when both are known. */
async function unknownEmbeddedName(options: CliOptions): Promise<string | undefined> {
  const { mutants, variants } = await import('../fixtures/mutants/index.ts');
  const { ASSUMPTION_VARIANTS } = await import('../fixtures/mutants/variants.ts');
  const { unknownName } = await import('./names.ts');
  const mutantNames = mutants.map((m) => m.name);
  const variantNames = [...variants, ...ASSUMPTION_VARIANTS].map((v) => v.name);
  if (options.mutant && !mutantNames.includes(options.mutant)) return unknownName('mutant', options.mutant, mutantNames);
  if (options.variant && !variantNames.includes(options.variant)) return unknownName('variant', options.variant, variantNames);
  return undefined;
}

/** The whole job; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  // No colour codes in a log: vitest's colours take a terminal for granted unless told (bin/reporters/progress.ts).
  if (!process.stdout.isTTY && !('FORCE_COLOR' in process.env)) process.env.NO_COLOR = '1';
  // Before the options and the environment are read: help is given whatever they hold.
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  let options: CliOptions;
  try {
    options = parseCli(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`conformance: ${e.message} (see --help)`);
      return 2;
    }
    throw e;
  }
  return execute(options);
}

/** A run (or a merge) of parsed options, as the CLI and the API (bin/api.ts) make it; returns the exit code. */
export async function execute(options: CliOptions): Promise<number> {
  const deadlineAt = options.maxDurationS > 0 ? Date.now() + options.maxDurationS * 1000 : undefined;
  await ensureGenerated();
  if (options.mergeReports) {
    try {
      return await mergeReports(options.mergeReports, options.reportDir);
    } catch (e) {
      if (e instanceof UsageError) {
        console.error(`conformance: ${e.message}`);
        return 2;
      }
      throw e;
    }
  }

  const cfg = options.config;
  // vitest and the CLI's reporters load while the checks are selected and the target prepared: through tsx's loader
  // their modules take about a second, most of it waiting (issue 17). Awaited before vitest starts.
  const vitestLoading = loadVitest();
  const { checkGroups } = await import('../suites/index.ts');
  // A given target of one service (one URL alone): the other service's checks are outside the run, reported not judged.
  const services = servicesGiven(cfg);
  const grepped = selectedChecks(checkGroups, options.grep);
  const selected = grepped.filter((c) => services.includes(c.service));
  const outside = grepped.filter((c) => !services.includes(c.service));
  if (!selected.some((c) => profileIncludes(cfg.profile, c.profile))) {
    const others =
      outside.length > 0
        ? `; ${outside.length} of the ${outside[0]!.service} service, outside the run: ${outsideRunReason(outside[0]!.service)}`
        : '';
    console.error(
      `conformance: ${options.grep ? `--grep ${options.grep}` : 'the run'} selects no check` +
        `${selected.length > 0 ? ` of profile ${cfg.profile} (${selected.length} of other profiles)` : ''}${others}: nothing to run`,
    );
    return 2;
  }
  // A counterexample path belongs to one check's property: with several checks it would replay nothing that failed.
  const inProfile = selected.filter((c) => profileIncludes(cfg.profile, c.profile));
  if (cfg.fcPath && inProfile.length !== 1) {
    console.error(
      `conformance: --fc-path replays one check's property, but ${options.grep ? `--grep ${options.grep}` : 'the run'} selects ` +
        `${inProfile.length} checks of profile ${cfg.profile}: give the --grep of the printed replay`,
    );
    return 2;
  }
  // --shard I/N: about 1/N of the checks the profile runs (bin/shard.ts), run through a test-name pattern naming each.
  let inRun = selected;
  let testNamePattern = options.grep;
  if (options.shard) {
    const shard = parseShard(options.shard)!;
    const runs = (c: Check) => profileIncludes(cfg.profile, c.profile);
    const chosen = new Set(selected);
    inRun = shardOf(
      canonicalOrder(checkGroups).filter((c) => chosen.has(c)),
      runs,
      shard,
    );
    if (!inRun.some(runs)) {
      console.error(
        `conformance: --shard ${options.shard} holds no check: ${selected.filter(runs).length} check(s) of profile ${cfg.profile}` +
          `${options.grep ? ` match --grep ${options.grep}` : ''}, fewer than ${shard.count} shards; use fewer shards`,
      );
      return 2;
    }
    testNamePattern = shardPattern(checkGroups, new Set(inRun));
  }
  const { prepareTarget, credentialsFromEnv, TargetUnreachable } = await import('../suites/harness/target.ts');
  const { notRunResult } = await import('../suites/harness/runner.ts');
  let server: { ordersUrl: string; quotesUrl: string; controlUrl: string; close(): Promise<void> } | undefined;
  if (!cfg.ordersUrl && !cfg.quotesUrl) {
    const unknown = await unknownEmbeddedName(options);
    if (unknown) {
      console.error(`conformance: ${unknown}`);
      return 2;
    }
    const { startReferenceServer } = await import('../fixtures/server/index.ts');
    try {
      // The embedded deployment signs users in with the run's SIWS statement, as the suite will write it.
      const siwsStatement = process.env.CONFORMANCE_SIWS_STATEMENT;
      server = await startReferenceServer({ port: 0, mutant: options.mutant, variant: options.variant, siwsStatement });
    } catch (e) {
      console.error(`conformance: ${(e as Error).message}`);
      return 2;
    }
  }
  mkdirSync(options.reportDir, { recursive: true });
  // The retry-after wait the run spent, shared by the run's processes (pacer.ts RetryAfterBudget).
  const runDir = mkdtempSync(join(tmpdir(), 'conformance-run-'));
  try {
    const config: TargetConfig = {
      ...cfg,
      bounds: { ...cfg.bounds, deadlineAt, maxDurationS: options.maxDurationS, retryWaitFile: join(runDir, 'retry-wait-ms') },
      ordersUrl: server?.ordersUrl ?? cfg.ordersUrl,
      quotesUrl: server?.quotesUrl ?? cfg.quotesUrl,
      controlUrl: server?.controlUrl ?? cfg.controlUrl,
      credentials: credentialsFromEnv(),
    };
    // Before the first request: a target that reflects a key in an error while it is prepared is redacted too.
    registerCredentials(config.credentials);
    let target;
    try {
      target = await prepareTarget(config);
    } catch (e) {
      if (e instanceof TargetUnreachable && server && e.message.includes('no answer within')) {
        console.error(
          `conformance: --timeout ${cfg.timeoutMs} ms is too small: the embedded reference server did not answer within it (default 30000)`,
        );
        return 2;
      }
      if (e instanceof TargetUnreachable) {
        // The probe waits --timeout, at most 10 s (suites/harness/target.ts): raising --timeout helps only below that.
        // A target that took the connection and answered nothing within a --timeout under 10 s may be only slow: the
        // run judged nothing, INCOMPLETE with the fix, rather than "unreachable".
        const late = e.message.includes('no answer within');
        if (late && cfg.timeoutMs < 10_000) {
          console.error(
            shown(
              `conformance: the target did not answer the reachability probe within --timeout: ${e.message} ` +
                `(INCOMPLETE; fix: if the target is only slow, raise --timeout (now ${cfg.timeoutMs} ms); the probe waits at most 10 s)`,
            ),
          );
          return 4;
        }
        const slow = late
          ? ' (the reachability probe waits at most 10 s, whatever --timeout: the target answered nothing in that time)'
          : '';
        console.error(shown(`conformance: the target could not be reached: ${e.message}${slow}`));
        return 3;
      }
      // Late only against the run's own --timeout (a slow target, a slow control API): nothing judged, INCOMPLETE.
      const late = lateAnswerIn((e as Error).message);
      if (late) {
        console.error(shown(`conformance: the target could not be prepared: ${(e as Error).message} (INCOMPLETE; fix: ${late.fix})`));
        return 4;
      }
      console.error(shown(`conformance: the target could not be prepared: ${(e as Error).message}`));
      return 2;
    }
    // Only the keys of the services the run reaches: a quotes-only run needs no ORDERS_API_KEY.
    const missing = [
      target.ordersUrl && !target.credentials.ordersApiKey && 'ORDERS_API_KEY (or a control URL offering "tenants")',
      target.quotesUrl && !target.credentials.quotesApiKey && 'QUOTES_API_KEY (or a control URL offering "quote-keys")',
    ].filter(Boolean);
    if (missing.length) {
      console.error(`conformance: missing credentials: ${missing.join('; ')}`);
      return 2;
    }
    console.log(
      shown(
        `conformance: profile ${target.profile}, seed ${target.seed}, orders ${targetUrl(target, 'orders')}, ` +
          `quotes ${targetUrl(target, 'quotes')}` +
          `, capabilities: ${target.capabilities.join(', ') || 'none'}`,
      ),
    );
    if (options.shard && !server && target.maxRps > 0) {
      const count = parseShard(options.shard)!.count;
      console.log(
        `conformance: shard ${options.shard} on a given target: at most ${Number(target.maxRps.toFixed(2))} requests per second, ` +
          `1/${count} of --max-rps ${Math.round(target.maxRps * count)} (the shards share the target's rate limits)`,
      );
    }

    // Every malformed input on the embedded server; one per validation branch on a given target (suites/shared/hostile.ts).
    target.hostileInputs = server ? 'every' : 'per-branch';
    // The preflight: what most checks rest on, tried once; what broke is said here and, with its fix, in the summary.
    const { preflight } = await import('../suites/harness/preflight.ts');
    const reaches = (service: string) => inRun.some((c) => c.service === service && profileIncludes(target.profile, c.profile));
    target.preconditions = await preflight(target, { orders: reaches('orders'), quotes: reaches('quotes') });
    for (const p of target.preconditions) {
      console.error(
        shown(`conformance: preflight: ${p.problem}; the checks resting on it will not be judged (the fix follows the summary)`),
      );
    }

    // Clear only what a run writes, so a report dir can hold other files (reports/README.md); while vitest loads.
    const clearing = Promise.all(
      readdirSync(options.reportDir)
        .filter((name) => /^(matrix\.(json|md|html)|junit\.xml|cleanup\.json|allure-results)$/.test(name))
        .map((name) => rm(join(options.reportDir, name), { recursive: true, force: true })),
    );
    const { specHashes } = await import('../generators/index.ts');
    const run: Omit<RunInfo, 'finishedAt'> = {
      startedAt: new Date().toISOString(),
      profile: target.profile,
      seed: target.seed,
      numRuns: target.numRuns,
      strict: target.strict,
      shard: options.shard,
      target: {
        ordersUrl: target.ordersUrl,
        quotesUrl: target.quotesUrl,
        controlUrl: target.controlUrl,
        gatewayUrl: target.gatewayUrl,
        capabilities: target.capabilities,
        embedded: Boolean(server),
        mutant: options.mutant,
        variant: options.variant,
        info: target.info,
      },
      specHashes,
      preconditions: target.preconditions,
      ...(options.maxDurationS > 0 ? { maxDurationS: options.maxDurationS } : {}),
    };
    // The orders file cleans up what a full run created and writes what it could not (suites/orders/cleanup.ts).
    const cleanupFile = join(options.reportDir, 'cleanup.json');
    process.env.CONFORMANCE_CLEANUP_FILE = cleanupFile;
    const [{ startVitest, ProgressReporter, UnfinishedChecksReporter, MatrixReporter, AllureReporter }] = await Promise.all([
      vitestLoading,
      clearing,
    ]);
    // Ctrl-C: the run is cancelled (the check under way finishes, the rest are skipped) and the cleanup of what it
    // created still runs; a second Ctrl-C quits at once. One keypress may arrive more than once: the terminal signals the
    // whole process group, and npm (`npm start`, `npm run conformance`) and tsx (`npx tsx bin/conformance.ts`) relay it
    // to their child too, so a SIGINT within SAME_CTRL_C_MS of the first is the same Ctrl-C.
    let running: { cancelCurrentRun(reason: 'keyboard-input'): Promise<void> } | undefined;
    let interrupted = false;
    const interrupt = () => {
      interrupted = true;
      const first = Date.now();
      console.error('\nconformance: interrupted: cancelling the run, then cleaning up what it created (Ctrl-C again to quit at once)');
      const again = () => (Date.now() - first < SAME_CTRL_C_MS ? process.once('SIGINT', again) : process.exit(130));
      process.once('SIGINT', again);
      void running?.cancelCurrentRun('keyboard-input');
    };
    process.once('SIGINT', interrupt);
    // The listeners before vitest's: ours and, through the API (bin/api.ts), the caller's, which stay.
    const sigintBefore = new Set(process.listeners('SIGINT'));
    // --max-duration: the run is cancelled as by Ctrl-C, its cleanup still runs, and the verdict says so.
    let deadlineReached = false;
    const onDeadline = () => {
      deadlineReached = true;
      console.error(
        `\nconformance: the run's deadline was reached (--max-duration ${options.maxDurationS} s): cancelling the run, then cleaning up what it created`,
      );
      setTimeout(() => {
        console.error(
          `conformance: the run did not stop within ${DEADLINE_GRACE_MS / 1000} s of its deadline: quitting, INCOMPLETE (what it created may be left on the target)`,
        );
        process.exit(4);
      }, DEADLINE_GRACE_MS).unref();
      void running?.cancelCurrentRun('keyboard-input');
    };
    const deadlineTimer = deadlineAt === undefined ? undefined : setTimeout(onDeadline, Math.max(0, deadlineAt - Date.now()));
    const modules = moduleCacheDir();
    const vitest = await startVitest('test', ['suites/conformance.test.ts'], {
      root: ROOT,
      project: 'conformance',
      ...(modules ? { experimental: { fsModuleCache: true, fsModuleCachePath: modules } } : {}),
      // The target, credentials included, reaches the workers the way vitest passes data to them (inject('target')),
      // never in an environment variable that every child process would inherit.
      provide: { target, services: servicesOf(inRun) },
      watch: false,
      testNamePattern,
      reporters: [
        'default',
        // allure-vitest's, writing its files without an fsync each (bin/reporters/allure.ts).
        new AllureReporter(join(options.reportDir, 'allure-results')),
        // A line per area as it completes when stdout is not a terminal (CI logs).
        new ProgressReporter(),
        // Before the matrix: a check that timed out or died with its worker is a failure in it (unfinished.ts).
        new UnfinishedChecksReporter(),
        // The matrix and junit.xml, from the same results.
        new MatrixReporter({
          reportDir: options.reportDir,
          run,
          version: VERSION,
          deadlineAt,
          selected: inRun.map((c) => c.name),
          // The other service's selected checks, when one URL alone was given: not judged, outside the run.
          outsideRun: outside.map((c) =>
            notRunResult(c, `not judged: outside the run: ${outsideRunReason(c.service)}`, { notJudged: 'outside-run' }),
          ),
        }),
        {
          onInit: (instance: NonNullable<typeof running>) => {
            running = instance;
            if (deadlineReached) void instance.cancelCurrentRun('keyboard-input');
            // vitest's own SIGINT handler exits at once; a run cancelled by ours ends with its cleanup instead.
            for (const listener of process.listeners('SIGINT')) {
              if (!sigintBefore.has(listener)) process.removeListener('SIGINT', listener);
            }
          },
        },
      ],
    });
    process.removeListener('SIGINT', interrupt);
    clearTimeout(deadlineTimer);
    // vitest's own failed tests count too: a check that failed the gate, hit its test timeout or crashed
    // (bin/reporters/unfinished.ts puts them into the matrix). A file or hook that failed, or an unhandled error, is an
    // error of the suite outside any check: the matrix has it, INCOMPLETE (its own bug, not the target's).
    const failedTests = failedTestsOf(vitest?.state.getFiles() ?? []);
    await vitest?.close();
    const matrixFile = join(options.reportDir, 'matrix.json');
    if (!existsSync(matrixFile)) {
      console.error(
        "conformance: the suite did not complete (no matrix was written): the suite's own error, not the target; see the output above",
      );
      return 4;
    }
    const matrix = JSON.parse(readFileSync(matrixFile, 'utf8')) as Matrix;
    if (
      matrix.checks.every((r) => r.notJudged === 'outside-run') &&
      !interrupted &&
      !deadlineReached &&
      matrix.summary.errors.length === 0
    ) {
      console.error(
        `conformance: no check ran${options.shard ? ` in shard ${options.shard}` : ''}${options.grep ? ` with --grep ${options.grep}` : ''}` +
          ': nothing was judged, the run is not a pass',
      );
      return 2;
    }
    printSummary(matrix, options.reportDir);
    if (existsSync(cleanupFile)) {
      const { describeCleanup } = await import('../suites/orders/cleanup.ts');
      console.log(shown(`  ${describeCleanup(JSON.parse(readFileSync(cleanupFile, 'utf8')))}`.replace(/\n/g, '\n  ')));
    }
    if (interrupted) {
      console.error('conformance: interrupted: the verdicts above cover only the checks that ran before Ctrl-C');
      return 130;
    }
    // The deadline met by the timer, or by a check whose 429 wait would have passed it (it waited until it).
    if (deadlineReached || matrix.summary.stopped === 'deadline') {
      console.error(
        `conformance: deadline reached (--max-duration ${options.maxDurationS} s): the verdicts above cover only the checks that ran before it; ` +
          `the run is ${matrix.summary.verdict === 'fail' ? 'a failure' : 'INCOMPLETE'}`,
      );
    }
    if (matrix.summary.errors.length > 0)
      console.error(
        `conformance: ${matrix.summary.errors.length} error(s) of the suite outside any check (see the output above): the suite's own error, not the target; ` +
          `the run is ${matrix.summary.verdict === 'fail' ? 'a failure (of the target, besides)' : 'INCOMPLETE'}`,
      );
    // vitest's own count of failed tests guards the matrix: a failure it missed still fails the run.
    return failedTests > 0 ? 1 : exitCode(matrix);
  } finally {
    rmSync(runDir, { recursive: true, force: true });
    await server?.close();
  }
}

/** An error nobody caught: its stack, redacted, and exit 1. */
export function printInternalError(e: unknown): never {
  console.error(shown(`conformance: internal error: ${(e as Error)?.stack ?? String(e)}`));
  process.exit(1);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => process.exit(code), printInternalError);
}
