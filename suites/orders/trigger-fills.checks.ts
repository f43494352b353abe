import { defineCheck, type CheckContext } from '../harness/check.ts';
import { atOnce } from './orders.ts';
import {
  AMOUNT,
  executions,
  expectExecutedPrice,
  FIRED,
  filledStop,
  market,
  markets,
  move,
  moveAll,
  OCO,
  place,
  read,
  triggerOrdersOfOneUser,
} from './steps/triggers.ts';

/**
 * The fill of a trigger order and its one execution row (areas EXEC and TRIG: "Execution", "Trigger-order fields"):
 * the row's type and amounts, the floor of minOutputAmount, the oco's pending leg, no row before the fill, and a
 * trailing stop that fires at its initial trigger before any new high.
 */

export const stopLossFillIsOneRow = defineCheck({
  name: 'stop-loss-fill-is-one-stop-loss-row-selling-the-whole-amount',
  service: 'orders',
  rules: ['OA-EXEC-011', 'OA-EXEC-012', 'OA-TRIG-027', 'OA-TRIG-028', 'OA-TRIG-029'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  ownMarket: true,
  async run(t: CheckContext) {
    const m = await market(t);
    const { id, order, ex } = await filledStop(t, m);
    if (order.status !== 'completed')
      t.skip(`the stop_loss did not complete at its trigger (status ${String(order.status)}): OA-TRIG-024 judges firing`);
    const { ex: listed, rows } = await executions(t, m.user.sub, id);
    t.expect('OA-EXEC-011', rows.length === 1, {
      documented: 'a trigger order writes exactly one execution row when it fires',
      received: rows.map((r) => ({ executionType: r.executionType, status: r.status })),
      exchange: listed,
    });
    const row = rows[0]!;
    t.expect('OA-EXEC-012', row.executionType === 'stop_loss', {
      documented: 'a stop_loss fill is recorded as stop_loss',
      received: { executionType: row.executionType },
      exchange: listed,
    });
    t.expect('OA-TRIG-028', row.inputAmount === AMOUNT, {
      documented: `the fill sells the whole deposit: inputAmount ${AMOUNT}`,
      received: { inputAmount: row.inputAmount },
      exchange: listed,
    });
    t.expect('OA-TRIG-029', row.status === 'success' && order.amountReceived === row.outputAmount, {
      documented: 'amountReceived of the completed order equals the outputAmount of its success row',
      received: { amountReceived: order.amountReceived, outputAmount: row.outputAmount, rowStatus: row.status },
      exchange: ex,
    });
    expectExecutedPrice(t, 'OA-TRIG-027', order, ex);
  },
});

export const takeProfitFillIsFull = defineCheck({
  name: 'take-profit-fill-is-recorded-as-take-profit-full',
  service: 'orders',
  rules: ['OA-EXEC-013'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  ownMarket: true,
  async run(t: CheckContext) {
    const m = await market(t);
    const id = await place(t, m, 'take_profit', { triggerPrice: '2000000' });
    await move(t, m, 2_000_000n);
    const { ex, rows } = await executions(t, m.user.sub, id);
    if (rows.length === 0) t.skip('the take_profit did not fire at its trigger: OA-TRIG-025 judges firing');
    t.expect(
      'OA-EXEC-013',
      rows.every((row) => row.executionType === 'take_profit_full'),
      {
        documented: 'a take_profit fill of an order the partner created is take_profit_full, never take_profit_scaled',
        received: rows.map((r) => r.executionType),
        exchange: ex,
      },
    );
  },
});

export const ocoFillUnderItsLeg = defineCheck({
  name: 'oco-fill-is-recorded-under-its-legs-type',
  service: 'orders',
  rules: ['OA-EXEC-014'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  ownMarket: true,
  async run(t: CheckContext) {
    // One oco filled on each leg, each in a market of its own, moved at once.
    const legs = [
      [500_000n, 'stop_loss'],
      [2_000_000n, 'take_profit_full'],
    ] as const;
    const ms = await markets(t, legs.length);
    const ids = await atOnce(t, ...ms.map((m) => () => place(t, m, 'oco', OCO)));
    await moveAll(
      t,
      legs.map(([pair], i) => [ms[i]!, pair] as const),
    );
    const listed = await atOnce(t, ...ids.map((id) => () => executions(t, ms[0]!.user.sub, id)));
    for (const [i, [, type]] of legs.entries()) {
      const { ex, rows } = listed[i]!;
      if (rows.length === 0) t.skip('the oco did not fire at its leg: OA-TRIG-026 judges firing');
      t.expect(
        'OA-EXEC-014',
        rows.every((row) => row.executionType === type),
        {
          documented: `an oco filled on its ${type === 'stop_loss' ? 'stop-loss' : 'take-profit'} leg is recorded as ${type}`,
          received: rows.map((r) => r.executionType),
          exchange: ex,
        },
      );
    }
  },
});

export const fillKeepsItsFloor = defineCheck({
  name: 'trigger-fill-never-receives-less-than-min-output-amount',
  service: 'orders',
  rules: ['OA-TRIG-030'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  ownMarket: true,
  async run(t: CheckContext) {
    const m = await market(t);
    // 12 input tokens at the pair 0.5 are worth 6 output tokens: a floor of 7 cannot be met at the trigger.
    const minOutputAmount = '7000000';
    const { order, ex } = await filledStop(t, m, { minOutputAmount });
    t.note(`a stop_loss whose floor cannot be met at its trigger ended ${String(order.status)}`);
    t.expect('OA-TRIG-030', order.status !== 'completed' || BigInt(String(order.amountReceived)) >= BigInt(minOutputAmount), {
      documented: `a completed stop_loss received at least its minOutputAmount ${minOutputAmount}`,
      received: { status: order.status, amountReceived: order.amountReceived },
      exchange: ex,
    });
  },
});

export const ocoPendingLeg = defineCheck({
  name: 'oco-names-its-pending-leg-while-executing',
  service: 'orders',
  rules: ['OA-TRIG-019'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock', 'faults'],
  async run(t: CheckContext) {
    const m = await market(t);
    const id = await place(t, m, 'oco', OCO);
    try {
      await t.control.setFaults({ swaps: 'hang' });
    } catch (e) {
      t.skip(`the target cannot hold a swap in flight (faults swaps: hang): ${(e as Error).message.slice(0, 200)}`);
    }
    t.defer(() => t.control.setFaults({ swaps: 'ok' }));
    await move(t, m, 500_000n);
    const { ex, order } = await read(t, m.user.sub, 'oco', id);
    if (order.status !== 'executing') t.skip(`the oco was ${String(order.status)}, not executing, with its fill held in flight`);
    t.expect('OA-TRIG-019', order.pendingLeg === 'stop_loss' || order.pendingLeg === 'take_profit', {
      documented: 'pendingLeg is stop_loss or take_profit while the oco is executing',
      received: { status: order.status, pendingLeg: order.pendingLeg ?? '(absent)' },
      exchange: ex,
    });
  },
});

export const unfiredTriggerHasNoRow = defineCheck({
  name: 'unfired-trigger-order-has-no-execution-row',
  service: 'orders',
  rules: ['OA-EXEC-010'],
  profile: 'full',
  async run(t: CheckContext) {
    for await (const { user, type, orderId } of triggerOrdersOfOneUser(t)) {
      await read(t, user.sub, type, orderId);
      const { ex, rows } = await executions(t, user.sub, orderId);
      t.expect('OA-EXEC-010', rows.length === 0, {
        documented: `an armed ${type} that has not fired has no execution row`,
        received: rows,
        exchange: ex,
      });
    }
  },
});

export const trailingStopGuardsItsInitialTrigger = defineCheck({
  name: 'trailing-stop-loss-of-either-mode-fires-at-its-initial-trigger-before-any-new-high',
  service: 'orders',
  rules: ['OA-TRIG-044'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  ownMarket: true,
  async run(t: CheckContext) {
    const m = await market(t);
    // Created at the pair 1, trailing by 50% with its initial stop at 0.4: the pair falls straight to 0.4, no new high
    // first. One order of each mode, both in this market, placed and read at once.
    const modes = ['pure', 'stop_and_trail'] as const;
    const ids = await atOnce(
      t,
      ...modes.map((trailingMode) => () => place(t, m, 'stop_loss', { triggerPrice: '400000', trailingStopBps: 5000, trailingMode })),
    );
    await move(t, m, 400_000n);
    const seen = await atOnce(t, ...ids.map((id) => () => read(t, m.user.sub, 'stop_loss', id)));
    for (const [i, trailingMode] of modes.entries()) {
      const { ex, order } = seen[i]!;
      t.expect('OA-TRIG-044', FIRED.includes(String(order.status)), {
        documented: `a trailing stop_loss (trailingMode ${trailingMode}, a label only) fires when the pair falls to its initial trigger 400000 before any new high`,
        received: {
          status: order.status,
          currentTriggerPrice: order.currentTriggerPrice,
          highestObservedPrice: order.highestObservedPrice,
        },
        exchange: ex,
      });
    }
  },
});
