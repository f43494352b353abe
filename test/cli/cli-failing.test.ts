/**
 * The CLI end to end on a failing target (a mutant of the reference server): exit 1, the broken rule, a curl
 * reproduction, and no secret printed anywhere, neither the run's credentials nor the keys it mints during the run.
 */
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { describe, expect, test } from 'vitest';
import { startReferenceServer } from '../../fixtures/server/index.ts';
import { mutants } from '../../fixtures/mutants/index.ts';
import { cli, filesUnder, listenLoopback, matrixOf, mintOn, reportDir as tmp } from './run-cli.ts';

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

describe('conformance CLI on a failing target', () => {
  // The checks of the broken rule's area only: a whole run with a mutant (exit 1, the rule, a reproduction) is the
  // OA-AUTH-003 case below.
  test('a mutant makes it exit 1 with a failure naming the broken rule and a curl reproduction', async () => {
    const mutant = mutants.find((m) => m.rule === 'Q-INFO-001')!;
    const dir = tmp();
    const r = await cli(['--report-dir', dir, '--mutant', mutant.name, '--grep', 'Q-INFO-']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL Q-INFO-001/);
    expect(readFileSync(join(dir, 'matrix.md'), 'utf8')).toMatch(/reproduce: +curl /);
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
});
