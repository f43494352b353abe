import { Keypair, Transaction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { dataOf, dcaIntent, failure, fundedUser, SOL, tenantServer, USDC } from './tenant-support.ts';

/** X-Idempotency-Key on POST /orders/intent and POST /orders/confirm, and the balance locks of GET /me/balance. */

const DCA = dcaIntent('36000000', '12000000');
const DAY = 24 * 60 * 60;

let counter = 0;

describe('X-Idempotency-Key and balance locks', () => {
  const scene = tenantServer();

  const user = async (key = scene.apiKey, sub = `idem-user-${++counter}`) => ({ key, ...(await fundedUser(scene.target, key, sub)) });
  type User = Awaited<ReturnType<typeof user>>;
  const post = (u: User, path: string, json: unknown, idempotencyKey?: string) =>
    scene.target.orders(path, {
      method: 'POST',
      json,
      headers: { 'x-service-key': u.key, 'x-service-user': u.sub, ...(idempotencyKey ? { 'x-idempotency-key': idempotencyKey } : {}) },
    });
  const sign = (base64: string, signer: Keypair) => {
    const transaction = Transaction.from(Buffer.from(base64, 'base64'));
    transaction.partialSign(signer);
    return transaction.serialize().toString('base64');
  };
  async function intent(u: User) {
    const data = dataOf<{ pendingOrderId: string; transaction: string }>(await post(u, '/orders/intent', DCA));
    return { pendingOrderId: data.pendingOrderId, signedTransaction: sign(data.transaction, u.wallet) };
  }

  it('replays an intent with the same key and body: same status and body, no second pending order', async () => {
    const u = await user();
    const first = await post(u, '/orders/intent', DCA, 'k1');
    const again = await post(u, '/orders/intent', DCA, 'k1');
    expect(first.status).toBe(200);
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    const other = await post(u, '/orders/intent', DCA, 'k2');
    expect(dataOf(other).pendingOrderId).not.toBe(dataOf(first).pendingOrderId);
  });

  it('compares bodies as JSON values: key order does not matter, another value is 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const u = await user();
    const first = await post(u, '/orders/intent', DCA, 'k');
    const reordered = { config: DCA.config, outputMint: SOL, inputMint: USDC, orderType: 'dca' };
    expect(dataOf(await post(u, '/orders/intent', reordered, 'k')).pendingOrderId).toBe(dataOf(first).pendingOrderId);
    expect(failure(await post(u, '/orders/intent', { ...DCA, config: { ...DCA.config, totalAmount: '48000000' } }, 'k'))).toEqual({
      status: 422,
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
    expect(failure(await post(u, '/orders/confirm', { pendingOrderId: 'x', signedTransaction: 'y' }, 'k'))).toEqual({
      status: 422,
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
  });

  it('replays a confirm: same order and txSignature, no second order and no second deposit', async () => {
    const u = await user();
    const body = await intent(u);
    const first = await post(u, '/orders/confirm', body, 'c');
    const again = await post(u, '/orders/confirm', body, 'c');
    expect(first.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const partner = dataOf<unknown[]>(await scene.target.partnerOrders(scene.apiKey, `?userId=${u.userId}`));
    expect(partner).toHaveLength(1);
    expect(failure(await post(u, '/orders/confirm', body, 'd'))).toEqual({ status: 400, code: 'INVALID_STATUS' });
  });

  it('caches 2xx only: after a 4xx or a 5xx the same key runs the handler again', async () => {
    const u = await user();
    expect(failure(await post(u, '/orders/intent', { ...DCA, orderType: 'limit' }, 'k'))).toEqual({
      status: 400,
      code: 'INVALID_ORDER_TYPE',
    });
    expect((await post(u, '/orders/intent', DCA, 'k')).status).toBe(200);
    const body = await intent(u);
    await scene.target.faults({ rpc: 'down' });
    try {
      expect(failure(await post(u, '/orders/confirm', body, 'c'))).toEqual({ status: 500, code: 'RPC_ERROR' });
    } finally {
      await scene.target.faults({ rpc: 'up' });
    }
    expect((await post(u, '/orders/confirm', body, 'c')).status).toBe(200);
  });

  it('scopes a key per tenant and end user', async () => {
    const a = await user();
    const b = await user();
    const other = await user((await scene.target.createTenant()).apiKey, a.sub);
    const first = dataOf(await post(a, '/orders/intent', DCA, 'shared')).pendingOrderId;
    for (const u of [b, other]) {
      const answer = await post(u, '/orders/intent', DCA, 'shared');
      expect(answer.status).toBe(200);
      expect(dataOf(answer).pendingOrderId).not.toBe(first);
    }
  });

  it('replays for 24 hours of the virtual clock, then runs the handler afresh', async () => {
    const u = await user();
    const first = await post(u, '/orders/intent', DCA, 'day');
    await scene.target.advanceClock(DAY - 60);
    expect((await post(u, '/orders/intent', DCA, 'day')).body).toEqual(first.body);
    await scene.target.advanceClock(120);
    const fresh = await post(u, '/orders/intent', { ...DCA, config: { ...DCA.config, totalAmount: '48000000' } }, 'day');
    expect(fresh.status).toBe(200);
    expect(dataOf(fresh).pendingOrderId).not.toBe(dataOf(first).pendingOrderId);
  });

  it('ignores the key on POST /partner/onboard and on GETs', async () => {
    const headers = { 'x-service-key': scene.apiKey, 'x-idempotency-key': 'onboard' };
    const one = await scene.target.orders('/partner/onboard', {
      method: 'POST',
      headers,
      json: await scene.target.onboardBody('idem-onboard-1', Keypair.generate()),
    });
    const two = await scene.target.orders('/partner/onboard', {
      method: 'POST',
      headers,
      json: await scene.target.onboardBody('idem-onboard-2', Keypair.generate()),
    });
    expect([one.status, two.status]).toEqual([200, 200]);
    expect(dataOf(two).userId).not.toBe(dataOf(one).userId);
    const u = await user();
    const get = () =>
      scene.target.orders('/me/balance', {
        headers: { 'x-service-key': scene.apiKey, 'x-service-user': u.sub, 'x-idempotency-key': 'get' },
      });
    const before = await get();
    await scene.target.fund(u.walletAddress, 'native', '1000');
    expect((await get()).body).not.toEqual(before.body);
  });

  it('locks totalAmount - amountSpent of an active DCA order on its input mint, never on its output mint', async () => {
    const u = await user();
    const order = dataOf<{ order: { id: string } }>(await post(u, '/orders/confirm', await intent(u))).order;
    const rows = dataOf<{ balances: Record<string, unknown>[] }>(await scene.target.asUser(scene.apiKey, u.sub, '/me/balance')).balances;
    const usdc = rows.find((row) => row.mint === USDC)!;
    expect(usdc).toMatchObject({ totalBalance: '36000000', lockedForFutureTxns: '36000000', availableToWithdraw: '0' });
    expect(usdc.lockedBreakdown).toEqual([{ orderId: order.id, orderType: 'dca', status: 'active', kind: 'locked', amount: '36000000' }]);
    expect(rows.find((row) => row.mint === SOL)).toMatchObject({ lockedForFutureTxns: '0', lockedBreakdown: [] });
  });
});
