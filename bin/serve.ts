#!/usr/bin/env node
/**
 * `npm run serve -- [--port N] [--host H] [--mutant NAME] [--variant NAME] [--environment staging|production]
 *   [--latency-ms MIN-MAX] [--flaky] [--staging-like [--time-scale N]] [--test-keys] [--seed N] [--siws-statement TEXT] [--log]`
 *
 * Starts the reference server (both services and the control API on one port, 127.0.0.1 unless `--host`) and prints
 * one JSON line with its URLs once listening: `orders`, `quotes` (the key path), `gateway` (the distributor path's
 * {gateway_url}), `control` (null in staging-like mode), the mutant and variant (or null), and with `--staging-like`
 * or `--test-keys` the `credentials` a partner is handed (fixtures/server/staging/credentials.ts). `--list-mutants`
 * prints the mutant catalogue (name, rule, description; tab-separated, one per line) and `--list-variants` the
 * variants (name, description); `--help` the options. Bad options: one line on stderr, exit 2; an unknown mutant or
 * variant names the closest ones.
 * Transport conditions (fixtures/server/transport.ts), to try a client or the suite on a slow or flaky deployment:
 * `--latency-ms 100-300` (or one number) makes every request wait a delay in that range; `--flaky` answers some order
 * GETs 503 RPC_UNAVAILABLE or drops their connection before they are handled, as the documents allow.
 * The sandbox (fixtures/server/staging/): `--staging-like` is the server as a partner's staging shows it (no control
 * API, real time `--time-scale` times faster than the wall clock, prices moving on a random walk seeded by `--seed`,
 * orders executing by themselves, occasional documented 503s, credentials minted at start); `--test-keys` mints the
 * fixed, documented test keys at start; `--seed N` repeats generated ids; `--log` prints one line per request on
 * stderr (method, path, status, ms: never a header, query string or body).
 */
import { parseArgs } from 'node:util';
import { mutants, variants } from '../fixtures/mutants/index.ts';
import { ASSUMPTION_VARIANTS } from '../fixtures/mutants/variants.ts';
import { startReferenceServer, type ReferenceServerOptions, type RequestLogEntry } from '../fixtures/server/index.ts';
import { TEST_KEYS, testWallet } from '../fixtures/server/staging/index.ts';
import { unknownName } from './names.ts';

/** Benign variants and the other readings of the suite's assumptions: the server takes either. */
const allVariants = [...variants, ...ASSUMPTION_VARIANTS];

const USAGE = `Usage: npm run serve -- [options]     the reference server: both services and the control API on one port

  --port N              the port (default 0: any free port); one JSON line with the URLs is printed once listening
  --host H              the address to listen on (default 127.0.0.1; 0.0.0.0 in a container)
  --mutant NAME         start with one deliberate defect (--list-mutants)
  --variant NAME        start with one benign variation (--list-variants)
  --environment NAME    staging | production
  --latency-ms MIN-MAX  every request waits a delay in that range (or one number of ms, 0 to 60000)
  --flaky               some order GETs answer 503 RPC_UNAVAILABLE or lose their connection, as the documents allow
  --staging-like        a partner's staging: no control API (/__control is 404), real time, prices that move by
                        themselves, orders executing on their own, occasional documented 503s; the JSON line carries
                        \`credentials\`: ORDERS_API_KEY, ORDERS_API_KEY_ALT, QUOTES_API_KEY, QUOTES_JWT and
                        TEST_WALLET_SECRET_KEY (a wallet holding 10 SOL, 10000 USDC, 10000 USDT)
  --time-scale N        with --staging-like: the server's clock runs N times faster than the wall clock (default 1)
  --test-keys           mint fixed test keys at start (and on POST /__control/reset), no control call needed:
                          ORDERS_API_KEY      ${TEST_KEYS.ORDERS_API_KEY}   (tenant A)
                          ORDERS_API_KEY_ALT  ${TEST_KEYS.ORDERS_API_KEY_ALT}   (tenant B)
                          QUOTES_API_KEY      ${TEST_KEYS.QUOTES_API_KEY}
                          TEST_WALLET_SECRET_KEY  the funded wallet ${testWallet().publicKey.toBase58()}
                        (secret in README, "Sandbox"); QUOTES_JWT is minted at each start; all in the JSON line
  --seed N              seed of generated ids and credentials, and of the staging-like market (an integer)
  --siws-statement TEXT the SIWS statement line users sign at onboarding, instead of specs/siws.yaml's (one line;
                        multi-byte characters welcome); give the suite the same in CONFORMANCE_SIWS_STATEMENT
  --log                 one line per request on stderr: method, path, status, ms (no headers, query or bodies)
  --list-mutants        the mutant catalogue: name, rule, description (tab-separated, one per line)
  --list-variants       the variants: name, description
  --help                this text
Bad options: one line on stderr, exit 2.`;

/** Beyond this the 5-minute windows last under 30 ms of wall time: no client acts within them (README, "Sandbox"). */
const MAX_TIME_SCALE = 10_000;

function usage(message: string): never {
  process.stderr.write(`serve: ${message.replace(/\s+/g, ' ')}\n`);
  process.exit(2);
}

interface ServeOptions extends ReferenceServerOptions {
  listMutants: boolean;
  listVariants: boolean;
  help: boolean;
  log: boolean;
}

function parseOptions(argv: string[]): ServeOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        mutant: { type: 'string' },
        variant: { type: 'string' },
        environment: { type: 'string' },
        'latency-ms': { type: 'string' },
        flaky: { type: 'boolean' },
        host: { type: 'string' },
        'staging-like': { type: 'boolean' },
        'time-scale': { type: 'string' },
        'test-keys': { type: 'boolean' },
        seed: { type: 'string' },
        'siws-statement': { type: 'string' },
        log: { type: 'boolean' },
        'list-mutants': { type: 'boolean' },
        'list-variants': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    usage((error as Error).message);
  }
  let port = 0;
  if (values.port !== undefined) {
    if (!/^\d+$/.test(values.port) || Number(values.port) > 65535) usage(`--port must be an integer from 0 to 65535, got "${values.port}"`);
    port = Number(values.port);
  }
  const environment = values.environment;
  if (environment !== undefined && environment !== 'staging' && environment !== 'production') {
    usage(`--environment must be staging or production, got "${environment}"`);
  }
  if (values.mutant !== undefined && !mutants.some((m) => m.name === values.mutant)) {
    usage(
      unknownName(
        'mutant',
        values.mutant,
        mutants.map((m) => m.name),
      ),
    );
  }
  if (values.variant !== undefined && !allVariants.some((v) => v.name === values.variant)) {
    usage(
      unknownName(
        'variant',
        values.variant,
        allVariants.map((v) => v.name),
      ),
    );
  }
  let latencyMs: [number, number] | undefined;
  if (values['latency-ms'] !== undefined) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(values['latency-ms']);
    const min = Number(m?.[1]);
    const max = m?.[2] === undefined ? min : Number(m[2]);
    if (!m || max < min || max > 60_000)
      usage(`--latency-ms must be MIN-MAX or one number of ms, 0 to 60000, got "${values['latency-ms']}"`);
    latencyMs = [min, max];
  }
  if (values.host !== undefined && !/^[A-Za-z0-9.:[\]-]+$/.test(values.host))
    usage(`--host must be a host name or an IP address, got "${values.host}"`);
  let timeScale: number | undefined;
  if (values['time-scale'] !== undefined) {
    if (!values['staging-like']) usage('--time-scale needs --staging-like (the control API moves the clock otherwise)');
    timeScale = Number(values['time-scale']);
    if (!/^\d+(\.\d+)?$/.test(values['time-scale']) || timeScale < 1 || timeScale > MAX_TIME_SCALE)
      usage(`--time-scale must be a number from 1 to ${MAX_TIME_SCALE}, got "${values['time-scale']}"`);
  }
  let seed: number | undefined;
  if (values.seed !== undefined) {
    if (!/^\d+$/.test(values.seed) || Number(values.seed) > 0xffffffff)
      usage(`--seed must be an integer from 0 to 4294967295, got "${values.seed}"`);
    seed = Number(values.seed);
  }
  const siwsStatement = values['siws-statement'];
  if (siwsStatement !== undefined && (siwsStatement === '' || /[\r\n]/.test(siwsStatement)))
    usage('--siws-statement must be one line of text, not empty');
  return {
    port,
    host: values.host,
    siwsStatement,
    stagingLike: values['staging-like'] ? { timeScale } : undefined,
    testKeys: values['test-keys'] ?? false,
    seed,
    log: values.log ?? false,
    latencyMs,
    flaky: values.flaky ?? false,
    mutant: values.mutant,
    variant: values.variant,
    environment,
    listMutants: values['list-mutants'] ?? false,
    listVariants: values['list-variants'] ?? false,
    help: values.help ?? false,
  };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (options.listMutants || options.listVariants) {
    if (options.listMutants) for (const m of mutants) process.stdout.write(`${m.name}\t${m.rule}\t${m.description}\n`);
    if (options.listVariants) for (const v of allVariants) process.stdout.write(`${v.name}\t${v.description}\n`);
    return;
  }

  const onRequest = options.log
    ? ({ method, path, status, ms }: RequestLogEntry) => process.stderr.write(`${method} ${path} ${status ?? '---'} ${ms}ms\n`)
    : undefined;
  let server;
  try {
    server = await startReferenceServer({ ...options, onRequest });
  } catch (error) {
    usage((error as Error).message);
  }
  process.stdout.write(
    `${JSON.stringify({
      orders: server.ordersUrl,
      quotes: server.quotesUrl,
      gateway: server.gatewayUrl,
      control: options.stagingLike ? null : server.controlUrl,
      mutant: server.mutant ?? null,
      variant: server.variant ?? null,
      ...(server.credentials ? { credentials: server.credentials } : {}),
    })}\n`,
  );

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

await main();
