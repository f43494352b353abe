/**
 * The package as a partner gets it (issue 18), from a git URL as README and ci-examples install it
 * (`npx "<git URL>#<tag>"`): a commit of this working tree in a temporary repository, installed into an empty folder
 * through its `git+file://` URL (no network: the install is --offline, from the local npm cache, which `npm ci` of this
 * repo filled). npm clones it, installs its dependencies and devDependencies there and runs `prepare` (not `prepack`),
 * then packs it as `npm pack` would and installs that. From there: `npx conformance --help`, a smoke run against the
 * embedded server, `conformance serve --help`, the API imported from an .mjs script, and the exported types
 * (dist/types, built by `prepare` in the clone: the commit holds none) compiled by a partner's TypeScript. What a
 * registry tarball would hold is listed by `npm pack --dry-run` of this tree.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTypes } from '../../bin/build-types.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

async function sh(command: string, args: string[], cwd: string): Promise<Result> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(CONFORMANCE_|ORDERS_API|QUOTES_|TEST_WALLET|VITEST|npm_)/.test(k)),
  );
  try {
    const { stdout, stderr } = await promisify(execFile)(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : -1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

/** A repository whose one commit holds this working tree as a clone of it would (tracked and new files, not ignored). */
async function snapshotRepository(): Promise<string> {
  const listed = await sh('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], ROOT);
  expect(listed.code, listed.stderr).toBe(0);
  const repo = mkdtempSync(join(tmpdir(), 'conformance-git-'));
  for (const file of listed.stdout.split('\0').filter((f) => f && existsSync(join(ROOT, f)))) {
    mkdirSync(dirname(join(repo, file)), { recursive: true });
    cpSync(join(ROOT, file), join(repo, file));
  }
  for (const args of [
    ['init', '-q'],
    ['add', '-A'],
    ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', 'commit', '-qm', 'snapshot'],
  ]) {
    const r = await sh('git', args, repo);
    expect(r.code, r.stderr).toBe(0);
  }
  return repo;
}

let work: string;
let files: string[];
let repo: string;

beforeAll(async () => {
  buildTypes();
  const packed = await sh('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], ROOT);
  expect(packed.code, packed.stderr).toBe(0);
  const [info] = JSON.parse(packed.stdout) as Array<{ files: Array<{ path: string }> }>;
  files = info!.files.map((f) => f.path);
  repo = await snapshotRepository();
  work = mkdtempSync(join(tmpdir(), 'partner-'));
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'partner', private: true, type: 'module' }));
  const installed = await sh(
    'npm',
    ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', `git+${pathToFileURL(repo).href}`],
    work,
  );
  expect(
    installed.code,
    `npm install of the git URL, offline (ENOTCACHED: the npm cache lacks a package; \`npm ci\` of this repo fills it): ${installed.stderr}`,
  ).toBe(0);
}, 300_000);

afterAll(() => {
  for (const dir of [repo, work]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  test('holds the command, the API, its declarations, the suite, the server and the specs; not the tests or reports', () => {
    for (const needed of [
      'bin/conformance.mjs',
      'bin/conformance.ts',
      'bin/serve.ts',
      'bin/api.mjs',
      'dist/types/bin/api.d.ts',
      'dist/types/generators/out/types/orders.d.ts',
      'generators/out/validators.js',
      'specs/conformance-config.schema.json',
      'suites/index.ts',
      'fixtures/server/index.ts',
      'vitest.config.ts',
    ]) {
      expect(files, needed).toContain(needed);
    }
    expect(files.filter((f) => /^(test|reports|node_modules|specs\/examples|ci-examples|\.scratch)\//.test(f))).toEqual([]);
  });
});

describe('installed from a git URL into an empty folder', () => {
  test("npm ran the package's prepare in its clone: the declarations and generated code the commit lacks are there", () => {
    expect(existsSync(join(repo, 'dist')), 'the commit holds no dist/ (.gitignore)').toBe(false);
    expect(existsSync(join(repo, 'generators/out')), 'nor generators/out').toBe(false);
    const installed = join(work, 'node_modules', pkg.name);
    for (const built of ['dist/types/bin/api.d.ts', 'dist/types/generators/out/types/orders.d.ts', 'generators/out/validators.js']) {
      expect(existsSync(join(installed, built)), built).toBe(true);
    }
    expect(existsSync(join(installed, 'test')), 'files of package.json hold, as in the tarball').toBe(false);
  });

  test('npx conformance --help; conformance serve --help', async () => {
    const help = await sh('npx', ['--no-install', 'conformance', '--help'], work);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: conformance \[options\]/);
    const serve = await sh('npx', ['--no-install', 'conformance', 'serve', '--help'], work);
    expect(serve.code, serve.stderr).toBe(0);
    expect(serve.stdout).toMatch(/--list-mutants/);
  });

  test('a smoke run against the embedded server passes and writes its reports in the working folder', async () => {
    const r = await sh('npx', ['--no-install', 'conformance', '--profile', 'smoke', '--seed', '1', '--report-dir', 'out'], work);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Conformance PASS — profile smoke, seed 1/);
    const matrix = JSON.parse(readFileSync(join(work, 'out', 'matrix.json'), 'utf8')) as { summary: { verdict: string } };
    expect(matrix.summary.verdict).toBe('pass');
  });

  test('the API from an .mjs script: run() resolves to the matrix', async () => {
    writeFileSync(
      join(work, 'api.mjs'),
      `import { run } from '${pkg.name}';\n` +
        `const m = await run({ profile: 'smoke', seed: 2, grep: 'Q-INFO-001\\\\]', reportDir: 'api-out' });\n` +
        'console.log(`RESULT ${JSON.stringify({ verdict: m.summary.verdict, profile: m.run.profile, rules: m.checks.flatMap((c) => c.rules) })}`);\n',
    );
    const r = await sh(process.execPath, ['api.mjs'], work);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(/^RESULT (.*)$/m.exec(r.stdout)![1]!) as { verdict: string; profile: string; rules: string[] };
    expect(result).toMatchObject({ verdict: 'pass', profile: 'smoke' });
    expect(result.rules).toContain('Q-INFO-001');
  });

  test("the exported types compile in a partner's strict TypeScript; a wrong use does not", async () => {
    const source = (extra: string) =>
      `import type { Matrix, RunOptions, Orders, Quotes } from '${pkg.name}';\n` +
      `import type { paths } from '${pkg.name}/types/orders';\n` +
      `const options: RunOptions = { profile: 'readonly', ordersUrl: 'https://o.example', mints: { usdc: 'x' } };\n` +
      `type Health = paths['/health']['get'];\n` +
      `type Info = Quotes.paths['/api/v1/info'];\n` +
      `type Orders2 = Orders.paths;\n` +
      `export function verdict(m: Matrix): string { return m.summary.verdict + m.run.profile; }\n` +
      `export type Used = [Health, Info, Orders2, typeof options];\n${extra}`;
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'];
    const types = ['--typeRoots', join(ROOT, 'node_modules/@types'), '--types', 'node', 'consumer.ts'];
    writeFileSync(join(work, 'consumer.ts'), source(''));
    const ok = await sh(process.execPath, [tsc, ...args, ...types], work);
    expect(ok.code, ok.stdout).toBe(0);
    writeFileSync(join(work, 'consumer.ts'), source(`export const bad: RunOptions = { profile: 'everything' };\n`));
    const bad = await sh(process.execPath, [tsc, ...args, ...types], work);
    expect(bad.code).not.toBe(0);
    expect(bad.stdout).toMatch(/consumer\.ts.*'"everything"' is not assignable/);
  });
});
