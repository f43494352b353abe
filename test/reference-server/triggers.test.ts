import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, Target } from './support.ts';
import { dataOf } from './reads-support.ts';
import { triggerScene, type Row } from './trigger-support.ts';

/**
 * Trigger orders on the reference server (fixtures/server/orders/lifecycle/triggers.ts, orders/trigger-modify.ts):
 * prices set through the control API; the pair price is 1/p with priceDecimals 6 (trigger-support.ts).
 */

let target: Target;
beforeAll(async () => {
  target = await Target.start();
});
afterAll(async () => {
  await target.close();
});

const fill = (rows: Row[]) => rows.map((row) => ({ type: row.executionType, status: row.status, inputAmount: row.inputAmount }));

describe('firing', () => {
  it('a stop-loss fires exactly when the pair price reaches its trigger, selling the whole amount in one stop_loss row', async () => {
    const scene = await triggerScene(target);
    const id = await scene.order('stop_loss', { triggerPrice: '500000' });
    await scene.price('1.6');
    expect((await scene.read('stop_loss', id)).status).toBe('active');
    expect(await scene.executions(id)).toEqual([]);
    await scene.price('2');
    const order = await scene.read('stop_loss', id);
    const rows = await scene.executions(id);
    expect(order).toMatchObject({
      status: 'completed',
      executedPrice: '500000',
      executedPriceDecimals: 6,
      amountSpent: '12000000',
      amountReceived: '6000000',
    });
    expect(fill(rows)).toEqual([{ type: 'stop_loss', status: 'success', inputAmount: '12000000' }]);
    expect(rows[0]?.outputAmount).toBe('6000000');
  });

  it('a stop-loss one tick (1 unit of the scaled price) above its trigger has not reached it', async () => {
    const scene = await triggerScene(target);
    const id = await scene.order('stop_loss', { triggerPrice: '500000' });
    await target.setPrice(scene.input, '0.500001');
    expect((await scene.read('stop_loss', id)).status).toBe('active');
    await target.setPrice(scene.input, '0.5');
    expect((await scene.read('stop_loss', id)).status).toBe('completed');
  });

  it('a take-profit fires at its trigger as take_profit_full', async () => {
    const scene = await triggerScene(target);
    const id = await scene.order('take_profit', { triggerPrice: '2000000' });
    await scene.price('0.625');
    expect((await scene.read('take_profit', id)).status).toBe('active');
    await scene.price('0.5');
    expect((await scene.read('take_profit', id)).status).toBe('completed');
    expect(fill(await scene.executions(id))).toEqual([{ type: 'take_profit_full', status: 'success', inputAmount: '12000000' }]);
  });

  it("an oco fills the leg reached, under that leg's type", async () => {
    const scene = await triggerScene(target);
    const low = await scene.order('oco', { stopLossPrice: '500000', takeProfitPrice: '2000000' });
    const high = await scene.order('oco', { stopLossPrice: '400000', takeProfitPrice: '1250000' });
    await scene.price('0.8');
    expect((await scene.read('oco', low)).status).toBe('active');
    expect(fill(await scene.executions(high))).toEqual([{ type: 'take_profit_full', status: 'success', inputAmount: '12000000' }]);
    await scene.price('2');
    expect(fill(await scene.executions(low))).toEqual([{ type: 'stop_loss', status: 'success', inputAmount: '12000000' }]);
    expect((await scene.read('oco', low)).pendingLeg).toBeUndefined();
  });

  it('below minOutputAmount the fill fails and the order with it', async () => {
    const scene = await triggerScene(target);
    const id = await scene.order('stop_loss', { triggerPrice: '500000', minOutputAmount: '7000000' });
    await scene.price('2');
    expect(await scene.read('stop_loss', id)).toMatchObject({ status: 'failed', failureReason: 'min_output_not_met', amountReceived: '0' });
    expect(fill(await scene.executions(id))).toEqual([{ type: 'stop_loss', status: 'failed', inputAmount: '12000000' }]);
  });

  it('a paused order is not watched', async () => {
    const scene = await triggerScene(target);
    const id = await scene.order('stop_loss', { triggerPrice: '500000' });
    const paused = await target.orders(`/orders/${id}/pause`, { method: 'POST', headers: scene.headers, json: {} });
    expect(paused.status).toBe(200);
    await scene.price('2');
    expect((await scene.read('stop_loss', id)).status).toBe('paused');
  });
});

describe('trailing', () => {
  it('a trailing stop ratchets currentTriggerPrice with each new high, never down; triggerPrice stays frozen', async () => {
    const scene = await triggerScene(target);
    const id = await scene.order('stop_loss', { triggerPrice: '400000', trailingStopBps: 5000 });
    await scene.price('1.25');
    expect(await scene.read('stop_loss', id)).toMatchObject({ currentTriggerPrice: '400000' });
    expect((await scene.read('stop_loss', id)).highestObservedPrice).toBeUndefined();
    await scene.price('0.8');
    await scene.price('0.625');
    await scene.price('0.8');
    expect(await scene.read('stop_loss', id)).toMatchObject({
      status: 'active',
      triggerPrice: '400000',
      currentTriggerPrice: '800000',
      highestObservedPrice: '1600000',
    });
    await scene.price('1.25');
    expect((await scene.read('stop_loss', id)).status).toBe('completed');
  });

  it('the trail does not depend on trailingMode', async () => {
    const scene = await triggerScene(target);
    const pure = await scene.order('stop_loss', { triggerPrice: '400000', trailingStopBps: 5000, trailingMode: 'pure' });
    const both = await scene.order('stop_loss', { triggerPrice: '400000', trailingStopBps: 5000, trailingMode: 'stop_and_trail' });
    await scene.price('0.8');
    expect((await scene.read('stop_loss', pure)).currentTriggerPrice).toBe('625000');
    expect((await scene.read('stop_loss', both)).currentTriggerPrice).toBe('625000');
  });

  it('a trailing take-profit arms at its trigger and fires when the price falls back by the trail', async () => {
    const scene = await triggerScene(target);
    const id = await scene.order('take_profit', { triggerPrice: '1250000', trailingStopBps: 3000 });
    expect(await scene.read('take_profit', id)).toMatchObject({ trailingActivated: false });
    await scene.price('0.8');
    expect(await scene.read('take_profit', id)).toMatchObject({
      status: 'active',
      trailingActivated: true,
      highestObservedPrice: '1250000',
    });
    await scene.price('0.625');
    await scene.price('0.8');
    expect((await scene.read('take_profit', id)).status).toBe('active');
    await scene.price('1');
    expect((await scene.read('take_profit', id)).status).toBe('completed');
  });

  it('on an oco only the stop-loss leg trails', async () => {
    const scene = await triggerScene(target);
    const id = await scene.order('oco', { stopLossPrice: '500000', takeProfitPrice: '2000000', trailingStopBps: 5000 });
    await scene.price('0.8');
    expect(await scene.read('oco', id)).toMatchObject({
      stopLossPrice: '500000',
      currentTriggerPrice: '625000',
      takeProfitPrice: '2000000',
    });
  });
});

describe('in flight, expiry', () => {
  it('an oco fill in flight shows executing with its pendingLeg, then completes once the swap settles', async () => {
    const scene = await triggerScene(target);
    const id = await scene.order('oco', { stopLossPrice: '500000', takeProfitPrice: '2000000' });
    await target.faults({ swaps: 'hang' });
    try {
      await scene.price('2');
      expect(await scene.read('oco', id)).toMatchObject({ status: 'executing', previousStatus: 'active', pendingLeg: 'stop_loss' });
    } finally {
      await target.faults({ swaps: 'ok' });
    }
    const order = await scene.read('oco', id);
    expect(order).toMatchObject({ status: 'completed', previousStatus: null });
    expect(order.pendingLeg).toBeUndefined();
    expect(fill(await scene.executions(id))).toEqual([{ type: 'stop_loss', status: 'success', inputAmount: '12000000' }]);
  });

  it('an unfilled order expires at expiresAt and its deposit goes back to the user', async () => {
    const scene = await triggerScene(target);
    // The virtual clock goes on with the wall clock: the read before expiresAt keeps 5 s of slack for a busy machine,
    // and the last step lands on expiresAt from the clock's own answer.
    const expiresAt = Math.floor((await target.now()).getTime() / 1000) + 600;
    const id = await scene.order('stop_loss', { triggerPrice: '500000', expiresAt });
    const before = await target.advanceClock(595);
    expect((await scene.read('stop_loss', id)).status).toBe('active');
    await target.advanceClock(Math.max(0, Math.ceil(expiresAt - before.getTime() / 1000)));
    const order = await scene.read('stop_loss', id);
    expect(order).toMatchObject({ status: 'expired', withdrawalStatus: 'completed' });
    expect(order.withdrawalTxHash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    await scene.price('2');
    expect((await scene.read('stop_loss', id)).status).toBe('expired');
  });
});

describe('PATCH', () => {
  it("moves a stop-loss's live trigger, the oco legs, expiry and trail in place, answering {order}", async () => {
    const scene = await triggerScene(target);
    const stop = await scene.order('stop_loss', { triggerPrice: '500000' });
    const answer = await scene.patch('stop_loss', stop, { triggerPrice: '800000', trailingStopBps: 100 });
    expect(answer.status).toBe(200);
    expect(dataOf<Row>(answer).order).toMatchObject({
      id: stop,
      triggerPrice: '500000',
      currentTriggerPrice: '800000',
      trailingStopBps: 100,
      trailingMode: 'pure',
    });
    await scene.price('1.25');
    expect((await scene.read('stop_loss', stop)).status).toBe('completed');

    const oco = await scene.order('oco', { stopLossPrice: '500000', takeProfitPrice: '2000000' });
    expect((await scene.patch('oco', oco, { takeProfitPrice: '4000000' })).status).toBe(200);
    expect(await scene.read('oco', oco)).toMatchObject({ stopLossPrice: '500000', takeProfitPrice: '4000000' });
  });

  it('a new take-profit price takes effect: the take_profit and the oco fire there', async () => {
    const scene = await triggerScene(target);
    const take = await scene.order('take_profit', { triggerPrice: '2000000' });
    const oco = await scene.order('oco', { stopLossPrice: '500000', takeProfitPrice: '2000000' });
    expect((await scene.patch('take_profit', take, { triggerPrice: '1250000' })).status).toBe(200);
    expect((await scene.patch('oco', oco, { takeProfitPrice: '1250000' })).status).toBe(200);
    await scene.price('0.8');
    expect([(await scene.read('take_profit', take)).status, (await scene.read('oco', oco)).status]).toEqual(['completed', 'completed']);
  });

  it('validates as create does, and refuses other types, unknown fields and terminal orders', async () => {
    const scene = await triggerScene(target);
    const oco = await scene.order('oco', { stopLossPrice: '500000', takeProfitPrice: '2000000' });
    const past = Math.floor((await target.now()).getTime() / 1000) - 1;
    const codes = async (path: 'oco' | 'stop_loss', config: Row) => {
      const a = await scene.patch(path, oco, config);
      return [a.status, errorCode(a)];
    };
    expect(await codes('oco', { stopLossPrice: '2000000' })).toEqual([400, 'VALIDATION_ERROR']);
    expect(await codes('oco', { expiresAt: past })).toEqual([400, 'VALIDATION_ERROR']);
    expect(await codes('oco', { trailingStopBps: 10000 })).toEqual([400, 'VALIDATION_ERROR']);
    expect(await codes('oco', { trailingStopBps: 0 })).toEqual([400, 'VALIDATION_ERROR']);
    expect(await codes('oco', { priceDecimals: 19 })).toEqual([400, 'VALIDATION_ERROR']);
    expect(await codes('oco', { takeProfitPrice: '0' })).toEqual([400, 'VALIDATION_ERROR']);
    expect(await codes('oco', { amount: '1' })).toEqual([400, 'VALIDATION_ERROR']);
    expect(await codes('oco', {})).toEqual([400, 'VALIDATION_ERROR']);
    expect(await codes('stop_loss', { triggerPrice: '1' })).toEqual([404, 'NOT_FOUND']);
    await scene.price('2');
    expect(await codes('oco', { takeProfitPrice: '3000000' })).toEqual([400, 'INVALID_STATE']);
  });
});
