import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, Target } from './support.ts';
import { MINTS, OTHER_WALLET, type QuoteBody, routesOf, SOL_TO_USDC, WALLET } from './quote-support.ts';

/** The distributor path (Gateway) at {gateway_url} = /gateway: JWT credential, MessagePack, fee parameters. */

const query = (params: Record<string, string | number | boolean | undefined>) =>
  new URLSearchParams(Object.entries(params).flatMap(([k, v]): [string, string][] => (v === undefined ? [] : [[k, String(v)]]))).toString();

const expectMsgpack200 = (answer: Answer): void => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.contentType).toBe('application/vnd.msgpack');
  expect(answer.headers['x-edge-requestid']).toBeTruthy();
};

describe('distributor path', () => {
  let target: Target;
  let jwt: string;
  let bearer: Record<string, string>;
  beforeAll(async () => {
    target = await Target.start();
    ({ jwt } = await target.quoteJwt());
    bearer = { authorization: `Bearer ${jwt}` };
  });
  afterAll(() => target.close());

  it('serves info, venues, providers and quote/swap with the JWT as Bearer or ?auth=, in MessagePack whatever Accept says', async () => {
    for (const path of [
      '/api/v1/info',
      '/api/v1/venues?includeProgramIds=true',
      '/api/v1/providers',
      `/api/v1/quote/swap?${query(SOL_TO_USDC)}`,
    ]) {
      expectMsgpack200(await target.gateway(path, bearer));
      expectMsgpack200(await target.gateway(path, { ...bearer, accept: 'application/json' }));
      expectMsgpack200(await target.gateway(`${path}${path.includes('?') ? '&' : '?'}auth=${jwt}`));
    }
  });

  it('answers with the same types as the key path', async () => {
    const viaGateway = (await target.gateway('/api/v1/info', bearer)).body;
    expect(viaGateway).toEqual((await target.keyPath('/api/v1/info', null)).body);
    const quote = (await target.gateway(`/api/v1/quote/swap?${query({ ...SOL_TO_USDC, numQuotes: 2 })}`, bearer)).body as QuoteBody;
    expect(Object.keys(quote.quotes).sort()).toEqual(['dflow', 'titan']);
    expect(routesOf(quote)[0]![1].instructions[0]!.d).toBeInstanceOf(Uint8Array);
  });

  it('gives 401 without a token, with a garbage, unsigned or foreign token, and with a key-path key', async () => {
    const [header, payload] = jwt.split('.') as [string, string, string];
    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`;
    const foreign = `${header}.${payload}.${createHmac('sha256', 'another secret').update(`${header}.${payload}`).digest('base64url')}`;
    const apiKey = await target.quoteKey();
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer abc.def.ghi' },
      { authorization: `Bearer ${unsigned}` },
      { authorization: `Bearer ${foreign}` },
      { authorization: jwt },
      { 'x-api-key': apiKey },
    ];
    for (const headers of attempts) {
      for (const path of ['/api/v1/info', `/api/v1/quote/swap?${query(SOL_TO_USDC)}`]) {
        const answer = await target.gateway(path, headers);
        expect(answer.status, JSON.stringify(headers)).toBe(401);
        expect(answer.headers['x-edge-requestid']).toBeTruthy();
      }
    }
  });

  it('accepts the fee parameters there, and answers 400 for a malformed one, 404 for no route', async () => {
    const plain = (await target.gateway(`/api/v1/quote/swap?${query({ ...SOL_TO_USDC, providers: 'dflow' })}`, bearer)).body as QuoteBody;
    const withFee = await target.gateway(
      `/api/v1/quote/swap?${query({ ...SOL_TO_USDC, providers: 'dflow', feeAccount: OTHER_WALLET, feeBps: 50 })}`,
      bearer,
    );
    expectMsgpack200(withFee);
    const route = (withFee.body as QuoteBody).quotes.dflow!;
    expect(BigInt(route.outAmount)).toBe(BigInt(plain.quotes.dflow!.outAmount) - (BigInt(plain.quotes.dflow!.outAmount) * 50n) / 10000n);
    expect(route.instructions.some((ix) => ix.a.some((m) => m.p === OTHER_WALLET && m.w))).toBe(true);
    expectMsgpack200(
      await target.gateway(
        `/api/v1/quote/swap?${query({ ...SOL_TO_USDC, feeAccount: OTHER_WALLET, feeBps: 50, feeFromInputMint: true })}`,
        bearer,
      ),
    );
    const malformed: Record<string, string | number>[] = [
      { feeAccount: 'nope' },
      { feeBps: 'x' },
      { feeBps: 10001 },
      { feeFromInputMint: 'maybe' },
      { inputMint: 'x' },
      { numQuotes: 11 },
    ];
    for (const bad of malformed) {
      expect((await target.gateway(`/api/v1/quote/swap?${query({ ...SOL_TO_USDC, ...bad })}`, bearer)).status).toBe(400);
    }
    expect((await target.gateway(`/api/v1/quote/swap?${query({ ...SOL_TO_USDC, dexes: 'Nope' })}`, bearer)).status).toBe(404);
    expect((await target.gateway('/api/v1/venues?includeProgramIds=maybe', bearer)).status).toBe(400);
  });

  it('serves quote/price there only: prices of the quote without instructions', async () => {
    const answer = await target.gateway(`/api/v1/quote/price?${query({ ...SOL_TO_USDC, numQuotes: 2 })}`, bearer);
    expectMsgpack200(answer);
    for (const [, route] of routesOf(answer.body)) {
      expect(Object.keys(route).sort()).toEqual(['contextSlot', 'inAmount', 'outAmount', 'slippageBps', 'steps']);
    }
    expect((await target.keyPath(`/api/v1/quote/price?${query(SOL_TO_USDC)}`)).status).toBe(403);
  });

  it("counts a JWT's requests against its organization's plan, pooled with the organization's keys", async () => {
    const { apiKey, organizationId } = await target.provision<{ apiKey: string; organizationId: string }>('POST', '/quote-keys', {
      monthlyAllowance: 2,
    });
    const pooled = await target.quoteJwt(organizationId);
    expect((await target.quotes('/api/v1/info', { headers: { 'x-api-key': apiKey } })).status).toBe(200);
    expect((await target.gateway('/api/v1/info', { authorization: `Bearer ${pooled.jwt}` })).status).toBe(200);
    expect((await target.gateway('/api/v1/info', { authorization: `Bearer ${pooled.jwt}` })).status).toBe(429);
  });

  it('answers unknown paths and methods with the edge 403', async () => {
    for (const [path, method] of [
      ['/api/v1/ws', 'GET'],
      ['/api/v1/nope', 'GET'],
      ['/api/v1/info', 'POST'],
    ] as const) {
      const answer = await (method === 'GET'
        ? target.gateway(path, bearer)
        : target.quotes(`/gateway${path}`, { method, headers: bearer }));
      expect(answer.status).toBe(403);
    }
  });

  it('takes the same wallet rules: an unusable wallet is a 404', async () => {
    expect((await target.gateway(`/api/v1/quote/swap?${query({ ...SOL_TO_USDC, userPublicKey: MINTS.USDT })}`, bearer)).status).toBe(404);
    expect((await target.gateway(`/api/v1/quote/swap?${query({ ...SOL_TO_USDC, userPublicKey: WALLET })}`, bearer)).status).toBe(200);
  });
});
