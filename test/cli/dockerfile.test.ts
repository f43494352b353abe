/**
 * The sandbox's Dockerfile (issue 18). No Docker engine runs these tests, so the image is not built here: the file is
 * parsed, what it copies must exist and be in the build context (.dockerignore), it copies what the package ships,
 * and its ENTRYPOINT and CMD, started from this tree as the image would start them (on 127.0.0.1 and a free port
 * instead of 0.0.0.0:8080: tests stay on loopback), serve the sandbox with its test keys and pass the HEALTHCHECK.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, test } from 'vitest';
import { ROOT } from './run-cli.ts';

interface Instruction {
  keyword: string;
  args: string;
}

/** The instructions of a Dockerfile: comments dropped, continued lines joined. */
function parseDockerfile(text: string): Instruction[] {
  const joined = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
      expect(m, `not an instruction: ${line}`).not.toBeNull();
      return { keyword: m![1]!.toUpperCase(), args: m![2]!.trim() };
    });
}

const instructions = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const all = (keyword: string) => instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
const only = (keyword: string) => {
  const found = all(keyword);
  expect(found, keyword).toHaveLength(1);
  return found[0]!;
};
const execForm = (args: string) => JSON.parse(args) as string[];
const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const excluded = (path: string) => ignored.some((p) => path === p || path.startsWith(`${p}/`));

test('every instruction is known; the base image is a maintained Node LTS within the engines range', () => {
  const known = ['FROM', 'WORKDIR', 'COPY', 'RUN', 'USER', 'EXPOSE', 'HEALTHCHECK', 'ENTRYPOINT', 'CMD', 'ENV'];
  for (const i of instructions) expect(known, i.keyword).toContain(i.keyword);
  expect(instructions[0]!.keyword).toBe('FROM');
  const major = Number(/^node:(\d+)-/.exec(only('FROM'))?.[1]);
  const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
  expect(major).toBeGreaterThanOrEqual(Number(/(\d+)/.exec(engines)![1]));
  expect(major % 2, 'an even, LTS major').toBe(0);
  expect(major, 'Node 20 left maintenance in April 2026').toBeGreaterThanOrEqual(22);
});

test("what it copies exists, is in the build context, and is the package's files; the install and the build step hold", () => {
  const copied = all('COPY').flatMap((args) => {
    const parts = args.split(/\s+/);
    return parts.slice(0, -1);
  });
  for (const source of copied) {
    expect(existsSync(join(ROOT, source)), source).toBe(true);
    expect(excluded(source), `${source} is excluded by .dockerignore`).toBe(false);
  }
  for (const heavy of ['node_modules', '.git', 'reports', 'test']) expect(excluded(heavy), heavy).toBe(true);
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
  // What npm ships, but the README and the declarations for partners' TypeScript, which the sandbox does not need.
  const shipped = pkg.files.filter((f) => !f.startsWith('!') && !['README.md', 'dist/types/'].includes(f)).map((f) => f.replace(/\/$/, ''));
  expect(new Set(copied)).toEqual(new Set(['package.json', 'package-lock.json', ...shipped]));
  const [install, build] = all('RUN');
  expect(install).toMatch(/^npm ci --omit=dev /);
  expect(copied.indexOf('package-lock.json'), 'the lockfile before the install').toBeLessThan(copied.indexOf('bin'));
  const script = /^node --import tsx (\S+)/.exec(build!)?.[1];
  expect(script && existsSync(join(ROOT, script)), `the build step's script: ${build}`).toBe(true);
});

test('ENTRYPOINT and CMD serve the sandbox with its test keys, and the HEALTHCHECK passes against it', async () => {
  const entry = execForm(only('ENTRYPOINT'));
  const cmd = execForm(only('CMD'));
  expect(entry[0]).toBe('node');
  expect(existsSync(join(ROOT, entry[1]!)), entry[1]).toBe(true);
  expect(cmd.slice(0, 1)).toEqual(['serve']);
  expect(cmd).toContain('--test-keys');
  const option = (name: string) => cmd[cmd.indexOf(name) + 1];
  expect(option('--host'), 'reachable from outside the container').toBe('0.0.0.0');
  expect(only('EXPOSE')).toBe(option('--port'));
  const loopback = cmd.map((arg, i) => (cmd[i - 1] === '--host' ? '127.0.0.1' : cmd[i - 1] === '--port' ? '0' : arg));
  const child = spawn(entry[0]!, [...entry.slice(1), ...loopback], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  try {
    const first = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`the sandbox exited ${code}: ${stderr}`)));
    });
    const started = JSON.parse(first) as { orders: string; credentials: Record<string, string> };
    expect(started.credentials).toMatchObject({ ORDERS_API_KEY: 'oa_test_sandbox_tenant_a', QUOTES_API_KEY: 'qk_test_sandbox' });
    const port = new URL(started.orders).port;
    const check = execForm(/\bCMD\s+(\[.*\])$/.exec(only('HEALTHCHECK'))![1]!);
    expect(check.join(' ')).toContain(`127.0.0.1:${option('--port')}/health`);
    const health = (args: string[]) =>
      new Promise<number>((resolve) => spawn(args[0]!, args.slice(1), { stdio: 'ignore' }).once('exit', (code) => resolve(code ?? -1)));
    expect(await health(check.map((a) => a.replace(`127.0.0.1:${option('--port')}`, `127.0.0.1:${port}`)))).toBe(0);
    child.kill('SIGTERM');
    // Nothing answers on a closed port: the check can fail.
    await new Promise((resolve) => child.once('exit', resolve));
    expect(await health(check.map((a) => a.replace(`127.0.0.1:${option('--port')}`, `127.0.0.1:${port}`)))).toBe(1);
  } finally {
    child.kill('SIGKILL');
  }
});
