#!/usr/bin/env node
/**
 * `npm run serve -- --port N [--mutant NAME] [--variant NAME] [--environment staging|production] [--latency-ms MIN-MAX] [--flaky]`
 *
 * Starts the reference server (both services and the control API on one port of 127.0.0.1) and prints one JSON line
 * with its URLs once listening: `orders`, `quotes` (the key path), `gateway` (the distributor path's {gateway_url}),
 * `control`, and the mutant and variant (or null). `--list-mutants` prints the mutant catalogue (name, rule, description; tab-separated,
 * one per line) and `--list-variants` the variants (name, description); `--help` the options. Bad options: one line on stderr,
 * exit 2; an unknown mutant or variant names the closest ones.
 * Transport conditions (fixtures/server/transport.ts), to try a client or the suite on a slow or flaky deployment:
 * `--latency-ms 100-300` (or one number) makes every request wait a delay in that range; `--flaky` answers some order
 * GETs 503 RPC_UNAVAILABLE or drops their connection before they are handled, as the documents allow.
 */
import { parseArgs } from 'node:util';
import { mutants, variants } from '../fixtures/mutants/index.ts';
import { ASSUMPTION_VARIANTS } from '../fixtures/mutants/variants.ts';
import { startReferenceServer, type ReferenceServerOptions } from '../fixtures/server/index.ts';
import { unknownName } from './names.ts';

/** Benign variants and the other readings of the suite's assumptions: the server takes either. */
const allVariants = [...variants, ...ASSUMPTION_VARIANTS];

const USAGE = `Usage: npm run serve -- [options]     the reference server: both services and the control API on one port of 127.0.0.1

  --port N              the port (default 0: any free port); one JSON line with the URLs is printed once listening
  --mutant NAME         start with one deliberate defect (--list-mutants)
  --variant NAME        start with one benign variation (--list-variants)
  --environment NAME    staging | production
  --latency-ms MIN-MAX  every request waits a delay in that range (or one number of ms, 0 to 60000)
  --flaky               some order GETs answer 503 RPC_UNAVAILABLE or lose their connection, as the documents allow
  --list-mutants        the mutant catalogue: name, rule, description (tab-separated, one per line)
  --list-variants       the variants: name, description
  --help                this text
Bad options: one line on stderr, exit 2.`;

function usage(message: string): never {
  process.stderr.write(`serve: ${message.replace(/\s+/g, ' ')}\n`);
  process.exit(2);
}

function parseOptions(argv: string[]): ReferenceServerOptions & { listMutants: boolean; listVariants: boolean; help: boolean } {
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
  return {
    port,
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

  let server;
  try {
    server = await startReferenceServer(options);
  } catch (error) {
    usage((error as Error).message);
  }
  process.stdout.write(
    `${JSON.stringify({
      orders: server.ordersUrl,
      quotes: server.quotesUrl,
      gateway: server.gatewayUrl,
      control: server.controlUrl,
      mutant: server.mutant ?? null,
      variant: server.variant ?? null,
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
