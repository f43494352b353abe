import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POOLS } from '../../fixtures/server/quotes/engine/pools.ts';
import { Target } from './support.ts';
import { expectNoRoute, ok, USDC_TO_JUP } from './quote-swap-expect.ts';
import {
  associatedTokenAccount,
  ATA_PROGRAM,
  compileRoute,
  MINTS,
  OTHER_WALLET,
  type QuoteBody,
  type Route,
  routesOf,
  SOL_TO_USDC,
  TOKEN_PROGRAM,
  WALLET,
} from './quote-support.ts';

/** GET /api/v1/quote/swap on the key path, over HTTP: instructions per transaction parameter, lookup tables and sizing, prices and providers. */

describe('quote/swap: instructions per transaction parameter', () => {
  let target: Target;
  beforeAll(async () => {
    target = await Target.start();
  });
  afterAll(() => target.close());

  const closes = (route: Route) =>
    route.instructions.filter((ix) => ix.p === TOKEN_PROGRAM && Buffer.from(ix.d, 'base64')[0] === 9).map((ix) => ix.a[0]!.p);
  const creates = (route: Route) => route.instructions.filter((ix) => ix.p === ATA_PROGRAM && Buffer.from(ix.d, 'base64')[0] === 1);
  const swapOf = (route: Route) => route.instructions.reduce((a, b) => (b.a.length > a.a.length ? b : a));

  it("creates the user's associated output account (idempotent) unless createOutputTokenAccount=false", async () => {
    const ata = associatedTokenAccount(WALLET, MINTS.JUP);
    for (const [, route] of routesOf(ok(await target.swap({ ...USDC_TO_JUP, numQuotes: 2 })))) {
      expect(creates(route).map((ix) => ix.a.map((m) => m.p))).toEqual([
        [WALLET, ata, WALLET, MINTS.JUP, '11111111111111111111111111111111', TOKEN_PROGRAM],
      ]);
      expect(swapOf(route).a.find((m) => m.p === ata)?.w).toBe(true);
    }
    for (const [, route] of routesOf(ok(await target.swap({ ...USDC_TO_JUP, numQuotes: 2, createOutputTokenAccount: false })))) {
      expect(creates(route)).toEqual([]);
    }
  });

  it('closes the input token account only with closeInputTokenAccount=true', async () => {
    const input = associatedTokenAccount(WALLET, MINTS.USDC);
    for (const [, route] of routesOf(ok(await target.swap({ ...USDC_TO_JUP, numQuotes: 2 })))) expect(closes(route)).toEqual([]);
    for (const [, route] of routesOf(ok(await target.swap({ ...USDC_TO_JUP, numQuotes: 2, closeInputTokenAccount: true })))) {
      expect(closes(route)).toEqual([input]);
    }
  });

  it('wraps native SOL input and closes the wrapped account afterwards', async () => {
    const wsol = associatedTokenAccount(WALLET, MINTS.SOL);
    for (const [, route] of routesOf(ok(await target.swap({ ...SOL_TO_USDC, numQuotes: 2 })))) {
      expect(creates(route).map((ix) => ix.a[3]!.p)).toEqual([MINTS.SOL, MINTS.USDC]);
      expect(closes(route)).toEqual([wsol]);
    }
  });

  it('unwraps SOL output unless outputWsol=true or outputAccount is given', async () => {
    const query = { inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '50000000', userPublicKey: WALLET };
    const wsol = associatedTokenAccount(WALLET, MINTS.SOL);
    expect(closes(routesOf(ok(await target.swap(query)))[0]![1])).toEqual([wsol]);
    expect(closes(routesOf(ok(await target.swap({ ...query, outputWsol: true })))[0]![1])).toEqual([]);
    expect(closes(routesOf(ok(await target.swap({ ...query, outputAccount: OTHER_WALLET })))[0]![1])).toEqual([]);
    ok(await target.swap({ ...USDC_TO_JUP, outputWsol: true }));
  });

  it('sends the output to outputAccount, writable in the swap', async () => {
    for (const [, route] of routesOf(ok(await target.swap({ ...USDC_TO_JUP, numQuotes: 2, outputAccount: OTHER_WALLET })))) {
      const swap = swapOf(route);
      expect(swap.a.find((m) => m.p === OTHER_WALLET)).toEqual({ p: OTHER_WALLET, s: false, w: true });
      expect(swap.a.some((m) => m.p === associatedTokenAccount(WALLET, MINTS.JUP))).toBe(false);
    }
  });

  it('makes payer a signer that pays rent and fees; positiveSlippageFeeReceiver is writable', async () => {
    const body = ok(
      await target.swap({
        ...USDC_TO_JUP,
        numQuotes: 2,
        payer: OTHER_WALLET,
        positiveSlippageFeeReceiver: MINTS.USDT,
        includeAltContents: true,
      }),
    );
    for (const [, route] of routesOf(body)) {
      expect(route.instructions.some((ix) => ix.a.some((m) => m.p === OTHER_WALLET && m.s && m.w))).toBe(true);
      expect(creates(route)[0]!.a[0]).toEqual({ p: OTHER_WALLET, s: true, w: true });
      expect(swapOf(route).a.find((m) => m.p === MINTS.USDT)?.w).toBe(true);
      expect(compileRoute(route, body.alts!, OTHER_WALLET).bytes).toBeLessThanOrEqual(1168);
    }
  });
});

describe('quote/swap: lookup tables and transaction sizing', () => {
  let target: Target;
  beforeAll(async () => {
    target = await Target.start();
  });
  afterAll(() => target.close());

  it('adds alts only with includeAltContents=true, covering every table of every route', async () => {
    expect(ok(await target.swap({ ...SOL_TO_USDC, numQuotes: 2 }))).not.toHaveProperty('alts');
    const body = ok(await target.swap({ ...SOL_TO_USDC, numQuotes: 2, includeAltContents: true }));
    const keys = new Set(routesOf(body).flatMap(([, route]) => route.addressLookupTables));
    expect(keys.size).toBeGreaterThan(0);
    expect(new Set(body.alts!.map((alt) => alt.p))).toEqual(keys);
    for (const alt of body.alts!) expect(alt.a.length).toBeGreaterThan(0);
  });

  it('compiles every route within the default sizeConstraint (1168 bytes) and 64 writable accounts', async () => {
    const body = ok(
      await target.swap({
        inputMint: MINTS.JUP,
        outputMint: MINTS.USDT,
        amount: '1000000000000',
        userPublicKey: WALLET,
        numQuotes: 2,
        includeAltContents: true,
      }),
    );
    for (const [, route] of routesOf(body)) {
      const compiled = compileRoute(route, body.alts!);
      expect(compiled.bytes).toBeLessThanOrEqual(1168);
      expect(compiled.writable).toBeLessThanOrEqual(64);
    }
  });

  it('drops routes that do not fit sizeConstraint, falling back to smaller ones, then to 404', async () => {
    const query = { ...SOL_TO_USDC, numQuotes: 2, includeAltContents: true };
    const sizes = (body: QuoteBody) => routesOf(body).map(([, route]) => compileRoute(route, body.alts!).bytes);
    const free = Math.max(...sizes(ok(await target.swap(query))));
    const limit = free - 1;
    const constrained = ok(await target.swap({ ...query, sizeConstraint: limit }));
    for (const size of sizes(constrained)) expect(size).toBeLessThanOrEqual(limit);
    expectNoRoute(await target.swap({ ...query, sizeConstraint: 300 }), { titan: 'NoRoutesFound', dflow: 'NoRoutesFound' });
    expect(sizes(ok(await target.swap({ ...query, sizeConstraint: 300, addSizeConstraint: false }))).every((size) => size > 300)).toBe(
      true,
    );
  });

  it('keeps every route within accountsLimitWritable and accountsLimitTotal', async () => {
    const query = { ...SOL_TO_USDC, numQuotes: 2, includeAltContents: true };
    for (const [limit, field] of [
      [12, 'accountsLimitWritable'],
      [20, 'accountsLimitTotal'],
    ] as const) {
      const body = ok(await target.swap({ ...query, [field]: limit }));
      for (const [, route] of routesOf(body)) {
        const compiled = compileRoute(route, body.alts!);
        expect(field === 'accountsLimitWritable' ? compiled.writable : compiled.accounts).toBeLessThanOrEqual(limit);
      }
    }
    expectNoRoute(await target.swap({ ...query, accountsLimitWritable: 3 }), { titan: 'NoRoutesFound', dflow: 'NoRoutesFound' });
  });

  it('uses no lookup tables on transaction format 1', async () => {
    const body = ok(await target.swap({ ...SOL_TO_USDC, numQuotes: 2, transactionFormat: 1, includeAltContents: true }));
    for (const [, route] of routesOf(body)) expect(route.addressLookupTables).toEqual([]);
    expect(body.alts).toEqual([]);
  });
});

describe('quote/swap: prices, providers, pools and request-level problems (control API)', () => {
  let target: Target;
  beforeAll(async () => {
    target = await Target.start();
  });
  afterAll(() => target.close());

  it('reports the prices set through the control API, null when the oracle has none', async () => {
    await target.setPrice(MINTS.JUP, '0.4812');
    const body = ok(await target.swap(USDC_TO_JUP));
    expect(body.metadata).toMatchObject({ inputPriceUSD: 1, outputPriceUSD: 0.4812, inputMintDecimals: 6, outputMintDecimals: 6 });
    await target.setPrice(MINTS.JUP, null);
    expect(ok(await target.swap(USDC_TO_JUP)).metadata.outputPriceUSD).toBeNull();
    await target.faults({ oracle: 'down' });
    expect(ok(await target.swap(USDC_TO_JUP)).metadata.inputPriceUSD).toBeNull();
    await target.faults({ oracle: 'up' });
    await target.setPrice(MINTS.JUP, '0.5');
  });

  it('with simulate=false rejects quotes worth less than (10000 - maxPriceDeviationBps) / 10000 of the input', async () => {
    await target.setPrice(MINTS.SOL, '200');
    try {
      const query = { ...SOL_TO_USDC, numQuotes: 2 };
      ok(await target.swap(query));
      expectNoRoute(await target.swap({ ...query, simulate: false }), { titan: 'Other', dflow: 'Other' });
      ok(await target.swap({ ...query, simulate: false, maxPriceDeviationBps: 2600 }));
      ok(await target.swap({ ...query, simulate: false, maxPriceDeviationBps: 10000 }));
      await target.setPrice(MINTS.USDC, null);
      ok(await target.swap({ ...query, simulate: false }));
      await target.setPrice(MINTS.SOL, null);
      ok(await target.swap({ ...query, simulate: false }));
    } finally {
      await target.setPrice(MINTS.SOL, '150');
      await target.setPrice(MINTS.USDC, '1');
    }
    for (const [, route] of routesOf(ok(await target.swap({ ...SOL_TO_USDC, numQuotes: 2, simulate: false })))) {
      expect(route.outAmount / 1e6).toBeGreaterThanOrEqual(0.9 * 100 * 150);
    }
  });

  it('leaves a provider that is down out, and names it Other when no route remains', async () => {
    await target.faults({ quoteProviders: { titan: 'down' } });
    try {
      expect(Object.keys(ok(await target.swap({ ...SOL_TO_USDC, numQuotes: 2 })).quotes)).toEqual(['dflow']);
      expectNoRoute(await target.swap({ ...SOL_TO_USDC, providers: 'titan' }), { titan: 'Other' });
      await target.faults({ quoteProviders: { dflow: 'down' } });
      expectNoRoute(await target.swap(SOL_TO_USDC), { titan: 'Other', dflow: 'Other' });
    } finally {
      await target.faults({ quoteProviders: { titan: 'up', dflow: 'up' } });
    }
  });

  it('routes around a disabled pool and prices a pool by the reserves set', async () => {
    const pool = POOLS.find((p) => p.venue.label === 'Meteora DLMM' && p.mints.includes(MINTS.JUP))!;
    const before = ok(await target.swap({ ...USDC_TO_JUP, numQuotes: 2, onlyDirectRoutes: true }));
    expect(routesOf(before).every(([, route]) => route.steps[0]!.ammKey === pool.ammKey)).toBe(true);
    await target.setPool(pool.ammKey, { enabled: false });
    expectNoRoute(await target.swap({ ...USDC_TO_JUP, onlyDirectRoutes: true }), { titan: 'NoRoutesFound', dflow: 'NoRoutesFound' });
    await target.setPool(pool.ammKey, { enabled: true, reserves: ['10000000000000', '10000000000000'] });
    const repriced = ok(await target.swap({ ...USDC_TO_JUP, onlyDirectRoutes: true }));
    expect(routesOf(repriced)[0]![1].outAmount).toBeLessThan(routesOf(before)[0]![1].outAmount);
    await target.setPool(pool.ammKey, { reserves: [pool.reserves[0].toString(), pool.reserves[1].toString()] });
    expect(routesOf(ok(await target.swap({ ...USDC_TO_JUP, onlyDirectRoutes: true })))[0]![1].outAmount).toBe(
      routesOf(before)[0]![1].outAmount,
    );
  });

  it.each([
    ['the system program', '11111111111111111111111111111111'],
    ['a mint', MINTS.USDC],
    ['a token program', TOKEN_PROGRAM],
    ['an off-curve address (an associated token account)', associatedTokenAccount(WALLET, MINTS.USDC)],
  ])('a userPublicKey that is %s is a request-level 404: no errors, decimals and prices kept', async (_what, wallet) => {
    const answer = await target.swap({ ...SOL_TO_USDC, userPublicKey: wallet });
    expectNoRoute(answer, undefined);
    expect((answer.body as { metadata: unknown }).metadata).toEqual({
      inputPriceUSD: 150,
      outputPriceUSD: 1,
      inputMintDecimals: 9,
      outputMintDecimals: 6,
    });
    expectNoRoute(await target.swap({ ...SOL_TO_USDC, payer: wallet }), undefined);
  });

  it('treats the same mint on both sides as a request-level 404', async () => {
    expectNoRoute(await target.swap({ ...SOL_TO_USDC, outputMint: MINTS.SOL }), undefined);
  });

  it('gives every 404 a fresh quoteId (tag and rising seq)', async () => {
    const ids = [];
    for (let i = 0; i < 2; i += 1)
      ids.push((await target.swap({ ...SOL_TO_USDC, dexes: 'Nope' })).body as { quoteId: { tag: string; seq: number } });
    expect(ids[0]!.quoteId.tag).not.toBe(ids[1]!.quoteId.tag);
    expect(ids[1]!.quoteId.seq).toBeGreaterThan(ids[0]!.quoteId.seq);
  });
});
