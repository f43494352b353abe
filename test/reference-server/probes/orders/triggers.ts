import { dataOf } from '../../reads-support.ts';
import { errorCode, type Target } from '../../support.ts';
import { triggerScene, type TriggerType } from '../../trigger-support.ts';
import type { Probe, Row } from '../probe.ts';
import { OCO, orderField, pick, rowsOfFill, walk } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/orders/triggers.ts (OA-TRIG): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

const statusAfter = async (t: Target, type: TriggerType, config: Row, path: string[]) => (await walk(t, type, config, path)).order.status;

/** A trailing stop at 400000 (25% below the start), 50% trail: two new highs (1250000, 1600000), then back to 1250000. */
const TRAILING_STOP = { triggerPrice: '400000', trailingStopBps: 5000 };
const RISE_AND_FALL = ['0.8', '0.625', '0.8'];

/** A take-profit arming at 1250000 (output at 0.8 USD) with a 30% trail. */
const TRAILING_TAKE = { triggerPrice: '1250000', trailingStopBps: 3000 };

export const TRIGGER_PROBES: Record<string, Probe> = {
  // POST /orders/confirm: creation-time fields of trigger orders
  'trigger-amount-one-more-than-the-deposit': orderField('oco', (order) => order.amount),
  'take-profit-trigger-price-times-ten': orderField('take_profit', (order) => order.triggerPrice),
  // trailing (TRIG-003, 009, 010, 011, 015, 018)
  // The output at 2.5 USD: the pair falls from 1 straight to its initial stop 0.4.
  'pure-trailing-stop-waits-for-a-new-high': (t) => statusAfter(t, 'stop_loss', { ...TRAILING_STOP, trailingMode: 'pure' }, ['2.5']),
  'ratchet-writes-trigger-price': async (t) => (await walk(t, 'stop_loss', TRAILING_STOP, ['0.8'])).order.triggerPrice,
  // oco reads, PATCH (TRIG-004, 031 .. 034)
  'oco-read-swaps-its-legs': async (t) => pick((await walk(t, 'oco', OCO, [])).order, 'stopLossPrice', 'takeProfitPrice'),
  'trigger-price-decimals-as-string': orderField('stop_loss', (order) => typeof order.priceDecimals),
  // 4102444800: 2100-01-01T00:00:00Z.
  'trigger-expires-at-an-hour-late': orderField('oco', (order) => order.expiresAt, { expiresAt: 4_102_444_800 }),
  'trailing-stop-bps-dropped': orderField('take_profit', (order) => order.trailingStopBps, { trailingStopBps: 100 }),
  'plain-stop-current-trigger-one-above': orderField('stop_loss', (order) => order.currentTriggerPrice),
  'first-observation-counts-as-a-new-high': async (t) => (await walk(t, 'stop_loss', TRAILING_STOP, ['1'])).order.currentTriggerPrice,
  'trailing-stop-follows-the-price-down': async (t) => (await walk(t, 'stop_loss', TRAILING_STOP, RISE_AND_FALL)).order.currentTriggerPrice,
  'oco-take-profit-trails-too': async (t) => (await walk(t, 'oco', { ...OCO, trailingStopBps: 5000 }, ['0.8'])).order.takeProfitPrice,
  'stop-loss-highest-observed-price-at-creation': orderField('stop_loss', (order) => 'highestObservedPrice' in order),
  'take-profit-highest-observed-price-before-the-trail-arms': orderField('take_profit', (order) => 'highestObservedPrice' in order),
  'highest-observed-is-the-latest-price': async (t) =>
    (await walk(t, 'stop_loss', TRAILING_STOP, RISE_AND_FALL)).order.highestObservedPrice,
  'take-profit-with-current-trigger-price': orderField('take_profit', (order) => 'currentTriggerPrice' in order),
  'trailing-mode-unknown-label': orderField('stop_loss', (order) => order.trailingMode, { trailingStopBps: 100 }),
  'stop-and-trail-mode-does-not-trail': async (t) =>
    (await walk(t, 'stop_loss', { ...TRAILING_STOP, trailingMode: 'stop_and_trail' }, ['0.8'])).order.currentTriggerPrice,
  // the fill (TRIG-019, 027 .. 030)
  'oco-pending-leg-left-out': async (t) => {
    const scene = await triggerScene(t);
    const id = await scene.order('oco', OCO);
    await t.faults({ swaps: 'hang' });
    try {
      await scene.price('2');
      return pick(await scene.read('oco', id), 'status', 'pendingLeg');
    } finally {
      await t.faults({ swaps: 'ok' });
    }
  },
  'oco-pending-leg-while-active': orderField('oco', (order) => 'pendingLeg' in order),
  'trigger-next-execution-at-set': orderField('stop_loss', (order) => order.nextExecutionAt),
  // firing (TRIG-024 .. 026)
  'stop-loss-fires-only-below-its-trigger': (t) => statusAfter(t, 'stop_loss', { triggerPrice: '500000' }, ['2']),
  'stop-loss-fires-a-quarter-early': (t) => statusAfter(t, 'stop_loss', { triggerPrice: '500000' }, ['1.6']),
  // the pair 500001 (the output at 1/0.500001 USD is not a finite decimal: the input moves to 0.500001 USD instead)
  'stop-loss-fires-one-tick-early': async (t) => {
    const scene = await triggerScene(t);
    const id = await scene.order('stop_loss', { triggerPrice: '500000' });
    await t.setPrice(scene.input, '0.500001');
    return (await scene.read('stop_loss', id)).status;
  },
  'take-profit-fires-only-above-its-trigger': (t) => statusAfter(t, 'take_profit', { triggerPrice: '2000000' }, ['0.5']),
  'oco-take-profit-leg-never-fires': (t) => statusAfter(t, 'oco', OCO, ['0.5']),
  'executed-price-left-out': async (t) =>
    pick((await walk(t, 'stop_loss', { triggerPrice: '500000' }, ['2'])).order, 'executedPrice', 'executedPriceDecimals'),
  'trigger-fill-sells-half-the-deposit': (t) => rowsOfFill(t, 'stop_loss', { triggerPrice: '500000' }, ['2']),
  'trigger-fill-amount-received-left-at-zero': async (t) =>
    (await walk(t, 'stop_loss', { triggerPrice: '500000' }, ['2'])).order.amountReceived,
  'min-output-floor-ignored': (t) => statusAfter(t, 'stop_loss', { triggerPrice: '500000', minOutputAmount: '7000000' }, ['2']),
  'trigger-patch-answers-the-bare-order': async (t) => {
    const scene = await triggerScene(t);
    const id = await scene.order('stop_loss', { triggerPrice: '500000' });
    return Object.keys(dataOf<Row>(await scene.patch('stop_loss', id, { triggerPrice: '600000' }))).includes('order');
  },
  'stop-loss-patch-ignores-the-price': async (t) => {
    const scene = await triggerScene(t);
    const id = await scene.order('stop_loss', { triggerPrice: '500000' });
    await scene.patch('stop_loss', id, { triggerPrice: '600000' });
    return (await scene.read('stop_loss', id)).currentTriggerPrice;
  },
  'oco-patch-judges-only-the-given-price': async (t) => {
    const scene = await triggerScene(t);
    const id = await scene.order('oco', OCO);
    return errorCode(await scene.patch('oco', id, { stopLossPrice: '3000000' }));
  },
  'trigger-patch-takes-a-past-expiry': async (t) => {
    const scene = await triggerScene(t);
    const id = await scene.order('stop_loss', { triggerPrice: '500000' });
    return errorCode(await scene.patch('stop_loss', id, { expiresAt: Math.floor((await t.now()).getTime() / 1000) - 60 }));
  },
  'trigger-patch-modifies-a-completed-order': async (t) => {
    const { scene, id } = await walk(t, 'stop_loss', { triggerPrice: '500000' }, ['2']);
    return (await scene.patch('stop_loss', id, { triggerPrice: '600000' })).status;
  },
  // expiry (TRIG-036)
  'trigger-orders-never-expire': async (t) => {
    const scene = await triggerScene(t);
    const id = await scene.order('stop_loss', { triggerPrice: '500000', expiresAt: Math.floor((await t.now()).getTime() / 1000) + 600 });
    await t.advanceClock(601);
    return (await scene.read('stop_loss', id)).status;
  },
  'take-profit-trail-never-shows-armed': async (t) => (await walk(t, 'take_profit', TRAILING_TAKE, ['0.8'])).order.trailingActivated,
  'take-profit-ignores-its-trail': (t) => statusAfter(t, 'take_profit', TRAILING_TAKE, ['0.8']),
  // PATCH of the trail and the take-profit prices (TRIG-039 .. 042)
  'trigger-patch-ignores-the-trail': async (t) => {
    const scene = await triggerScene(t);
    const id = await scene.order('stop_loss', { triggerPrice: '500000' });
    await scene.patch('stop_loss', id, { trailingStopBps: 2500 });
    return (await scene.read('stop_loss', id)).trailingStopBps;
  },
  'trigger-patch-takes-any-trail': async (t) => {
    const scene = await triggerScene(t);
    const id = await scene.order('stop_loss', { triggerPrice: '500000' });
    return errorCode(await scene.patch('stop_loss', id, { trailingStopBps: 10_000 }));
  },
  'refused-trigger-patch-applies-its-valid-fields': async (t) => {
    const scene = await triggerScene(t);
    const id = await scene.order('stop_loss', { triggerPrice: '500000' });
    await scene.patch('stop_loss', id, { triggerPrice: '600000', trailingStopBps: 0 });
    return (await scene.read('stop_loss', id)).currentTriggerPrice;
  },
  'trigger-patch-takes-a-zero-price': async (t) => {
    const scene = await triggerScene(t);
    const id = await scene.order('take_profit', { triggerPrice: '2000000' });
    return errorCode(await scene.patch('take_profit', id, { triggerPrice: '0' }));
  },
  'take-profit-patch-ignores-the-price': async (t) => {
    const scene = await triggerScene(t);
    const id = await scene.order('take_profit', { triggerPrice: '2000000' });
    await scene.patch('take_profit', id, { triggerPrice: '1250000' });
    await scene.price('0.8');
    return (await scene.read('take_profit', id)).status;
  },
};
