/** Runs the conformance CLI (or a printed command line) in a child process, with none of the caller's suite settings. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function ran(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve) => {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(CONFORMANCE_|ORDERS_API|QUOTES_|TEST_WALLET|VITEST|FORCE_COLOR)/.test(k)),
    );
    const child = spawn(command, args, { cwd: ROOT, env: { ...clean, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** `npm run conformance -- ARGS`, without npm. */
export function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return ran(process.execPath, ['--import', 'tsx', 'bin/conformance.ts', ...args], env);
}

/** A command line as a user would paste it into a shell, from the project's folder. */
export function shell(commandLine: string, env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return ran('sh', ['-c', commandLine], env);
}
