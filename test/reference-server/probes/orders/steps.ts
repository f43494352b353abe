import { Keypair, Transaction } from '@solana/web3.js';
import { type ActionUser, actionUser, sign } from '../../action-support.ts';
import { MINTS } from '../../quote-support.ts';
import { dataOf, DCA_INTENT, lifecycleUser, readsTenant, type ReadsUser } from '../../reads-support.ts';
import { type Answer, Target } from '../../support.ts';
import { type TriggerScene, triggerScene, type TriggerType } from '../../trigger-support.ts';
import { type Probe, type Row, serialized } from '../probe.ts';

/**
 * Steps the probes of several rule areas share: the users, orders and requests they set up, and what they read.
 */

/** alice and a fresh order of hers (DCA unless `intent` says otherwise). */
export async function actionScene(t: Target, intent?: unknown): Promise<{ alice: ActionUser; id: string }> {
  const alice = await actionUser(t);
  return { alice, id: (await alice.order(intent)).id };
}

/** A failed DCA order of alice's (a failed swap at its first cycle). */
export async function failedDca(t: Target): Promise<{ alice: ActionUser; id: string }> {
  const s = await actionScene(t);
  await t.faults({ swaps: 'fail' });
  await t.advanceClock(3600);
  await t.faults({ swaps: 'ok' });
  return s;
}

/** A raised totalAmount PATCHed on alice's DCA order: the answer and its signed transaction. */
export async function raised(t: Target): Promise<{ alice: ActionUser; id: string; signedTransaction: string }> {
  const { alice, id } = await actionScene(t);
  const patched = await alice.patch(`/dca/${id}`, { config: { totalAmount: '48000000' } });
  return { alice, id, signedTransaction: sign(dataOf<Row>(patched).transaction as string, alice.wallet) };
}

export const confirmBody = (signedTransaction: string, cyclesCompleted = 0) => ({
  signedTransaction,
  cyclesCompleted,
  config: { totalAmount: '48000000' },
});
export const FAR = '1000000000000000000000000000000';

export const TEMPLATES: Record<string, Row> = {
  dca: { totalAmount: '36000000', amountPerCycle: '12000000', cycleFrequencySeconds: 3600 },
  stop_loss: { amount: '12000000', triggerPrice: '1', priceDecimals: 18 },
  take_profit: { amount: '12000000', triggerPrice: FAR, priceDecimals: 18 },
  oco: { amount: '12000000', stopLossPrice: '1', takeProfitPrice: FAR, priceDecimals: 18 },
  slice: { amount: '12000000', sliceCount: 3 },
};

/** A funded user (1000 USDC, 1 native) on a fresh tenant, and the calls the probes make as that user. */
export async function creator(t: Target, tenant: Row = {}) {
  const { apiKey } = await t.createTenant(tenant);
  const user = await t.onboard(apiKey, 'probe-sub');
  const wallet = user.wallet.publicKey.toBase58();
  await t.fund(wallet, MINTS.USDC, '1000000000');
  await t.fund(wallet, 'native', '1000000000');
  const post = (path: string, json: unknown, sub = 'probe-sub', key = apiKey) =>
    t.orders(path, { method: 'POST', headers: { 'x-service-key': key, 'x-service-user': sub }, json });
  const get = (path: string) => t.asUser(apiKey, 'probe-sub', path);
  const body = (orderType: string, config: Row = {}, top: Row = {}) => ({
    orderType,
    inputMint: MINTS.USDC,
    outputMint: MINTS.SOL,
    ...top,
    config: { ...TEMPLATES[orderType], ...config },
  });
  const intent = (orderType: string, config?: Row, top?: Row) => post('/orders/intent', body(orderType, config, top));
  const pending = async (orderType = 'dca', config?: Row) =>
    dataOf<Row>(await intent(orderType, config)) as { pendingOrderId: string; transaction: string };
  const sign = (base64: string) => {
    const tx = Transaction.from(Buffer.from(base64, 'base64'));
    tx.partialSign(user.wallet);
    return serialized(tx);
  };
  const confirm = (p: { pendingOrderId: string }, signedTransaction: string, sub?: string, key?: string) =>
    post('/orders/confirm', { pendingOrderId: p.pendingOrderId, signedTransaction }, sub, key);
  const create = async (orderType = 'dca', config?: Row) => {
    const p = await pending(orderType, config);
    return confirm(p, sign(p.transaction));
  };
  const order = async (orderType: string, config?: Row) => dataOf<Row>(await create(orderType, config)).order as Row;
  /** The pending order's transaction with its blockhash changed, then signed by the user. */
  const tampered = (p: { transaction: string }) => {
    const tx = Transaction.from(Buffer.from(p.transaction, 'base64'));
    tx.recentBlockhash = Keypair.generate().publicKey.toBase58();
    tx.partialSign(user.wallet);
    return serialized(tx);
  };
  return { apiKey, wallet, user, post, get, intent, pending, sign, confirm, create, order, tampered };
}

export const orderField =
  (orderType: string, read: (order: Row) => unknown, config?: Row): Probe =>
  async (t) =>
    read(await (await creator(t)).order(orderType, config));
export const rowsOf = (a: Answer) => (a.body as { data: { balances: Row[] } }).data.balances;
export const withKey = (apiKey: string, sub?: string) => ({ 'x-service-key': apiKey, ...(sub ? { 'x-service-user': sub } : {}) });

/** A user with one DCA order (3 hourly cycles, or the given intent), the clock then moved by `seconds` under `faults`. */
export async function lifecycleScene(t: Target, seconds: number, options: { faults?: Row; tenant?: Row; intent?: unknown } = {}) {
  const user = await lifecycleUser(t, 'probe', options.tenant);
  const order = await user.order(options.intent ?? DCA_INTENT);
  if (options.faults) await t.faults(options.faults);
  try {
    if (seconds > 0) await t.advanceClock(seconds);
  } finally {
    if (options.faults) await t.faults({ swaps: 'ok', oracle: 'up' });
  }
  const detail = async (path = '/dca') => dataOf<Row>(await user.get(`${path}/${order.id}`));
  const executions = async () => dataOf<Row[]>(await user.get(`/orders/${order.id}/executions`));
  return { user, order, detail, executions };
}

export const dcaAfter = async (t: Target, seconds: number, options?: Parameters<typeof lifecycleScene>[2]) =>
  (await lifecycleScene(t, seconds, options)).detail();
export const rowsAfter = async (t: Target, seconds: number, options?: Parameters<typeof lifecycleScene>[2]) =>
  (await lifecycleScene(t, seconds, options)).executions();
export const DCA = {
  orderType: 'dca',
  inputMint: MINTS.USDC,
  outputMint: MINTS.SOL,
  config: { totalAmount: '36000000', amountPerCycle: '12000000', cycleFrequencySeconds: 3600 },
};

/** A funded user of a fresh tenant, and its user-scoped calls. */
export async function fundedUser(t: Target) {
  const { apiKey } = await t.createTenant();
  const user = await t.onboard(apiKey, 'model-probe');
  await t.fund(user.wallet.publicKey.toBase58(), MINTS.USDC, '500000000');
  await t.fund(user.wallet.publicKey.toBase58(), 'native', '1000000000');
  const headers = (key?: string) => ({
    'x-service-key': apiKey,
    'x-service-user': 'model-probe',
    ...(key ? { 'x-idempotency-key': key } : {}),
  });
  const post = (path: string, json: unknown, key?: string) => t.orders(path, { method: 'POST', json, headers: headers(key) });
  const rows = async (path: string) => ((await t.orders(path, { headers: headers() })).body as { data: unknown[] }).data.length;
  const get = async (path: string) => ((await t.orders(path, { headers: headers() })).body as { data: Record<string, unknown> }).data;
  /** A confirmed DCA order's id (three cycles of 12 USDC, hourly). */
  const order = async () => {
    const intent = ((await post('/orders/intent', DCA)).body as { data: { pendingOrderId: string; transaction: string } }).data;
    const tx = Transaction.from(Buffer.from(intent.transaction, 'base64'));
    tx.partialSign(user.wallet);
    const body = {
      pendingOrderId: intent.pendingOrderId,
      signedTransaction: tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64'),
    };
    return { body, id: async () => ((await post('/orders/confirm', body)).body as { data: { order: { id: string } } }).data.order.id };
  };
  return { user, post, rows, get, order };
}

export const statuses = (answers: Answer[]) => answers.map((a) => a.status).sort();
export const trigger = (orderType: string, config: Row) => ({
  orderType,
  inputMint: MINTS.USDC,
  outputMint: MINTS.SOL,
  config: { amount: '12000000', priceDecimals: 18, ...config },
});

/** The other types' intents (the suite's assumed templates, as the reference server reads them). */
export const INTENTS: Record<string, unknown> = {
  stop_loss: trigger('stop_loss', { triggerPrice: '1' }),
  take_profit: trigger('take_profit', { triggerPrice: '1000000000000000000000000000000' }),
  oco: trigger('oco', { stopLossPrice: '1', takeProfitPrice: '1000000000000000000000000000000' }),
  slice: { orderType: 'slice', inputMint: MINTS.USDC, outputMint: MINTS.SOL, config: { amount: '12000000', sliceCount: 3 } },
};

export const PATHS: Record<string, string> = {
  dca: '/dca',
  stop_loss: '/stop-loss',
  take_profit: '/take-profit',
  oco: '/oco',
  slice: '/slice',
};

/** A fresh tenant with alice, her DCA order, and bob (no order). */
export async function readsScene(t: Target) {
  const tenant = await readsTenant(t);
  const alice = await tenant.user('alice');
  const bob = await tenant.user('bob');
  return { tenant, alice, bob, order: await alice.order() };
}

export const rows = (a: Answer) => dataOf<Row[]>(a);
export const first = async (u: ReadsUser, path: string): Promise<Row> => rows(await u.get(path))[0] ?? {};

/** `data` of the detail of a fresh order of `type`. */
export async function detailOf(t: Target, type: string): Promise<Row> {
  const { alice, order } = await readsScene(t);
  const read = type === 'dca' ? order : await alice.order(INTENTS[type]);
  return dataOf<Row>(await alice.get(`${PATHS[type]}/${read.id}`));
}

/** alice's DCA order read through partner reporting (`query` on /partners/me/orders). */
export async function partnerRows(t: Target, query = ''): Promise<Row[]> {
  const { tenant } = await readsScene(t);
  return rows(await tenant.partner(`/partners/me/orders${query}`));
}

/** alice's DCA order after `seconds` on the clock: the scene, and her order's execution rows. */
export async function cycled(t: Target, seconds: number) {
  const s = await readsScene(t);
  await t.advanceClock(seconds);
  return { ...s, executions: rows(await s.alice.get(`/orders/${s.order.id}/executions`)) };
}

/** More cycles than the 500-row cap: a DCA order of 510 one-minute cycles of 12 USDC, all run. */
export async function pastTheCap(t: Target) {
  const s = await readsScene(t);
  await t.fund(s.bob.userPubkey, MINTS.USDC, '7000000000');
  const order = await s.bob.order({
    ...DCA_INTENT,
    config: { totalAmount: String(510 * 12_000_000), amountPerCycle: '12000000', cycleFrequencySeconds: 60 },
  });
  await t.advanceClock(512 * 60);
  return { ...s, order };
}

export const instructionsOf = (answer: Answer) => instructionsIn(String(dataOf<{ transaction?: unknown }>(answer).transaction));

export const instructionsIn = (base64: string) =>
  Transaction.from(Buffer.from(base64, 'base64')).instructions.map(
    (ix) => `${ix.programId.toBase58()} ${ix.keys[0]?.pubkey.toBase58() ?? ''} -> ${ix.keys[1]?.pubkey.toBase58() ?? ''}`,
  );

/** A scene with one order of `type`, and the order after the output price walks `path`. */
export async function walk(
  t: Target,
  type: TriggerType,
  config: Row,
  path: string[],
): Promise<{ scene: TriggerScene; id: string; order: Row }> {
  const scene = await triggerScene(t);
  const id = await scene.order(type, config);
  for (const usd of path) await scene.price(usd);
  return { scene, id, order: await scene.read(type, id) };
}

export const pick = (row: Row, ...names: string[]) => Object.fromEntries(names.map((name) => [name, row[name]]));

/** The fill's execution rows. */
export const rowsOfFill = async (t: Target, type: TriggerType, config: Row, path: string[]) => {
  const { scene, id } = await walk(t, type, config, path);
  return (await scene.executions(id)).map((row) => pick(row, 'executionType', 'status', 'inputAmount'));
};

export const OCO = { stopLossPrice: '500000', takeProfitPrice: '2000000' };

/** A funded user of a fresh tenant (5 USDC in the manager beyond any order) and its user-scoped calls. */
export async function withdrawalScene(t: Target, managerUsdc = '5000000') {
  const { apiKey } = await t.createTenant();
  const user = await t.onboard(apiKey, 'withdraw-probe');
  const pubkey = user.wallet.publicKey.toBase58();
  await t.fund(pubkey, MINTS.USDC, '500000000');
  await t.fund(pubkey, 'native', '1000000000');
  if (managerUsdc !== '0') await t.fund(user.walletAddress, MINTS.USDC, managerUsdc);
  const headers = { 'x-service-key': apiKey, 'x-service-user': 'withdraw-probe' };
  const post = (path: string, json: unknown = {}) => t.orders(path, { method: 'POST', json, headers });
  const get = (path: string) => t.orders(path, { headers });
  const usdc = async () => (dataOf<Row>(await get('/me/balance')).balances as Row[]).find((row) => row.mint === MINTS.USDC) ?? {};
  const order = async () => {
    const intent = dataOf<Row>(await post('/orders/intent', DCA));
    return dataOf<Row>(
      await post('/orders/confirm', {
        pendingOrderId: intent.pendingOrderId,
        signedTransaction: sign(String(intent.transaction), user.wallet),
      }),
    ).order as Row;
  };
  const cancelled = async () => {
    const id = String((await order()).id);
    await post(`/orders/${id}/cancel`, { withdraw: false });
    return id;
  };
  const detail = async (id: string) => dataOf<Row>(await get(`/dca/${id}`));
  const wallet = (json: Row) => post('/withdraw/transaction', { userPubkey: pubkey, tokenMint: MINTS.USDC, ...json });
  return { apiKey, user, pubkey, post, get, usdc, order, cancelled, detail, wallet };
}

export type Scene = Awaited<ReturnType<typeof withdrawalScene>>;

/** A cancelled order with a pending order-level withdrawal: its id and the built transaction. */
export async function pending(s: Scene) {
  const id = await s.cancelled();
  return { id, transaction: String(dataOf<Row>(await s.post(`/orders/${id}/withdraw`)).transaction) };
}

export async function userOnFreshTenant(t: Target) {
  const { apiKey } = await t.createTenant();
  const user = await t.onboard(apiKey, 'probe-sub');
  return { apiKey, user };
}

/** POST /orders/intent `json` as 'probe-sub' of a fresh tenant (its wallet funded first when `funded`). */
export async function freshIntent(t: Target, json: unknown, funded = false) {
  const { apiKey, user } = await userOnFreshTenant(t);
  if (funded) {
    await t.fund(user.wallet.publicKey.toBase58(), MINTS.USDC, '100000000');
    await t.fund(user.wallet.publicKey.toBase58(), 'native', '1000000000');
  }
  const answer = await t.orders('/orders/intent', { method: 'POST', headers: withKey(apiKey, 'probe-sub'), json });
  return { apiKey, user, answer };
}

export async function pendingDca(t: Target) {
  const { apiKey, user, answer } = await freshIntent(t, IDEM_DCA, true);
  const confirm = (json: unknown) => t.orders('/orders/confirm', { method: 'POST', headers: withKey(apiKey, 'probe-sub'), json });
  const data = (answer.body as { data: { pendingOrderId: string; transaction: string } }).data;
  const tx = Transaction.from(Buffer.from(data.transaction, 'base64'));
  return { pendingOrderId: data.pendingOrderId, tx, wallet: user.wallet, confirm };
}

/** A confirm of a DCA deposit the wallet cannot pay (fees only, no USDC): its answer, and the user's headers. */
export async function unfundedConfirm(t: Target): Promise<{ confirm: Answer; headers: Record<string, string> }> {
  const { apiKey } = await t.createTenant();
  const onboarded = await t.onboard(apiKey, 'unfunded');
  await t.fund(onboarded.wallet.publicKey.toBase58(), 'native', '1000000000');
  const headers = withKey(apiKey, 'unfunded');
  const intent = dataOf<{ pendingOrderId: string; transaction: string }>(
    await t.orders('/orders/intent', { method: 'POST', headers, json: DCA_INTENT }),
  );
  const tx = Transaction.from(Buffer.from(intent.transaction, 'base64'));
  tx.partialSign(onboarded.wallet);
  const json = { pendingOrderId: intent.pendingOrderId, signedTransaction: serialized(tx) };
  return { confirm: await t.orders('/orders/confirm', { method: 'POST', headers, json }), headers };
}

/** The raw USDC -> SOL DCA intent (three cycles of 12 USDC an hour apart) the probes post or send twice. */
export const IDEM_DCA = {
  orderType: 'dca',
  inputMint: MINTS.USDC,
  outputMint: MINTS.SOL,
  config: { totalAmount: '36000000', amountPerCycle: '12000000', cycleFrequencySeconds: 3600 },
};

export async function keyedUser(t: Target, apiKey?: string, sub = 'probe-sub') {
  const key = apiKey ?? (await t.createTenant()).apiKey;
  const user = await t.onboard(key, sub);
  await t.fund(user.wallet.publicKey.toBase58(), MINTS.USDC, '500000000');
  await t.fund(user.wallet.publicKey.toBase58(), 'native', '1000000000');
  const post = (path: string, json: unknown, idempotencyKey?: string) =>
    t.orders(path, {
      method: 'POST',
      json,
      headers: { 'x-service-key': key, 'x-service-user': sub, ...(idempotencyKey ? { 'x-idempotency-key': idempotencyKey } : {}) },
    });
  const balance = async (query = '', idempotencyKey?: string) =>
    t.orders(`/me/balance${query}`, {
      headers: { 'x-service-key': key, 'x-service-user': sub, ...(idempotencyKey ? { 'x-idempotency-key': idempotencyKey } : {}) },
    });
  const confirmBody = async (intent: unknown = IDEM_DCA) => {
    const data = (await post('/orders/intent', intent)).body as { data: { pendingOrderId: string; transaction: string } };
    const tx = Transaction.from(Buffer.from(data.data.transaction, 'base64'));
    tx.partialSign(user.wallet);
    return { pendingOrderId: data.data.pendingOrderId, signedTransaction: serialized(tx) };
  };
  return { apiKey: key, user, post, balance, confirmBody };
}

export const balanceRows = (a: Answer) => (a.body as { data: { balances: Record<string, unknown>[] } }).data.balances;
