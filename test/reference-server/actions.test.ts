import { Transaction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { actionUser, sign, SLICE_INTENT, TRIGGER_INTENT } from './action-support.ts';
import { actionServer, dataOf, failure } from './tenant-support.ts';

describe('order actions: pause, resume, retry, cancel (fixtures/server/orders/actions.ts)', () => {
  const scene = actionServer();

  it('pauses and resumes DCA and trigger orders; a slice cannot pause; wrong states are refused', async () => {
    for (const intent of [undefined, TRIGGER_INTENT]) {
      const order = await scene.alice.order(intent);
      const path = intent ? '/stop-loss' : '/dca';
      expect((await scene.alice.post(`/orders/${order.id}/pause`)).status).toBe(200);
      expect((await scene.alice.detail(order.id, path)).status).toBe('paused');
      expect(failure(await scene.alice.post(`/orders/${order.id}/pause`))).toEqual({ status: 400, code: 'INVALID_STATE' });
      expect((await scene.alice.post(`/orders/${order.id}/resume`)).status).toBe(200);
      expect((await scene.alice.detail(order.id, path)).status).toBe('active');
      expect(failure(await scene.alice.post(`/orders/${order.id}/resume`))).toEqual({ status: 400, code: 'INVALID_STATE' });
    }
    const slice = await scene.alice.order(SLICE_INTENT);
    expect(failure(await scene.alice.post(`/orders/${slice.id}/pause`))).toEqual({ status: 400, code: 'PAUSE_NOT_SUPPORTED' });
    expect(failure(await scene.alice.post(`/orders/${slice.id}/cancel`, { withdraw: false }))).toEqual({
      status: 400,
      code: 'CANCEL_NOT_SUPPORTED',
    });
    expect(failure(await scene.alice.post('/orders/00000000-0000-4000-8000-000000000000/pause'))).toEqual({
      status: 404,
      code: 'NOT_FOUND',
    });
  });

  it('pause, resume, retry, order-level withdraw and abandon take no body or a JSON object; anything else is 400 VALIDATION_ERROR', async () => {
    const order = await scene.alice.order();
    const headers = { 'x-service-key': scene.alice.apiKey, 'x-service-user': scene.alice.sub, 'content-type': 'application/json' };
    for (const action of ['pause', 'resume', 'retry', 'withdraw', 'withdraw/abandon']) {
      for (const rawBody of ['{"a":', 'not json', '[]', 'null', '42']) {
        expect(failure(await scene.target.orders(`/orders/${order.id}/${action}`, { method: 'POST', headers, rawBody }))).toEqual({
          status: 400,
          code: 'VALIDATION_ERROR',
        });
      }
    }
    expect((await scene.alice.detail(order.id)).status).toBe('active');
    expect((await scene.target.orders(`/orders/${order.id}/pause`, { method: 'POST', headers, rawBody: '' })).status).toBe(200);
  });

  it('resume after a long pause runs one cycle, not the ones missed while paused', async () => {
    const order = await scene.alice.order();
    await scene.alice.post(`/orders/${order.id}/pause`);
    await scene.target.advanceClock(5 * 3600);
    expect((await scene.alice.detail(order.id)).cyclesCompleted).toBe(0);
    await scene.alice.post(`/orders/${order.id}/resume`);
    expect(await scene.alice.detail(order.id)).toMatchObject({ status: 'active', cyclesCompleted: 1 });
  });

  it('retry: ORDER_NOT_FAILED with details.status, RETRY_NOT_SUPPORTED on triggers, a failed DCA runs again', async () => {
    const active = await scene.alice.order();
    const refused = await scene.alice.post(`/orders/${active.id}/retry`);
    expect(failure(refused)).toEqual({ status: 400, code: 'ORDER_NOT_FAILED' });
    expect((refused.body as { error: { details: unknown } }).error.details).toEqual({ status: 'active' });
    const trigger = await scene.alice.order(TRIGGER_INTENT);
    expect(failure(await scene.alice.post(`/orders/${trigger.id}/retry`))).toEqual({ status: 400, code: 'RETRY_NOT_SUPPORTED' });

    await scene.target.faults({ swaps: 'fail' });
    await scene.target.advanceClock(3600);
    await scene.target.faults({ swaps: 'ok' });
    expect(await scene.alice.detail(active.id)).toMatchObject({ status: 'failed', withdrawalStatus: 'none' });
    expect((await scene.alice.post(`/orders/${active.id}/retry`)).status).toBe(200);
    expect(await scene.alice.detail(active.id)).toMatchObject({ status: 'active', failureReason: null });
  });

  it('retry when what is left in the manager is locked by another order: INSUFFICIENT_FUNDS with details', async () => {
    const bob = await actionUser(scene.target, 'bob');
    const failed = await bob.order();
    await scene.target.faults({ swaps: 'fail' });
    await scene.target.advanceClock(3600);
    await scene.target.faults({ swaps: 'ok' });
    await bob.order();
    const built = dataOf(await bob.post('/withdraw/transaction', { userPubkey: bob.userPubkey, tokenMint: failed.inputMint }));
    expect((await bob.post('/withdraw/confirm', { signedTransaction: sign(built.transaction as string, bob.wallet) })).status).toBe(200);
    const refused = await bob.post(`/orders/${failed.id}/retry`);
    expect(failure(refused)).toEqual({ status: 400, code: 'INSUFFICIENT_FUNDS' });
    expect((refused.body as { error: { details: unknown } }).error.details).toEqual({
      mint: failed.inputMint,
      required: '36000000',
      currentBalance: '0',
      gap: '36000000',
    });
  });

  it('retry after the automatic return answers ALREADY_WITHDRAWN', async () => {
    const order = await scene.alice.order();
    await scene.target.faults({ swaps: 'fail' });
    await scene.target.advanceClock(3600);
    await scene.target.faults({ swaps: 'ok' });
    await scene.target.advanceClock(3600);
    expect(await scene.alice.detail(order.id)).toMatchObject({ status: 'failed', withdrawalStatus: 'completed' });
    expect(failure(await scene.alice.post(`/orders/${order.id}/retry`))).toEqual({ status: 400, code: 'ALREADY_WITHDRAWN' });
  });

  it('cancel: {withdraw:false}, then NOT_CANCELLABLE; {withdraw:true} builds the withdrawal; body and destination checked', async () => {
    const order = await scene.alice.order();
    expect(failure(await scene.alice.post(`/orders/${order.id}/cancel`, { withdraw: true }))).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
    expect(failure(await scene.alice.post(`/orders/${order.id}/cancel`, {}))).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    expect(failure(await scene.alice.post(`/orders/${order.id}/cancel`, { withdraw: true, userPubkey: order.walletAddress }))).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
    expect((await scene.alice.post(`/orders/${order.id}/cancel`, { withdraw: false })).status).toBe(200);
    expect(await scene.alice.detail(order.id)).toMatchObject({ status: 'cancelled', nextExecutionAt: null });
    expect(failure(await scene.alice.post(`/orders/${order.id}/cancel`, { withdraw: false }))).toEqual({
      status: 400,
      code: 'NOT_CANCELLABLE',
    });

    const other = await scene.alice.order(TRIGGER_INTENT);
    const built = await scene.alice.post(`/orders/${other.id}/cancel`, { withdraw: true, userPubkey: scene.alice.userPubkey });
    expect(built.status).toBe(200);
    expect(dataOf(built).withdrawalAmounts).toEqual([{ mint: other.inputMint, amount: '12000000' }]);
    expect(Transaction.from(Buffer.from(dataOf(built).transaction as string, 'base64')).feePayer?.toBase58()).toBe(scene.alice.userPubkey);
    expect(await scene.alice.detail(other.id, '/stop-loss')).toMatchObject({ status: 'cancelled', withdrawalStatus: 'pending' });
  });

  it('cancel {withdraw:true} while the chain is down: 500 WITHDRAWAL_BUILD_FAILED and the order is cancelled', async () => {
    const order = await scene.alice.order();
    await scene.target.faults({ rpc: 'down' });
    const answer = await scene.alice.post(`/orders/${order.id}/cancel`, { withdraw: true, userPubkey: scene.alice.userPubkey });
    await scene.target.faults({ rpc: 'up' });
    expect(failure(answer)).toEqual({ status: 500, code: 'WITHDRAWAL_BUILD_FAILED' });
    expect(await scene.alice.detail(order.id)).toMatchObject({ status: 'cancelled', withdrawalStatus: 'none' });
  });

  it('two cancels at once: one 2xx, the other NOT_CANCELLABLE', async () => {
    const order = await scene.alice.order();
    const answers = await Promise.all([0, 1].map(() => scene.alice.post(`/orders/${order.id}/cancel`, { withdraw: false })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
  });

  it('409 EXECUTION_IN_FLIGHT while a swap hangs; the answer resolves once it settles', async () => {
    const order = await scene.alice.order();
    await scene.target.faults({ swaps: 'hang' });
    await scene.target.advanceClock(3600);
    expect((await scene.alice.detail(order.id)).status).toBe('executing');
    for (const action of ['pause', 'retry', 'cancel']) {
      expect(failure(await scene.alice.post(`/orders/${order.id}/${action}`, { withdraw: false }))).toEqual({
        status: 409,
        code: 'EXECUTION_IN_FLIGHT',
      });
    }
    expect(failure(await scene.alice.patch(`/dca/${order.id}`, { config: { cycleFrequencySeconds: 120 } }))).toEqual({
      status: 409,
      code: 'EXECUTION_IN_FLIGHT',
    });
    await scene.target.faults({ swaps: 'ok' });
    expect((await scene.alice.post(`/orders/${order.id}/cancel`, { withdraw: false })).status).toBe(200);
  });
});

describe('DCA modify (fixtures/server/orders/dca-modify.ts)', () => {
  const scene = actionServer();

  it('edits in place without a transaction; validates; checks the minimum notional; 404 on other types', async () => {
    const order = await scene.alice.order();
    const answer = await scene.alice.patch(`/dca/${order.id}`, { config: { amountPerCycle: '18000000', cycleFrequencySeconds: 600 } });
    expect(dataOf(answer).requiresTransaction).toBe(false);
    expect(await scene.alice.detail(order.id)).toMatchObject({
      amountPerCycle: '18000000',
      cycleFrequencySeconds: 600,
      totalCycles: 2,
      status: 'active',
    });
    expect(failure(await scene.alice.patch(`/dca/${order.id}`, { config: { amountPerCycle: '1000000' } }))).toEqual({
      status: 400,
      code: 'MIN_NOTIONAL_NOT_MET',
    });
    expect(failure(await scene.alice.patch(`/dca/${order.id}`, { config: { cycleFrequencySeconds: 59 } }))).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
    expect(failure(await scene.alice.patch(`/dca/${order.id}`, { config: { amountPerCycle: '99000000' } }))).toEqual({
      status: 400,
      code: 'MODIFICATION_ERROR',
    });
    const trigger = await scene.alice.order(TRIGGER_INTENT);
    expect(failure(await scene.alice.patch(`/dca/${trigger.id}`, { config: { cycleFrequencySeconds: 600 } }))).toEqual({
      status: 404,
      code: 'NOT_FOUND',
    });
  });

  it('amounts are u64 token amounts: one beyond u64 is 400 VALIDATION_ERROR, never served and never a 500', async () => {
    const order = await scene.alice.order();
    for (const amount of ['18446744073709551616', '9'.repeat(80)]) {
      for (const field of ['totalAmount', 'amountPerCycle']) {
        expect(failure(await scene.alice.patch(`/dca/${order.id}`, { config: { [field]: amount } }))).toEqual({
          status: 400,
          code: 'VALIDATION_ERROR',
        });
      }
    }
  });

  it('a totalAmount change: transaction, lock (LOCK_FAILED), confirm checks, applied with the raise deposited', async () => {
    const order = await scene.alice.order();
    const patched = dataOf(await scene.alice.patch(`/dca/${order.id}`, { config: { totalAmount: '48000000' } }));
    expect(patched).toMatchObject({ requiresTransaction: true, cyclesCompleted: 0 });
    expect(await scene.alice.detail(order.id)).toMatchObject({ status: 'pending_modification', previousStatus: 'active' });
    expect(failure(await scene.alice.patch(`/dca/${order.id}`, { config: { totalAmount: '60000000' } }))).toEqual({
      status: 409,
      code: 'LOCK_FAILED',
    });
    const signedTransaction = sign(patched.transaction as string, scene.alice.wallet);
    const confirm = (body: unknown) => scene.alice.post(`/dca/${order.id}/modify/confirm`, body);
    expect(failure(await confirm({}))).toEqual({ status: 400, code: 'INVALID_REQUEST' });
    expect(failure(await confirm([]))).toEqual({ status: 400, code: 'INVALID_REQUEST' });
    expect(failure(await confirm({ signedTransaction, cyclesCompleted: 1, config: { totalAmount: '48000000' } }))).toEqual({
      status: 400,
      code: 'MODIFICATION_ERROR',
    });
    expect(
      failure(await confirm({ signedTransaction: patched.transaction, cyclesCompleted: 0, config: { totalAmount: '48000000' } })),
    ).toEqual({ status: 400, code: 'INVALID_TRANSACTION' });
    expect((await confirm({ signedTransaction, cyclesCompleted: 0, config: { totalAmount: '48000000' } })).status).toBe(200);
    expect(await scene.alice.detail(order.id)).toMatchObject({
      status: 'active',
      previousStatus: null,
      totalAmount: '48000000',
      totalCycles: 4,
    });
    const usdc = (
      dataOf(await scene.alice.get('/me/balance')).balances as { mint: string; totalBalance: string; lockedForFutureTxns: string }[]
    ).find((row) => row.mint === order.inputMint);
    expect(usdc?.lockedForFutureTxns).toBe(usdc?.totalBalance);
  });

  it('the 30-second lock elapses: the order returns to its resting state and confirm answers LOCK_EXPIRED', async () => {
    const order = await scene.alice.order();
    expect((await scene.alice.post(`/orders/${order.id}/pause`)).status).toBe(200);
    const patched = dataOf(await scene.alice.patch(`/dca/${order.id}`, { config: { totalAmount: '24000000' } }));
    expect(await scene.alice.detail(order.id)).toMatchObject({ status: 'pending_modification', previousStatus: 'paused' });
    await scene.target.advanceClock(31);
    expect(await scene.alice.detail(order.id)).toMatchObject({ status: 'paused', previousStatus: null, totalAmount: '36000000' });
    const late = await scene.alice.post(`/dca/${order.id}/modify/confirm`, {
      signedTransaction: sign(patched.transaction as string, scene.alice.wallet),
      cyclesCompleted: 0,
      config: {},
    });
    expect(failure(late)).toEqual({ status: 409, code: 'LOCK_EXPIRED' });
  });
});
