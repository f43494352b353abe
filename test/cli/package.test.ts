/**
 * The package as a partner gets it (issue 18): `npm pack`, the tarball installed into an empty folder, then from
 * there `npx conformance --help`, a smoke run against the embedded server, `conformance serve --help`, the API
 * imported from an .mjs script, and the exported types compiled by a partner's TypeScript. The install reads the
 * local npm cache first (--prefer-offline); the tarball is packed without its prepack script (generators/out is fresh
 * in `npm test`, which generates it first), the declarations built here.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from 'vitest';
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

let work: string;
let files: string[];

beforeAll(async () => {
  buildTypes();
  const packs = mkdtempSync(join(tmpdir(), 'pack-'));
  const packed = await sh('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packs], ROOT);
  expect(packed.code, packed.stderr).toBe(0);
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  files = info!.files.map((f) => f.path);
  work = mkdtempSync(join(tmpdir(), 'partner-'));
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'partner', private: true, type: 'module' }));
  const installed = await sh(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', join(packs, info!.filename)],
    work,
  );
  expect(installed.code, installed.stderr).toBe(0);
}, 300_000);

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

describe('installed into an empty folder', () => {
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
