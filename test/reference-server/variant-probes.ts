import { Keypair, Transaction } from '@solana/web3.js';
import { expect } from 'vitest';
import { PROVIDERS } from '../../fixtures/server/quotes/engine/provider-catalogue.ts';
import { VENUES } from '../../fixtures/server/quotes/engine/venue-catalogue.ts';
import { type Json, MINTS, type QuoteBody, routesOf, SOL_TO_USDC } from './quote-support.ts';
import { dataOf, DCA_INTENT, idsOf, readsTenant } from './reads-support.ts';
import { type Answer, errorCode, Target } from './support.ts';
import { triggerScene } from './trigger-support.ts';

/**
 * What each benign variant (fixtures/mutants/variants.ts) visibly changes, in the order of the catalogue, so that a
 * variant that silently does nothing is caught (variants.test.ts).
 */

const OCO_WITH_MIN_OUTPUT = {
  orderType: 'oco',
  inputMint: MINTS.USDC,
  outputMint: MINTS.SOL,
  config: {
    amount: '12000000',
    priceDecimals: 18,
    stopLossPrice: '1',
    takeProfitPrice: '1000000000000000000000000000000',
    minOutputAmount: '1',
  },
};

export const VISIBLE: Record<string, (target: Target) => Promise<void>> = {
  'extra-fields': async (t) => {
    expect(Object.keys((await t.orders('/health')).body as Json)).toContain('undocumentedField');
    expect(Object.keys((await t.keyPath('/api/v1/info', null)).body as Json)).toContain('undocumentedField');
    const body = (await t.swap({ ...SOL_TO_USDC, numQuotes: 2 })).body as QuoteBody;
    const [, route] = routesOf(body)[0]!;
    const swap = route.instructions.reduce((a, b) => (b.a.length > a.a.length ? b : a));
    for (const object of [body, body.metadata, route, route.steps[0], swap, swap.a[0]]) {
      expect(object).toHaveProperty('undocumentedField');
    }
    expect(Object.keys(body.quotes)).not.toContain('undocumentedField');
    const { apiKey } = await t.createTenant();
    await t.onboard(apiKey, 'extra-sub');
    const me = (await t.asUser(apiKey, 'extra-sub', '/me')).body as { data: Json };
    expect(me.data.undocumentedField).toBe('clients ignore this');
    const balance = (await t.asUser(apiKey, 'extra-sub', '/me/balance')).body as { data: { balances: Json[] } };
    expect(balance.data.balances[0]?.undocumentedField).toBe('clients ignore this');
    const noRoute = (await t.swap({ ...SOL_TO_USDC, dexes: 'Nope' })).body as { metadata: { errors: Json } };
    expect(Object.keys(noRoute.metadata.errors).sort()).toEqual(['dflow', 'titan']);
  },
  'reordered-keys': async (t) => {
    expect(Object.keys((await t.orders('/health')).body as Json)).toEqual(['services', 'status']);
    expect(Object.keys((await t.keyPath('/api/v1/info')).body as Json)).toEqual(['settings', 'protocolVersion']);
    const body = (await t.swap({ ...SOL_TO_USDC, numQuotes: 2 })).body as QuoteBody;
    expect(Object.keys(body)[0]).toBe('metadata');
    expect(Object.keys(body.quotes)[1]).toBe(body.metadata.ExpectedWinner);
  },
  'reworded-messages': async (t) => {
    const faithful = await Target.start();
    try {
      const message = async (target: Target): Promise<unknown> =>
        ((await target.partnerOrders(undefined)).body as { error: Json }).error.message;
      const edge = async (target: Target): Promise<unknown> => ((await target.quotes('/api/v1/nope')).body as Json).message;
      expect(await message(t)).not.toBe(await message(faithful));
      const onboarding = async (target: Target): Promise<unknown> =>
        ((await target.onboardRaw((await target.createTenant()).apiKey, {})).body as { error: Json }).error;
      const [reworded, original] = [await onboarding(t), await onboarding(faithful)] as [Json, Json];
      expect([reworded.code, original.code]).toEqual(['BAD_REQUEST', 'BAD_REQUEST']);
      expect(reworded.message).not.toBe(original.message);
      expect(await edge(t)).not.toBe(await edge(faithful));
    } finally {
      await faithful.close();
    }
  },
  'opaque-ids': async (t) => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    const { apiKey } = await t.createTenant();
    const user = await t.onboard(apiKey, 'opaque-sub');
    expect(user.userId).toMatch(/^acct\//);
    expect(((await t.asUser(apiKey, 'opaque-sub', '/me')).body as { data: Json }).data.userId).toBe(user.userId);
    expect((await t.orders('/health')).headers['x-request-id']).not.toMatch(uuid);
    expect((await t.quotes('/api/v1/info')).headers['x-edge-requestid']).not.toMatch(uuid);
    expect(((await t.swap(SOL_TO_USDC)).body as QuoteBody).id).not.toMatch(uuid);
    expect(((await t.swap({ ...SOL_TO_USDC, dexes: 'Nope' })).body as { quoteId: { tag: string } }).quoteId.tag).not.toMatch(uuid);
  },
  'providers-sometimes-missing': async (t) => {
    const counts = [];
    for (let i = 0; i < 4; i += 1)
      counts.push(Object.keys(((await t.swap({ ...SOL_TO_USDC, numQuotes: 2 })).body as QuoteBody).quotes).length);
    expect(new Set(counts)).toEqual(new Set([1, 2]));
  },
  'venues-reversed': async (t) => {
    const body = (await t.keyPath('/api/v1/venues?includeProgramIds=true')).body as { labels: string[]; programIds: string[] };
    expect(body.labels).toEqual(VENUES.map((v) => v.label).reverse());
    expect(body.programIds).toEqual(VENUES.map((v) => v.programId).reverse());
  },
  'provider-kind-other': async (t) => {
    const kinds = ((await t.keyPath('/api/v1/providers')).body as Json[]).map((p) => p.kind);
    expect(kinds.some((kind) => kind !== 'DexAggregator')).toBe(true);
  },
  'documented-alternatives': async (t) => {
    const { apiKey } = await t.createTenant();
    const alice = await t.onboard(apiKey, 'alice');
    const status = (answer: Answer) => ({ status: answer.status, code: errorCode(answer) });

    // Onboarding conflicts the document leaves open: a new sub with alice's wallet is onboarded; alice with a new
    // unbound wallet answers 409.
    expect((await t.onboardRaw(apiKey, await t.onboardBody('bob', alice.wallet))).status).toBe(200);
    expect(status(await t.onboardRaw(apiKey, await t.onboardBody('alice', Keypair.generate())))).toEqual({
      status: 409,
      code: 'USER_PUBKEY_CONFLICT',
    });
    // A SIWS message over 1024 bytes: 400 BAD_REQUEST.
    const carol = Keypair.generate();
    const oversize = await t.siwsMessage(carol.publicKey.toBase58(), 0, 'n'.repeat(1100));
    expect(status(await t.onboardRaw(apiKey, await t.onboardBody('carol', carol, { message: oversize })))).toEqual({
      status: 400,
      code: 'BAD_REQUEST',
    });

    const userPubkey = alice.wallet.publicKey.toBase58();
    await t.fund(userPubkey, MINTS.USDC, '1000000000');
    await t.fund(userPubkey, 'native', '1000000000');
    const post = (path: string, json: unknown) =>
      t.orders(path, { method: 'POST', headers: { 'x-service-key': apiKey, 'x-service-user': 'alice' }, json });
    // An intent without orderType: 400 VALIDATION_ERROR; minOutputAmount on oco ignored.
    const { orderType: _left, ...untyped } = DCA_INTENT;
    expect(status(await post('/orders/intent', untyped))).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    expect((await post('/orders/intent', OCO_WITH_MIN_OUTPUT)).status).toBe(201);
    // Creates answer 201; a late confirm 400 TRANSACTION_EXPIRED.
    const intent = await post('/orders/intent', DCA_INTENT);
    expect(intent.status).toBe(201);
    const { pendingOrderId, transaction } = (intent.body as { data: { pendingOrderId: string; transaction: string } }).data;
    const tx = Transaction.from(Buffer.from(transaction, 'base64'));
    tx.partialSign(alice.wallet);
    const signedTransaction = tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');
    expect((await post('/orders/confirm', { pendingOrderId, signedTransaction })).status).toBe(201);
    const late = (await post('/orders/intent', DCA_INTENT).then((a) => a.body as { data: { pendingOrderId: string } })).data;
    await t.advanceClock(301);
    expect(status(await post('/orders/confirm', { pendingOrderId: late.pendingOrderId, signedTransaction }))).toEqual({
      status: 400,
      code: 'TRANSACTION_EXPIRED',
    });
  },
  'reads-alternatives': async (t) => {
    const tenant = await readsTenant(t);
    const alice = await tenant.user('alice');
    const bob = await tenant.user('bob');
    const order = await alice.order();
    const second = await alice.order();
    expect(idsOf(await alice.get('/me/orders'))).toEqual([order.id, second.id]);
    const { pendingOrderId } = await bob.intent();
    expect(dataOf(await bob.get('/orders/pending'))).toEqual([expect.objectContaining({ id: pendingOrderId })]);
    expect(await tenant.partner('/partners/me/orders?status=expired')).toMatchObject({ status: 200, body: { data: [] } });
    expect((await alice.get('/dca/not-a-uuid')).status).toBe(400);
  },
  'msgpack-binary-pubkeys': async (t) => {
    const packed = (await t.swap({ ...SOL_TO_USDC, numQuotes: 2, includeAltContents: true }, null)).body as Record<string, unknown>;
    expect(packed.inputMint).toEqual(expect.any(Uint8Array));
    expect((packed.inputMint as Uint8Array).length).toBe(32);
    const [route] = Object.values(
      packed.quotes as Record<
        string,
        { steps: Json[]; instructions: { p: unknown; a: { p: unknown }[]; d: unknown }[]; addressLookupTables: unknown[] }
      >,
    );
    const swap = route!.instructions.reduce((a, b) => (b.a.length > a.a.length ? b : a));
    for (const key of [route!.steps[0]!.ammKey, swap.p, swap.a[0]!.p, route!.addressLookupTables[0]]) {
      expect(key instanceof Uint8Array && key.length === 32).toBe(true);
    }
    const venues = (await t.keyPath('/api/v1/venues?includeProgramIds=true', null)).body as { programIds: unknown[] };
    expect(venues.programIds.every((id) => id instanceof Uint8Array && id.length === 32)).toBe(true);
    const { jwt } = await t.quoteJwt();
    const gateway = (
      await t.gateway(`/api/v1/quote/swap?${new URLSearchParams(SOL_TO_USDC).toString()}`, { authorization: `Bearer ${jwt}` })
    ).body as Json;
    expect(gateway.outputMint).toEqual(expect.any(Uint8Array));
    // JSON keeps base58 strings.
    expect(((await t.swap(SOL_TO_USDC)).body as QuoteBody).inputMint).toBe(MINTS.SOL);
  },
  'oracle-polled-every-30-seconds': async (t) => {
    // A crossed trigger fires only once 30 s of the clock have passed since the oracle was last looked at.
    const scene = await triggerScene(t);
    const id = await scene.order('stop_loss', { triggerPrice: '500000' });
    await t.advanceClock(30);
    await t.setPrice(scene.input, '0.5');
    expect((await scene.read('stop_loss', id)).status).toBe('active');
    await t.advanceClock(30);
    expect((await scene.read('stop_loss', id)).status).toBe('completed');
  },
  'real-quote-service-shapes': async (t) => {
    const rfq = PROVIDERS[1]!.id;
    const body = (await t.swap({ ...SOL_TO_USDC, numQuotes: 2 })).body as QuoteBody;
    expect(body.swapMode).toBe('ExactIn');
    const routes = Object.fromEntries(routesOf(body));
    expect(routes[rfq]).toMatchObject({ steps: [], platformFee: null, priceImpactPct: expect.any(String) });
    expect(routes[rfq]).not.toHaveProperty('computeUnits');
    for (const [, route] of routesOf(body)) {
      expect(route).not.toHaveProperty('timeTakenNs');
      expect(route.referenceId === null || typeof route.referenceId === 'string').toBe(true);
      for (const step of route.steps) expect(step.contextSlot).toBeNull();
    }
    const info = (await t.keyPath('/api/v1/info')).body as { settings: { connection: { concurrentStreams: number } } };
    expect(info.settings.connection.concurrentStreams).toBe(4);
    expect(((await t.keyPath('/api/v1/venues')).body as Json).programIds).toBeNull();
    const providers = (await t.keyPath('/api/v1/providers')).body as Json[];
    expect(providers.find((p) => p.id === rfq)).toMatchObject({ kind: 'RFQ', iconUri48: null });
    const nobody = await t.swap({ ...SOL_TO_USDC, providers: 'no-such-provider' });
    expect(nobody.status).toBe(404);
    expect((nobody.body as { metadata: Json }).metadata.errors).toEqual({});
  },
};
