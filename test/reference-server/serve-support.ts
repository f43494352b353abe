import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/**
 * A running `bin/serve.ts` child, watched: its output so far, its exit code, and its first line (the JSON line of
 * URLs it prints once listening). The tests start it their own way (the tsx CLI as `npm run serve` does, or
 * `node --import tsx`); the child's stdout and stderr must be pipes.
 */
export function watchServe(child: ChildProcess) {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const firstLine = async (): Promise<string> => {
    for (let waited = 0; !stdout.includes('\n'); waited += 50) {
      if (waited > 60_000 || child.exitCode !== null) throw new Error(`no line from serve: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return stdout.split('\n')[0] ?? '';
  };
  return { child, exited, firstLine, output: () => ({ stdout, stderr }) };
}
