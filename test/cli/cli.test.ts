/** The CLI end to end, as a CI job or a partner runs it: exit codes, reports, sharding, secrets. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { describe, expect, test } from 'vitest';
import { startReferenceServer } from '../../fixtures/server/index.ts';
import { mutants } from '../../fixtures/mutants/index.ts';
import { WALLET_FUNDS } from '../../fixtures/server/staging/credentials.ts';
import type { Matrix } from '../../suites/harness/matrix.ts';
import { expectValidMatrix } from './matrix-schema.ts';
import { cli, filesUnder, fullRunOf, listenLoopback, matrixOf, mintOn, reportDir as tmp } from './run-cli.ts';

const verdicts = (m: Matrix) => Object.fromEntries(m.checks.map((c) => [c.check, c.verdict]));

/**
 * A transparent proxy to `upstream` that learns every secret the control API mints through it (`apiKey`, `jwt` of its
 * answers): the control API offers no listing of keys, and the suite mints its own during the run.
 */
async function recordingProxy(
  upstream: string,
  controlPrefix: string,
  minted: Set<string>,
): Promise<{ url: string; close(): Promise<void> }> {
  const target = new URL(upstream);
  const server = createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      const out = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (up) => {
          const chunks: Buffer[] = [];
          up.on('data', (c: Buffer) => chunks.push(c));
          up.on('end', () => {
            const raw = Buffer.concat(chunks);
            if (req.url?.startsWith(controlPrefix)) {
              try {
                const json = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
                for (const field of ['apiKey', 'jwt']) if (typeof json[field] === 'string') minted.add(json[field]);
              } catch {
                /* not JSON: nothing minted */
              }
            }
            res.writeHead(up.statusCode ?? 502, up.headers).end(raw);
          });
        },
      );
      out.on('error', () => res.destroy());
      out.end(Buffer.concat(body));
    });
  });
  return listenLoopback(server);
}

/** What of a secret must never be printed: the whole value, and for a JWT its signature less one character (a check alters one). */
function leakForms(secret: string): string[] {
  const parts = secret.split('.');
  return parts.length === 3 && parts[2]!.length > 16 ? [secret, parts[2]!.slice(1)] : [secret];
}

describe('conformance CLI', () => {
  test('bad usage: one line naming the option, exit 2', async () => {
    const r = await cli(['--profile', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--profile/);
  });

  test('an unreadable CONFORMANCE_ORDER_TEMPLATES: one line naming the file, exit 2', async () => {
    const r = await cli(['--profile', 'smoke'], { CONFORMANCE_ORDER_TEMPLATES: '/nonexistent/templates.yaml' });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/CONFORMANCE_ORDER_TEMPLATES \/nonexistent\/templates\.yaml/);
  });

  test('an unreachable target: a clear message, exit 3, no stack trace', async () => {
    const r = await cli(['--orders-url', 'http://127.0.0.1:9', '--quotes-url', 'http://127.0.0.1:9', '--report-dir', tmp()]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/could not be reached/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  let embedded: Matrix;
  test('npm start: the embedded reference server passes; matrix, JUnit and Allure results are written', async () => {
    const dir = tmp();
    const r = await cli(['--report-dir', dir, '--seed', '7']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Conformance PASS/);
    // A log, not a terminal: no colour codes, a line per area as it completes, the cleanup summary once (issue 18).
    expect(r.stdout + r.stderr).not.toContain('\x1b');
    expect(r.stdout).toMatch(/^conformance: quotes\/info done, \d+ checks \(\d+ pass[^)]*\), \d+ s$/m);
    expect(r.stdout.match(/^ *cleanup: /gm)).toHaveLength(1);
    expectValidMatrix(matrixOf(dir));
    for (const f of ['matrix.json', 'matrix.md', 'matrix.html', 'junit.xml']) expect(existsSync(join(dir, f)), f).toBe(true);
    expect(readdirSync(join(dir, 'allure-results')).some((f) => f.endsWith('-result.json'))).toBe(true);
    embedded = matrixOf(dir);
    expect(embedded.run).toMatchObject({ seed: 7, profile: 'full' });
    expect(embedded.summary.checks.fail).toBe(0);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/<testsuites/);
  });

  test('a mutant makes it exit 1 with a failure naming the broken rule and a curl reproduction', async () => {
    const mutant = mutants.find((m) => m.rule === 'Q-INFO-001')!;
    const dir = tmp();
    const r = await cli(['--report-dir', dir, '--mutant', mutant.name]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL Q-INFO-001/);
    expect(readFileSync(join(dir, 'matrix.md'), 'utf8')).toMatch(/reproduce: +curl /);
  });

  test('serve + conformance with URLs gives the same verdicts as npm start; secrets never reach a report', async () => {
    const server = await startReferenceServer({ port: 0 });
    try {
      const apiKey = (await mintOn(server.controlUrl, '/tenants')).apiKey!;
      const dir = tmp();
      const r = await cli([...fullRunOf(server), '--report-dir', dir], { ORDERS_API_KEY: apiKey });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      // `embedded` comes from the npm start test above (absent when only this test runs, e.g. -t secrets).
      if (embedded) expect(verdicts(matrixOf(dir))).toEqual(verdicts(embedded));
      for (const file of filesUnder(dir)) expect(readFileSync(file, 'utf8').includes(apiKey), file).toBe(false);
      expect(r.stdout.includes(apiKey)).toBe(false);
    } finally {
      await server.close();
    }
  });

  // Each mutant makes checks fail with reproductions that carry a credential: a revoked key the run mints through the
  // control API (OA-AUTH-003; the whole suite runs, every check that mints tenants, keys and JWTs included), the run's
  // QUOTES_JWT as ?auth= (Q-DIST-002), a token the run never registered as Bearer (Q-DIST-003); those two run only the
  // credential areas of the quote service, to stay quick.
  test.each([
    {
      mutant: 'revoked-key-answered-invalid-api-key',
      rule: 'OA-AUTH-003',
      grep: undefined,
      shown: /^curl .*"X-Service-Key: \$PROVISIONED_ORDERS_KEY"/m,
    },
    { mutant: 'distributor-auth-query-rejected', rule: 'Q-DIST-002', grep: 'Q-AUTH-|Q-DIST-', shown: /^curl .*[?&]auth=\$QUOTES_JWT\b/m },
    {
      mutant: 'invalid-jwt-accepted-on-distributor-path',
      rule: 'Q-DIST-003',
      grep: 'Q-AUTH-|Q-DIST-',
      shown: /^curl .*"authorization: Bearer \$UNREGISTERED_SECRET"/m,
    },
  ])(
    'secrets: a failing run ($rule broken) with all five credentials and keys minted during the run prints none of them anywhere',
    async ({ mutant, rule, grep, shown }) => {
      const server = await startReferenceServer({ port: 0, mutant });
      const controlPrefix = new URL(server.controlUrl).pathname;
      const minted = new Set<string>();
      const proxy = await recordingProxy(server.baseUrl, controlPrefix, minted);
      const control = (path: string) => mintOn(server.controlUrl, path);
      try {
        const secrets: Record<string, string> = {
          ORDERS_API_KEY: (await control('/tenants')).apiKey!,
          ORDERS_API_KEY_ALT: (await control('/tenants')).apiKey!,
          QUOTES_API_KEY: (await control('/quote-keys')).apiKey!,
          QUOTES_JWT: (await control('/quote-jwts')).jwt!,
          TEST_WALLET_SECRET_KEY: bs58.encode(Keypair.generate().secretKey),
        };
        for (const [name, value] of Object.entries(secrets)) expect(value, name).toMatch(/^\S{16,}$/);
        const dir = tmp();
        const r = await cli(
          [
            '--orders-url',
            server.ordersUrl,
            '--quotes-url',
            server.quotesUrl,
            '--control-url',
            `${proxy.url}${controlPrefix}`,
            '--gateway-url',
            server.gatewayUrl,
            '--profile',
            'full',
            '--max-rps',
            '0',
            '--seed',
            '11',
            '--report-dir',
            dir,
            ...(grep ? ['--grep', grep] : []),
          ],
          secrets,
        );
        expect(r.code, r.stdout + r.stderr).toBe(1);

        // Failures happened, with reproductions carrying credential headers; the run minted its own secrets.
        const m = matrixOf(dir);
        const failed = m.checks.filter((c) => c.verdict === 'fail');
        expect(
          failed.some((c) => c.rule === rule),
          JSON.stringify(failed.map((c) => c.check)),
        ).toBe(true);
        expect(failed.flatMap((c) => c.reproductions ?? []).join('\n')).toMatch(shown);
        expect(readFileSync(join(dir, 'matrix.md'), 'utf8')).toMatch(/reproduce: +curl /);
        expect(m.checks.filter((c) => c.verdict === 'pass').length).toBeGreaterThan(10);
        expect(minted.size, 'secrets minted through the control API during the run').toBeGreaterThan(grep ? 0 : 5);

        const outputs: Array<[string, string]> = [
          ['stdout', r.stdout],
          ['stderr', r.stderr],
          ...filesUnder(dir).map((f): [string, string] => [f.slice(dir.length + 1), readFileSync(f, 'utf8')]),
        ];
        expect(outputs.map(([name]) => name)).toEqual(expect.arrayContaining(['matrix.json', 'matrix.md', 'matrix.html', 'junit.xml']));
        expect(outputs.some(([name]) => name.startsWith('allure-results/') && name.endsWith('-attachment.txt'))).toBe(true);
        const forms = [...Object.entries(secrets), ...[...minted].map((v): [string, string] => ['minted during the run', v])].flatMap(
          ([name, value]) => leakForms(value).map((form) => [name, form] as const),
        );
        const leaks: string[] = [];
        for (const [where, text] of outputs) {
          for (const [name, form] of forms) if (text.includes(form)) leaks.push(`${name} in ${where}`);
          // Whatever the run knew or not: a credential header of a reproduction holds a $PLACEHOLDER or nothing.
          for (const line of text.split('\n').filter((l) => l.includes('curl '))) {
            for (const [, value] of line.matchAll(/(?:x-service-key|x-api-key|authorization): (?:Bearer )?([^"'\s\\&]*)/gi)) {
              if (value !== '' && !/^\$[A-Z_][A-Z0-9_]*$/.test(value!))
                leaks.push(`a raw credential header value in ${where}: ${value!.slice(0, 6)}…`);
            }
          }
        }
        expect(leaks).toEqual([]);
      } finally {
        await proxy.close();
        await server.close();
      }
    },
  );

  // A partner's run: no control API, so the checks that onboard sign with TEST_WALLET_SECRET_KEY itself (the run above
  // generates its wallets through `funding` and never uses the secret). Every check the target's capabilities allow
  // passes, the rest are unsupported or skipped, and neither the wallet secret nor a key appears in any output.
  test('secrets: a full run without control signs with TEST_WALLET_SECRET_KEY and prints it nowhere', async () => {
    const server = await startReferenceServer({ port: 0 });
    const control = (path: string) => mintOn(server.controlUrl, path);
    try {
      // A partner's wallet: funded as the staging-like sandbox funds the one it hands out.
      const wallet = Keypair.generate();
      for (const [mint, amount] of WALLET_FUNDS) {
        const funded = await fetch(`${server.controlUrl}/fund`, {
          method: 'POST',
          body: JSON.stringify({ wallet: wallet.publicKey.toBase58(), mint, amount: String(amount) }),
          headers: { 'content-type': 'application/json' },
        });
        expect(funded.status).toBe(200);
      }
      const secrets: Record<string, string> = {
        ORDERS_API_KEY: (await control('/tenants')).apiKey!,
        QUOTES_API_KEY: (await control('/quote-keys')).apiKey!,
        TEST_WALLET_SECRET_KEY: bs58.encode(wallet.secretKey),
      };
      const dir = tmp();
      const r = await cli(
        // No real-time waits (--budget-minutes 0): the black-box checks that wait for cycles and expiry skip, saying so.
        [
          '--orders-url',
          server.ordersUrl,
          '--quotes-url',
          server.quotesUrl,
          '--profile',
          'full',
          '--max-rps',
          '0',
          '--budget-minutes',
          '0',
          '--report-dir',
          dir,
        ],
        secrets,
      );
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const m = matrixOf(dir);
      // The wallet was used: a check onboarded it, so the service knows it under the sub derived from it.
      const sub = `conformance-${wallet.publicKey.toBase58().slice(0, 16)}`;
      const me = await fetch(`${server.ordersUrl}/me`, { headers: { 'X-Service-Key': secrets.ORDERS_API_KEY!, 'X-Service-User': sub } });
      expect(me.status, `GET /me as ${sub}`).toBe(200);
      expect(m.checks.filter((c) => c.verdict === 'pass').length).toBeGreaterThan(50);
      const outputs: Array<[string, string]> = [
        ['stdout', r.stdout],
        ['stderr', r.stderr],
        ...filesUnder(dir).map((f): [string, string] => [f.slice(dir.length + 1), readFileSync(f, 'utf8')]),
      ];
      const leaks = outputs.flatMap(([where, text]) =>
        Object.entries(secrets)
          .filter(([, v]) => text.includes(v))
          .map(([name]) => `${name} in ${where}`),
      );
      expect(leaks).toEqual([]);
    } finally {
      await server.close();
    }
  });

  test('the readonly and smoke profiles create nothing and move no funds (control API snapshot before and after)', async () => {
    const server = await startReferenceServer({ port: 0 });
    const control = async (method: string, path: string, body?: unknown) =>
      (await (
        await fetch(`${server.controlUrl}${path}`, {
          method,
          ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
        })
      ).json()) as Record<string, unknown>;
    try {
      const tenant = await control('POST', '/tenants', {});
      const quoteKey = await control('POST', '/quote-keys', {});
      for (const profile of ['smoke', 'readonly']) {
        const before = await control('GET', '/snapshot');
        // No control URL: a production target, where the suite can only use the credentials it is given.
        const r = await cli(
          [
            '--orders-url',
            server.ordersUrl,
            '--quotes-url',
            server.quotesUrl,
            '--profile',
            profile,
            '--max-rps',
            '0',
            '--report-dir',
            tmp(),
          ],
          { ORDERS_API_KEY: String(tenant.apiKey), QUOTES_API_KEY: String(quoteKey.apiKey) },
        );
        expect(r.code, r.stdout + r.stderr).toBe(0);
        expect(await control('GET', '/snapshot'), `${profile} changed the target's state`).toEqual(before);
      }
    } finally {
      await server.close();
    }
  });

  test('shards merge into one matrix and one JUnit report', async () => {
    const root = tmp();
    const [a, b] = await Promise.all([
      cli(['--shard', '1/2', '--report-dir', join(root, 'shard-1'), '--seed', '3']),
      cli(['--shard', '2/2', '--report-dir', join(root, 'shard-2'), '--seed', '3']),
    ]);
    expect([a.code, b.code], a.stdout + b.stdout).toEqual([0, 0]);
    const out = join(root, 'merged');
    const m = await cli(['--merge-reports', root, '--report-dir', out]);
    expect(m.code, m.stdout + m.stderr).toBe(0);
    expect(Object.keys(verdicts(matrixOf(out))).sort()).toEqual(Object.keys(verdicts(embedded)).sort());
    expect(existsSync(join(out, 'junit.xml'))).toBe(true);
  });
});
