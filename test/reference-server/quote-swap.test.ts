import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encode as encodeMsgpack } from '@msgpack/msgpack';
import { PARAMETERS } from '../../fixtures/server/quotes/engine/parameters.ts';
import { POOLS } from '../../fixtures/server/quotes/engine/pools.ts';
import { VENUES } from '../../fixtures/server/quotes/engine/venue-catalogue.ts';
import { Target } from './support.ts';
import { expectCode400, expectNoRoute, expectPlainText400, ok, USDC_TO_JUP } from './quote-swap-expect.ts';
import {
  allocationSums,
  asJson,
  ATA_PROGRAM,
  COMPUTE_BUDGET_PROGRAM,
  MINTS,
  OTHER_WALLET,
  type QuoteBody,
  routesOf,
  SOL_TO_USDC,
  TOKEN_PROGRAM,
  WALLET,
  withoutVolatileFields,
} from './quote-support.ts';

/** GET /api/v1/quote/swap on the key path, over HTTP: parameters, error layers, routes, instructions, sizing. */

const LABELS = new Set(VENUES.map((venue) => venue.label));
const MARKET_MAKERS = VENUES.filter((venue) => venue.marketMaker).map((venue) => venue.label);

describe('quote/swap: parameters, defaults and bounds', () => {
  let target: Target;
  beforeAll(async () => {
    target = await Target.start();
  });
  afterAll(() => target.close());

  it('applies the published defaults: slippageBps 100, one quote, the output account created, nothing closed', async () => {
    const body = ok(await target.swap(USDC_TO_JUP));
    const routes = routesOf(body);
    expect(routes).toHaveLength(1);
    const [, route] = routes[0]!;
    expect(route.slippageBps).toBe(100);
    const creates = route.instructions.filter((ix) => ix.p === ATA_PROGRAM);
    expect(creates.map((ix) => ix.a[3]!.p)).toEqual([MINTS.JUP]);
    expect(route.instructions.some((ix) => ix.p === TOKEN_PROGRAM && Buffer.from(ix.d, 'base64')[0] === 9)).toBe(false);
    expect(body.alts).toBeUndefined();
  });

  it('keeps /api/v1/info and the engine on the same table', async () => {
    const info = (await target.keyPath('/api/v1/info')).body as { settings: Record<string, Record<string, unknown>> };
    const row = (name: string) => PARAMETERS.find((p) => p.name === name)!;
    expect(info.settings.quoteUpdate!.numQuotes).toEqual({
      min: row('numQuotes').min,
      max: row('numQuotes').max,
      default: row('numQuotes').default,
    });
    expect(info.settings.swap!.slippageBps).toEqual({ min: 0, max: 10000, default: 100 });
    expect(info.settings.swap!.sizeConstraint).toBe(row('sizeConstraint').default);
  });

  it.each([
    ['numQuotes', '1', '10', ['0', '11'], 7],
    ['slippageBps', '0', '10000', ['10001', '65535'], 8],
  ] as const)('%s accepts %s and %s and answers %j with {code: %s}', async (name, min, max, outside, code) => {
    for (const value of [min, max]) ok(await target.swap({ ...SOL_TO_USDC, [name]: value }));
    for (const value of outside) expectCode400(await target.swap({ ...SOL_TO_USDC, [name]: value }), code);
  });

  it('returns at most numQuotes routes, exactly numQuotes when more providers can quote', async () => {
    expect(routesOf(ok(await target.swap(SOL_TO_USDC)))).toHaveLength(1);
    expect(routesOf(ok(await target.swap({ ...SOL_TO_USDC, numQuotes: 2 })))).toHaveLength(2);
    expect(routesOf(ok(await target.swap({ ...SOL_TO_USDC, numQuotes: 10 })))).toHaveLength(2);
  });

  it.each([
    ['numQuotes', ['abc', '-1', '1.5', '300', '']],
    ['slippageBps', ['70000', '1e3', '+5']],
    ['amount', ['1.5', '-1', '1e9', 'abc', '18446744073709551616', '']],
    ['sizeConstraint', ['4294967296', 'big']],
    ['accountsLimitTotal', ['65536']],
    ['accountsLimitWritable', ['-3']],
    ['maxPriceDeviationBps', ['65536']],
    ['transactionFormat', ['2', 'v0']],
    ['serviceSwapVersion', ['1', '4']],
  ])('%s=%j is malformed: plain text naming the field', async (name, values) => {
    for (const value of values) expectPlainText400(await target.swap({ ...SOL_TO_USDC, [name]: value }), name);
  });

  it('names the field of every malformed public key and boolean', async () => {
    const pubkeys = PARAMETERS.filter((p) => p.scope === 'quote' && (p.type === 'pubkey' || p.type === 'pubkey-list'));
    expect(pubkeys.map((p) => p.name)).toEqual(expect.arrayContaining(['inputMint', 'payer', 'venueBanlist']));
    for (const { name } of pubkeys) {
      for (const bad of ['not-base58-0OIl', '3yZe7d', 'So11111111111111111111111111111111111111112x']) {
        expectPlainText400(await target.swap({ ...SOL_TO_USDC, [name]: bad }), name);
      }
    }
    for (const { name } of PARAMETERS.filter((p) => p.scope === 'quote' && p.type === 'bool')) {
      expectPlainText400(await target.swap({ ...SOL_TO_USDC, [name]: 'yes' }), name);
    }
  });

  it('names each missing required parameter', async () => {
    for (const name of ['inputMint', 'outputMint', 'amount', 'userPublicKey']) {
      const { [name as keyof typeof SOL_TO_USDC]: _left, ...rest } = SOL_TO_USDC;
      expectPlainText400(await target.swap(rest), name);
    }
  });

  it('echoes a u64 amount exactly, also above 2^53, in JSON and MessagePack', async () => {
    const amount = '18446744073709551615';
    const json = await target.swap({ ...SOL_TO_USDC, amount });
    expect(json.bytes.toString()).toContain(`"amount":${amount}`);
    const msgpack = await target.swap({ ...SOL_TO_USDC, amount }, null);
    expect((msgpack.body as { amount: unknown }).amount).toBe(BigInt(amount));
  });

  it('clamps sizeConstraint and accountsLimitTotal instead of rejecting them', async () => {
    ok(await target.swap({ ...SOL_TO_USDC, sizeConstraint: 100000 }));
    ok(await target.swap({ ...SOL_TO_USDC, transactionFormat: 1, sizeConstraint: 100000, accountsLimitTotal: 500 }));
  });

  it('accepts maxPriceDeviationBps from 0 to 65535', async () => {
    for (const value of [0, 1000, 10000, 65535]) ok(await target.swap({ ...SOL_TO_USDC, maxPriceDeviationBps: value }));
  });

  it('rejects transactionFormat=1 and the other version-3 parameters with serviceSwapVersion=2 ({code: 22})', async () => {
    ok(await target.swap({ ...SOL_TO_USDC, serviceSwapVersion: 2 }));
    ok(await target.swap({ ...SOL_TO_USDC, transactionFormat: 1 }));
    for (const extra of [
      { transactionFormat: 1 },
      { outputWsol: true },
      { payer: OTHER_WALLET },
      { positiveSlippageFeeReceiver: OTHER_WALLET },
    ]) {
      expectCode400(await target.swap({ ...SOL_TO_USDC, serviceSwapVersion: 2, ...extra }), 22);
    }
    ok(await target.swap({ ...SOL_TO_USDC, serviceSwapVersion: 2, outputWsol: false, transactionFormat: 0 }));
  });

  it('selects the previous swap program with serviceSwapVersion=2', async () => {
    const swapProgram = (body: QuoteBody) => routesOf(body)[0]![1].instructions.find((ix) => ix.a.length > 10)!.p;
    const v3 = swapProgram(ok(await target.swap({ ...SOL_TO_USDC, providers: 'dflow' })));
    const v2 = swapProgram(ok(await target.swap({ ...SOL_TO_USDC, providers: 'dflow', serviceSwapVersion: 2 })));
    expect(v3).toBe('DF1ow4tspfHX9JwWJsAb9epbkA8hmpSEAtxXy1V27QBH');
    expect(v2).not.toBe(v3);
  });

  it('takes transactionTemplate as base64 MessagePack, never with the sizing limits ({code: 21})', async () => {
    const template = Buffer.from(
      encodeMsgpack({
        instructions: [{ p: MINTS.USDC, a: [{ p: OTHER_WALLET, s: false, w: true }], d: new Uint8Array(40) }],
        addressLookupTables: [OTHER_WALLET],
      }),
    ).toString('base64');
    ok(await target.swap({ ...SOL_TO_USDC, transactionTemplate: template }));
    for (const name of ['accountsLimitTotal', 'accountsLimitWritable', 'sizeConstraint']) {
      expectCode400(await target.swap({ ...SOL_TO_USDC, transactionTemplate: template, [name]: 30 }), 21);
    }
    const notBase64 = 'not base64!';
    const notMsgpack = Buffer.from([0xc1]).toString('base64');
    const notAMap = Buffer.from(encodeMsgpack([1, 2])).toString('base64');
    for (const bad of [notBase64, notMsgpack, notAMap, ''])
      expectPlainText400(await target.swap({ ...SOL_TO_USDC, transactionTemplate: bad }), 'transactionTemplate');
  });

  it("counts a template's instructions against the size limit", async () => {
    const big = Buffer.from(encodeMsgpack({ instructions: [{ p: MINTS.USDC, a: [], d: new Uint8Array(700) }] })).toString('base64');
    expectNoRoute(await target.swap({ ...SOL_TO_USDC, numQuotes: 2, transactionTemplate: big }), {
      titan: 'NoRoutesFound',
      dflow: 'NoRoutesFound',
    });
  });

  it('ignores the distributor-path fee parameters on the key path', async () => {
    ok(await target.swap({ ...SOL_TO_USDC, feeAccount: 'not-a-key', feeBps: 'lots' }));
  });
});

describe('quote/swap: the quote response and its routes', () => {
  let target: Target;
  beforeAll(async () => {
    target = await Target.start();
  });
  afterAll(() => target.close());

  it('echoes the request, names a recommended provider that is a key of quotes, with prices and decimals', async () => {
    const body = ok(await target.swap({ ...SOL_TO_USDC, numQuotes: 2 }));
    expect(body).toMatchObject({ id: expect.stringMatching(/\S/), inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: 100000000000 });
    expect(Array.isArray(body.quotes)).toBe(false);
    expect(Object.keys(body.quotes).sort()).toEqual(['dflow', 'titan']);
    expect(body.metadata).toEqual({
      ExpectedWinner: expect.any(String),
      expectedWinner: body.metadata.ExpectedWinner,
      inputPriceUSD: 150,
      outputPriceUSD: 1,
      inputMintDecimals: 9,
      outputMintDecimals: 6,
    });
    expect(Object.keys(body.quotes)).toContain(body.metadata.ExpectedWinner);
    expect(Object.keys(body.quotes)[0]).toBe(body.metadata.ExpectedWinner);
  });

  it('gives each response its own id', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 3; i += 1) ids.add(ok(await target.swap(SOL_TO_USDC)).id);
    expect(ids.size).toBe(3);
  });

  it('routes differently per provider: titan splits and budgets compute, dflow goes direct and expires', async () => {
    const body = ok(await target.swap({ ...SOL_TO_USDC, numQuotes: 2 }));
    const titan = body.quotes.titan!;
    const dflow = body.quotes.dflow!;
    expect(titan.steps.filter((s) => s.inputMint === MINTS.SOL).length).toBeGreaterThanOrEqual(2);
    expect(dflow.steps).toHaveLength(1);
    expect(titan.outAmount).not.toBe(dflow.outAmount);
    expect(titan.instructions[0]!.p).toBe(COMPUTE_BUDGET_PROGRAM);
    expect(dflow.instructions.some((ix) => ix.p === COMPUTE_BUDGET_PROGRAM)).toBe(false);
    expect(titan).toMatchObject({ timeTakenNs: expect.any(Number), referenceId: expect.any(String) });
    expect(titan).not.toHaveProperty('expiresAtMs');
    expect(dflow.expiresAfterSlot).toBe(Number(dflow.contextSlot) + 150);
    expect(Number(dflow.expiresAtMs)).toBeGreaterThan(Date.now());
    for (const route of [titan, dflow]) {
      expect(route.computeUnitsSafe).toBeGreaterThanOrEqual(Number(route.computeUnits));
      expect(route.inAmount).toBe(100000000000);
    }
  });

  it('may recommend a route with a lower outAmount (slippage-adjusted)', async () => {
    const body = ok(await target.swap({ ...SOL_TO_USDC, amount: '1000000000', numQuotes: 2 }));
    const [winner, runnerUp] = [body.metadata.ExpectedWinner as string, Object.keys(body.quotes)[1]!];
    expect(body.quotes[winner]!.outAmount).toBeLessThan(body.quotes[runnerUp]!.outAmount);
    expect(body.quotes[winner]!.steps.length).toBeLessThan(body.quotes[runnerUp]!.steps.length);
  });

  it.each([
    ['SOL', 'USDC', '100000000000'],
    ['USDC', 'SOL', '50000000'],
    ['BONK', 'USDC', '100000000000000'],
    ['JUP', 'USDT', '1000000000000'],
    ['SOL', 'USDT', '5000000000000'],
    ['mSOL', 'USDC', '10000000000'],
    ['USDT', 'JUP', '1000000000'],
  ] as const)('%s to %s: steps connect the mints, use venue labels and sum to 1e9 per input mint', async (from, to, amount) => {
    const body = ok(await target.swap({ inputMint: MINTS[from], outputMint: MINTS[to], amount, userPublicKey: WALLET, numQuotes: 2 }));
    for (const [, route] of routesOf(body)) {
      for (const sum of Object.values(allocationSums(route))) expect(sum).toBe(1_000_000_000);
      for (const step of route.steps) {
        expect(LABELS.has(step.label)).toBe(true);
        expect(POOLS.find((pool) => pool.ammKey === step.ammKey)?.venue.label).toBe(step.label);
        expect(step.allocPpb).toBeGreaterThanOrEqual(1);
        if (step.inputMint !== MINTS[from]) expect(route.steps.some((other) => other.outputMint === step.inputMint)).toBe(true);
      }
      expect(route.steps.some((step) => step.inputMint === MINTS[from])).toBe(true);
      expect(route.steps.some((step) => step.outputMint === MINTS[to])).toBe(true);
      const firstHop = route.steps.filter((step) => step.inputMint === MINTS[from]);
      expect(firstHop.reduce((sum, step) => sum + step.inAmount, 0)).toBe(route.inAmount);
      expect(route.instructions.some((ix) => ix.a.some((meta) => meta.p === WALLET && meta.s))).toBe(true);
    }
  });

  it('routes BONK to USDC through SOL only (no stablecoin pool), and not at all with onlyDirectRoutes', async () => {
    const query = { inputMint: MINTS.BONK, outputMint: MINTS.USDC, amount: '100000000000000', userPublicKey: WALLET, numQuotes: 2 };
    for (const [, route] of routesOf(ok(await target.swap(query)))) {
      expect(route.steps.map((s) => [s.inputMint, s.outputMint])).toEqual([
        [MINTS.BONK, MINTS.SOL],
        [MINTS.SOL, MINTS.USDC],
      ]);
    }
    expectNoRoute(await target.swap({ ...query, onlyDirectRoutes: true }), { titan: 'NoRoutesFound', dflow: 'NoRoutesFound' });
  });

  it("onlyDirectRoutes keeps every step on the request's pair (splits over direct pools allowed)", async () => {
    const query = { inputMint: MINTS.SOL, outputMint: MINTS.USDT, amount: '5000000000000', userPublicKey: WALLET, numQuotes: 2 };
    expect(routesOf(ok(await target.swap(query))).some(([, r]) => r.steps.some((s) => s.outputMint !== MINTS.USDT))).toBe(true);
    for (const [, route] of routesOf(ok(await target.swap({ ...query, onlyDirectRoutes: true })))) {
      for (const step of route.steps) expect([step.inputMint, step.outputMint]).toEqual([MINTS.SOL, MINTS.USDT]);
    }
  });

  it('dexes restricts routing to the listed venues; an unknown label restricts it to nothing (404, errors per provider)', async () => {
    for (const [, route] of routesOf(ok(await target.swap({ ...SOL_TO_USDC, numQuotes: 2, dexes: 'Whirlpools,Meteora DLMM' })))) {
      for (const step of route.steps) expect(['Whirlpools', 'Meteora DLMM']).toContain(step.label);
    }
    expectNoRoute(await target.swap({ ...SOL_TO_USDC, numQuotes: 2, dexes: 'No Such Venue' }), {
      titan: 'NoRoutesFound',
      dflow: 'NoRoutesFound',
    });
    expectNoRoute(await target.swap({ ...SOL_TO_USDC, dexes: 'Pump.fun Amm' }), { titan: 'NoRoutesFound', dflow: 'NoRoutesFound' });
  });

  it('excludeDexes removes the listed venues; an unknown label excludes nothing', async () => {
    const excluded = ['Whirlpools', 'Raydium CLMM', 'SolFi'];
    for (const [, route] of routesOf(ok(await target.swap({ ...SOL_TO_USDC, numQuotes: 2, excludeDexes: excluded.join(',') })))) {
      for (const step of route.steps) expect(excluded).not.toContain(step.label);
    }
    ok(await target.swap({ ...SOL_TO_USDC, excludeDexes: 'No Such Venue' }));
  });

  it('venueAllowlist restricts to pools, venueBanlist removes pools and overrides the allowlist', async () => {
    const solUsdc = POOLS.filter((pool) => pool.mints.includes(MINTS.SOL) && pool.mints.includes(MINTS.USDC)).map((pool) => pool.ammKey);
    const [a, b] = solUsdc as [string, string];
    for (const [, route] of routesOf(ok(await target.swap({ ...SOL_TO_USDC, numQuotes: 2, venueAllowlist: `${a},${b}` })))) {
      for (const step of route.steps) expect([a, b]).toContain(step.ammKey);
    }
    for (const [, route] of routesOf(
      ok(await target.swap({ ...SOL_TO_USDC, numQuotes: 2, venueBanlist: solUsdc.slice(0, 3).join(',') })),
    )) {
      for (const step of route.steps) expect(solUsdc.slice(0, 3)).not.toContain(step.ammKey);
    }
    for (const [, route] of routesOf(
      ok(await target.swap({ ...SOL_TO_USDC, numQuotes: 2, venueAllowlist: `${a},${b}`, venueBanlist: a })),
    )) {
      for (const step of route.steps) expect(step.ammKey).toBe(b);
    }
    expectNoRoute(await target.swap({ ...SOL_TO_USDC, numQuotes: 2, venueAllowlist: a, venueBanlist: a }), {
      titan: 'NoRoutesFound',
      dflow: 'NoRoutesFound',
    });
  });

  it('noVoteAccounts=true keeps the curated market-maker venues out', async () => {
    const query = { inputMint: MINTS.mSOL, outputMint: MINTS.USDC, amount: '10000000000', userPublicKey: WALLET, numQuotes: 2 };
    const labels = (body: QuoteBody) => routesOf(body).flatMap(([, r]) => r.steps.map((s) => s.label));
    expect(labels(ok(await target.swap(query))).some((label) => MARKET_MAKERS.includes(label))).toBe(true);
    expect(labels(ok(await target.swap({ ...query, noVoteAccounts: true }))).some((label) => MARKET_MAKERS.includes(label))).toBe(false);
    ok(await target.swap({ ...query, noVoteAccounts: false }));
  });

  it('providers restricts the providers; an unknown id alone is a request-level 404', async () => {
    expect(Object.keys(ok(await target.swap({ ...SOL_TO_USDC, numQuotes: 2, providers: 'dflow' })).quotes)).toEqual(['dflow']);
    expect(Object.keys(ok(await target.swap({ ...SOL_TO_USDC, numQuotes: 2, providers: 'titan,nobody' })).quotes)).toEqual(['titan']);
    expectNoRoute(await target.swap({ ...SOL_TO_USDC, providers: 'nobody' }), undefined);
  });

  it('builds every route with the requested slippageBps', async () => {
    for (const slippageBps of [0, 37, 10000]) {
      for (const [, route] of routesOf(ok(await target.swap({ ...SOL_TO_USDC, numQuotes: 2, slippageBps }))))
        expect(route.slippageBps).toBe(slippageBps);
    }
  });

  it('answers an amount too small to route with 404 code -7', async () => {
    expectNoRoute(await target.swap({ ...SOL_TO_USDC, amount: '1', numQuotes: 2 }), { titan: 'NoRoutesFound', dflow: 'NoRoutesFound' });
    expectNoRoute(await target.swap({ ...SOL_TO_USDC, amount: '0' }), { titan: 'NoRoutesFound', dflow: 'NoRoutesFound' });
  });

  it('encodes the same response in JSON and MessagePack (d: base64 vs raw bytes)', async () => {
    const query = { ...SOL_TO_USDC, numQuotes: 2, includeAltContents: true };
    const json = await target.swap(query);
    const msgpack = await target.swap(query, null);
    expect(msgpack.contentType).toBe('application/vnd.msgpack');
    const route = (msgpack.body as { quotes: Record<string, { instructions: { d: unknown; p: unknown }[] }> }).quotes.titan!;
    expect(route.instructions.every((ix) => ix.d instanceof Uint8Array && typeof ix.p === 'string')).toBe(true);
    expect(withoutVolatileFields(asJson(msgpack.body))).toEqual(withoutVolatileFields(json.body));
  });
});
