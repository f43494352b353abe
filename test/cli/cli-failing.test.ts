/**
 * The CLI end to end on a failing target (a mutant of the reference server): exit 1, the broken rule, a curl
 * reproduction, and no secret printed anywhere, neither the run's credentials nor the keys it mints during the run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { startReferenceServer } from '../../fixtures/server/index.ts';
import { mutants } from '../../fixtures/mutants/index.ts';
import { answerProxy, jsonObjectOf, learnMinted, mintedSecrets, outputsOf } from './leak-support.ts';
import { cli, fullRunOf, matrixOf, reportDir as tmp } from './run-cli.ts';

/**
 * A transparent proxy to `upstream` that learns every secret the control API mints through it (`apiKey`, `jwt` of its
 * answers): the control API offers no listing of keys, and the suite mints its own during the run.
 */
function recordingProxy(upstream: string, controlPrefix: string, minted: Set<string>) {
  return answerProxy(upstream, (req, _body, answer) => {
    if (req.url?.startsWith(controlPrefix)) learnMinted(jsonObjectOf(answer.raw), minted);
    return answer;
  });
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
      try {
        const secrets = await mintedSecrets(server.controlUrl);
        for (const [name, value] of Object.entries(secrets)) expect(value, name).toMatch(/^\S{16,}$/);
        const dir = tmp();
        const r = await cli(
          [
            ...fullRunOf({ ...server, controlUrl: `${proxy.url}${controlPrefix}` }),
            '--gateway-url',
            server.gatewayUrl,
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

        const outputs = outputsOf(r, dir);
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
