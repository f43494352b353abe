/**
 * The programmatic API of the package (`import { run } from 'solana-trading-conformance'`): a run as the CLI makes it,
 * resolved to its matrix, and the generated types of both services for partners' own code.
 *
 * ```ts
 * const matrix = await run({ ordersUrl, quotesUrl, profile: 'readonly' });
 * if (matrix.summary.verdict !== 'pass') process.exitCode = 1;
 * ```
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Matrix } from '../suites/harness/matrix.ts';
import type { ConfigFile } from './config-file.ts';
import { execute, parseCli, UsageError } from './conformance.ts';

export type { Matrix, RuleRow, RunInfo } from '../suites/harness/matrix.ts';
export type * as Orders from '../generators/out/types/orders.ts';
export type * as Quotes from '../generators/out/types/quotes.ts';
export type * as Control from '../generators/out/types/control.ts';
export type { ConfigFile } from './config-file.ts';

/**
 * The settings of a run: the keys of a config file (specs/conformance-config.schema.json), which win over the
 * environment and the config file (`config`: its path; else conformance.config.* of the working directory is read).
 * Credentials come only from the environment (ORDERS_API_KEY, QUOTES_API_KEY, ...). `ordersUrl` or `quotesUrl` alone
 * runs that service's checks only: the other's are in the matrix as skipped, `notJudged: 'outside-run'`.
 */
export interface RunOptions extends ConfigFile {
  config?: string;
}

/** A run that ended before its matrix: `exitCode` is the CLI's (2 usage, 3 unreachable, 1 the suite did not complete). */
export class RunError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

const NESTED: Record<string, Record<string, string>> = {
  siws: {
    config: 'CONFORMANCE_SIWS_CONFIG',
    domain: 'CONFORMANCE_SIWS_DOMAIN',
    uri: 'CONFORMANCE_SIWS_URI',
    chainId: 'CONFORMANCE_SIWS_CHAIN_ID',
    statement: 'CONFORMANCE_SIWS_STATEMENT',
  },
  mints: { usdc: 'CONFORMANCE_USDC_MINT', usdt: 'CONFORMANCE_USDT_MINT', other: 'CONFORMANCE_OTHER_MINT' },
  quote: {
    inputMint: 'CONFORMANCE_QUOTE_INPUT_MINT',
    outputMint: 'CONFORMANCE_QUOTE_OUTPUT_MINT',
    amount: 'CONFORMANCE_QUOTE_AMOUNT',
    wallet: 'CONFORMANCE_QUOTE_WALLET',
  },
};
const SETTINGS: Record<string, string> = {
  ordersEnvironment: 'CONFORMANCE_ORDERS_ENVIRONMENT',
  orderTemplates: 'CONFORMANCE_ORDER_TEMPLATES',
  withdrawalTransactionField: 'CONFORMANCE_WITHDRAWAL_TRANSACTION_FIELD',
};

/**
 * The options as command-line arguments, and the settings the checks read from the environment set in
 * process.env (the checks' workers inherit it).
 */
function toArgv(options: RunOptions): string[] {
  const argv: string[] = [];
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    if (NESTED[key]) {
      for (const [inner, v] of Object.entries(value as Record<string, unknown>)) {
        if (!NESTED[key][inner]) throw new RunError(`run(): unknown option ${key}.${inner}`, 2);
        process.env[NESTED[key][inner]] = String(v);
      }
    } else if (SETTINGS[key]) process.env[SETTINGS[key]] = String(value);
    else {
      const option = `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
      if (typeof value === 'boolean') {
        if (value) argv.push(option);
      } else argv.push(`${option}=${String(value)}`);
    }
  }
  return argv;
}

/** Whether a run() is under way in this process. */
let running = false;

/**
 * Run the suite (against the embedded reference server when no target URL is given) and resolve to its matrix, the
 * content of matrix.json; the reports are written to `reportDir` as by the CLI. A run that ends before its matrix
 * (bad options, an unreachable target) rejects with a RunError.
 */
export async function run(options: RunOptions = {}): Promise<Matrix> {
  // One run at a time: a run sets the process's environment for its workers and handles its Ctrl-C.
  if (running) throw new RunError('run() is already running in this process: await it before starting another', 2);
  running = true;
  // A run leaves the caller's process as it found it: the settings it put in the environment for its workers, and the
  // exit code vitest sets on a failure (the caller judges the matrix), are undone, so a second run starts clean.
  const env = { ...process.env };
  const exitCode = process.exitCode;
  try {
    let cli;
    try {
      cli = parseCli(toArgv(options));
    } catch (e) {
      if (e instanceof UsageError) throw new RunError(e.message, 2);
      throw e;
    }
    const started = Date.now();
    const code = await execute(cli);
    const file = join(cli.reportDir, 'matrix.json');
    if ([0, 1, 4, 130].includes(code) && existsSync(file) && statSync(file).mtimeMs >= started - 1000) {
      return JSON.parse(readFileSync(file, 'utf8')) as Matrix;
    }
    throw new RunError(`the run ended with exit code ${code} before its matrix was written (the reason is on stderr)`, code);
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
    Object.assign(process.env, env);
    process.exitCode = exitCode;
    running = false;
  }
}
