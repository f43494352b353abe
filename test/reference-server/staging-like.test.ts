import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type RunningServer } from '../../fixtures/server/index.ts';
import { decimal } from '../../fixtures/server/staging/market.ts';
import { Scheduler, SWAP_LATENCY_MS, TEST_KEYS, testWallet, type Credentials } from '../../fixtures/server/staging/index.ts';
import { renderSiwsMessage, signSiwsMessage, siwsDeployment } from '../../fixtures/siws.ts';
import { sign } from './action-support.ts';
import { MINTS, SOL_TO_USDC } from './quote-support.ts';
import { watchServe } from './serve-support.ts';
import { call, errorCode, type Answer, type CallOptions } from './support.ts';

/**
 * The staging-like sandbox (fixtures/server/staging/) and the sandbox options of `npm run serve` (--test-keys,
 * --host, --seed, --log, POST /__control/reset). Time is only observed through the service, by polling it until the
 * expected observation; CEILING_MS only bounds a hang.
 */

const CEILING_MS = 60_000;
/**
 * Fast enough for quick tests, slow enough that a 5-minute window (an intent to its confirm) outlasts a busy machine's
 * pause: 10 s of wall time (at 100 it was 3 s, which a loaded 2-core machine can lose between two requests).
 */
const TIME_SCALE = 30;
/** The sub the funded test wallet is onboarded with. */
const USER = 'partner-user';

/** Calls `probe` until it returns a value (not undefined); fails after CEILING_MS. */
async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + CEILING_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A partner's view of a sandbox: only its URLs and credentials, no control API. */
class Partner {
  constructor(
    readonly server: RunningServer,
    readonly credentials: Credentials,
  ) {}

  /** An order-service call; a GET answered with the documented retryable 503 is tried again, as a client does. */
  async orders(path: string, options: CallOptions & { key?: string; sub?: string } = {}): Promise<Answer> {
    const headers: Record<string, string> = { 'x-service-key': options.key ?? this.credentials.ORDERS_API_KEY, ...options.headers };
    if (options.sub !== undefined) headers['x-service-user'] = options.sub;
    for (let attempt = 0; ; attempt++) {
      const answer = await call(`${this.server.ordersUrl}${path}`, { ...options, headers });
      if (answer.status !== 503 || errorCode(answer) !== 'RPC_UNAVAILABLE' || attempt === 3) return answer;
    }
  }

  /** The service's time, as its `Date` header says. */
  async now(): Promise<Date> {
    const date = (await call(`${this.server.ordersUrl}/health`)).headers.date;
    return new Date(date ?? '');
  }

  async swapQuote(): Promise<Record<string, unknown>> {
    const query = new URLSearchParams(SOL_TO_USDC).toString();
    const answer = await call(`${this.server.quotesUrl}/api/v1/quote/swap?${query}`, {
      headers: { 'x-api-key': this.credentials.QUOTES_API_KEY, accept: 'application/json' },
    });
    expect(answer.status).toBe(200);
    return answer.body as Record<string, unknown>;
  }

  /** Onboards `sub` with the funded test wallet (or another), SIWS issued at the service's time. */
  async onboard(sub: string, wallet = Keypair.fromSecretKey(bs58.decode(this.credentials.TEST_WALLET_SECRET_KEY))): Promise<Answer> {
    const userPubkey = wallet.publicKey.toBase58();
    const issuedAt = (await this.now()).toISOString();
    const message = renderSiwsMessage({
      ...siwsDeployment(this.server.ordersUrl, 'staging'),
      userPubkey,
      issuedAt,
      nonce: 'n0nce12345678',
    });
    return this.orders('/partner/onboard', {
      method: 'POST',
      json: { sub, userPubkey, siws: { message, signature: signSiwsMessage(message, wallet.secretKey) } },
    });
  }

  /** Intent and confirm of `intent` as `sub`, signed by the test wallet: the order. */
  async order(sub: string, intent: unknown): Promise<{ id: string; status: string }> {
    const wallet = Keypair.fromSecretKey(bs58.decode(this.credentials.TEST_WALLET_SECRET_KEY));
    const created = await this.orders('/orders/intent', { method: 'POST', sub, json: intent });
    expect(created.status).toBe(200);
    const { pendingOrderId, transaction } = (created.body as { data: { pendingOrderId: string; transaction: string } }).data;
    const confirmed = await this.orders('/orders/confirm', {
      method: 'POST',
      sub,
      json: { pendingOrderId, signedTransaction: sign(transaction, wallet) },
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    return (confirmed.body as { data: { order: { id: string; status: string } } }).data.order;
  }
}

describe('staging-like sandbox', () => {
  let server: RunningServer;
  let partner: Partner;

  beforeAll(async () => {
    server = await startReferenceServer({ stagingLike: { timeScale: TIME_SCALE, seed: 7 } });
    partner = new Partner(server, server.credentials as Credentials);
    const onboarded = await partner.onboard(USER);
    if (onboarded.status !== 200) throw new Error(`onboarding the test wallet: ${onboarded.status} ${JSON.stringify(onboarded.body)}`);
  });
  afterAll(() => server.close());

  it('has no control API: every /__control path answers as an unknown path does', async () => {
    const unknown = await call(`${server.ordersUrl}/no-such-path`);
    for (const [method, path] of [
      ['GET', '/__control/capabilities'],
      ['GET', '/__control/clock'],
      ['POST', '/__control/reset'],
      ['POST', '/__control/fund'],
    ] as const) {
      const answer = await call(`${server.ordersUrl}${path}`, { method, json: method === 'POST' ? {} : undefined });
      expect([answer.status, errorCode(answer)], `${method} ${path}`).toEqual([unknown.status, errorCode(unknown)]);
    }
    expect([unknown.status, errorCode(unknown)]).toEqual([404, 'NOT_FOUND']);
  });

  it('hands out working credentials: two tenants, a quote key, a distributor JWT', async () => {
    const { credentials } = partner;
    expect(Object.keys(credentials).sort()).toEqual([
      'ORDERS_API_KEY',
      'ORDERS_API_KEY_ALT',
      'QUOTES_API_KEY',
      'QUOTES_JWT',
      'TEST_WALLET_SECRET_KEY',
      'TEST_WALLET_SECRET_KEY_ALT',
    ]);
    expect(credentials.TEST_WALLET_SECRET_KEY_ALT).not.toBe(credentials.TEST_WALLET_SECRET_KEY);
    for (const key of [credentials.ORDERS_API_KEY, credentials.ORDERS_API_KEY_ALT]) {
      expect((await partner.orders('/partners/me/orders', { key })).status).toBe(200);
    }
    expect(Object.keys((await partner.swapQuote()).quotes as object).length).toBeGreaterThan(0);
    const gateway = await call(`${server.gatewayUrl}/api/v1/info`, { headers: { authorization: `Bearer ${credentials.QUOTES_JWT}` } });
    expect(gateway.status).toBe(200);
  });

  it('funds the test wallet: a DCA order deposits from it and runs its cycles on the server clock, with no control call', async () => {
    const order = await partner.order(USER, {
      orderType: 'dca',
      inputMint: MINTS.USDC,
      outputMint: MINTS.SOL,
      config: { totalAmount: '36000000', amountPerCycle: '12000000', cycleFrequencySeconds: 60 },
    });
    expect(order.status).toBe('active');
    const done = await until('the DCA order to complete', async () => {
      const data = (await partner.orders(`/dca/${order.id}`, { sub: USER })).body as { data?: Record<string, unknown> };
      return data.data?.status === 'completed' ? data.data : undefined;
    });
    expect(done).toMatchObject({ cyclesCompleted: 3, amountSpent: '36000000' });
    expect(BigInt(done.amountReceived as string)).toBeGreaterThan(0n);
    const executions = (await partner.orders(`/orders/${order.id}/executions`, { sub: USER })).body as {
      data: { status: string; executedAt: string }[];
    };
    expect(executions.data.map((row) => row.status)).toEqual(['success', 'success', 'success']);
    // Each swap was in flight for SWAP_LATENCY_MS of the server's time before it settled.
    const submitted = Math.max(...executions.data.map((row) => Date.parse(row.executedAt)));
    expect(Date.parse(done.lastExecutionAt as string) - submitted).toBeGreaterThanOrEqual(SWAP_LATENCY_MS);
  });

  it('fires a stop-loss above the market with no control call, its swap settling after the latency; one far below waits', async () => {
    // The pair price is SOL per USDC (about 0.0067) scaled by priceDecimals 6: about 6667.
    const stop = (triggerPrice: string) => ({
      orderType: 'stop_loss',
      inputMint: MINTS.USDC,
      outputMint: MINTS.SOL,
      config: { amount: '12000000', triggerPrice, priceDecimals: 6 },
    });
    const waiting = await partner.order(USER, stop('1'));
    const firing = await partner.order(USER, stop('1000000'));
    const read = async (id: string) =>
      ((await partner.orders(`/stop-loss/${id}`, { sub: USER })).body as { data: Record<string, unknown> }).data;
    const filled = await until('the stop-loss to fill', async () => {
      const order = await read(firing.id);
      return order.status === 'completed' ? order : undefined;
    });
    expect(BigInt(filled.amountReceived as string)).toBeGreaterThan(0n);
    const [row] = ((await partner.orders(`/orders/${firing.id}/executions`, { sub: USER })).body as { data: { executedAt: string }[] })
      .data;
    expect(Date.parse(filled.lastExecutionAt as string) - Date.parse(row?.executedAt ?? '')).toBe(SWAP_LATENCY_MS);
    expect((await read(waiting.id)).status).toBe('active');
  });

  it('keeps the tenants apart: the alt key is another tenant', async () => {
    expect((await partner.onboard('tenant-a-user', Keypair.generate())).status).toBe(200);
    const asA = await partner.orders('/me', { sub: 'tenant-a-user' });
    expect(asA.status).toBe(200);
    const asB = await partner.orders('/me', { sub: 'tenant-a-user', key: partner.credentials.ORDERS_API_KEY_ALT });
    expect(asB.status).not.toBe(200);
    const listedByB = (await partner.orders('/partners/me/orders', { key: partner.credentials.ORDERS_API_KEY_ALT })).body as {
      data: unknown[];
    };
    expect(listedByB.data).toEqual([]);
  });

  it("runs its clock by itself, faster than the wall clock; responses carry the server's time", async () => {
    const start = await partner.now();
    const later = await until('the server clock to pass two minutes', async () => {
      const now = await partner.now();
      return now.getTime() - start.getTime() >= 120_000 ? now : undefined;
    });
    expect(later.getTime()).toBeGreaterThan(start.getTime());
  });

  it('moves prices by itself: the oracle price of SOL in quote metadata changes', async () => {
    const price = async () => ((await partner.swapQuote()).metadata as { inputPriceUSD: unknown }).inputPriceUSD;
    const first = await price();
    expect(typeof first).toBe('number');
    const moved = await until('the SOL price to move', async () => {
      const now = await price();
      return now !== first ? now : undefined;
    });
    expect(Math.abs((moved as number) / (first as number) - 1)).toBeLessThan(0.5);
  });

  it('answers some order GETs with the documented, retryable 503 RPC_UNAVAILABLE', async () => {
    const answers: Answer[] = [];
    for (let i = 0; i < 40; i++) {
      answers.push(
        await call(`${server.ordersUrl}/partners/me/orders?limit=${i + 1}`, {
          headers: { 'x-service-key': partner.credentials.ORDERS_API_KEY },
        }),
      );
    }
    const unavailable = answers.filter((answer) => answer.status === 503);
    expect(unavailable.length).toBeGreaterThan(0);
    expect(unavailable.map(errorCode)).toEqual(unavailable.map(() => 'RPC_UNAVAILABLE'));
    expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThan(unavailable.length * 5);
  });
});

describe('sandbox options', () => {
  it('--test-keys: the documented fixed keys and the funded test wallet, no control call first; reset restores them', async () => {
    const server = await startReferenceServer({ testKeys: true });
    try {
      const { credentials } = server;
      expect(credentials).toMatchObject({
        ORDERS_API_KEY: TEST_KEYS.ORDERS_API_KEY,
        ORDERS_API_KEY_ALT: TEST_KEYS.ORDERS_API_KEY_ALT,
        QUOTES_API_KEY: TEST_KEYS.QUOTES_API_KEY,
        TEST_WALLET_SECRET_KEY: bs58.encode(testWallet().secretKey),
      });
      const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
      for (const value of [
        TEST_KEYS.ORDERS_API_KEY,
        TEST_KEYS.ORDERS_API_KEY_ALT,
        TEST_KEYS.QUOTES_API_KEY,
        bs58.encode(testWallet().secretKey),
      ]) {
        expect(readme.includes(value), `README names ${value}`).toBe(true);
      }
      const partner = new Partner(server, credentials as Credentials);
      const listed = async (key: string) =>
        (await call(`${server.ordersUrl}/partners/me/orders`, { headers: { 'x-service-key': key } })).status;
      expect(await listed(TEST_KEYS.ORDERS_API_KEY)).toBe(200);

      // Something to throw away: a tenant of its own, a user, an order, a moved clock.
      const tenant = (await call(`${server.controlUrl}/tenants`, { method: 'POST', json: {} })).body as { apiKey: string };
      expect(await listed(tenant.apiKey)).toBe(200);
      const control = async (method: CallOptions['method'], path: string, json?: unknown) =>
        (await call(`${server.controlUrl}${path}`, { method, json })).body as Record<string, string>;
      expect((await partner.onboard('kept-nowhere')).status).toBe(200);
      const before = new Date(String((await control('GET', '/clock')).now)).getTime();
      await control('POST', '/clock', { advanceSeconds: 86_400 });
      const wallet = testWallet().publicKey.toBase58();
      const fundsAtStart = await control('GET', `/wallets/${wallet}/balances`);
      await control('POST', '/fund', { wallet, mint: MINTS.USDC, amount: '5' });

      const reset = await call(`${server.controlUrl}/reset`, { method: 'POST' });
      expect([reset.status, reset.body]).toEqual([200, {}]);
      expect(await listed(tenant.apiKey)).toBe(401);
      expect(await listed(TEST_KEYS.ORDERS_API_KEY)).toBe(200);
      expect((await partner.orders('/me', { sub: 'kept-nowhere' })).status).not.toBe(200);
      expect(await control('GET', `/wallets/${wallet}/balances`)).toEqual(fundsAtStart);
      expect(new Date(String((await control('GET', '/clock')).now)).getTime() - before).toBeLessThan(86_400_000);
      const gateway = await call(`${server.gatewayUrl}/api/v1/info`, { headers: { authorization: `Bearer ${credentials?.QUOTES_JWT}` } });
      expect(gateway.status).toBe(200);
      expect((await call(`${server.controlUrl}/reset`, { method: 'POST', json: { everything: true } })).status).toBe(400);
    } finally {
      await server.close();
    }
  });

  it('--seed: the same seed hands out the same generated credentials and ids', async () => {
    const credentials: unknown[] = [];
    for (let run = 0; run < 2; run++) {
      const server = await startReferenceServer({ stagingLike: {}, seed: 42 });
      try {
        const requestId = (await call(`${server.ordersUrl}/health`)).headers['x-request-id'];
        credentials.push({ ...server.credentials, QUOTES_JWT: undefined, requestId });
      } finally {
        await server.close();
      }
    }
    expect(credentials[0]).toEqual(credentials[1]);
    expect((credentials[0] as { requestId: string }).requestId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('the scheduler ticks until stopped; prices print as plain decimals', async () => {
    let ticks = 0;
    const scheduler = new Scheduler(() => ticks++, 5);
    await until('three ticks', async () => (ticks >= 3 ? true : undefined));
    scheduler.stop();
    const stopped = ticks;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(ticks).toBe(stopped);
    expect([decimal(150.123456789), decimal(0.0000201234567), decimal(180), decimal(0.5)]).toEqual([
      '150.123',
      '0.0000201235',
      '180',
      '0.5',
    ]);
  });
});

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** `node --import tsx` rather than the tsx CLI: a SIGTERM reaches the server's own handler, with no relay to time out. */
const serveCli = (args: string[]) =>
  watchServe(spawn(process.execPath, ['--import', 'tsx', 'bin/serve.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }));

describe('npm run serve: --staging-like, --host, --log', () => {
  it('prints the URLs on the host asked and the credentials, and logs each request without secrets', async () => {
    const run = serveCli(['--staging-like', '--time-scale', '10', '--host', '127.0.0.2', '--log']);
    try {
      const printed = JSON.parse(await run.firstLine()) as { orders: string; gateway: string; control: null; credentials: Credentials };
      expect(Object.keys(printed)).toEqual(['orders', 'quotes', 'gateway', 'control', 'mutant', 'variant', 'credentials']);
      expect(printed.orders).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
      expect(printed.control).toBeNull();
      const jwt = printed.credentials.QUOTES_JWT;
      expect((await call(`${printed.gateway}/api/v1/info?auth=${jwt}`)).status).toBe(200);
      const key = printed.credentials.ORDERS_API_KEY;
      expect((await call(`${printed.orders}/partners/me/orders`, { headers: { 'x-service-key': key } })).status).toBe(200);
      await until('two log lines', async () => (run.output().stderr.split('\n').length > 2 ? true : undefined));
      const { stderr } = run.output();
      const lines = stderr.trim().split('\n');
      expect(lines[0]).toMatch(/^GET \/gateway\/api\/v1\/info 200 \d+ms$/);
      expect(lines[1]).toMatch(/^GET \/partners\/me\/orders 200 \d+ms$/);
      expect(stderr).not.toContain(jwt);
      expect(stderr).not.toContain(key);
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exited).toBe(0);
  });

  it.each([[['--time-scale', '10']], [['--staging-like', '--time-scale', '0.5']], [['--seed', 'x']]])(
    'exits 2 with one line on stderr for %j',
    async (args) => {
      const run = serveCli(args);
      expect(await run.exited).toBe(2);
      expect(run.output().stderr.trim().split('\n')).toHaveLength(1);
    },
  );
});
