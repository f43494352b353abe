/**
 * The config file (issue 18): conformance.config.{json,yaml,yml} found in the working directory or given with
 * --config; options > environment > file > defaults; the schema (specs/conformance-config.schema.json) checked at
 * load, an invalid file one sentence naming the file and the field; a secret in it refused without its value shown.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { ConfigError, findConfig, loadConfigFile, readConfig } from '../../bin/config-file.ts';
import { parseCli, UsageError } from '../../bin/conformance.ts';
import type { Matrix } from '../../suites/harness/matrix.ts';
import { packageCli } from './run-cli.ts';

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'config-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

describe('finding and reading the file', () => {
  test('found in the working directory: json first, then yaml and yml; none, none', () => {
    expect(findConfig(undefined, folder({ 'conformance.config.yaml': 'profile: smoke\n' }))).toMatch(/conformance\.config\.yaml$/);
    expect(findConfig(undefined, folder({ 'conformance.config.yml': 'profile: smoke\n', 'conformance.config.json': '{}' }))).toMatch(
      /conformance\.config\.json$/,
    );
    expect(findConfig(undefined, folder({}))).toBeUndefined();
  });

  test('given with --config, relative to the working directory; a missing one is an error naming it', () => {
    const dir = folder({ 'mine.yaml': 'profile: readonly\n' });
    expect(findConfig('mine.yaml', dir)).toBe(join(dir, 'mine.yaml'));
    expect(() => findConfig('nope.yaml', dir)).toThrow(/--config: no file .*nope\.yaml/);
  });

  test('YAML and JSON of the same settings read alike; relative paths are read from the file folder', () => {
    const settings = { profile: 'smoke', timeout: 5000, reportDir: 'out', siws: { domain: 'a.example', config: 'siws.yaml' } };
    const yaml = 'profile: smoke\ntimeout: 5000\nreportDir: out\nsiws:\n  domain: a.example\n  config: siws.yaml\n';
    const a = folder({ 'conformance.config.json': json(settings) });
    const b = folder({ 'conformance.config.yaml': yaml });
    expect(loadConfigFile(join(a, 'conformance.config.json'))).toEqual(loadConfigFile(join(b, 'conformance.config.yaml')));
    const read = readConfig(undefined, {}, a);
    expect(read.options).toMatchObject({ profile: 'smoke', timeout: '5000', 'report-dir': join(a, 'out') });
    expect(read.env).toEqual({ CONFORMANCE_SIWS_DOMAIN: 'a.example', CONFORMANCE_SIWS_CONFIG: join(a, 'siws.yaml') });
    // A variable the environment holds is left to it.
    expect(readConfig(undefined, { CONFORMANCE_SIWS_DOMAIN: 'env.example' }, a).env).not.toHaveProperty('CONFORMANCE_SIWS_DOMAIN');
  });

  test.each([
    [{ profile: 'bogus' }, /^conformance\.config\.json: field "profile" must be one of smoke, readonly, full$/],
    [{ timeout: -5 }, /^conformance\.config\.json: field "timeout" must be >= 1$/],
    [{ maxRps: '10' }, /^conformance\.config\.json: field "maxRps" must be integer$/],
    [{ quote: { amount: '0.5' } }, /^conformance\.config\.json: field "quote\.amount" does not have the expected form/],
    [{ ordersUrl: 'ftp://x' }, /^conformance\.config\.json: field "ordersUrl" does not have the expected form/],
    [{ siws: { domian: 'x' } }, /^conformance\.config\.json: unknown field "siws\.domian" \(specs\/conformance-config\.schema\.json/],
    [[1, 2], /^conformance\.config\.json: the file must be object$/],
  ])('%j: one sentence naming the file and the field', (settings, message) => {
    const dir = folder({ 'conformance.config.json': json(settings) });
    expect(() => readConfig(undefined, {}, dir)).toThrow(ConfigError);
    expect(() => readConfig(undefined, {}, dir)).toThrow(message);
  });

  test('a file that is not JSON or YAML: one line naming it', () => {
    const dir = folder({ 'conformance.config.json': '{ profile: ' });
    expect(() => readConfig(undefined, {}, dir)).toThrow(/^conformance\.config\.json: cannot be read as JSON: /);
  });

  test.each([
    [{ ordersApiKey: 'sk_live_leaked_1' }, 'ordersApiKey'],
    [{ siws: { QUOTES_JWT: 'eyJleaked.jwt.value' } }, 'siws.QUOTES_JWT'],
    [{ walletSecretKey: '4leakedbase58secret' }, 'walletSecretKey'],
  ])('a secret %j is refused: the field named, its value never shown', (settings, field) => {
    const dir = folder({ 'conformance.config.json': json(settings) });
    const value = Object.values(JSON.parse(json(settings)) as Record<string, unknown>)
      .map((v) => (typeof v === 'object' ? Object.values(v as object)[0] : v))
      .join('');
    let message = '';
    try {
      readConfig(undefined, {}, dir);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain(`field "${field}" holds a secret`);
    expect(message).toMatch(/credentials come only from the environment/);
    expect(message).not.toContain(value);
  });
});

describe('precedence: options > environment > file > defaults', () => {
  const set: string[] = [];
  afterEach(() => {
    for (const name of set.splice(0)) delete process.env[name];
  });

  test('each setting from the strongest source that has it', () => {
    const dir = folder({
      'c.json': json({
        profile: 'smoke',
        seed: 5,
        timeout: 1111,
        maxRps: 3,
        maxDuration: 60,
        strict: true,
        grep: 'Q-INFO',
        mints: { usdc: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' },
      }),
    });
    set.push('CONFORMANCE_USDC_MINT');
    const cli = parseCli(['--config', join(dir, 'c.json'), '--max-rps', '7'], {
      CONFORMANCE_TIMEOUT_MS: '2222',
      CONFORMANCE_STRICT: '0',
    });
    expect(cli.config.maxRps).toBe(7); // option over file
    expect(cli.config.timeoutMs).toBe(2222); // environment over file
    expect(cli.config.strict).toBe(false); // environment over file
    expect(cli.config.seed).toBe(5); // file over default
    expect(cli.config.profile).toBe('smoke');
    expect(cli.maxDurationS).toBe(60);
    expect(cli.grep).toBe('Q-INFO');
    expect(cli.config.numRuns).toBe(100); // default
    expect(cli.configFile).toBe(join(dir, 'c.json'));
    // What the checks read in their workers reaches the environment they inherit.
    expect(process.env.CONFORMANCE_USDC_MINT).toBe('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
  });

  test('CONFORMANCE_CONFIG names the file too; an invalid file is a usage error', () => {
    const dir = folder({ 'c.yaml': 'profile: full\nseed: 9\n', 'bad.yaml': 'seed: -1\n' });
    expect(parseCli([], { CONFORMANCE_CONFIG: join(dir, 'c.yaml') }).config.seed).toBe(9);
    expect(() => parseCli([], { CONFORMANCE_CONFIG: join(dir, 'bad.yaml') })).toThrow(UsageError);
    expect(() => parseCli([], { CONFORMANCE_CONFIG: join(dir, 'bad.yaml') })).toThrow(/bad\.yaml: field "seed" must be >= 0/);
  });
});

describe('the CLI with a config file', () => {
  test('the file of the working directory is read: its profile, grep and report folder', async () => {
    const dir = folder({ 'conformance.config.yaml': 'profile: smoke\ngrep: Q-INFO-001\\]\nreportDir: out\nseed: 3\n' });
    const r = await packageCli([], dir);
    expect(r.code, r.stderr).toBe(0);
    const matrix = JSON.parse(readFileSync(join(dir, 'out', 'matrix.json'), 'utf8')) as Matrix;
    expect(matrix.run.profile).toBe('smoke');
    expect(matrix.run.seed).toBe(3);
    expect(matrix.checks.flatMap((c) => c.rules)).toContain('Q-INFO-001');
    expect(new Set(matrix.checks.filter((c) => c.verdict !== 'skipped').map((c) => c.check)).size).toBe(1);
  });

  test('a secret in the file: exit 2, one line naming the field, the value nowhere in the output', async () => {
    const dir = folder({ 'conformance.config.json': json({ profile: 'smoke', quotesApiKey: 'qk_secret_value_42' }) });
    mkdirSync(join(dir, 'reports'));
    const r = await packageCli([], dir);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/conformance\.config\.json: field "quotesApiKey" holds a secret/);
    expect(r.stdout + r.stderr).not.toContain('qk_secret_value_42');
  });

  test('an invalid file: exit 2, one sentence naming the file and the field; --help still works', async () => {
    const dir = folder({ 'conformance.config.json': json({ profile: 'bogus' }) });
    const r = await packageCli([], dir);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(
      /^conformance: conformance\.config\.json: field "profile" must be one of smoke, readonly, full \(see --help\)$/,
    );
    expect((await packageCli(['--help'], dir)).code).toBe(0);
  });
});
