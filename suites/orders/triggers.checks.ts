import { Keypair } from '@solana/web3.js';
import fc from 'fast-check';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed } from '../harness/failure.ts';
import { isObject } from '../shared/values.ts';
import { act } from './actions.checks.ts';
import { createOrder, failureOf, INT, intentRequest, intentUser, type Funded } from './orders.ts';
import { asUser, dataOf, errorCode, is2xx, serviceNow } from './users.ts';

/**
 * Trigger orders after creation ("What the service does 3", "Trigger-order fields", "Execution", "States and
 * transitions", "Orders: modify"): firing on the pair price, the trailing ratchet, the fill and its one execution
 * row, expiry, and the in-place PATCH.
 *
 * Each check trades in a market of its own: two fresh test mints funded and priced through the control API, the
 * output at 1 USD and the input at p USD. The pair price ("a pair ratio scaled by priceDecimals", output per input)
 * is then p exactly: every pair the checks set has six decimals at most, so no rounding is ever judged, and one tick
 * (1 unit of the scaled price) is as easy to set as any other. Nothing another check does moves these prices, and
 * nothing here moves anyone else's. After each price move the clock advances a little (a target that polls its oracle
 * gets the time to see it). A fill in flight (`executing`) counts as fired. "Price reaches the trigger" (States and
 * transitions): a stop fires at its trigger or below, a take-profit at its trigger or above; the firing properties walk
 * the exact trigger and one tick on either side of it.
 */

type Order = Record<string, unknown>;
type TriggerType = 'stop_loss' | 'take_profit' | 'oco';

const PATHS: Record<TriggerType, string> = { stop_loss: '/stop-loss', take_profit: '/take-profit', oco: '/oco' };
const PRICE_DECIMALS = 6;
/** The pair prices (scaled by 10^6) the walks choose from. */
const PAIRS: readonly bigint[] = [2_000_000n, 1_600_000n, 1_250_000n, 1_000_000n, 800_000n, 625_000n, 500_000n, 400_000n];
const START = 1_000_000n;
const AMOUNT = '12000000';
const STEP_SECONDS = 30;
const FIRED = ['executing', 'completed'];
/** Random walks over PAIRS and the given extra pair prices. */
const path = (maxLength = 5, extra: readonly bigint[] = []) => fc.array(fc.constantFrom(...PAIRS, ...extra), { minLength: 1, maxLength });
/** Each trigger and one tick on either side of it. */
const ticksAround = (...triggers: bigint[]) => triggers.flatMap((trigger) => [trigger - 1n, trigger, trigger + 1n]);
/** The input's USD price that makes the pair `pair` (the output at 1 USD): the scaled pair as a decimal. */
const inputUsd = (pair: bigint) => `${pair / 1_000_000n}.${(pair % 1_000_000n).toString().padStart(6, '0')}`;
const runs = (t: CheckContext) => Math.min(t.env.numRuns, 3);

interface Market {
  user: Funded;
  input: string;
  output: string;
}

/** A funded user and a market of two fresh mints, both at 1 USD (the pair at START). */
async function market(t: CheckContext): Promise<Market> {
  const user = await intentUser(t, false);
  const input = Keypair.generate().publicKey.toBase58();
  const output = Keypair.generate().publicKey.toBase58();
  await t.control.fund(user.userPubkey, 'native', '1000000000');
  await t.control.fund(user.userPubkey, input, '1000000000');
  await t.control.fund(Keypair.generate().publicKey.toBase58(), output, '1');
  await t.control.setPrice(input, inputUsd(START));
  await t.control.setPrice(output, '1');
  return { user, input, output };
}

/** The pair at `pair` (the input's USD price); the clock then moves on a little. */
async function move(t: CheckContext, m: Market, pair: bigint): Promise<void> {
  await t.control.setPrice(m.input, inputUsd(pair));
  await t.control.advanceClock(STEP_SECONDS);
}

/** A confirmed order of `type` selling AMOUNT at priceDecimals 6, created at the pair price 1. */
async function place(t: CheckContext, m: Market, type: TriggerType, values: Record<string, unknown>): Promise<string> {
  await t.control.setPrice(m.input, inputUsd(START));
  const request = intentRequest(type, { inputMint: m.input, outputMint: m.output, config: { amount: AMOUNT, priceDecimals: PRICE_DECIMALS, ...values } });
  return (await createOrder(t, m.user, request)).orderId;
}

async function read(t: CheckContext, sub: string, type: TriggerType, id: string): Promise<{ ex: Exchange; order: Order }> {
  const ex = await asUser(t, sub, { path: `${PATHS[type]}/${id}` });
  const order = dataOf(ex);
  if (!is2xx(ex) || !order) throw new SetupFailed(`GET ${PATHS[type]}/${id} answered ${ex.response.status}`, ex);
  return { ex, order };
}

async function executions(t: CheckContext, sub: string, id: string): Promise<{ ex: Exchange; rows: Order[] }> {
  const ex = await asUser(t, sub, { path: `/orders/${id}/executions` });
  const body = ex.response.body;
  const rows = isObject(body) && Array.isArray(body.data) ? body.data.filter(isObject) : undefined;
  if (!is2xx(ex) || !rows) throw new SetupFailed(`GET /orders/${id}/executions answered ${ex.response.status}`, ex);
  return { ex, rows };
}

/**
 * An order of `type` with `values`, walked along `prices`: `step` sees each read, until the order leaves active.
 * The order's id and its last status.
 */
async function walk(t: CheckContext, m: Market, type: TriggerType, values: Record<string, unknown>, prices: readonly bigint[],
  step: (read: { ex: Exchange; order: Order }, pair: bigint) => void): Promise<{ id: string; status: unknown }> {
  const id = await place(t, m, type, values);
  let status: unknown = 'active';
  for (const pair of prices) {
    await move(t, m, pair);
    const seen = await read(t, m.user.sub, type, id);
    step(seen, pair);
    status = seen.order.status;
    if (status !== 'active') break;
  }
  return { id, status };
}

/** Fired (completed, or its fill in flight) exactly when `reached`; active otherwise. */
function firesExactly(t: CheckContext, rule: string, what: string, order: Order, ex: Exchange, pair: bigint, reached: boolean): void {
  t.expect(rule, reached ? FIRED.includes(String(order.status)) : order.status === 'active', {
    documented: reached ? `${what}: at the pair price ${pair} the order fires (completed, or executing)` : `${what}: at the pair price ${pair} the order has not fired (active)`,
    received: { status: order.status, pair: pair.toString() }, exchange: ex,
  });
}

// ---- firing ----

const STOP = { triggerPrice: '500000' };

export const stopLossFiresAtItsTrigger = defineCheck({
  name: 'stop-loss-fires-exactly-when-the-price-falls-to-its-trigger',
  service: 'orders',
  rules: ['OA-TRIG-024'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  async run(t: CheckContext) {
    const m = await market(t);
    const walkStop = async (prices: readonly bigint[]) => void await walk(t, m, 'stop_loss', STOP, prices, ({ ex, order }, pair) =>
      firesExactly(t, 'OA-TRIG-024', `a stop_loss at currentTriggerPrice ${String(order.currentTriggerPrice)}`, order, ex, pair, pair <= BigInt(String(order.currentTriggerPrice))));
    await walkStop([625_000n, 500_000n]);
    await walkStop([500_001n, 500_000n]);
    await t.property('OA-TRIG-024', path(5, ticksAround(500_000n)), walkStop, runs(t));
  },
});

export const takeProfitFiresAtItsTrigger = defineCheck({
  name: 'take-profit-fires-exactly-when-the-price-rises-to-its-trigger',
  service: 'orders',
  rules: ['OA-TRIG-025'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  async run(t: CheckContext) {
    const m = await market(t);
    const walkTake = async (prices: readonly bigint[]) => void await walk(t, m, 'take_profit', { triggerPrice: '2000000' }, prices, ({ ex, order }, pair) =>
      firesExactly(t, 'OA-TRIG-025', 'a take_profit at triggerPrice 2000000', order, ex, pair, pair >= 2_000_000n));
    await walkTake([1_600_000n, 2_000_000n]);
    await walkTake([1_999_999n, 2_000_000n]);
    await t.property('OA-TRIG-025', path(5, ticksAround(2_000_000n)), walkTake, runs(t));
  },
});

const OCO = { stopLossPrice: '500000', takeProfitPrice: '2000000' };

export const ocoFiresOnEitherLeg = defineCheck({
  name: 'oco-fires-exactly-when-the-price-reaches-either-leg-and-fills-one',
  service: 'orders',
  rules: ['OA-TRIG-026', 'OA-EXEC-011'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  async run(t: CheckContext) {
    const m = await market(t);
    const walkOco = async (prices: readonly bigint[]) => {
      const { id, status } = await walk(t, m, 'oco', OCO, prices, ({ ex, order }, pair) =>
        firesExactly(t, 'OA-TRIG-026', 'an oco with legs 500000 and 2000000', order, ex, pair, pair <= 500_000n || pair >= 2_000_000n));
      if (status !== 'completed') return;
      const { ex, rows } = await executions(t, m.user.sub, id);
      t.expect('OA-EXEC-011', rows.length === 1, {
        documented: 'a completed oco filled exactly one leg: one execution row', received: rows.map((r) => ({ executionType: r.executionType, status: r.status })), exchange: ex,
      });
    };
    await walkOco([1_250_000n, 2_000_000n]);
    await walkOco([800_000n, 500_000n]);
    await walkOco([1_999_999n, 500_001n, 500_000n]);
    await t.property('OA-TRIG-026', path(5, ticksAround(500_000n, 2_000_000n)), walkOco, runs(t));
  },
});

// ---- trailing ----

/** A stop at 400000 (60% below the start) trailing by 50%: the first new high above 800000 ratchets it. */
const TRAILING_STOP = { triggerPrice: '400000', trailingStopBps: 5000 };

export const trailingStopRatchetsUpOnly = defineCheck({
  name: 'trailing-stop-ratchets-up-only-from-the-first-new-high',
  service: 'orders',
  rules: ['OA-TRIG-003', 'OA-TRIG-009', 'OA-TRIG-010', 'OA-TRIG-015'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  async run(t: CheckContext) {
    const m = await market(t);
    const walkTrail = async (prices: readonly bigint[]) => {
      const id = await place(t, m, 'stop_loss', TRAILING_STOP);
      let high = START;
      let last = await read(t, m.user.sub, 'stop_loss', id);
      const judge = ({ ex, order }: { ex: Exchange; order: Order }, previous?: Order) => {
        t.expect('OA-TRIG-003', order.triggerPrice === TRAILING_STOP.triggerPrice, {
          documented: 'triggerPrice stays at its creation value while the stop trails', received: { triggerPrice: order.triggerPrice }, exchange: ex,
        });
        if (high === START) {
          t.expect('OA-TRIG-009', order.currentTriggerPrice === order.triggerPrice, {
            documented: `currentTriggerPrice equals triggerPrice until the price first sets a new high (no price above the creation pair ${high} yet)`,
            received: { currentTriggerPrice: order.currentTriggerPrice, triggerPrice: order.triggerPrice }, exchange: ex,
          });
        }
        if (!previous) return;
        const grew = (name: string) => !INT.test(String(previous[name])) || (INT.test(String(order[name])) && BigInt(String(order[name])) >= BigInt(String(previous[name])));
        t.expect('OA-TRIG-010', grew('currentTriggerPrice'), {
          documented: 'currentTriggerPrice of a trailing stop_loss never decreases', received: { before: previous.currentTriggerPrice, after: order.currentTriggerPrice }, exchange: ex,
        });
        t.expect('OA-TRIG-015', grew('highestObservedPrice'), {
          documented: 'highestObservedPrice, once present, never decreases', received: { before: previous.highestObservedPrice, after: order.highestObservedPrice }, exchange: ex,
        });
      };
      judge(last);
      for (const pair of prices) {
        await move(t, m, pair);
        if (pair > high) high = pair;
        const seen = await read(t, m.user.sub, 'stop_loss', id);
        if (!FIRED.includes(String(seen.order.status))) judge(seen, last.order);
        if (seen.order.status !== 'active') return;
        last = seen;
      }
    };
    await walkTrail([1_250_000n, 1_600_000n, 1_250_000n]);
    await t.property('OA-TRIG-010', path(6), walkTrail, runs(t));
  },
});

/** A take-profit at 1250000 trailing by 30%: it arms at 1250000, then fires 30% under its highest pair. */
const TRAILING_TAKE = { triggerPrice: '1250000', trailingStopBps: 3000 };
const TAKE_TRIGGER = 1_250_000n;
const derivedTrigger = (high: bigint) => (high * (10_000n - 3000n)) / 10_000n;

/** A trailing take-profit walked along `prices`: `step` sees each read with whether it has armed, and its peak since. */
async function walkTrailingTake(t: CheckContext, m: Market, prices: readonly bigint[],
  step: (read: { ex: Exchange; order: Order }, pair: bigint, armed: boolean, high: bigint) => void): Promise<void> {
  let armed = false;
  let high = 0n;
  await walk(t, m, 'take_profit', TRAILING_TAKE, prices, (seen, pair) => {
    if (pair >= TAKE_TRIGGER) armed = true;
    if (armed && pair > high) high = pair;
    step(seen, pair, armed, high);
  });
}

export const takeProfitTrailArms = defineCheck({
  name: 'trailing-take-profit-shows-its-trail-armed-from-its-trigger',
  service: 'orders',
  rules: ['OA-TRIG-037'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  async run(t: CheckContext) {
    const m = await market(t);
    const walkArming = (prices: readonly bigint[]) => walkTrailingTake(t, m, prices, ({ ex, order }, pair, armed) => {
      if (order.status !== 'active') return;
      t.expect('OA-TRIG-037', order.trailingActivated === armed, {
        documented: `a trailing take_profit at triggerPrice 1250000 shows trailingActivated ${armed} ${armed ? 'once the pair price has reached it' : 'while the pair price has stayed below it'}`,
        received: { pair: pair.toString(), trailingActivated: order.trailingActivated }, exchange: ex,
      });
    });
    await walkArming([800_000n, 1_250_000n, 1_600_000n]);
    await t.property('OA-TRIG-037', path(), walkArming, runs(t));
  },
});

export const takeProfitTrailFires = defineCheck({
  name: 'armed-take-profit-fires-exactly-when-the-price-falls-back-by-its-trail',
  service: 'orders',
  rules: ['OA-TRIG-038'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  async run(t: CheckContext) {
    const m = await market(t);
    const walkTrail = (prices: readonly bigint[]) => walkTrailingTake(t, m, prices, ({ ex, order }, pair, armed, high) =>
      firesExactly(t, 'OA-TRIG-038', armed ? `an armed take_profit with highest pair ${high} and a 30% trail (derived trigger ${derivedTrigger(high)})` : 'a trailing take_profit not yet armed',
        order, ex, pair, armed && pair <= derivedTrigger(high)));
    await walkTrail([1_250_000n, 1_600_000n, 1_250_000n, 1_000_000n]);
    await t.property('OA-TRIG-038', path(), walkTrail, runs(t));
  },
});

export const ocoTakeProfitNeverTrails = defineCheck({
  name: 'oco-take-profit-price-stays-while-the-stop-leg-trails',
  service: 'orders',
  rules: ['OA-TRIG-011'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  async run(t: CheckContext) {
    const m = await market(t);
    await walk(t, m, 'oco', { ...OCO, trailingStopBps: 5000 }, [1_250_000n, 1_600_000n], ({ ex, order }) => {
      t.expect('OA-TRIG-011', order.takeProfitPrice === OCO.takeProfitPrice, {
        documented: 'on an oco only the stop-loss leg trails: takeProfitPrice stays at 2000000 while the price rises below it',
        received: { takeProfitPrice: order.takeProfitPrice, currentTriggerPrice: order.currentTriggerPrice }, exchange: ex,
      });
    });
  },
});

export const trailingModeIsALabel = defineCheck({
  name: 'trailing-mode-never-changes-when-a-stop-fires',
  service: 'orders',
  rules: ['OA-TRIG-018'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  async run(t: CheckContext) {
    const m = await market(t);
    const pure = await place(t, m, 'stop_loss', { ...TRAILING_STOP, trailingMode: 'pure' });
    const both = await place(t, m, 'stop_loss', { ...TRAILING_STOP, trailingMode: 'stop_and_trail' });
    for (const pair of [1_250_000n, 800_000n, 625_000n, 400_000n]) {
      await move(t, m, pair);
      const a = await read(t, m.user.sub, 'stop_loss', pure);
      const b = await read(t, m.user.sub, 'stop_loss', both);
      const fired = (order: Order) => FIRED.includes(String(order.status));
      t.expect('OA-TRIG-018', fired(a.order) === fired(b.order), {
        documented: 'trailingMode is a display label: two trailing stops differing only in it fire at the same price',
        received: { pair: pair.toString(), pure: a.order.status, stopAndTrail: b.order.status }, exchange: b.ex,
      });
      if (fired(a.order)) return;
    }
  },
});

// ---- the fill ----

/** A stop_loss at 500000 filled at the pair 500000: its order and execution rows. */
async function filledStop(t: CheckContext, m: Market, values: Record<string, unknown> = {}): Promise<{ id: string; order: Order; ex: Exchange }> {
  const id = await place(t, m, 'stop_loss', { ...STOP, ...values });
  await move(t, m, 500_000n);
  return { id, ...(await read(t, m.user.sub, 'stop_loss', id)) };
}

export const stopLossFillIsOneRow = defineCheck({
  name: 'stop-loss-fill-is-one-stop-loss-row-selling-the-whole-amount',
  service: 'orders',
  rules: ['OA-EXEC-011', 'OA-EXEC-012', 'OA-TRIG-027', 'OA-TRIG-028', 'OA-TRIG-029'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  async run(t: CheckContext) {
    const m = await market(t);
    const { id, order, ex } = await filledStop(t, m);
    if (order.status !== 'completed') t.skip(`the stop_loss did not complete at its trigger (status ${String(order.status)}): OA-TRIG-024 judges firing`);
    const { ex: listed, rows } = await executions(t, m.user.sub, id);
    t.expect('OA-EXEC-011', rows.length === 1, {
      documented: 'a trigger order writes exactly one execution row when it fires', received: rows.map((r) => ({ executionType: r.executionType, status: r.status })), exchange: listed,
    });
    const row = rows[0]!;
    t.expect('OA-EXEC-012', row.executionType === 'stop_loss', { documented: 'a stop_loss fill is recorded as stop_loss', received: { executionType: row.executionType }, exchange: listed });
    t.expect('OA-TRIG-028', row.inputAmount === AMOUNT, { documented: `the fill sells the whole deposit: inputAmount ${AMOUNT}`, received: { inputAmount: row.inputAmount }, exchange: listed });
    t.expect('OA-TRIG-029', row.status === 'success' && order.amountReceived === row.outputAmount, {
      documented: 'amountReceived of the completed order equals the outputAmount of its success row',
      received: { amountReceived: order.amountReceived, outputAmount: row.outputAmount, rowStatus: row.status }, exchange: ex,
    });
    t.expect('OA-TRIG-027', typeof order.executedPrice === 'string' && INT.test(order.executedPrice) && Number.isInteger(order.executedPriceDecimals), {
      documented: 'a completed trigger order has executedPrice (integer string) and executedPriceDecimals (integer)',
      received: { executedPrice: order.executedPrice, executedPriceDecimals: order.executedPriceDecimals }, exchange: ex,
    });
  },
});

export const takeProfitFillIsFull = defineCheck({
  name: 'take-profit-fill-is-recorded-as-take-profit-full',
  service: 'orders',
  rules: ['OA-EXEC-013'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  async run(t: CheckContext) {
    const m = await market(t);
    const id = await place(t, m, 'take_profit', { triggerPrice: '2000000' });
    await move(t, m, 2_000_000n);
    const { ex, rows } = await executions(t, m.user.sub, id);
    if (rows.length === 0) t.skip('the take_profit did not fire at its trigger: OA-TRIG-025 judges firing');
    t.expect('OA-EXEC-013', rows.every((row) => row.executionType === 'take_profit_full'), {
      documented: 'a take_profit fill of an order the partner created is take_profit_full, never take_profit_scaled', received: rows.map((r) => r.executionType), exchange: ex,
    });
  },
});

export const ocoFillUnderItsLeg = defineCheck({
  name: 'oco-fill-is-recorded-under-its-legs-type',
  service: 'orders',
  rules: ['OA-EXEC-014'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  async run(t: CheckContext) {
    const m = await market(t);
    for (const [pair, type] of [[500_000n, 'stop_loss'], [2_000_000n, 'take_profit_full']] as const) {
      const id = await place(t, m, 'oco', OCO);
      await move(t, m, pair);
      const { ex, rows } = await executions(t, m.user.sub, id);
      if (rows.length === 0) t.skip('the oco did not fire at its leg: OA-TRIG-026 judges firing');
      t.expect('OA-EXEC-014', rows.every((row) => row.executionType === type), {
        documented: `an oco filled on its ${type === 'stop_loss' ? 'stop-loss' : 'take-profit'} leg is recorded as ${type}`, received: rows.map((r) => r.executionType), exchange: ex,
      });
    }
  },
});

export const fillKeepsItsFloor = defineCheck({
  name: 'trigger-fill-never-receives-less-than-min-output-amount',
  service: 'orders',
  rules: ['OA-TRIG-030'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  async run(t: CheckContext) {
    const m = await market(t);
    // 12 input tokens at the pair 0.5 are worth 6 output tokens: a floor of 7 cannot be met at the trigger.
    const minOutputAmount = '7000000';
    const { order, ex } = await filledStop(t, m, { minOutputAmount });
    t.note(`a stop_loss whose floor cannot be met at its trigger ended ${String(order.status)}`);
    t.expect('OA-TRIG-030', order.status !== 'completed' || BigInt(String(order.amountReceived)) >= BigInt(minOutputAmount), {
      documented: `a completed stop_loss received at least its minOutputAmount ${minOutputAmount}`, received: { status: order.status, amountReceived: order.amountReceived }, exchange: ex,
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
      documented: 'pendingLeg is stop_loss or take_profit while the oco is executing', received: { status: order.status, pendingLeg: order.pendingLeg ?? '(absent)' }, exchange: ex,
    });
  },
});

// ---- no row before the fill; expiry ----

export const unfiredTriggerHasNoRow = defineCheck({
  name: 'unfired-trigger-order-has-no-execution-row',
  service: 'orders',
  rules: ['OA-EXEC-010'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    for (const type of ['stop_loss', 'take_profit', 'oco'] as const) {
      const { orderId } = await createOrder(t, user, intentRequest(type));
      await read(t, user.sub, type, orderId);
      const { ex, rows } = await executions(t, user.sub, orderId);
      t.expect('OA-EXEC-010', rows.length === 0, { documented: `an armed ${type} that has not fired has no execution row`, received: rows, exchange: ex });
    }
  },
});

export const triggerOrderExpires = defineCheck({
  name: 'trigger-order-expires-at-its-expires-at',
  service: 'orders',
  rules: ['OA-TRIG-036'],
  profile: 'full',
  needs: ['funding', 'clock'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const { now } = await serviceNow(t);
    const { orderId } = await createOrder(t, user, intentRequest('stop_loss', { config: { expiresAt: Math.floor(now.getTime() / 1000) + 600 } }));
    await t.control.advanceClock(601);
    const { ex, order } = await read(t, user.sub, 'stop_loss', orderId);
    t.expect('OA-TRIG-036', order.status === 'expired', {
      documented: 'a stop_loss still active when its expiresAt passes ends expired', received: { status: order.status, expiresAt: order.expiresAt }, exchange: ex,
    });
  },
});

// ---- oco prices on every read ----

export const ocoPricesInOrder = defineCheck({
  name: 'oco-stop-loss-price-is-below-its-take-profit-price',
  service: 'orders',
  rules: ['OA-TRIG-004'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const { orderId } = await createOrder(t, user, intentRequest('oco'));
    const { ex, order } = await read(t, user.sub, 'oco', orderId);
    const ordered = INT.test(String(order.stopLossPrice)) && INT.test(String(order.takeProfitPrice)) && BigInt(String(order.stopLossPrice)) < BigInt(String(order.takeProfitPrice));
    t.expect('OA-TRIG-004', ordered, {
      documented: 'stopLossPrice < takeProfitPrice on every oco read', received: { stopLossPrice: order.stopLossPrice, takeProfitPrice: order.takeProfitPrice }, exchange: ex,
    });
  },
});

// ---- PATCH (the accepted partial fields are not shown: UNKNOWNS.md O10, default guess) ----

/** A trigger-order PATCH with the assumed body: a 2xx confirms it for this type (assumptions.ts `trigger-patch`). */
async function patch(t: CheckContext, sub: string, type: TriggerType, id: string, config: Record<string, unknown>): Promise<Exchange> {
  t.exercise('trigger-patch', type);
  const ex = await asUser(t, sub, { method: 'PATCH', path: `${PATHS[type]}/${id}`, json: { config } });
  if (is2xx(ex)) t.confirm('trigger-patch', type);
  return ex;
}

/** A valid PATCH (by the O10 guess) refused with VALIDATION_ERROR: the guess is not this target's; nothing to judge. */
function skipIfGuessRejected(t: CheckContext, ex: Exchange): void {
  if (ex.response.status === 400 && errorCode(ex) === 'VALIDATION_ERROR') {
    const type = (Object.entries(PATHS).find(([, path]) => new URL(ex.request.url).pathname.startsWith(`${path}/`))?.[0] ?? '');
    t.rejectAssumption('trigger-patch', `the target refuses the assumed PATCH body (UNKNOWNS.md O10): ${JSON.stringify(ex.request.body).slice(0, 200)} -> ${JSON.stringify(ex.response.body).slice(0, 300)}`, type);
  }
}

/** A valid PATCH of each type (by the O10 guess; the prices stay unreachable): the positive case of the PATCH checks. */
const VALID_PATCH: Record<TriggerType, Record<string, unknown>> = {
  stop_loss: { triggerPrice: '2' }, take_profit: { triggerPrice: '1000000000000000000000000000001' }, oco: { stopLossPrice: '2' },
};

export const triggerPatchAnswersTheOrder = defineCheck({
  name: 'trigger-patch-answers-the-order-without-a-transaction',
  service: 'orders',
  rules: ['OA-TRIG-031'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    for (const [type, config] of Object.entries(VALID_PATCH) as [TriggerType, Record<string, unknown>][]) {
      const { orderId } = await createOrder(t, user, intentRequest(type));
      const ex = await patch(t, user.sub, type, orderId, config);
      skipIfGuessRejected(t, ex);
      const d = dataOf(ex);
      t.expect('OA-TRIG-031', is2xx(ex) && isObject(d?.order) && d.order.id === orderId && d.transaction === undefined, {
        documented: `PATCH ${PATHS[type]}/{id} {config: {partial}} on an active order answers 2xx with data {order} and no transaction`, received: failureOf(ex), exchange: ex,
      });
    }
  },
});

export const stopLossPatchMovesTheLiveTrigger = defineCheck({
  name: 'stop-loss-price-patch-moves-current-trigger-price',
  service: 'orders',
  rules: ['OA-TRIG-032'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const { orderId } = await createOrder(t, user, intentRequest('stop_loss'));
    const ex = await patch(t, user.sub, 'stop_loss', orderId, { triggerPrice: '2' });
    skipIfGuessRejected(t, ex);
    if (!is2xx(ex)) t.skip(`the PATCH answered ${ex.response.status}: OA-TRIG-031 judges it`);
    const after = await read(t, user.sub, 'stop_loss', orderId);
    t.expect('OA-TRIG-032', after.order.currentTriggerPrice === '2', {
      documented: 'after PATCH {triggerPrice: "2"} the stop_loss\'s currentTriggerPrice is 2', received: { currentTriggerPrice: after.order.currentTriggerPrice, triggerPrice: after.order.triggerPrice }, exchange: after.ex,
    });
  },
});

export const ocoPatchKeepsThePriceOrder = defineCheck({
  name: 'oco-patch-crossing-the-legs-is-rejected',
  service: 'orders',
  rules: ['OA-TRIG-033'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const { orderId, order } = await createOrder(t, user, intentRequest('oco'));
    await patched(t, user.sub, 'oco', orderId, VALID_PATCH.oco);
    for (const stopLossPrice of [String(order.takeProfitPrice), `${String(order.takeProfitPrice)}0`]) {
      const ex = await patch(t, user.sub, 'oco', orderId, { stopLossPrice });
      t.expect('OA-TRIG-033', ex.response.status === 400 && errorCode(ex) === 'VALIDATION_ERROR', {
        documented: 'an oco PATCH making stopLossPrice >= takeProfitPrice answers 400 VALIDATION_ERROR', received: failureOf(ex), exchange: ex,
      });
    }
  },
});

export const triggerPatchOfATerminalOrder = defineCheck({
  name: 'trigger-patch-of-a-completed-order-changes-nothing',
  service: 'orders',
  rules: ['OA-TRIG-035'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  async run(t: CheckContext) {
    const m = await market(t);
    const { id, order } = await filledStop(t, m);
    if (order.status !== 'completed') t.skip(`the stop_loss did not complete at its trigger (status ${String(order.status)}): OA-TRIG-024 judges firing`);
    const ex = await patch(t, m.user.sub, 'stop_loss', id, { triggerPrice: '600000' });
    t.note(`PATCH of a completed stop_loss answered ${ex.response.status} ${String(errorCode(ex) ?? '')}`);
    const after = await read(t, m.user.sub, 'stop_loss', id);
    t.expect('OA-TRIG-035', ex.response.status >= 400 && ex.response.status < 500 && after.order.status === 'completed' && after.order.currentTriggerPrice === order.currentTriggerPrice, {
      documented: 'a PATCH of a completed stop_loss answers a 4xx and leaves the order unchanged',
      received: { answer: failureOf(ex), after: { status: after.order.status, currentTriggerPrice: after.order.currentTriggerPrice } }, exchange: ex,
    });
  },
});

export const triggerPatchRefusesPastExpiry = defineCheck({
  name: 'trigger-patch-with-expires-at-in-the-past-is-rejected',
  service: 'orders',
  rules: ['OA-TRIG-034'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const { now } = await serviceNow(t);
    for (const type of ['stop_loss', 'take_profit', 'oco'] as const) {
      const { orderId } = await createOrder(t, user, intentRequest(type));
      await patched(t, user.sub, type, orderId, VALID_PATCH[type]);
      const ex = await patch(t, user.sub, type, orderId, { expiresAt: Math.floor(now.getTime() / 1000) - 3600 });
      t.expect('OA-TRIG-034', ex.response.status === 400 && errorCode(ex) === 'VALIDATION_ERROR', {
        documented: `a ${type} PATCH setting expiresAt an hour in the past answers 400 VALIDATION_ERROR`, received: failureOf(ex), exchange: ex,
      });
    }
  },
});

/** A PATCH the O10 guess makes valid, answered 2xx, or the check skips (OA-TRIG-031 judges the answer). */
async function patched(t: CheckContext, sub: string, type: TriggerType, id: string, config: Record<string, unknown>): Promise<Exchange> {
  const ex = await patch(t, sub, type, id, config);
  skipIfGuessRejected(t, ex);
  if (!is2xx(ex)) t.skip(`PATCH ${PATHS[type]}/${id} ${JSON.stringify({ config })} answered ${ex.response.status}: OA-TRIG-031 judges it`);
  return ex;
}

export const triggerPatchSetsTheTrail = defineCheck({
  name: 'trigger-patch-of-trailing-stop-bps-is-answered-and-read-back',
  service: 'orders',
  rules: ['OA-TRIG-039'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    for (const type of ['stop_loss', 'take_profit', 'oco'] as const) {
      const { orderId } = await createOrder(t, user, intentRequest(type));
      const ex = await patched(t, user.sub, type, orderId, { trailingStopBps: 2500 });
      const answered = dataOf(ex)?.order;
      const after = await read(t, user.sub, type, orderId);
      const trail = (order: unknown) => (isObject(order) ? String(order.trailingStopBps) : '(no order)');
      t.expect('OA-TRIG-039', trail(answered) === '2500' && trail(after.order) === '2500', {
        documented: `after PATCH ${PATHS[type]}/{id} {config: {trailingStopBps: 2500}} the answered order and the order read back have trailingStopBps 2500`,
        received: { answered: trail(answered), readBack: trail(after.order) }, exchange: after.ex,
      });
    }
  },
});

export const triggerPatchRefusesATrailOutOfRange = defineCheck({
  name: 'trigger-patch-with-trailing-stop-bps-0-or-10000-is-rejected',
  service: 'orders',
  rules: ['OA-TRIG-040'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    for (const type of ['stop_loss', 'take_profit', 'oco'] as const) {
      const { orderId } = await createOrder(t, user, intentRequest(type));
      await patched(t, user.sub, type, orderId, VALID_PATCH[type]);
      for (const trailingStopBps of [0, 10_000]) {
        const ex = await patch(t, user.sub, type, orderId, { trailingStopBps });
        t.expect('OA-TRIG-040', ex.response.status === 400 && errorCode(ex) === 'VALIDATION_ERROR', {
          documented: `a ${type} PATCH with trailingStopBps ${trailingStopBps} (outside 1 to 9999) answers 400 VALIDATION_ERROR`, received: failureOf(ex), exchange: ex,
        });
      }
    }
  },
});

export const triggerPatchRefusesBadPrices = defineCheck({
  name: 'trigger-patch-with-price-decimals-out-of-range-or-a-zero-price-is-rejected',
  service: 'orders',
  rules: ['OA-TRIG-041'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const cases: [TriggerType, Record<string, unknown>][] = [
      ['stop_loss', { triggerPrice: '0' }], ['take_profit', { triggerPrice: '0' }], ['oco', { stopLossPrice: '0' }],
      ['stop_loss', { priceDecimals: 19 }], ['oco', { priceDecimals: -1 }],
    ];
    for (const [type, config] of cases) {
      const { orderId } = await createOrder(t, user, intentRequest(type));
      await patched(t, user.sub, type, orderId, VALID_PATCH[type]);
      const ex = await patch(t, user.sub, type, orderId, config);
      t.expect('OA-TRIG-041', ex.response.status === 400 && errorCode(ex) === 'VALIDATION_ERROR', {
        documented: `a ${type} PATCH ${JSON.stringify({ config })} answers 400 VALIDATION_ERROR (priceDecimals 0 to 18, prices above 0)`, received: failureOf(ex), exchange: ex,
      });
    }
  },
});

export const takeProfitPatchMovesTheTrigger = defineCheck({
  name: 'take-profit-price-patch-makes-the-order-fire-at-the-new-price',
  service: 'orders',
  rules: ['OA-TRIG-042'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  async run(t: CheckContext) {
    const m = await market(t);
    // Both orders would stay active at the pair 1250000 with their created take-profit price 2000000.
    const take = await place(t, m, 'take_profit', { triggerPrice: '2000000' });
    await patched(t, m.user.sub, 'take_profit', take, { triggerPrice: '1250000' });
    const oco = await place(t, m, 'oco', OCO);
    await patched(t, m.user.sub, 'oco', oco, { takeProfitPrice: '1250000' });
    const before = await read(t, m.user.sub, 'oco', oco);
    t.expect('OA-TRIG-042', before.order.takeProfitPrice === '1250000', {
      documented: 'after PATCH /oco/{id} {config: {takeProfitPrice: "1250000"}} the oco reads back with takeProfitPrice 1250000',
      received: { takeProfitPrice: before.order.takeProfitPrice }, exchange: before.ex,
    });
    await move(t, m, 1_250_000n);
    for (const [type, id] of [['take_profit', take], ['oco', oco]] as const) {
      const { ex, order } = await read(t, m.user.sub, type, id);
      firesExactly(t, 'OA-TRIG-042', `a ${type} whose take-profit price was PATCHed from 2000000 to 1250000`, order, ex, 1_250_000n, true);
    }
  },
});

// ---- retry (DCA only) ----

export const failedTriggerCannotRetry = defineCheck({
  name: 'retry-of-a-failed-stop-loss-is-never-2xx',
  service: 'orders',
  rules: ['OA-RETRY-011'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock', 'faults'],
  async run(t: CheckContext) {
    const m = await market(t);
    const id = await place(t, m, 'stop_loss', STOP);
    t.defer(() => t.control.setFaults({ swaps: 'ok' }));
    await t.control.setFaults({ swaps: 'fail' });
    await move(t, m, 500_000n);
    await t.control.setFaults({ swaps: 'ok' });
    const { order } = await read(t, m.user.sub, 'stop_loss', id);
    if (order.status !== 'failed') t.skip(`a failing swap at the trigger left the stop_loss ${String(order.status)}, not failed: no failed trigger order to retry`);
    const ex = await act(t, m.user, id, 'retry');
    t.expect('OA-RETRY-011', ex.response.status === 400 && ['RETRY_NOT_SUPPORTED', 'ALREADY_WITHDRAWN', 'ORDER_NOT_FAILED'].includes(String(errorCode(ex))), {
      documented: `retry of a failed stop_loss (withdrawalStatus ${String(order.withdrawalStatus)}): 400 RETRY_NOT_SUPPORTED, ALREADY_WITHDRAWN or ORDER_NOT_FAILED (retry is DCA only), never 2xx`,
      received: failureOf(ex), exchange: ex,
    });
  },
});
