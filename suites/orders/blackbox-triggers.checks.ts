import { dataOf, is2xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { atOnce, type Created, type Funded, intentRequest } from './orders.ts';
import {
  confirmWithdrawal,
  createSmallest,
  fetchDetail,
  livePairPrice,
  partnerUser,
  readDetail,
  realSignature,
  reserveWait,
  serviceNow,
  skipIfUncovered,
  waitFor,
} from './steps/blackbox.ts';
import { fetchExecutions, type Row } from './steps/dca.ts';
import { expectError } from './steps/expect.ts';
import { USER_ORDER_RULES } from './steps/invariant-rules.ts';
import { expectExecutedPrice, type TriggerType } from './steps/triggers.ts';
import { orderWithdraw } from './steps/withdrawals.ts';

/**
 * Partner mode, trigger orders (steps/blackbox.ts): placed relative to the live pair price the quote service gives
 * (USDC into the native asset), so that the market the partner's staging sees decides, never a price the suite sets
 * (the control path: triggers.checks.ts, trigger-fills.checks.ts). A stop-loss at twice the market fires at once, a
 * take-profit at a thousand times it never does; an OCO fills the leg the market is past and only that one; a trigger
 * order with a near expiry expires and its funds come back by themselves; a filled order's funds come back by an
 * order-level withdrawal. When the quote service gives no price, triggers far beyond any market stand in (noted).
 */

const DECIMALS = 9;
/** Service seconds a crossed trigger has to fire (not documented; "trigger orders can fire at any moment"). */
const FILL_GRACE_SECONDS = 90;
/** Service seconds an order that fired has to show completed, and an expired one its automatic return. */
const SETTLE_SECONDS = 30;
const EXPIRES_IN_SECONDS = 60;
const RESTING = ['active', 'paused'];

/** The partner's user, the wait for `what` (fills and their settling) reserved, and trigger prices around the market. */
async function fillSetup(
  t: CheckContext,
  what: string,
): Promise<{ user: Awaited<ReturnType<typeof partnerUser>>; p: Awaited<ReturnType<typeof prices>> }> {
  const user = await partnerUser(t);
  reserveWait(t, FILL_GRACE_SECONDS + SETTLE_SECONDS, what);
  return { user, p: await prices(t) };
}

/** Trigger prices around the live market, scaled by 10^DECIMALS (native per USDC). */
async function prices(t: CheckContext): Promise<{ above: bigint; below: bigint; far: bigint; farBelow: bigint }> {
  const { price } = await livePairPrice(t, 10_000_000n, DECIMALS);
  if (price === undefined || price < 1000n) {
    t.note('the quote service gave no USDC -> native price: triggers far beyond any market stand in');
    const one = 10n ** BigInt(DECIMALS);
    return { above: one * 10n ** 12n, below: 2n, far: one * 10n ** 15n, farBelow: 1n };
  }
  t.note(`live pair price ${price} (native per USDC, scaled by 10^${DECIMALS}), from the quote service`);
  return { above: price * 2n, below: price / 2n, far: price * 1000n, farBelow: 1n };
}

async function place(t: CheckContext, user: Funded, type: TriggerType, config: Record<string, unknown>): Promise<Created> {
  return await createSmallest(t, user, (unit) =>
    intentRequest(type, { config: { amount: String(unit), priceDecimals: DECIMALS, ...config } }),
  );
}

/** Reads the orders until none is resting (fired: executing or completed), then until none is executing. */
async function untilFired(t: CheckContext, user: Funded, orders: Array<[TriggerType, string]>, held = false) {
  const readAll = async () => await Promise.all(orders.map(([type, id]) => readDetail(t, user, type, id, held)));
  const fired = await waitFor(t, readAll, (reads) => reads.every((r) => !RESTING.includes(String(r.order.status))), {
    stepSeconds: 30,
    untilMs: async () => (await serviceNow(t)) + FILL_GRACE_SECONDS * 1000,
  });
  skipIfUncovered(t, fired, 'a fill of the crossed trigger');
  if (!fired.done) return fired.value;
  const settled = await waitFor(t, readAll, (reads) => reads.every((r) => r.order.status !== 'executing'), {
    stepSeconds: 5,
    untilMs: async () => (await serviceNow(t)) + SETTLE_SECONDS * 1000,
  });
  return settled.value;
}

const rowsSummary = (rows: Row[]) =>
  rows.map((r) => ({ executionType: r.executionType, status: r.status, inputAmount: r.inputAmount, outputAmount: r.outputAmount }));

/**
 * The one success row of a filled order, held to the fill rules (exactly one row, the whole amount, amountReceived), on
 * its rows as `read` (readExecutions of the order).
 */
function expectOneFill(t: CheckContext, order: Row, type: string, { ex, rows }: { ex: Exchange; rows: Row[] }) {
  t.expect('OA-EXEC-011', rows.length === 1 && rows[0]!.status === 'success', {
    documented: `the ${String(order.orderType)} order wrote exactly one execution row when it fired`,
    received: rowsSummary(rows),
    exchange: ex,
  });
  const row = rows[0]!;
  t.expect('OA-TRIG-028', row.inputAmount === order.amount, {
    documented: `the fill sold the whole deposit: inputAmount ${String(order.amount)}`,
    received: rowsSummary(rows),
    exchange: ex,
  });
  return { row, ex, type };
}

export const stopAboveTheMarketFires = defineCheck({
  name: 'stop-loss-above-the-live-price-fires-and-a-take-profit-far-above-it-does-not',
  service: 'orders',
  rules: [
    'OA-TRIG-024',
    'OA-TRIG-025',
    'OA-TRIG-027',
    'OA-TRIG-028',
    'OA-TRIG-029',
    'OA-EXEC-010',
    'OA-EXEC-011',
    'OA-EXEC-012',
    'OA-EXEC-017',
    ...USER_ORDER_RULES,
  ],
  profile: 'full',
  pooledUser: true,
  // With the clock capability it advances the clock instead of waiting (steps/blackbox.ts).
  alone: true,
  async run(t: CheckContext) {
    const { user, p } = await fillSetup(t, 'a trigger fill');
    const takeProfit = await place(t, user, 'take_profit', { triggerPrice: p.far.toString() });
    const stop = await place(t, user, 'stop_loss', { triggerPrice: p.above.toString() });
    const [fired] = await untilFired(t, user, [['stop_loss', stop.orderId]], true);
    t.expect('OA-TRIG-024', fired!.order.status === 'completed', {
      documented: `a stop_loss at ${p.above} (twice the live pair price) is crossed: it fires and completes`,
      received: { status: fired!.order.status, currentTriggerPrice: fired!.order.currentTriggerPrice },
      exchange: fired!.ex,
    });
    // After the fire: the take_profit, its rows and the stop_loss's rows, read at once (judged in turn below).
    const [tpRead, tpRowsRead, stopRowsRead] = await atOnce(
      t,
      () => fetchDetail(t, user, 'take_profit', takeProfit.orderId, true),
      () => fetchExecutions(t, user, takeProfit.orderId),
      () => fetchExecutions(t, user, String(fired!.order.id)),
    );
    const tp = tpRead();
    t.expect('OA-TRIG-025', tp.order.status === 'active', {
      documented: `a take_profit at ${p.far} (a thousand times the live pair price) stays active while the price is below it`,
      received: { status: tp.order.status },
      exchange: tp.ex,
    });
    const tpRows = tpRowsRead();
    t.expect('OA-EXEC-010', tpRows.rows.length === 0, {
      documented: 'the take_profit that has not fired has no execution row',
      received: rowsSummary(tpRows.rows),
      exchange: tpRows.ex,
    });
    const order = fired!.order;
    const { row, ex } = expectOneFill(t, order, 'stop_loss', stopRowsRead());
    t.expect('OA-EXEC-012', row.executionType === 'stop_loss', {
      documented: 'the stop_loss fill is recorded with executionType stop_loss',
      received: row.executionType,
      exchange: ex,
    });
    t.expect('OA-TRIG-029', order.amountReceived === row.outputAmount, {
      documented: `amountReceived equals the fill's outputAmount ${String(row.outputAmount)}`,
      received: order.amountReceived,
      exchange: fired!.ex,
    });
    expectExecutedPrice(t, 'OA-TRIG-027', order, fired!.ex);
  },
});

export const ocoFillsOneLeg = defineCheck({
  name: 'oco-fills-the-leg-the-live-price-is-past-and-only-that-one',
  service: 'orders',
  rules: ['OA-TRIG-026', 'OA-TRIG-028', 'OA-EXEC-011', 'OA-EXEC-014', 'OA-EXEC-017'],
  profile: 'full',
  pooledUser: true,
  // With the clock capability it advances the clock instead of waiting (steps/blackbox.ts).
  alone: true,
  async run(t: CheckContext) {
    const { user, p } = await fillSetup(t, 'two OCO fills');
    // One OCO whose stop leg the market is below, one whose take-profit leg it is above; each other leg far away.
    const stopLeg = await place(t, user, 'oco', { stopLossPrice: p.above.toString(), takeProfitPrice: p.far.toString() });
    const takeProfitLeg = await place(t, user, 'oco', { stopLossPrice: p.farBelow.toString(), takeProfitPrice: p.below.toString() });
    const reads = await untilFired(t, user, [
      ['oco', stopLeg.orderId],
      ['oco', takeProfitLeg.orderId],
    ]);
    // Both orders' rows, read at once (judged leg by leg below).
    const rows = await atOnce(
      t,
      () => fetchExecutions(t, user, String(reads[0]!.order.id)),
      () => fetchExecutions(t, user, String(reads[1]!.order.id)),
    );
    for (const [read, leg, type, fill] of [
      [reads[0]!, 'stop-loss', 'stop_loss', rows[0]],
      [reads[1]!, 'take-profit', 'take_profit_full', rows[1]],
    ] as const) {
      t.expect('OA-TRIG-026', read.order.status === 'completed', {
        documented: `an oco whose ${leg} leg the live price is past fires and completes`,
        received: { status: read.order.status, stopLossPrice: read.order.stopLossPrice, takeProfitPrice: read.order.takeProfitPrice },
        exchange: read.ex,
      });
      const { row, ex } = expectOneFill(t, read.order, type, fill());
      t.expect('OA-EXEC-014', row.executionType === type, {
        documented: `the oco filled on its ${leg} leg is recorded as ${type}, and the other leg fills nothing`,
        received: row.executionType,
        exchange: ex,
      });
    }
  },
});

export const filledOrderWithdrawn = defineCheck({
  name: 'filled-trigger-order-funds-come-back-by-an-order-level-withdrawal',
  service: 'orders',
  rules: ['OA-OWD-001', 'OA-OWD-005', 'OA-OWD-006', 'OA-OWD-017'],
  profile: 'full',
  pooledUser: true,
  // With the clock capability it advances the clock instead of waiting (steps/blackbox.ts).
  alone: true,
  async run(t: CheckContext) {
    const { user, p } = await fillSetup(t, 'a trigger fill');
    const stop = await place(t, user, 'stop_loss', { triggerPrice: p.above.toString() });
    const [fired] = await untilFired(t, user, [['stop_loss', stop.orderId]]);
    if (fired!.order.status !== 'completed')
      t.skip(`the stop_loss did not complete (status ${String(fired!.order.status)}): nothing to withdraw`);
    if (fired!.order.outputRecipientAddress !== user.walletAddress)
      t.skip(`the output went to ${String(fired!.order.outputRecipientAddress)}, not the manager: the order holds nothing to withdraw`);
    const build = await orderWithdraw(t, user, stop.orderId);
    t.expect('OA-OWD-001', is2xx(build) && dataOf(build)?.withdrawalAmounts !== undefined, {
      documented: 'POST /orders/{orderId}/withdraw on the completed order holding its output: 2xx with withdrawalAmounts',
      received: { status: build.response.status, body: build.response.body },
      exchange: build,
    });
    const { userSignature } = await confirmWithdrawal(t, user, stop.orderId, build);
    const after = await readDetail(t, user, 'stop_loss', stop.orderId);
    t.expect('OA-OWD-005', after.order.withdrawalStatus === 'completed' && typeof after.order.withdrawalCompletedAt === 'string', {
      documented: 'withdrawalStatus completed and withdrawalCompletedAt set after the confirm',
      received: { withdrawalStatus: after.order.withdrawalStatus, withdrawalCompletedAt: after.order.withdrawalCompletedAt },
      exchange: after.ex,
    });
    t.expect('OA-OWD-006', userSignature ? after.order.withdrawalTxHash === userSignature : realSignature(after.order.withdrawalTxHash), {
      documented: userSignature
        ? `withdrawalTxHash is the submitted transaction's signature ${userSignature}`
        : 'withdrawalTxHash a signature',
      received: after.order.withdrawalTxHash,
      exchange: after.ex,
    });
    const again = await orderWithdraw(t, user, stop.orderId);
    expectError(t, 'OA-OWD-017', again, {
      status: 400,
      codes: ['ALREADY_WITHDRAWN'],
      documented: '400 ALREADY_WITHDRAWN for a build after the completed withdrawal',
    });
  },
});

export const nearExpiryReturnsFunds = defineCheck({
  name: 'trigger-order-with-a-near-expiry-expires-and-its-funds-come-back-by-themselves',
  service: 'orders',
  rules: ['OA-TRIG-036', 'OA-OWD-019', 'OA-OWD-020', 'OA-OWD-021', ...USER_ORDER_RULES],
  profile: 'full',
  pooledUser: true,
  // With the clock capability it advances the clock instead of waiting (steps/blackbox.ts).
  alone: true,
  async run(t: CheckContext) {
    const user = await partnerUser(t);
    reserveWait(
      t,
      EXPIRES_IN_SECONDS + FILL_GRACE_SECONDS + SETTLE_SECONDS,
      `a trigger order expiring ${EXPIRES_IN_SECONDS} s after creation`,
    );
    // A stop far below any market (never fires), expiring a minute after the service's now.
    const expiresAt = Math.floor((await serviceNow(t)) / 1000) + EXPIRES_IN_SECONDS;
    const stop = await place(t, user, 'stop_loss', { triggerPrice: '1', expiresAt });
    const read = () => readDetail(t, user, 'stop_loss', stop.orderId, true);
    const expired = await waitFor(t, read, (r) => !RESTING.includes(String(r.order.status)), {
      stepSeconds: 30,
      untilMs: expiresAt * 1000 + FILL_GRACE_SECONDS * 1000,
    });
    skipIfUncovered(t, expired, 'the expiry');
    t.expect('OA-TRIG-036', expired.value.order.status === 'expired', {
      documented: `the stop_loss still active at its expiresAt ${new Date(expiresAt * 1000).toISOString()} ends expired`,
      received: { status: expired.value.order.status, expiresAt: expired.value.order.expiresAt },
      exchange: expired.value.ex,
    });
    const returned = await waitFor(t, read, (r) => r.order.withdrawalStatus === 'completed', {
      stepSeconds: 5,
      untilMs: async () => (await serviceNow(t)) + SETTLE_SECONDS * 1000,
    });
    const order = returned.value.order;
    t.expect('OA-OWD-019', order.withdrawalStatus === 'completed', {
      documented: "the expired trigger order's funds are returned by themselves: withdrawalStatus completed",
      received: { status: order.status, withdrawalStatus: order.withdrawalStatus },
      exchange: returned.value.ex,
    });
    t.expect('OA-OWD-021', realSignature(order.withdrawalTxHash), {
      documented: 'the automatic return sent the deposit: withdrawalTxHash is a real signature (base58 of 64 bytes, not a placeholder)',
      received: order.withdrawalTxHash,
      exchange: returned.value.ex,
    });
    const again = await orderWithdraw(t, user, stop.orderId);
    expectError(t, 'OA-OWD-020', again, {
      status: 400,
      codes: ['ALREADY_WITHDRAWN'],
      documented: '400 ALREADY_WITHDRAWN for an order-level withdraw after the automatic return',
    });
  },
});
