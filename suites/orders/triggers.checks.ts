import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { atOnce, createOrder, INT, intentRequest, intentUser, ISO_8601, valuesOf } from './orders.ts';
import { type TriggerType, unixSecondsFromNow } from './steps/create.ts';
import {
  executions,
  FIRED,
  firesExactly,
  fixedThenRandomWalks,
  type Market,
  market,
  markets,
  move,
  OCO,
  type Order,
  pathsAtOnce,
  place,
  read,
  runs,
  START,
  STOP,
  type Step,
  walk,
  walks,
} from './steps/triggers.ts';
import { serviceNow } from './users.ts';

/**
 * Trigger orders stop_loss, take_profit and oco (area TRIG: "What the service does 3", "Trigger-order fields",
 * "States and transitions"): their fields at creation, firing on the pair price, the trailing ratchet, expiry and the
 * order of oco prices. The fills are judged in trigger-fills.checks.ts, the in-place PATCH in trigger-patch.checks.ts.
 * Each check trades in a market of its own (steps/triggers.ts).
 */

// ---- creation ----

/** One order of each trigger kind the creation-time facts need, with an expiry and (but for the first) a trail. */
async function triggerOrders(t: CheckContext, expiresAt: number) {
  const user = await intentUser(t, true);
  const make = async (orderType: TriggerType, config: Record<string, unknown>) =>
    await createOrder(t, user, intentRequest(orderType, { config: { ...config, expiresAt } }));
  return {
    plainStop: await make('stop_loss', {}),
    trailingStop: await make('stop_loss', { trailingStopBps: 500, trailingMode: 'stop_and_trail' }),
    takeProfit: await make('take_profit', { trailingStopBps: 250 }),
    oco: await make('oco', { trailingStopBps: 100 }),
  };
}

export const triggerCreationFacts = defineCheck({
  name: 'trigger-orders-are-created-active-with-their-creation-time-fields',
  service: 'orders',
  rules: [
    'OA-CONF-004',
    'OA-TRIG-005',
    'OA-TRIG-006',
    'OA-TRIG-007',
    'OA-TRIG-008',
    'OA-TRIG-012',
    'OA-TRIG-013',
    'OA-TRIG-014',
    'OA-TRIG-016',
    'OA-TRIG-017',
    'OA-TRIG-020',
    'OA-TRIG-023',
  ],
  profile: 'full',
  async run(t: CheckContext) {
    const expiresAt = await unixSecondsFromNow(t, 86_400);
    const orders = await triggerOrders(t, expiresAt);
    for (const [label, created] of Object.entries(orders)) {
      const { order, confirm: ex } = created;
      const sent = valuesOf(created.intent.request);
      const what = `${label} (${String(order.orderType)})`;
      t.expect('OA-CONF-004', order.status === 'active' || (order.status === 'executing' && order.previousStatus === 'active'), {
        documented: `a confirmed ${what} is active (or executing with previousStatus active)`,
        received: { status: order.status, previousStatus: order.previousStatus },
        exchange: ex,
      });
      t.expect(
        'OA-TRIG-005',
        Number.isInteger(order.priceDecimals) && (order.priceDecimals as number) >= 0 && (order.priceDecimals as number) <= 18,
        {
          documented: `priceDecimals of the ${what} an integer from 0 to 18`,
          received: order.priceDecimals,
          exchange: ex,
        },
      );
      t.expect(
        'OA-TRIG-006',
        typeof order.expiresAt === 'string' && ISO_8601.test(order.expiresAt) && Date.parse(order.expiresAt) === expiresAt * 1000,
        {
          documented: `expiresAt sent as Unix seconds ${expiresAt} comes back as the ISO-8601 timestamp ${new Date(expiresAt * 1000).toISOString()}`,
          received: order.expiresAt,
          exchange: ex,
        },
      );
      if (sent.trailingStopBps !== undefined) {
        t.expect('OA-TRIG-007', order.trailingStopBps === sent.trailingStopBps, {
          documented: `the ${what} created with trailingStopBps ${String(sent.trailingStopBps)} returns it`,
          received: order.trailingStopBps,
          exchange: ex,
        });
      }
      t.expect('OA-TRIG-023', order.nextExecutionAt === null, {
        documented: `trigger orders have no schedule: nextExecutionAt null on the ${what}`,
        received: order.nextExecutionAt,
        exchange: ex,
      });
      if (order.orderType !== 'take_profit') {
        t.expect('OA-TRIG-013', !('highestObservedPrice' in order), {
          documented: `highestObservedPrice absent on the ${what} before the price first sets a new high`,
          received: order.highestObservedPrice,
          exchange: ex,
        });
      }
    }
    const plain = orders.plainStop.order;
    t.expect('OA-TRIG-008', plain.currentTriggerPrice === plain.triggerPrice, {
      documented: 'on a stop_loss that does not trail, currentTriggerPrice equals triggerPrice',
      received: { triggerPrice: plain.triggerPrice, currentTriggerPrice: plain.currentTriggerPrice },
      exchange: orders.plainStop.confirm,
    });
    const trailing = orders.trailingStop.order;
    t.expect(
      'OA-TRIG-017',
      !('trailingMode' in trailing) || trailing.trailingMode === 'pure' || trailing.trailingMode === 'stop_and_trail',
      {
        documented: 'trailingMode of a stop_loss, when present, is pure or stop_and_trail',
        received: trailing.trailingMode,
        exchange: orders.trailingStop.confirm,
      },
    );
    const tp = orders.takeProfit.order;
    t.expect('OA-TRIG-016', !('currentTriggerPrice' in tp), {
      documented: 'take_profit reads carry no currentTriggerPrice',
      received: tp.currentTriggerPrice,
      exchange: orders.takeProfit.confirm,
    });
    if (tp.trailingActivated !== true) {
      t.expect('OA-TRIG-014', !('highestObservedPrice' in tp), {
        documented: 'highestObservedPrice absent on a take_profit whose trail has not armed',
        received: { trailingActivated: tp.trailingActivated, highestObservedPrice: tp.highestObservedPrice },
        exchange: orders.takeProfit.confirm,
      });
    }
    const oco = orders.oco.order;
    // OA-TRIG-012 (info): the initial currentTriggerPrice of an oco is presumably stopLossPrice; only recorded.
    t.note(
      `oco currentTriggerPrice ${JSON.stringify(oco.currentTriggerPrice)} (integer string: ${typeof oco.currentTriggerPrice === 'string' && INT.test(oco.currentTriggerPrice)}; ` +
        `${oco.currentTriggerPrice === oco.stopLossPrice ? 'equals' : 'differs from'} stopLossPrice ${String(oco.stopLossPrice)})`,
    );
    t.expect('OA-TRIG-020', oco.status === 'executing' || !('pendingLeg' in oco), {
      documented: 'pendingLeg absent on an oco that is not executing',
      received: { status: oco.status, pendingLeg: oco.pendingLeg },
      exchange: orders.oco.confirm,
    });
  },
});

// ---- firing ----

/*
 * The walks of each firing check run in lockstep, each in a market of its own (steps/triggers.ts walks): first the
 * fixed walks, then a property over runs(t) random walks at once.
 */

export const stopLossFiresAtItsTrigger = defineCheck({
  name: 'stop-loss-fires-exactly-when-the-price-falls-to-its-trigger',
  service: 'orders',
  rules: ['OA-TRIG-024'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  ownMarket: true,
  async run(t: CheckContext) {
    const ms = await markets(t, Math.max(2, runs(t)));
    const step: Step = ({ ex, order }, pair) =>
      firesExactly(
        t,
        'OA-TRIG-024',
        `a stop_loss at currentTriggerPrice ${String(order.currentTriggerPrice)}`,
        order,
        ex,
        pair,
        pair <= BigInt(String(order.currentTriggerPrice)),
      );
    const fixed = [
      [625_000n, 500_000n],
      [500_001n, 500_000n],
    ];
    await fixedThenRandomWalks(t, ms, 'OA-TRIG-024', { type: 'stop_loss', values: STOP }, fixed, [500_000n], step);
  },
});

export const takeProfitFiresAtItsTrigger = defineCheck({
  name: 'take-profit-fires-exactly-when-the-price-rises-to-its-trigger',
  service: 'orders',
  rules: ['OA-TRIG-025'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  ownMarket: true,
  async run(t: CheckContext) {
    const ms = await markets(t, Math.max(2, runs(t)));
    const step: Step = ({ ex, order }, pair) =>
      firesExactly(t, 'OA-TRIG-025', 'a take_profit at triggerPrice 2000000', order, ex, pair, pair >= 2_000_000n);
    const fixed = [
      [1_600_000n, 2_000_000n],
      [1_999_999n, 2_000_000n],
    ];
    await fixedThenRandomWalks(
      t,
      ms,
      'OA-TRIG-025',
      { type: 'take_profit', values: { triggerPrice: '2000000' } },
      fixed,
      [2_000_000n],
      step,
    );
  },
});

export const ocoFiresOnEitherLeg = defineCheck({
  name: 'oco-fires-exactly-when-the-price-reaches-either-leg-and-fills-one',
  service: 'orders',
  rules: ['OA-TRIG-026', 'OA-EXEC-011'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  ownMarket: true,
  async run(t: CheckContext) {
    const ms = await markets(t, Math.max(3, runs(t)));
    const step: Step = ({ ex, order }, pair) =>
      firesExactly(t, 'OA-TRIG-026', 'an oco with legs 500000 and 2000000', order, ex, pair, pair <= 500_000n || pair >= 2_000_000n);
    // A completed oco filled exactly one leg: one execution row.
    const oneRowEach = async (ended: Array<{ id: string; status: unknown }>) => {
      const completed = ended.filter(({ status }) => status === 'completed');
      const listed = await atOnce(
        t,
        ...completed.map(
          ({ id }) =>
            () =>
              executions(t, ms[0]!.user.sub, id),
        ),
      );
      for (const { ex, rows } of listed) {
        t.expect('OA-EXEC-011', rows.length === 1, {
          documented: 'a completed oco filled exactly one leg: one execution row',
          received: rows.map((r) => ({ executionType: r.executionType, status: r.status })),
          exchange: ex,
        });
      }
    };
    const fixed = [
      [1_250_000n, 2_000_000n],
      [800_000n, 500_000n],
      [1_999_999n, 500_001n, 500_000n],
    ];
    await fixedThenRandomWalks(t, ms, 'OA-TRIG-026', { type: 'oco', values: OCO }, fixed, [500_000n, 2_000_000n], step, oneRowEach);
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
  ownMarket: true,
  async run(t: CheckContext) {
    const ms = await markets(t, runs(t));
    /** One walk's step: its first read (at START, before any move) and each read after a move. */
    const trail = (): Step => {
      let high = START;
      let last: { ex: Exchange; order: Order } | undefined;
      const judge = ({ ex, order }: { ex: Exchange; order: Order }, previous?: Order) => {
        t.expect('OA-TRIG-003', order.triggerPrice === TRAILING_STOP.triggerPrice, {
          documented: 'triggerPrice stays at its creation value while the stop trails',
          received: { triggerPrice: order.triggerPrice },
          exchange: ex,
        });
        if (high === START) {
          t.expect('OA-TRIG-009', order.currentTriggerPrice === order.triggerPrice, {
            documented: `currentTriggerPrice equals triggerPrice until the price first sets a new high (no price above the creation pair ${high} yet)`,
            received: { currentTriggerPrice: order.currentTriggerPrice, triggerPrice: order.triggerPrice },
            exchange: ex,
          });
        }
        if (!previous) return;
        const grew = (name: string) =>
          !INT.test(String(previous[name])) ||
          (INT.test(String(order[name])) && BigInt(String(order[name])) >= BigInt(String(previous[name])));
        t.expect('OA-TRIG-010', grew('currentTriggerPrice'), {
          documented: 'currentTriggerPrice of a trailing stop_loss never decreases',
          received: { before: previous.currentTriggerPrice, after: order.currentTriggerPrice },
          exchange: ex,
        });
        t.expect('OA-TRIG-015', grew('highestObservedPrice'), {
          documented: 'highestObservedPrice, once present, never decreases',
          received: { before: previous.highestObservedPrice, after: order.highestObservedPrice },
          exchange: ex,
        });
      };
      return (seen, pair) => {
        if (!last) {
          judge(seen);
          last = seen;
          return;
        }
        if (pair > high) high = pair;
        if (!FIRED.includes(String(seen.order.status))) judge(seen, last.order);
        last = seen;
      };
    };
    const walkTrails = async (paths: readonly (readonly bigint[])[]) =>
      void (await walks(t, ms, 'stop_loss', TRAILING_STOP, paths, paths.map(trail), true));
    await walkTrails([[1_250_000n, 1_600_000n, 1_250_000n]]);
    await t.property('OA-TRIG-010', pathsAtOnce(t, 6), walkTrails, 1);
  },
});

/** A take-profit at 1250000 trailing by 30%: it arms at 1250000, then fires 30% under its highest pair. */
const TRAILING_TAKE = { triggerPrice: '1250000', trailingStopBps: 3000 };
const TAKE_TRIGGER = 1_250_000n;
const derivedTrigger = (high: bigint) => (high * (10_000n - 3000n)) / 10_000n;

/**
 * Trailing take-profits walked along `paths` in lockstep (walks): `step` sees each read with whether that walk's order
 * has armed, and its peak since.
 */
async function walkTrailingTakes(
  t: CheckContext,
  ms: readonly Market[],
  paths: readonly (readonly bigint[])[],
  step: (read: { ex: Exchange; order: Order }, pair: bigint, armed: boolean, high: bigint) => void,
): Promise<void> {
  const arming = (): Step => {
    let armed = false;
    let high = 0n;
    return (seen, pair) => {
      if (pair >= TAKE_TRIGGER) armed = true;
      if (armed && pair > high) high = pair;
      step(seen, pair, armed, high);
    };
  };
  await walks(t, ms, 'take_profit', TRAILING_TAKE, paths, paths.map(arming));
}

export const takeProfitTrailArms = defineCheck({
  name: 'trailing-take-profit-shows-its-trail-armed-from-its-trigger',
  service: 'orders',
  rules: ['OA-TRIG-037'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  ownMarket: true,
  async run(t: CheckContext) {
    const ms = await markets(t, runs(t));
    const walkArming = (paths: readonly (readonly bigint[])[]) =>
      walkTrailingTakes(t, ms, paths, ({ ex, order }, pair, armed) => {
        if (order.status !== 'active') return;
        t.expect('OA-TRIG-037', order.trailingActivated === armed, {
          documented: `a trailing take_profit at triggerPrice 1250000 shows trailingActivated ${armed} ${armed ? 'once the pair price has reached it' : 'while the pair price has stayed below it'}`,
          received: { pair: pair.toString(), trailingActivated: order.trailingActivated },
          exchange: ex,
        });
      });
    await walkArming([[800_000n, 1_250_000n, 1_600_000n]]);
    await t.property('OA-TRIG-037', pathsAtOnce(t), walkArming, 1);
  },
});

export const takeProfitTrailFires = defineCheck({
  name: 'armed-take-profit-fires-exactly-when-the-price-falls-back-by-its-trail',
  service: 'orders',
  rules: ['OA-TRIG-038'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  ownMarket: true,
  async run(t: CheckContext) {
    const ms = await markets(t, runs(t));
    const walkTrail = (paths: readonly (readonly bigint[])[]) =>
      walkTrailingTakes(t, ms, paths, ({ ex, order }, pair, armed, high) =>
        firesExactly(
          t,
          'OA-TRIG-038',
          armed
            ? `an armed take_profit with highest pair ${high} and a 30% trail (derived trigger ${derivedTrigger(high)})`
            : 'a trailing take_profit not yet armed',
          order,
          ex,
          pair,
          armed && pair <= derivedTrigger(high),
        ),
      );
    await walkTrail([[1_250_000n, 1_600_000n, 1_250_000n, 1_000_000n]]);
    await t.property('OA-TRIG-038', pathsAtOnce(t), walkTrail, 1);
  },
});

export const ocoTakeProfitNeverTrails = defineCheck({
  name: 'oco-take-profit-price-stays-while-the-stop-leg-trails',
  service: 'orders',
  rules: ['OA-TRIG-011'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  ownMarket: true,
  async run(t: CheckContext) {
    const m = await market(t);
    await walk(t, m, 'oco', { ...OCO, trailingStopBps: 5000 }, [1_250_000n, 1_600_000n], ({ ex, order }) => {
      t.expect('OA-TRIG-011', order.takeProfitPrice === OCO.takeProfitPrice, {
        documented: 'on an oco only the stop-loss leg trails: takeProfitPrice stays at 2000000 while the price rises below it',
        received: { takeProfitPrice: order.takeProfitPrice, currentTriggerPrice: order.currentTriggerPrice },
        exchange: ex,
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
  ownMarket: true,
  async run(t: CheckContext) {
    const m = await market(t);
    const [pure, both] = await atOnce(
      t,
      () => place(t, m, 'stop_loss', { ...TRAILING_STOP, trailingMode: 'pure' }),
      () => place(t, m, 'stop_loss', { ...TRAILING_STOP, trailingMode: 'stop_and_trail' }),
    );
    for (const pair of [1_250_000n, 800_000n, 625_000n, 400_000n]) {
      await move(t, m, pair);
      const [a, b] = await atOnce(
        t,
        () => read(t, m.user.sub, 'stop_loss', pure),
        () => read(t, m.user.sub, 'stop_loss', both),
      );
      const fired = (order: Order) => FIRED.includes(String(order.status));
      t.expect('OA-TRIG-018', fired(a.order) === fired(b.order), {
        documented: 'trailingMode is a display label: two trailing stops differing only in it fire at the same price',
        received: { pair: pair.toString(), pure: a.order.status, stopAndTrail: b.order.status },
        exchange: b.ex,
      });
      if (fired(a.order)) return;
    }
  },
});

// ---- expiry ----

export const triggerOrderExpires = defineCheck({
  name: 'trigger-order-expires-at-its-expires-at',
  service: 'orders',
  rules: ['OA-TRIG-036'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const { now } = await serviceNow(t);
    const { orderId } = await createOrder(
      t,
      user,
      intentRequest('stop_loss', { config: { expiresAt: Math.floor(now.getTime() / 1000) + 600 } }),
    );
    await t.control.advanceClock(601);
    const { ex, order } = await read(t, user.sub, 'stop_loss', orderId);
    t.expect('OA-TRIG-036', order.status === 'expired', {
      documented: 'a stop_loss still active when its expiresAt passes ends expired',
      received: { status: order.status, expiresAt: order.expiresAt },
      exchange: ex,
    });
  },
});

// ---- oco prices on every read ----

export const ocoPricesInOrder = defineCheck({
  name: 'oco-stop-loss-price-is-below-its-take-profit-price',
  service: 'orders',
  rules: ['OA-TRIG-004'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const { orderId } = await createOrder(t, user, intentRequest('oco'));
    const { ex, order } = await read(t, user.sub, 'oco', orderId);
    const ordered =
      INT.test(String(order.stopLossPrice)) &&
      INT.test(String(order.takeProfitPrice)) &&
      BigInt(String(order.stopLossPrice)) < BigInt(String(order.takeProfitPrice));
    t.expect('OA-TRIG-004', ordered, {
      documented: 'stopLossPrice < takeProfitPrice on every oco read',
      received: { stopLossPrice: order.stopLossPrice, takeProfitPrice: order.takeProfitPrice },
      exchange: ex,
    });
  },
});
