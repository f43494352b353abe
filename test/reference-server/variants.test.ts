import { readFileSync } from 'node:fs';
import bs58 from 'bs58';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { variants } from '../../fixtures/mutants/index.ts';
import { ASSUMPTION_VARIANTS } from '../../fixtures/mutants/variants.ts';
import { VENUES } from '../../fixtures/server/quotes/engine/venue-catalogue.ts';
import { errorCode, Target } from './support.ts';
import { asJson, MINTS, type QuoteBody, routesOf, SOL_TO_USDC, WALLET } from './quote-support.ts';
import { VISIBLE } from './variant-probes.ts';

/**
 * Benign variants keep every documented fact. `documentedFacts` reads the server the way a tolerant client does
 * (extra fields ignored, key order ignored, messages not compared, ids opaque, venue order not relied on, provider
 * kind any non-empty string) and is run against the faithful server and against each variant.
 */

type Json = Record<string, unknown>;

async function documentedFacts(target: Target): Promise<void> {
  // GET /health: three shapes, outside the envelope.
  for (const [database, status, shape] of [
    ['healthy', 200, 'ok'],
    ['unhealthy', 200, 'degraded'],
    ['down', 503, 'error'],
  ] as const) {
    await target.faults({ database });
    const health = await target.orders('/health');
    const body = health.body as Json;
    expect(health.status).toBe(status);
    expect(body.status).toBe(shape);
    expect(body).not.toHaveProperty('success');
    if (database === 'down') expect(body).not.toHaveProperty('services');
    else expect((body.services as Json).database).toBe(database);
  }
  await target.faults({ database: 'healthy' });

  // Envelope, auth, request id.
  const { tenantId, apiKey } = await target.createTenant();
  const listed = await target.partnerOrders(apiKey);
  expect(listed.status).toBe(200);
  expect((listed.body as Json).success).toBe(true);
  expect((listed.body as Json).data).toEqual([]);
  const revoked = await target.partnerOrders(await target.createKey(tenantId, 'revoked'));
  expect({ status: revoked.status, code: errorCode(revoked) }).toEqual({ status: 401, code: 'KEY_REVOKED' });
  const missing = await target.partnerOrders(undefined, '');
  const error = (missing.body as { success: unknown; error: Json }).error;
  expect((missing.body as Json).success).toBe(false);
  expect([missing.status, error.code, typeof error.message]).toEqual([401, 'INVALID_API_KEY', 'string']);
  expect((await target.orders('/health', { headers: { 'x-request-id': 'echo-me' } })).headers['x-request-id']).toBe('echo-me');
  expect((await target.orders('/health')).headers['x-request-id']).toMatch(/\S/);

  // Quote key path: edge, platform, debugging.
  const edge = await target.keyPath('/api/v1/quote/price');
  expect(edge.status).toBe(403);
  expect(typeof (edge.body as Json).message).toBe('string');
  expect(edge.body).not.toHaveProperty('error');
  const unauthorized = await target.quotes('/api/v1/info');
  expect(unauthorized.status).toBe(401);
  expect(((unauthorized.body as Json).error as Json).code).toBe('invalid_api_key');
  for (const answer of [edge, unauthorized]) expect(answer.headers['x-edge-requestid']).toMatch(/\S/);

  // Info, JSON and MessagePack alike.
  const json = await target.keyPath('/api/v1/info', 'application/json');
  const msgpack = await target.keyPath('/api/v1/info', null);
  expect([json.contentType, msgpack.contentType]).toEqual(['application/json', 'application/vnd.msgpack']);
  expect(msgpack.body).toEqual(json.body);
  expect(json.body).toMatchObject({
    protocolVersion: { major: expect.any(Number), minor: expect.any(Number), patch: expect.any(Number) },
    settings: {
      quoteUpdate: { intervalMs: { min: 400, max: 3600000, default: 800 }, numQuotes: { min: 1, max: 10, default: 1 } },
      swap: { slippageBps: { min: 0, max: 10000, default: 100 }, onlyDirectRoutes: false, addSizeConstraint: true, sizeConstraint: 1168 },
      transaction: { closeInputTokenAccount: false, createOutputTokenAccount: true },
      connection: { concurrentStreams: expect.any(Number) }, // "Default 1": any positive allowance
    },
  });

  // Venues: unique labels, program ids only when asked, aligned, base58.
  const plain = (await target.keyPath('/api/v1/venues')).body as Json;
  expect(plain.programIds ?? undefined).toBeUndefined(); // null, like absence, carries none
  const venues = asJson((await target.keyPath('/api/v1/venues?includeProgramIds=true', null)).body) as {
    labels: string[];
    programIds: string[];
  };
  expect(new Set(venues.labels).size).toBe(venues.labels.length);
  expect(venues.labels.map((l, i) => `${l}=${venues.programIds[i]}`).sort()).toEqual(VENUES.map((v) => `${v.label}=${v.programId}`).sort());
  for (const id of venues.programIds) expect(bs58.decode(id)).toHaveLength(32);

  // Providers: two, unique ids, non-empty kind, icons only when asked and 48x48.
  const providers = (await target.keyPath('/api/v1/providers')).body as Json[];
  expect(providers).toHaveLength(2);
  expect(new Set(providers.map((p) => p.id)).size).toBe(2);
  for (const p of providers) {
    for (const field of ['id', 'name', 'kind']) expect(p[field]).toMatch(/\S/);
    expect(p.iconUri48 ?? undefined).toBeUndefined();
  }
  for (const p of (await target.keyPath('/api/v1/providers?includeIcons=true')).body as Json[]) {
    const [, base64] = /^data:image\/png;base64,(.+)$/.exec(String(p.iconUri48)) ?? [];
    const png = PNG.sync.read(Buffer.from(base64 ?? '', 'base64'));
    expect([png.width, png.height]).toEqual([48, 48]);
  }

  // Quotes, read by key: ids opaque, providers possibly missing, extra fields ignored, d raw bytes in MessagePack.
  const providerIds = new Set(providers.map((p) => p.id));
  for (const accept of ['application/json', null]) {
    for (let i = 0; i < 2; i += 1) {
      const answer = await target.swap({ ...SOL_TO_USDC, numQuotes: 2 }, accept);
      expect(answer.status).toBe(200);
      const body = asJson(answer.body) as QuoteBody;
      expect(body).toMatchObject({ id: expect.stringMatching(/\S/), inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: 100000000000 });
      const keys = Object.keys(body.quotes);
      expect(keys.length).toBeGreaterThanOrEqual(1);
      for (const key of keys) expect(providerIds.has(key)).toBe(true);
      expect(keys).toContain(body.metadata.ExpectedWinner);
      expect(body.metadata.expectedWinner).toBe(body.metadata.ExpectedWinner);
      for (const [, route] of routesOf(body)) {
        if (route.steps.length > 0)
          expect(route.steps.filter((s) => s.inputMint === MINTS.SOL).reduce((sum, s) => sum + s.allocPpb, 0)).toBe(1_000_000_000);
        expect(route.instructions.some((ix) => ix.a.some((m) => m.p === WALLET && m.s))).toBe(true);
        for (const ix of route.instructions) expect(typeof ix.d).toBe('string');
      }
    }
  }
  const noRoute = await target.swap({ ...SOL_TO_USDC, dexes: 'Nope' });
  expect(noRoute.status).toBe(404);
  expect(noRoute.body).toMatchObject({
    code: -7,
    quoteId: { tag: expect.stringMatching(/\S/) },
    metadata: { errors: { titan: 'NoRoutesFound', dflow: 'NoRoutesFound' } },
  });
}

async function against(options: { variant?: string }, run: (target: Target) => Promise<void>): Promise<void> {
  const target = await Target.start(options);
  try {
    await run(target);
  } finally {
    await target.close();
  }
}

describe('benign variants keep the documented facts', () => {
  it('the faithful server', () => against({}, documentedFacts));

  it('every variant has a visible change to check', () => {
    expect(Object.keys(VISIBLE).sort()).toEqual(variants.map((v) => v.name).sort());
  });

  it.each(variants.map((v) => v.name))('%s', (name) =>
    against({ variant: name }, async (target) => {
      expect(target.server.variant).toBe(name);
      await documentedFacts(target);
      await VISIBLE[name]!(target);
    }),
  );
});

describe('the variants name the may rules they exercise', () => {
  const levels = new Map<string, string>();
  for (const name of ['order-automation', 'swap-quote']) {
    const catalogue = parse(readFileSync(new URL(`../../specs/rules/${name}.yaml`, import.meta.url), 'utf8')) as {
      rules: { id: string; level: string }[];
    };
    for (const rule of catalogue.rules) levels.set(rule.id, rule.level);
  }

  it.each([...variants, ...ASSUMPTION_VARIANTS].map((v) => [v.name, v.rules] as const))(
    '%s: each rule it names is a may rule of specs/rules',
    (_name, rules) => {
      for (const rule of rules) expect([rule, levels.get(rule)]).toEqual([rule, 'may']);
      expect(new Set(rules).size).toBe(rules.length);
    },
  );

  it('names no may rule only where what a variant changes is no may rule: key order, provider kind (info), when triggers look at the oracle (not shown)', () => {
    expect(
      variants
        .filter((v) => v.rules.length === 0)
        .map((v) => v.name)
        .sort(),
    ).toEqual(['oracle-polled-every-30-seconds', 'provider-kind-other', 'reordered-keys']);
  });
});

describe('a mutant and a variant together', () => {
  it('apply both: the defect and the benign change', async () => {
    const target = await Target.start({ mutant: 'health-ok-status-healthy', variant: 'reordered-keys' });
    try {
      const health = (await target.orders('/health')).body as Json;
      expect(health.status).toBe('healthy');
      expect(Object.keys(health)).toEqual(['services', 'status']);
    } finally {
      await target.close();
    }
  });
});
