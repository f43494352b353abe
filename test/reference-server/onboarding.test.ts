import { Keypair } from '@solana/web3.js';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { readSiwsMessage, renderSiwsMessage, SIWS_CONFIG, signSiwsMessage, verifySiwsSignature } from '../../fixtures/siws.ts';
import { errorCode } from './support.ts';
import { tenantServer } from './tenant-support.ts';

/** POST /partner/onboard, GET /me and GET /me/balance over HTTP, with the chain and clock of the control API. */

const failure = (a: { status: number; body: unknown }) => ({
  status: a.status,
  code: errorCode({ ...a, headers: {}, contentType: '', bytes: Buffer.alloc(0) }),
});
let counter = 0;
const sub = () => `partner-user-${++counter}-${Date.now()}`;

describe('the SIWS canonical form (specs/siws.yaml)', () => {
  /** The fields of a message for a fresh wallet. */
  const siwsFields = () => ({
    domain: 'example.com',
    userPubkey: Keypair.generate().publicKey.toBase58(),
    uri: 'https://example.com',
    chainId: 'devnet',
    issuedAt: '2026-01-01T00:00:00.000Z',
    nonce: 'abcdefgh1',
  });

  it('renders the template with LF endings and one trailing LF, and reads it back', () => {
    const fields = siwsFields();
    const message = renderSiwsMessage(fields);
    expect(message).toBe(
      `example.com wants you to sign in with your Solana account:\n${fields.userPubkey}\n\nURI: https://example.com\nVersion: 1\nChain ID: devnet\nIssued At: 2026-01-01T00:00:00.000Z\nNonce: abcdefgh1\n`,
    );
    expect(readSiwsMessage(message)).toEqual(fields);
    expect(readSiwsMessage(message.replace(/\n/g, '\r\n'))).toBeUndefined();
    expect(readSiwsMessage(message.slice(0, -1))).toBeUndefined();
    expect(SIWS_CONFIG.limits).toEqual({ maxBytes: 1024, lineEnding: '\n', trailingNewline: true, issuedAtToleranceSeconds: 600 });
  });

  it('places an optional statement after the empty line that follows the wallet, with an empty line of its own', () => {
    expect(SIWS_CONFIG.statement).toBeNull();
    const config = { ...SIWS_CONFIG, statement: 'Sign in to Example.' };
    const fields = { ...siwsFields(), statement: 'Sign in to Example.' };
    const message = renderSiwsMessage(fields, config);
    expect(message).toBe(
      `example.com wants you to sign in with your Solana account:\n${fields.userPubkey}\n\nSign in to Example.\n\nURI: https://example.com\nVersion: 1\nChain ID: devnet\nIssued At: 2026-01-01T00:00:00.000Z\nNonce: abcdefgh1\n`,
    );
    expect(readSiwsMessage(message, config)).toEqual(fields);
    expect(readSiwsMessage(message)).toBeUndefined();
  });

  it('signs and verifies ed25519 over the exact bytes, base58', () => {
    const wallet = Keypair.generate();
    const signature = signSiwsMessage('hello\n', wallet.secretKey);
    expect(verifySiwsSignature('hello\n', signature, wallet.publicKey.toBase58())).toBe(true);
    expect(verifySiwsSignature('hello', signature, wallet.publicKey.toBase58())).toBe(false);
    expect(verifySiwsSignature('hello\n', signature, Keypair.generate().publicKey.toBase58())).toBe(false);
    expect(verifySiwsSignature('hello\n', 'not-base58!', wallet.publicKey.toBase58())).toBe(false);
  });
});

describe('POST /partner/onboard', () => {
  const scene = tenantServer();

  it('binds the wallet to a new manager: {userId, walletAddress}, the manager differs from the wallet', async () => {
    const wallet = Keypair.generate();
    const answer = await scene.target.onboardRaw(scene.apiKey, await scene.target.onboardBody(sub(), wallet));
    expect(answer.status).toBe(200);
    const data = (answer.body as { success: boolean; data: { userId: string; walletAddress: string } }).data;
    expect(answer.body).toMatchObject({ success: true });
    expect(data).toEqual({ userId: expect.stringMatching(/\S/), walletAddress: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/) });
    expect(data.walletAddress).not.toBe(wallet.publicKey.toBase58());
  });

  it('is idempotent by sub: the same userId and walletAddress, with a fresh SIWS message', async () => {
    const id = sub();
    const wallet = Keypair.generate();
    const first = await scene.target.onboard(scene.apiKey, id, wallet);
    const again = await scene.target.onboardRaw(scene.apiKey, await scene.target.onboardBody(id, wallet));
    expect((again.body as { data: unknown }).data).toEqual({ userId: first.userId, walletAddress: first.walletAddress });
    const other = await scene.target.onboard(scene.apiKey, sub());
    expect(other.userId).not.toBe(first.userId);
    expect(other.walletAddress).not.toBe(first.walletAddress);
  });

  it('answers 409 USER_PUBKEY_CONFLICT when sub and wallet belong to two users', async () => {
    const a = await scene.target.onboard(scene.apiKey, sub());
    const bSub = sub();
    await scene.target.onboard(scene.apiKey, bSub);
    const answer = await scene.target.onboardRaw(scene.apiKey, await scene.target.onboardBody(bSub, a.wallet));
    expect(failure(answer)).toEqual({ status: 409, code: 'USER_PUBKEY_CONFLICT' });
    // A new sub with a wallet already bound: the same conflict (UNKNOWNS.md B allows 2xx or 409).
    expect(failure(await scene.target.onboardRaw(scene.apiKey, await scene.target.onboardBody(sub(), a.wallet)))).toEqual({
      status: 409,
      code: 'USER_PUBKEY_CONFLICT',
    });
  });

  it('answers 400 PARTNER_NOT_CONFIGURED on a tenant not enabled for partner onboarding', async () => {
    const disabled = (await scene.target.createTenant({ partnerOnboarding: false })).apiKey;
    const answer = await scene.target.onboardRaw(disabled, await scene.target.onboardBody(sub(), Keypair.generate()));
    expect(failure(answer)).toEqual({ status: 400, code: 'PARTNER_NOT_CONFIGURED' });
  });

  it.each(['sub', 'userPubkey', 'siws', 'siws.message', 'siws.signature'])('answers 400 BAD_REQUEST without %s', async (field) => {
    const body = (await scene.target.onboardBody(sub(), Keypair.generate())) as unknown as Record<string, Record<string, unknown>>;
    const [head, tail] = field.split('.') as [string, string | undefined];
    if (tail) delete body[head]![tail];
    else delete body[head];
    expect(failure(await scene.target.onboardRaw(scene.apiKey, body))).toEqual({ status: 400, code: 'BAD_REQUEST' });
  });

  it('answers 400 BAD_REQUEST for a body that is not JSON', async () => {
    const raw = await request(`${scene.target.server.ordersUrl}/partner/onboard`, {
      method: 'POST',
      headers: { 'x-service-key': scene.apiKey, 'content-type': 'application/json' },
      body: '{"sub": ',
    });
    expect(raw.statusCode).toBe(400);
    expect(((await raw.body.json()) as { error: { code: string } }).error.code).toBe('BAD_REQUEST');
  });

  it('needs only X-Service-Key (partner-only)', async () => {
    const answer = await scene.target.orders('/partner/onboard', {
      method: 'POST',
      json: await scene.target.onboardBody(sub(), Keypair.generate()),
    });
    expect(failure(answer)).toEqual({ status: 401, code: 'INVALID_API_KEY' });
  });

  describe('answers 400 SIWS_INVALID when a SIWS check fails', () => {
    const cases: [string, (wallet: Keypair) => Promise<{ message?: string; signer?: Keypair; userPubkey?: string }>][] = [
      ['CRLF line endings', async (w) => ({ message: (await scene.target.siwsMessage(w.publicKey.toBase58())).replace(/\n/g, '\r\n') })],
      ['no trailing newline', async (w) => ({ message: (await scene.target.siwsMessage(w.publicKey.toBase58())).slice(0, -1) })],
      ['Issued At 11 minutes ago', async (w) => ({ message: await scene.target.siwsMessage(w.publicKey.toBase58(), -660) })],
      ['Issued At 11 minutes ahead', async (w) => ({ message: await scene.target.siwsMessage(w.publicKey.toBase58(), 660) })],
      ['a signature by another wallet', async () => ({ signer: Keypair.generate() })],
      [
        'a message naming another wallet, signed by it',
        async () => {
          const other = Keypair.generate();
          return { message: await scene.target.siwsMessage(other.publicKey.toBase58()), signer: other };
        },
      ],
      ['a nonce of 7 characters', async (w) => ({ message: await scene.target.siwsMessage(w.publicKey.toBase58(), 0, 'abc1234') })],
      [
        'another domain',
        async (w) => ({ message: (await scene.target.siwsMessage(w.publicKey.toBase58())).replace(/^[^ ]+/, 'evil.example') }),
      ],
      [
        'the chain id of the other environment',
        async (w) => ({
          message: (await scene.target.siwsMessage(w.publicKey.toBase58())).replace('Chain ID: devnet', 'Chain ID: mainnet'),
        }),
      ],
      [
        'a template line left out',
        async (w) => ({ message: (await scene.target.siwsMessage(w.publicKey.toBase58())).replace('Version: 1\n', '') }),
      ],
      [
        'a statement the form does not have',
        async (w) => ({ message: (await scene.target.siwsMessage(w.publicKey.toBase58())).replace('\n\nURI:', '\n\nSign in.\n\nURI:') }),
      ],
      [
        'a message over 1024 bytes',
        async (w) => ({ message: await scene.target.siwsMessage(w.publicKey.toBase58(), 0, 'a'.repeat(1000)) }),
      ],
    ];
    it.each(cases)('%s', async (_name, change) => {
      const wallet = Keypair.generate();
      const body = await scene.target.onboardBody(sub(), wallet, await change(wallet));
      expect(failure(await scene.target.onboardRaw(scene.apiKey, body))).toEqual({ status: 400, code: 'SIWS_INVALID' });
    });

    it('a signature over other bytes', async () => {
      const wallet = Keypair.generate();
      const body = await scene.target.onboardBody(sub(), wallet);
      body.siws.signature = signSiwsMessage(`${body.siws.message} `, wallet.secretKey);
      expect(failure(await scene.target.onboardRaw(scene.apiKey, body))).toEqual({ status: 400, code: 'SIWS_INVALID' });
    });
  });

  it('accepts Issued At 9 minutes either side, and a message of exactly 1024 bytes', async () => {
    for (const offset of [-540, 540]) {
      const wallet = Keypair.generate();
      const body = await scene.target.onboardBody(sub(), wallet, {
        message: await scene.target.siwsMessage(wallet.publicKey.toBase58(), offset),
      });
      expect((await scene.target.onboardRaw(scene.apiKey, body)).status).toBe(200);
    }
    const wallet = Keypair.generate();
    const short = await scene.target.siwsMessage(wallet.publicKey.toBase58(), 0, 'n');
    const message = await scene.target.siwsMessage(wallet.publicKey.toBase58(), 0, 'n'.repeat(1024 - Buffer.byteLength(short) + 1));
    expect(Buffer.byteLength(message)).toBe(1024);
    expect((await scene.target.onboardRaw(scene.apiKey, await scene.target.onboardBody(sub(), wallet, { message }))).status).toBe(200);
  });

  it('judges freshness by the virtual clock', async () => {
    const wallet = Keypair.generate();
    const body = await scene.target.onboardBody(sub(), wallet);
    await scene.target.advanceClock(11 * 60);
    expect(failure(await scene.target.onboardRaw(scene.apiKey, body))).toEqual({ status: 400, code: 'SIWS_INVALID' });
  });
});

describe('onboarding states set up through the control API', () => {
  const scene = tenantServer();
  const walletState = (wallet: string, state: string) => scene.target.provision('POST', '/wallet-states', { wallet, state });

  it('answers 409 WALLET_NEEDS_USER_CONSENT for a new user whose wallet needs consent; an onboarded user keeps working', async () => {
    const wallet = Keypair.generate();
    await walletState(wallet.publicKey.toBase58(), 'needs-user-consent');
    expect(failure(await scene.target.onboardRaw(scene.apiKey, await scene.target.onboardBody(sub(), wallet)))).toEqual({
      status: 409,
      code: 'WALLET_NEEDS_USER_CONSENT',
    });
    const id = sub();
    const bound = await scene.target.onboard(scene.apiKey, id);
    await walletState(bound.wallet.publicKey.toBase58(), 'needs-user-consent');
    expect((await scene.target.onboardRaw(scene.apiKey, await scene.target.onboardBody(id, bound.wallet))).status).toBe(200);
  });

  it('answers 409 ONBOARDING_INCOMPLETE on user-scoped calls of an incomplete manager until the user onboards again', async () => {
    const id = sub();
    const user = await scene.target.onboard(scene.apiKey, id);
    await walletState(user.walletAddress, 'manager-incomplete');
    for (const path of ['/me', '/me/balance'])
      expect(failure(await scene.target.asUser(scene.apiKey, id, path))).toEqual({ status: 409, code: 'ONBOARDING_INCOMPLETE' });
    const again = await scene.target.onboardRaw(scene.apiKey, await scene.target.onboardBody(id, user.wallet));
    expect((again.body as { data: unknown }).data).toEqual({ userId: user.userId, walletAddress: user.walletAddress });
    expect((await scene.target.asUser(scene.apiKey, id, '/me')).status).toBe(200);
  });

  it('answers PROVISIONING_FAILED 502 upstream and 500 unexpected, stores nothing, and a repeat succeeds', async () => {
    const id = sub();
    const wallet = Keypair.generate();
    try {
      for (const [provisioning, status] of [
        ['upstream', 502],
        ['unexpected', 500],
      ] as const) {
        await scene.target.faults({ provisioning });
        expect(failure(await scene.target.onboardRaw(scene.apiKey, await scene.target.onboardBody(id, wallet)))).toEqual({
          status,
          code: 'PROVISIONING_FAILED',
        });
        expect(failure(await scene.target.asUser(scene.apiKey, id, '/me'))).toEqual({ status: 401, code: 'UNAUTHORIZED' });
      }
      // A known, fully provisioned sub has nothing to provision: its repeat succeeds under the fault too.
      await scene.target.faults({ provisioning: 'ok' });
      const user = await scene.target.onboard(scene.apiKey, id, wallet);
      await scene.target.faults({ provisioning: 'upstream' });
      expect((await scene.target.onboardRaw(scene.apiKey, await scene.target.onboardBody(id, wallet))).body).toMatchObject({
        data: { userId: user.userId },
      });
      // An incomplete manager is provisioned again on onboarding, so the fault hits it.
      await walletState(user.walletAddress, 'manager-incomplete');
      expect(failure(await scene.target.onboardRaw(scene.apiKey, await scene.target.onboardBody(id, wallet)))).toEqual({
        status: 502,
        code: 'PROVISIONING_FAILED',
      });
    } finally {
      await scene.target.faults({ provisioning: 'ok' });
    }
  });
});

describe('GET /me and GET /me/balance', () => {
  const scene = tenantServer();

  it('GET /me resolves X-Service-User to the onboarded user, sessionId empty', async () => {
    const id = sub();
    const user = await scene.target.onboard(scene.apiKey, id);
    const answer = await scene.target.asUser(scene.apiKey, id, '/me');
    expect(answer.status).toBe(200);
    expect((answer.body as { data: unknown }).data).toEqual({ userId: user.userId, walletAddress: user.walletAddress, sessionId: '' });
    expect(failure(await scene.target.asUser(scene.apiKey, undefined, '/me'))).toEqual({ status: 401, code: 'UNAUTHORIZED' });
    expect(failure(await scene.target.asUser(scene.apiKey, 'never-onboarded', '/me'))).toEqual({ status: 401, code: 'UNAUTHORIZED' });
  });

  it('a fresh manager has one native row of zeros; hideZero=true drops it', async () => {
    const id = sub();
    const user = await scene.target.onboard(scene.apiKey, id);
    const plain = (await scene.target.asUser(scene.apiKey, id, '/me/balance')).body as {
      data: { walletAddress: string; balances: unknown[] };
    };
    expect(plain.data).toEqual({
      walletAddress: user.walletAddress,
      balances: [
        {
          mint: 'So11111111111111111111111111111111111111112',
          symbol: 'SOL',
          decimals: 9,
          programId: 'native',
          totalBalance: '0',
          lockedForFutureTxns: '0',
          withdrawalPending: '0',
          availableToWithdraw: '0',
          lockedBreakdown: [],
        },
      ],
    });
    expect(((await scene.target.asUser(scene.apiKey, id, '/me/balance?hideZero=false')).body as { data: unknown }).data).toEqual(
      plain.data,
    );
    expect(((await scene.target.asUser(scene.apiKey, id, '/me/balance?hideZero=true')).body as { data: unknown }).data).toEqual({
      walletAddress: user.walletAddress,
      balances: [],
    });
    expect(failure(await scene.target.asUser(scene.apiKey, id, '/me/balance?hideZero=yes'))).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
  });

  it('funded balances: symbols only for SOL, USDC, USDT; decimals and program per mint (token-2022 included)', async () => {
    const id = sub();
    const user = await scene.target.onboard(scene.apiKey, id);
    expect(await scene.target.fund(user.walletAddress, 'native', '2000000000')).toBe('2000000000');
    expect(await scene.target.fund(user.walletAddress, 'native', '5')).toBe('2000000005');
    await scene.target.fund(user.walletAddress, 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', '75000000');
    await scene.target.fund(user.walletAddress, 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', '1');
    await scene.target.fund(user.walletAddress, 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN', '0');
    await scene.target.fund(user.walletAddress, '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo', '123456');
    const rows = ((await scene.target.asUser(scene.apiKey, id, '/me/balance')).body as { data: { balances: Record<string, unknown>[] } })
      .data.balances;
    expect(rows.map((r) => [r.symbol, r.decimals, r.programId, r.totalBalance, r.availableToWithdraw])).toEqual([
      ['SOL', 9, 'native', '2000000005', '2000000005'],
      ['USDC', 6, 'token', '75000000', '75000000'],
      ['USDT', 6, 'token', '1', '1'],
      [null, 6, 'token', '0', '0'],
      [null, 6, 'token-2022', '123456', '123456'],
    ]);
    const testMint = Keypair.generate().publicKey.toBase58();
    await scene.target.fund(user.walletAddress, testMint, '7');
    const token2022 = Keypair.generate().publicKey.toBase58();
    await scene.target.fund(user.walletAddress, token2022, '8', { decimals: 2, programId: 'token-2022' });
    const all = ((await scene.target.asUser(scene.apiKey, id, '/me/balance')).body as { data: { balances: Record<string, unknown>[] } })
      .data.balances;
    expect(all.slice(5).map((r) => [r.mint, r.symbol, r.decimals, r.programId, r.totalBalance])).toEqual([
      [testMint, null, 6, 'token', '7'],
      [token2022, null, 2, 'token-2022', '8'],
    ]);
    const hidden = (
      (await scene.target.asUser(scene.apiKey, id, '/me/balance?hideZero=true')).body as { data: { balances: Record<string, unknown>[] } }
    ).data.balances;
    expect(hidden.map((r) => r.mint)).not.toContain('JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN');
    expect(hidden).toHaveLength(6);
  });

  it('answers 500 RPC_ERROR while the chain is down', async () => {
    const id = sub();
    await scene.target.onboard(scene.apiKey, id);
    await scene.target.faults({ rpc: 'down' });
    try {
      expect(failure(await scene.target.asUser(scene.apiKey, id, '/me/balance'))).toEqual({ status: 500, code: 'RPC_ERROR' });
    } finally {
      await scene.target.faults({ rpc: 'up' });
    }
    expect((await scene.target.asUser(scene.apiKey, id, '/me/balance')).status).toBe(200);
  });
});
