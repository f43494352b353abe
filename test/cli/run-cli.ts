/**
 * Runs the conformance CLI (or a printed command line) in a child process, with none of the caller's suite settings,
 * and the small pieces the CLI tests share: a report folder, its matrix, a key minted on the reference server's
 * control API, a loopback server's URL and close, a run's arguments with the control API (fullRunOf) or without it
 * (partnerRunOf).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Matrix } from '../../suites/harness/matrix.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** The caller's environment without the suite's own settings (targets, credentials, vitest's, colours forced on). */
function cleanEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(CONFORMANCE_|ORDERS_API|QUOTES_|TEST_WALLET|VITEST|FORCE_COLOR)/.test(k)),
  );
  return { ...clean, ...env };
}

function ran(child: ChildProcess): Promise<Ran> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => (stdout += d));
    child.stderr?.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** The CLI started, not awaited: `detached` puts it in a process group of its own, as a terminal's Ctrl-C reaches it. */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}, detached = false): ChildProcess {
  return spawn(process.execPath, ['bin/conformance.mjs', ...args], { cwd: ROOT, env: cleanEnv(env), detached });
}

/** Another command of bin/ (`bin/serve.ts`, ...), run as `cli` runs the CLI. */
export function binScript(script: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return ran(spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT, env: cleanEnv(env) }));
}

/** `npm run conformance -- ARGS`, without npm. */
export function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return ran(startCli(args, env));
}

/** The package's `conformance` command (bin/conformance.mjs) run from the folder `cwd`, as a user of the package runs it. */
export function packageCli(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return ran(spawn(process.execPath, [join(ROOT, 'bin/conformance.mjs'), ...args], { cwd, env: cleanEnv(env) }));
}

/** A command line as a user would paste it into a shell, from the project's folder. */
export function shell(commandLine: string, env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return ran(spawn('sh', ['-c', commandLine], { cwd: ROOT, env: cleanEnv(env) }));
}

/** A fresh report folder. */
export const reportDir = (prefix = 'conformance-') => mkdtempSync(join(tmpdir(), prefix));

export const matrixOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')) as Matrix;

/** Every file below `dir`, as paths. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? filesUnder(join(dir, f)) : [join(dir, f)]));
}

/** POST {} to the reference server's control API at `path` (`/tenants`, `/quote-keys`, `/quote-jwts`): what it minted. */
export async function mintOn(controlUrl: string, path: string): Promise<Record<string, string>> {
  const answer = await fetch(`${controlUrl}${path}`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  return (await answer.json()) as Record<string, string>;
}

/** `server` listening on 127.0.0.1 at a free port: its URL, and a close that drops open connections too. */
export async function listenLoopback(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/**
 * The CLI's arguments for an unpaced run of `profile` without a control API, as against a partner's staging or
 * production (a served reference server's control API is left out). Orders and quotes may come from different servers.
 */
export const partnerRunOf = (targets: { ordersUrl: string; quotesUrl: string }, profile = 'full') => [
  '--orders-url',
  targets.ordersUrl,
  '--quotes-url',
  targets.quotesUrl,
  '--profile',
  profile,
  '--max-rps',
  '0',
];

/** The CLI's arguments for a full run, unpaced, against a served reference server with its control API. */
export const fullRunOf = (server: { ordersUrl: string; quotesUrl: string; controlUrl: string }) => [
  ...partnerRunOf(server),
  '--control-url',
  server.controlUrl,
];
