import { Keypair } from '@solana/web3.js';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POOLS } from '../../fixtures/server/quotes/engine/pools.ts';
import { Target } from './support.ts';

describe('control API', () => {
  let target: Target;
  beforeAll(async () => {
    target = await Target.start();
  });
  afterAll(() => target.close());

  it('lists only the capabilities this build implements, from the closed list', async () => {
    const answer = await target.control('GET', '/capabilities');
    expect(answer.status).toBe(200);
    expect(answer.contentType).toBe('application/json');
    expect(answer.body).toEqual({
      capabilities: ['tenants', 'quote-keys', 'funding', 'clock', 'prices', 'faults', 'rate-limits', 'token-extensions'],
    });
  });

  it('funds wallets on the simulated chain and answers the balance after', async () => {
    const wallet = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
    expect(await target.provision('POST', '/fund', { wallet, mint: 'native', amount: '1000' })).toEqual({ balance: '1000' });
    expect(await target.provision('POST', '/fund', { wallet, mint: 'So11111111111111111111111111111111111111112', amount: '1' })).toEqual({
      balance: '1001',
    });
    expect(await target.provision('POST', '/fund', { wallet, mint: '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo', amount: '0' })).toEqual({
      balance: '0',
    });
  });

  it('creates a Token-2022 test mint with a transfer hook, priced and fundable; a key of the separate swap API; a tenant statement', async () => {
    const created = await target.provision<{ mint: string }>('POST', '/token-2022-mints');
    expect(created).toEqual({ mint: created.mint, decimals: 6, programId: 'token-2022', extensions: ['transfer-hook'] });
    const wallet = Keypair.generate().publicKey.toBase58();
    expect(await target.provision('POST', '/fund', { wallet, mint: created.mint, amount: '5' })).toEqual({ balance: '5' });
    expect((await target.control('POST', '/fund', { wallet, mint: created.mint, amount: '5', programId: 'token' })).status).toBe(400);
    expect((await target.control('POST', '/token-2022-mints', { decimals: 9 })).status).toBe(400);

    const { apiKey } = await target.provision<{ apiKey: string }>('POST', '/swap-api-keys');
    expect((await target.quotes('/api/v1/info', { headers: { 'x-api-key': apiKey } })).status).toBe(401);

    for (const siwsStatement of ['Grüße 🔐', null]) expect((await target.control('POST', '/tenants', { siwsStatement })).status).toBe(200);
    for (const siwsStatement of ['', 'two\nlines', 7])
      expect((await target.control('POST', '/tenants', { siwsStatement })).status).toBe(400);
  });

  it("reads back a wallet's balances, the native asset under the wrapped-SOL mint", async () => {
    const wallet = Keypair.generate().publicKey.toBase58();
    expect(await target.provision('GET', `/wallets/${wallet}/balances`)).toEqual({ wallet, balances: [] });
    await target.provision('POST', '/fund', { wallet, mint: 'native', amount: '1000' });
    await target.provision('POST', '/fund', { wallet, mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', amount: '7' });
    const { balances } = await target.provision<{ balances: Array<{ mint: string; amount: string }> }>(
      'GET',
      `/wallets/${wallet}/balances`,
    );
    expect(new Map(balances.map((b) => [b.mint, b.amount]))).toEqual(
      new Map([
        ['So11111111111111111111111111111111111111112', '1000'],
        ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', '7'],
      ]),
    );
    expect((await target.control('GET', '/wallets/not-a-key/balances')).status).toBe(400);
  });

  it('snapshots order-service state: a new user or a moved balance changes it, a read does not', async () => {
    type Snapshot = { users: number; digest: string };
    const snap = () => target.provision<Snapshot>('GET', '/snapshot');
    const first = await snap();
    expect(await snap()).toEqual(first);
    const { apiKey } = await target.createTenant();
    await target.orders('/me', { headers: { 'x-service-key': apiKey, 'x-service-user': 'nobody' } });
    expect(await snap()).toEqual(first);
    await target.onboard(apiKey, 'snapshot-user');
    const onboarded = await snap();
    expect(onboarded.users).toBe(first.users + 1);
    await target.provision('POST', '/fund', { wallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', mint: 'native', amount: '5' });
    expect((await snap()).digest).not.toBe(onboarded.digest);
  });

  it('reads and advances the virtual clock', async () => {
    const before = Date.parse((await target.provision<{ now: string }>('GET', '/clock')).now);
    const after = Date.parse((await target.provision<{ now: string }>('POST', '/clock', { advanceSeconds: 3600 })).now);
    expect(after - before).toBeGreaterThanOrEqual(3600_000);
    expect(after - before).toBeLessThan(3660_000);
    expect(Date.parse((await target.provision<{ now: string }>('GET', '/clock')).now)).toBeGreaterThanOrEqual(after);
  });

  it('creates tenants with defaults, or with every documented field', async () => {
    const plain = await target.provision<Record<string, unknown>>('POST', '/tenants', {});
    expect(plain).toEqual({ tenantId: expect.any(String), apiKey: expect.any(String), environment: 'staging' });
    const full = await target.createTenant({
      environment: 'staging',
      partnerOnboarding: false,
      feeSponsored: false,
      platformFeeBps: 25,
      feeWallet: 'So11111111111111111111111111111111111111112',
      minNotionalUsdCents: 500,
    });
    expect(full.tenantId).not.toBe(plain.tenantId);
  });

  it.each([
    ['/tenants', { environment: 'devnet' }],
    ['/tenants', { partnerOnboarding: 'yes' }],
    ['/tenants', { platformFeeBps: 1.5 }],
    ['/tenants', { platformFeeBps: 10001 }],
    ['/tenants', { feeWallet: 'not-a-key' }],
    ['/tenants', { minNotionalUsdCents: -1 }],
    ['/tenants', { surprise: true }],
    ['/tenants', [1, 2]],
    ['/quote-keys', { rps: 0 }],
    ['/quote-keys', { rps: '5' }],
    ['/quote-keys', { monthlyAllowance: 2.5 }],
    ['/quote-keys', { organization: 'x' }],
    ['/quote-keys', { organizationId: 7 }],
    ['/faults', { database: 'sick' }],
    ['/faults', { rpc: 'down', disk: 'full' }],
    ['/faults', { quoteProviders: { titan: 'sleepy' } }],
    ['/faults', { quoteProviders: { jupiter: 'down' } }],
    ['/faults', { quoteProviders: ['titan'] }],
    ['/faults', { provisioning: 'down' }],
    ['/wallet-states', { wallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM' }],
    ['/wallet-states', { wallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', state: 'frozen' }],
    ['/wallet-states', { wallet: 'not-a-key', state: 'needs-user-consent' }],
    ['/wallet-states', { state: 'needs-user-consent' }],
    ['/quote-jwts', { organizationId: 7 }],
    ['/quote-jwts', { scope: 'all' }],
    ['/prices', { mint: 'So11111111111111111111111111111111111111112' }],
    ['/prices', { mint: 'So11111111111111111111111111111111111111112', usdPrice: 151.2 }],
    ['/prices', { mint: 'So11111111111111111111111111111111111111112', usdPrice: '-1' }],
    ['/prices', { mint: 'So11111111111111111111111111111111111111112', usdPrice: '1e3' }],
    ['/prices', { mint: 'not-a-mint', usdPrice: '1' }],
    ['/pools', { enabled: false }],
    ['/pools', { ammKey: 'x', enabled: false }],
    ['/pools', { ammKey: POOLS[0]!.ammKey, enabled: 'no' }],
    ['/pools', { ammKey: POOLS[0]!.ammKey, reserves: ['1'] }],
    ['/pools', { ammKey: POOLS[0]!.ammKey, reserves: ['0', '5'] }],
    ['/pools', { ammKey: POOLS[0]!.ammKey, reserves: [1, 2] }],
    ['/pools', { ammKey: POOLS[0]!.ammKey, fee: 3 }],
    ['/fund', { wallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', mint: 'native' }],
    ['/fund', { wallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', mint: 'native', amount: 5 }],
    ['/fund', { wallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', mint: 'native', amount: '-5' }],
    ['/fund', { wallet: 'not-a-key', mint: 'native', amount: '5' }],
    ['/fund', { wallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', mint: 'native', amount: '5', decimals: 6 }],
    [
      '/fund',
      {
        wallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM',
        mint: '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo',
        amount: '5',
        programId: 'token',
      },
    ],
    [
      '/fund',
      {
        wallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM',
        mint: '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU',
        amount: '5',
        programId: 'native',
      },
    ],
    [
      '/fund',
      {
        wallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM',
        mint: '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU',
        amount: '5',
        decimals: 19,
      },
    ],
    ['/clock', {}],
    ['/clock', { advanceSeconds: -1 }],
    ['/clock', { advanceSeconds: 1.5 }],
  ])('POST %s %j is 400 {error}', async (path, body) => {
    const answer = await target.control('POST', path, body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: expect.any(String) });
  });

  it('requires a JSON object body where the call has one, and rejects a body that is not JSON', async () => {
    for (const [method, path] of [
      ['POST', '/tenants'],
      ['POST', '/faults'],
    ] as const) {
      expect((await target.control(method, path)).status).toBe(400);
    }
    expect((await target.control('POST', '/faults', {})).status).toBe(400);
    expect((await target.control('POST', '/quote-keys')).status).toBe(200);
    const raw = await request(`${target.server.controlUrl}/faults`, { method: 'POST', body: '{database:' });
    expect(raw.statusCode).toBe(400);
    expect(await raw.body.json()).toEqual({ error: expect.any(String) });
  });

  it('issues quote keys into new or existing organizations, active or revoked', async () => {
    const first = await target.provision<{ apiKey: string; organizationId: string }>('POST', '/quote-keys', { rps: 2 });
    expect(first).toEqual({ apiKey: expect.any(String), organizationId: expect.any(String) });
    const second = await target.provision<{ apiKey: string; organizationId: string }>('POST', '/quote-keys', {
      organizationId: first.organizationId,
    });
    expect(second.organizationId).toBe(first.organizationId);
    expect(second.apiKey).not.toBe(first.apiKey);
    const revoked = await target.provision<{ apiKey: string }>('POST', '/quote-keys', { state: 'revoked' });
    expect(revoked.apiKey).toMatch(/\S/);
    expect((await target.control('POST', '/quote-keys', { organizationId: 'nope' })).status).toBe(404);
    expect((await target.control('POST', '/quote-keys', { organizationId: first.organizationId, rps: 5 })).status).toBe(400);
    expect((await target.control('POST', '/quote-keys', { state: 'frozen' })).status).toBe(400);
  });

  it('validates key and tenant states strictly', async () => {
    const { tenantId } = await target.createTenant();
    for (const body of [{ state: 'frozen' }, {}, { state: 'active', extra: 1 }]) {
      expect((await target.control('POST', `/tenants/${tenantId}/keys`, body)).status).toBe(400);
    }
    for (const body of [{ state: 'paused' }, {}, { state: 'revoked' }]) {
      expect((await target.control('PATCH', `/tenants/${tenantId}`, body)).status).toBe(400);
    }
    expect(await target.provision('PATCH', `/tenants/${tenantId}`, { state: 'suspended' })).toEqual({ tenantId, state: 'suspended' });
  });

  it('answers an unknown tenant 404 {error}', async () => {
    for (const [method, path, body] of [
      ['POST', '/tenants/00000000-0000-4000-8000-000000000000/keys', { state: 'active' }],
      ['PATCH', '/tenants/nobody', { state: 'active' }],
    ] as const) {
      const answer = await target.control(method, path, body);
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ error: expect.stringContaining('tenant') });
    }
  });

  it('answers unknown control endpoints 404 {error}', async () => {
    for (const [method, path] of [
      ['GET', '/fund'],
      ['PATCH', '/clock'],
      ['GET', '/quote-jwts'],
      ['GET', '/tenants'],
    ] as const) {
      const answer = await target.control(method, path, {});
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ error: expect.any(String) });
    }
  });

  it('stores every fault, keeping fields left out', async () => {
    expect(await target.provision('POST', '/faults', { rpc: 'down', oracle: 'down', swaps: 'fail', provisioning: 'upstream' })).toEqual({});
    expect((await target.orders('/health')).status).toBe(200);
    await target.faults({ database: 'down' });
    expect((await target.orders('/health')).status).toBe(503);
    expect(
      (await target.onboardRaw((await target.createTenant()).apiKey, await target.onboardBody('fault-user', Keypair.generate()))).status,
    ).toBe(502);
    await target.faults({ database: 'healthy', rpc: 'up', oracle: 'up', swaps: 'ok', provisioning: 'ok' });
  });

  it('puts wallets in onboarding states; a manager no user has is 404', async () => {
    const external = Keypair.generate();
    const wallet = external.publicKey.toBase58();
    expect(await target.provision('POST', '/wallet-states', { wallet, state: 'needs-user-consent' })).toEqual({});
    const { apiKey } = await target.createTenant();
    expect((await target.onboardRaw(apiKey, await target.onboardBody('consent-user', external))).status).toBe(409);
    const unknown = await target.control('POST', '/wallet-states', { wallet, state: 'manager-incomplete' });
    expect([unknown.status, unknown.body]).toEqual([404, { error: expect.stringContaining('manager') }]);
    const user = await target.onboard(apiKey, 'wallet-state-user');
    expect(await target.provision('POST', '/wallet-states', { wallet: user.walletAddress, state: 'manager-incomplete' })).toEqual({});
    expect((await target.asUser(apiKey, 'wallet-state-user', '/me')).status).toBe(409);
  });

  it('issues distributor JWTs with the absolute gateway URL, for a new or an existing organization', async () => {
    const issued = await target.provision<{ jwt: string; gatewayUrl: string }>('POST', '/quote-jwts');
    expect(issued).toEqual({ jwt: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/), gatewayUrl: `${target.server.baseUrl}/gateway` });
    const { organizationId } = await target.provision<{ organizationId: string }>('POST', '/quote-keys', { rps: 5 });
    expect((await target.control('POST', '/quote-jwts', { organizationId })).status).toBe(200);
    expect((await target.control('POST', '/quote-jwts', { organizationId: 'nobody' })).status).toBe(404);
  });

  it('sets prices (a decimal string, or null) and pool states, 404 for an unknown pool', async () => {
    expect(await target.provision('POST', '/prices', { mint: 'So11111111111111111111111111111111111111112', usdPrice: '151.25' })).toEqual(
      {},
    );
    expect(await target.provision('POST', '/prices', { mint: 'So11111111111111111111111111111111111111112', usdPrice: null })).toEqual({});
    await target.provision('POST', '/prices', { mint: 'So11111111111111111111111111111111111111112', usdPrice: '150' });
    const { ammKey } = POOLS[0]!;
    expect(await target.provision('POST', '/pools', { ammKey, enabled: false, reserves: ['1000', '2000'] })).toEqual({});
    expect(await target.provision('POST', '/pools', { ammKey, enabled: true, reserves: POOLS[0]!.reserves.map(String) })).toEqual({});
    const unknown = await target.control('POST', '/pools', { ammKey: 'So11111111111111111111111111111111111111112', enabled: false });
    expect([unknown.status, unknown.body]).toEqual([404, { error: expect.stringContaining('pool') }]);
  });

  it('takes quote providers up and down one at a time', async () => {
    expect(await target.provision('POST', '/faults', { quoteProviders: { titan: 'down' } })).toEqual({});
    expect(await target.provision('POST', '/faults', { quoteProviders: { dflow: 'down' } })).toEqual({});
    expect(await target.provision('POST', '/faults', { quoteProviders: { titan: 'up', dflow: 'up' } })).toEqual({});
  });
});
