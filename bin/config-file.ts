/**
 * The config file of a run: `conformance.config.json`, `.yaml` or `.yml` in the working directory, or the file given
 * with `--config PATH` (CONFORMANCE_CONFIG). It holds what options and CONFORMANCE_* variables hold, never a secret;
 * specs/conformance-config.schema.json says what it may hold and is checked with ajv when the file is read. Options
 * and environment variables win over it (bin/conformance.ts parseCli).
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020Module, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';

const Ajv2020 = Ajv2020Module.default;
const SCHEMA_FILE = fileURLToPath(new URL('../specs/conformance-config.schema.json', import.meta.url));

/** The names looked for in the working directory, in this order. */
export const CONFIG_NAMES = ['conformance.config.json', 'conformance.config.yaml', 'conformance.config.yml'] as const;

/** A config file that cannot be used: exit 2, one sentence naming the file and the field (never a value). */
export class ConfigError extends Error {}

/** The file's contents, as the schema allows them. */
export interface ConfigFile {
  /** one of the two alone runs that service's checks only (README, "One service only") */
  ordersUrl?: string;
  quotesUrl?: string;
  controlUrl?: string;
  gatewayUrl?: string;
  profile?: 'smoke' | 'readonly' | 'full';
  seed?: number;
  reportDir?: string;
  grep?: string;
  shard?: string;
  strict?: boolean;
  numRuns?: number;
  fcPath?: string;
  timeout?: number;
  maxRps?: number;
  maxConcurrency?: number;
  maxBodyBytes?: number;
  maxDuration?: number;
  maxRetryAfter?: number;
  maxRetryWait?: number;
  expectedProviders?: number;
  budgetMinutes?: number;
  budgetLamports?: number;
  allowRateLimitProbes?: boolean;
  mutant?: string;
  variant?: string;
  siws?: { config?: string; domain?: string; uri?: string; chainId?: string; statement?: string };
  ordersEnvironment?: 'staging' | 'production';
  orderTemplates?: string;
  withdrawalTransactionField?: string;
  mints?: { usdc?: string; usdt?: string; other?: string };
  quote?: { inputMint?: string; outputMint?: string; amount?: string; wallet?: string };
}

/** The settings the checks read from the environment in their workers: the file fills those the environment lacks. */
const SUITE_ENV: Array<[path: string, env: string, isPath?: boolean]> = [
  ['siws.config', 'CONFORMANCE_SIWS_CONFIG', true],
  ['siws.domain', 'CONFORMANCE_SIWS_DOMAIN'],
  ['siws.uri', 'CONFORMANCE_SIWS_URI'],
  ['siws.chainId', 'CONFORMANCE_SIWS_CHAIN_ID'],
  ['siws.statement', 'CONFORMANCE_SIWS_STATEMENT'],
  ['ordersEnvironment', 'CONFORMANCE_ORDERS_ENVIRONMENT'],
  ['orderTemplates', 'CONFORMANCE_ORDER_TEMPLATES', true],
  ['withdrawalTransactionField', 'CONFORMANCE_WITHDRAWAL_TRANSACTION_FIELD'],
  ['mints.usdc', 'CONFORMANCE_USDC_MINT'],
  ['mints.usdt', 'CONFORMANCE_USDT_MINT'],
  ['mints.other', 'CONFORMANCE_OTHER_MINT'],
  ['quote.inputMint', 'CONFORMANCE_QUOTE_INPUT_MINT'],
  ['quote.outputMint', 'CONFORMANCE_QUOTE_OUTPUT_MINT'],
  ['quote.amount', 'CONFORMANCE_QUOTE_AMOUNT'],
  ['quote.wallet', 'CONFORMANCE_QUOTE_WALLET'],
];

/** A key that names a credential: refused wherever it stands, its value never shown. */
const SECRET_KEY = /api.?key|jwt|secret|token|passw|credential|private.?key|bearer/i;

/** The config file to read: the one given, else the first of CONFIG_NAMES in `cwd`, else none. */
export function findConfig(given: string | undefined, cwd: string = process.cwd()): string | undefined {
  if (given) {
    const path = resolve(cwd, given);
    if (!existsSync(path)) throw new ConfigError(`--config: no file ${path}`);
    return path;
  }
  return CONFIG_NAMES.map((name) => join(cwd, name)).find((path) => existsSync(path));
}

let validate: ValidateFunction | undefined;

/** The first secret-looking key of `value`, as a dotted path. */
function secretField(value: unknown, path = ''): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const here = path ? `${path}.${key}` : key;
    if (SECRET_KEY.test(key)) return here;
    const deeper = secretField(inner, here);
    if (deeper) return deeper;
  }
  return undefined;
}

/** One schema error in words, naming the field, never its value. */
function describe(error: ErrorObject): string {
  const field = error.instancePath.slice(1).replace(/\//g, '.');
  const at = field ? `field "${field}"` : 'the file';
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return `unknown field "${field ? `${field}.` : ''}${p.additionalProperty}" (specs/conformance-config.schema.json lists the fields)`;
    case 'enum':
      return `${at} must be one of ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'pattern':
      return `${at} does not have the expected form (${p.pattern})`;
    default:
      return `${at} ${error.message}`;
  }
}

/** Read, refuse secrets, validate against the schema. */
export function loadConfigFile(path: string): ConfigFile {
  const name = basename(path);
  let data: unknown;
  try {
    const text = readFileSync(path, 'utf8');
    data = /\.json$/i.test(path) ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new ConfigError(`${name}: cannot be read as ${/\.json$/i.test(path) ? 'JSON' : 'YAML'}: ${(e as Error).message.split('\n')[0]}`);
  }
  const secret = secretField(data);
  if (secret) {
    throw new ConfigError(
      `${name}: field "${secret}" holds a secret, which a config file may not: credentials come only from the environment ` +
        '(ORDERS_API_KEY, ORDERS_API_KEY_ALT, QUOTES_API_KEY, QUOTES_JWT, SWAP_API_KEY, TEST_WALLET_SECRET_KEY); remove it from the file',
    );
  }
  validate ??= new Ajv2020({ allErrors: false, strict: true }).compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')));
  if (!validate(data)) throw new ConfigError(`${name}: ${describe(validate.errors![0]!)}`);
  return data as ConfigFile;
}

function at(file: ConfigFile, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], file);
}

/** The file's values of the command-line options, by option name (`max-rps`), as strings; relative paths resolved. */
export function optionValues(file: ConfigFile, dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(file)) {
    if (key === '$schema' || typeof value === 'object') continue;
    const option = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    out[option] = key === 'reportDir' ? resolve(dir, String(value)) : String(value);
  }
  return out;
}

/** The CONFORMANCE_* variables the file sets, for those `env` does not hold; relative paths resolved. */
export function suiteEnv(file: ConfigFile, dir: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, name, isPath] of SUITE_ENV) {
    const value = at(file, path);
    if (value === undefined || (env[name] ?? '') !== '') continue;
    out[name] = isPath ? resolve(dir, String(value)) : String(value);
  }
  return out;
}

/** The config file of a run, read: its options, the variables it sets, where it is. */
export interface LoadedConfig {
  path?: string;
  options: Record<string, string>;
  env: Record<string, string>;
}

export function readConfig(given: string | undefined, env: NodeJS.ProcessEnv, cwd: string = process.cwd()): LoadedConfig {
  const path = findConfig(given, cwd);
  if (!path) return { options: {}, env: {} };
  const file = loadConfigFile(path);
  return { path, options: optionValues(file, dirname(path)), env: suiteEnv(file, dirname(path), env) };
}
