import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { describe, expect, test } from 'vitest';
import { startReferenceServer } from '../../fixtures/server/index.ts';
import { WALLET_FUNDS } from '../../fixtures/server/staging/credentials.ts';
import { outputsOf } from './leak-support.ts';
import { cli, matrixOf, mintOn, partnerRunOf, reportDir as tmp } from './run-cli.ts';

describe('conformance CLI without a control API', () => {
  // A partner's run: no control API, so the checks that onboard sign with TEST_WALLET_SECRET_KEY itself (a run with the
  // control API, cli-failing.test.ts, generates its wallets through `funding` and never uses the secret). Every check the target's capabilities allow
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
        [...partnerRunOf(server), '--budget-minutes', '0', '--report-dir', dir],
        secrets,
      );
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const m = matrixOf(dir);
      // The wallet was used: a check onboarded it, so the service knows it under the sub derived from it.
      const sub = `conformance-${wallet.publicKey.toBase58().slice(0, 16)}`;
      const me = await fetch(`${server.ordersUrl}/me`, { headers: { 'X-Service-Key': secrets.ORDERS_API_KEY!, 'X-Service-User': sub } });
      expect(me.status, `GET /me as ${sub}`).toBe(200);
      expect(m.checks.filter((c) => c.verdict === 'pass').length).toBeGreaterThan(50);
      const outputs = outputsOf(r, dir);
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
        const r = await cli([...partnerRunOf(server, profile), '--report-dir', tmp()], {
          ORDERS_API_KEY: String(tenant.apiKey),
          QUOTES_API_KEY: String(quoteKey.apiKey),
        });
        expect(r.code, r.stdout + r.stderr).toBe(0);
        expect(await control('GET', '/snapshot'), `${profile} changed the target's state`).toEqual(before);
      }
    } finally {
      await server.close();
    }
  });
});
