import bs58 from 'bs58';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARAMETERS } from '../../fixtures/server/quotes/engine/parameters.ts';
import { VENUES } from '../../fixtures/server/quotes/engine/venue-catalogue.ts';
import { type Answer, Target } from './support.ts';

const DOCUMENTED_INFO = {
  protocolVersion: { major: expect.any(Number), minor: expect.any(Number), patch: expect.any(Number) },
  settings: {
    quoteUpdate: { intervalMs: { min: 400, max: 3600000, default: 800 }, numQuotes: { min: 1, max: 10, default: 1 } },
    swap: { slippageBps: { min: 0, max: 10000, default: 100 }, onlyDirectRoutes: false, addSizeConstraint: true, sizeConstraint: 1168 },
    transaction: { closeInputTokenAccount: false, createOutputTokenAccount: true },
    connection: { concurrentStreams: 1 },
  },
};

const ENDPOINTS = ['/api/v1/info', '/api/v1/venues', '/api/v1/providers', '/api/v1/quote/swap'];

function pairs(body: unknown): string[] {
  const { labels, programIds } = body as { labels: string[]; programIds: string[] };
  return labels.map((label, i) => `${label}=${programIds[i]}`).sort();
}

describe('quote key path: edge, platform, debugging', () => {
  let target: Target;
  let key: string;
  beforeAll(async () => {
    target = await Target.start();
    key = await target.quoteKey();
  });
  afterAll(() => target.close());

  const expectEdge403 = (answer: Answer): void => {
    expect(answer.status).toBe(403);
    expect(answer.contentType).toBe('application/json');
    expect(answer.body).toEqual({ message: expect.stringMatching(/auth/i) });
    expect(answer.headers['x-edge-requestid']).toBeTruthy();
  };

  it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const)(
    '%s on every key-path endpoint is the edge 403, key or not',
    async (method) => {
      for (const path of ENDPOINTS) {
        expectEdge403(await target.quotes(path, { method, headers: { 'x-api-key': key } }));
        expectEdge403(await target.quotes(path, { method }));
      }
    },
  );

  it('unknown paths are the edge 403, before any key check', async () => {
    for (const path of ['/api/v1/nope', '/api/v1/info/', '/api/v2/info', '/api/v1/ws', '/api/v1', '/api']) {
      expectEdge403(await target.quotes(path, { headers: { 'x-api-key': key } }));
      expectEdge403(await target.quotes(path));
    }
  });

  it('GET /api/v1/quote/price does not exist on the key path (edge 403)', async () => {
    expectEdge403(await target.quotes('/api/v1/quote/price?inputMint=x', { headers: { 'x-api-key': key } }));
  });

  it('a missing or unknown x-api-key is 401 {error:{code:"invalid_api_key"}} in JSON, whatever Accept says', async () => {
    for (const path of ENDPOINTS) {
      const cases: Record<string, string>[] = [
        {},
        { 'x-api-key': 'qk_never-issued' },
        { 'x-api-key': 'qk_never-issued', accept: 'application/vnd.msgpack' },
      ];
      for (const headers of cases) {
        const answer = await target.quotes(path, { headers });
        expect(answer.status).toBe(401);
        expect(answer.contentType).toBe('application/json');
        expect(answer.body).toEqual({ error: { code: 'invalid_api_key' } });
        expect(answer.headers['x-edge-requestid']).toBeTruthy();
      }
    }
  });

  it('a revoked key is 401 invalid_api_key', async () => {
    const { apiKey } = await target.provision<{ apiKey: string }>('POST', '/quote-keys', { state: 'revoked' });
    const answer = await target.quotes('/api/v1/info', { headers: { 'x-api-key': apiKey } });
    expect([answer.status, answer.body]).toEqual([401, { error: { code: 'invalid_api_key' } }]);
  });

  it('an order-service key is not a quote key (401)', async () => {
    const { apiKey } = await target.createTenant();
    expect((await target.quotes('/api/v1/info', { headers: { 'x-api-key': apiKey } })).status).toBe(401);
  });

  it('every response carries a distinct x-edge-requestid', async () => {
    const answers = [
      await target.quotes('/api/v1/info', { headers: { 'x-api-key': key } }),
      await target.quotes('/api/v1/info', { headers: { 'x-api-key': key, accept: 'application/json' } }),
      await target.quotes('/api/v1/venues?includeProgramIds=maybe', { headers: { 'x-api-key': key } }),
      await target.quotes('/api/v1/info'),
      await target.quotes('/api/v1/info', { method: 'POST' }),
    ];
    const ids = answers.map((a) => a.headers['x-edge-requestid']);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('quote/swap passes edge and platform and reaches the engine (a 400 naming the first missing parameter)', async () => {
    const answer = await target.quotes('/api/v1/quote/swap', { headers: { 'x-api-key': key } });
    expect(answer.status).toBe(400);
    expect(answer.contentType).toMatch(/^text\/plain/);
    expect(answer.body).toMatch(/inputMint/);
    expect(answer.headers['x-edge-requestid']).toBeTruthy();
  });

  it('a distributor JWT on the key path (Bearer or ?auth=) is 401 invalid_api_key', async () => {
    const { jwt } = await target.quoteJwt();
    for (const answer of [
      await target.quotes('/api/v1/info', { headers: { authorization: `Bearer ${jwt}` } }),
      await target.quotes(`/api/v1/info?auth=${jwt}`),
    ]) {
      expect([answer.status, answer.body]).toEqual([401, { error: { code: 'invalid_api_key' } }]);
    }
  });
});

describe('quote key path: encodings', () => {
  let target: Target;
  beforeAll(async () => {
    target = await Target.start();
  });
  afterAll(() => target.close());

  it.each([
    ['Accept omitted', null, 'application/vnd.msgpack'],
    ['application/vnd.msgpack', 'application/vnd.msgpack', 'application/vnd.msgpack'],
    ['application/json', 'application/json', 'application/json'],
    ['application/json with parameters', 'application/json; charset=utf-8', 'application/json'],
  ])('%s gives %s', async (_name, accept, expected) => {
    for (const path of ['/api/v1/info', '/api/v1/venues', '/api/v1/providers']) {
      const answer = await target.keyPath(path, accept);
      expect(answer.status).toBe(200);
      expect(answer.contentType).toBe(expected);
    }
  });

  it('JSON and MessagePack decode to the same values', async () => {
    const json = await target.keyPath('/api/v1/info', 'application/json');
    const msgpack = await target.keyPath('/api/v1/info', null);
    expect(msgpack.body).toEqual(json.body);
    const jsonProviders = await target.keyPath('/api/v1/providers?includeIcons=true', 'application/json');
    const msgpackProviders = await target.keyPath('/api/v1/providers?includeIcons=true', 'application/vnd.msgpack');
    expect(msgpackProviders.body).toEqual(jsonProviders.body);
    const jsonVenues = await target.keyPath('/api/v1/venues?includeProgramIds=true', 'application/json');
    const msgpackVenues = await target.keyPath('/api/v1/venues?includeProgramIds=true', null);
    expect(pairs(msgpackVenues.body)).toEqual(pairs(jsonVenues.body));
  });
});

describe('quote key path: GET /api/v1/info', () => {
  let target: Target;
  beforeAll(async () => {
    target = await Target.start();
  });
  afterAll(() => target.close());

  it("publishes exactly the document's settings, protocolVersion as three integers", async () => {
    const answer = await target.keyPath('/api/v1/info');
    expect(answer.body).toEqual(DOCUMENTED_INFO);
    const version = (answer.body as { protocolVersion: Record<string, number> }).protocolVersion;
    expect(Object.values(version).every((n) => Number.isInteger(n) && n >= 0)).toBe(true);
  });

  it('takes every published value from the parameter table', () => {
    const row = (name: string) => PARAMETERS.find((p) => p.name === name);
    expect(row('numQuotes')).toMatchObject({ min: 1, max: 10, default: 1 });
    expect(row('slippageBps')).toMatchObject({ min: 0, max: 10000, default: 100 });
    expect(row('intervalMs')).toMatchObject({ min: 400, max: 3600000, default: 800 });
    expect(new Set(PARAMETERS.map((p) => p.name)).size).toBe(PARAMETERS.length);
  });
});

describe('quote key path: GET /api/v1/venues', () => {
  let target: Target;
  beforeAll(async () => {
    target = await Target.start();
  });
  afterAll(() => target.close());

  it('lists 10 to 20 unique labels and no programIds by default or with includeProgramIds=false', async () => {
    for (const path of ['/api/v1/venues', '/api/v1/venues?includeProgramIds=false']) {
      const body = (await target.keyPath(path)).body as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(['labels']);
      const labels = body.labels as string[];
      expect(labels.length).toBeGreaterThanOrEqual(10);
      expect(labels.length).toBeLessThanOrEqual(20);
      expect(new Set(labels).size).toBe(labels.length);
    }
  });

  it('with includeProgramIds=true pairs each label with its base58 program id, the same pairs every time', async () => {
    const expected = VENUES.map((v) => `${v.label}=${v.programId}`).sort();
    for (let i = 0; i < 3; i += 1) {
      const body = (await target.keyPath('/api/v1/venues?includeProgramIds=true')).body as { labels: string[]; programIds: string[] };
      expect(body.programIds).toHaveLength(body.labels.length);
      expect(pairs(body)).toEqual(expected);
      for (const id of body.programIds) {
        expect(id).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
        expect(bs58.decode(id)).toHaveLength(32);
      }
    }
  });

  it('changes label order between requests', async () => {
    const orders = new Set<string>();
    for (let i = 0; i < 8; i += 1)
      orders.add(JSON.stringify(((await target.keyPath('/api/v1/venues')).body as { labels: string[] }).labels));
    expect(orders.size).toBeGreaterThan(1);
  });

  it.each(['1', 'TRUE', 'yes', ''])('includeProgramIds=%j is a 400 in plain text naming the field', async (value) => {
    const answer = await target.keyPath(`/api/v1/venues?includeProgramIds=${value}`);
    expect(answer.status).toBe(400);
    expect(answer.contentType).toMatch(/^text\/plain/);
    expect(answer.body).toContain('includeProgramIds');
  });
});

describe('quote key path: GET /api/v1/providers', () => {
  let target: Target;
  beforeAll(async () => {
    target = await Target.start();
  });
  afterAll(() => target.close());

  it('offers two DexAggregator providers whose ids differ from their names, no icons unless asked', async () => {
    for (const path of ['/api/v1/providers', '/api/v1/providers?includeIcons=false']) {
      const providers = (await target.keyPath(path)).body as Record<string, unknown>[];
      expect(providers).toHaveLength(2);
      expect(new Set(providers.map((p) => p.id)).size).toBe(2);
      for (const p of providers) {
        expect(Object.keys(p).sort()).toEqual(['id', 'kind', 'name']);
        expect(p.kind).toBe('DexAggregator');
        expect(p.name).not.toBe(p.id);
      }
    }
  });

  it('with includeIcons=true each provider has a data:image/png URI of a real 48x48 PNG, distinct per provider', async () => {
    const providers = (await target.keyPath('/api/v1/providers?includeIcons=true')).body as { iconUri48: string }[];
    const icons = providers.map((p) => p.iconUri48);
    expect(new Set(icons).size).toBe(2);
    for (const uri of icons) {
      const match = /^data:image\/png;base64,([A-Za-z0-9+/=]+)$/.exec(uri);
      expect(match).not.toBeNull();
      const png = PNG.sync.read(Buffer.from(match![1]!, 'base64'));
      expect([png.width, png.height]).toEqual([48, 48]);
      const opaque = new Set<string>();
      for (let i = 0; i < png.data.length; i += 4) if (png.data[i + 3] === 255) opaque.add(png.data.subarray(i, i + 3).join(','));
      expect(opaque.size).toBeGreaterThanOrEqual(2);
    }
  });

  it('draws the same icons on every request (deterministic)', async () => {
    const a = (await target.keyPath('/api/v1/providers?includeIcons=true')).body;
    const b = (await target.keyPath('/api/v1/providers?includeIcons=true', null)).body;
    expect(b).toEqual(a);
  });

  it('includeIcons=1 is a 400 in plain text naming the field', async () => {
    const answer = await target.keyPath('/api/v1/providers?includeIcons=1');
    expect(answer.status).toBe(400);
    expect(answer.body).toContain('includeIcons');
  });
});

describe('quote key path: plans (rate limit and monthly allowance)', () => {
  let target: Target;
  beforeAll(async () => {
    target = await Target.start();
  });
  afterAll(() => target.close());

  it('admits rps*60 requests in 60 seconds, then 429 rate_limited with retry-after in seconds', async () => {
    const key = await target.quoteKey({ rps: 0.1 });
    const headers = { 'x-api-key': key, accept: 'application/json' };
    for (let i = 0; i < 6; i += 1) expect((await target.quotes('/api/v1/info', { headers })).status).toBe(200);
    const limited = await target.quotes('/api/v1/providers', { headers });
    expect(limited.status).toBe(429);
    expect(limited.contentType).toBe('application/json');
    expect(limited.body).toEqual({ error: { code: 'rate_limited' } });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect(limited.headers['x-edge-requestid']).toBeTruthy();
  });

  it('answers 429 allowance_exhausted once the monthly allowance is spent, and retrying does not help', async () => {
    const key = await target.quoteKey({ rps: 100, monthlyAllowance: 3 });
    const headers = { 'x-api-key': key };
    for (let i = 0; i < 3; i += 1) expect((await target.quotes('/api/v1/venues', { headers })).status).toBe(200);
    for (let i = 0; i < 2; i += 1) {
      const spent = await target.quotes('/api/v1/info', { headers });
      expect(spent.status).toBe(429);
      expect(spent.body).toEqual({ error: { code: 'allowance_exhausted' } });
    }
  });

  it('edge 403s and 401s do not count against any plan; engine 400s do', async () => {
    const key = await target.quoteKey({ rps: 100, monthlyAllowance: 2 });
    const headers = { 'x-api-key': key };
    await target.quotes('/api/v1/info', { method: 'POST', headers });
    await target.quotes('/api/v1/nope', { headers });
    expect((await target.quotes('/api/v1/venues?includeProgramIds=x', { headers })).status).toBe(400);
    expect((await target.quotes('/api/v1/info', { headers })).status).toBe(200);
    expect((await target.quotes('/api/v1/info', { headers })).status).toBe(429);
  });

  it('pools limits and credits across the keys of one organization', async () => {
    const first = await target.provision<{ apiKey: string; organizationId: string }>('POST', '/quote-keys', {
      rps: 100,
      monthlyAllowance: 3,
    });
    const second = await target.provision<{ apiKey: string }>('POST', '/quote-keys', { organizationId: first.organizationId });
    for (const key of [first.apiKey, second.apiKey, first.apiKey]) {
      expect((await target.quotes('/api/v1/info', { headers: { 'x-api-key': key } })).status).toBe(200);
    }
    const spent = await target.quotes('/api/v1/info', { headers: { 'x-api-key': second.apiKey } });
    expect(spent.body).toEqual({ error: { code: 'allowance_exhausted' } });
  });

  it('gives a key created without a plan an unlimited one', async () => {
    const headers = { 'x-api-key': await target.quoteKey() };
    const statuses = new Set<number>();
    for (let i = 0; i < 700; i += 1) statuses.add((await target.quotes('/api/v1/info', { headers })).status);
    expect([...statuses]).toEqual([200]);
  });

  it("keeps each key's plan to itself", async () => {
    const spent = await target.quoteKey({ monthlyAllowance: 0 });
    const fresh = await target.quoteKey();
    expect((await target.quotes('/api/v1/info', { headers: { 'x-api-key': spent } })).status).toBe(429);
    expect((await target.quotes('/api/v1/info', { headers: { 'x-api-key': fresh } })).status).toBe(200);
  });
});
