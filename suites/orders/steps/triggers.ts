import { Keypair } from '@solana/web3.js';
import fc from 'fast-check';
import { dataOf, is2xx } from '../../harness/answers.ts';
import type { CheckContext } from '../../harness/check.ts';
import type { Exchange } from '../../harness/exchange.ts';
import { SetupFailed } from '../../harness/failure.ts';
import { isObject } from '../../shared/values.ts';
import { atOnce, createOrder, type Funded, INT, intentRequest, intentUser } from '../orders.ts';
import { asUser, onboardedUser, testWallet } from '../users.ts';
import type { RuleId } from '../../../generators/vocabulary.ts';

/**
 * The market every trigger check trades in (area TRIG; triggers.checks.ts, trigger-fills.checks.ts,
 * trigger-patch.checks.ts): placing, moving, reading and walking trigger orders.
 *
 * Each check trades in markets of its own: fresh test mints funded and priced through the control API, the output at
 * 1 USD and the input at p USD (one input mint per market, so walks sent at once never move each other's price). The pair price ("a pair ratio scaled by priceDecimals", output per input)
 * is then p exactly: every pair the checks set has six decimals at most, so no rounding is ever judged, and one tick
 * (1 unit of the scaled price) is as easy to set as any other. Nothing another check does moves these prices, and
 * nothing here moves anyone else's. After each price move the clock advances a little (a target that polls its oracle
 * gets the time to see it); walks in lockstep share that advance, each order still seeing its price set, then the clock
 * moved, then one read. Fewer round trips, same judgement: a step of n walks costs one price round (n prices at once),
 * one clock call and one read round, where n walks one after another cost n of each. A fill in flight (`executing`) counts as fired. "Price reaches the trigger" (States and
 * transitions): a stop fires at its trigger or below, a take-profit at its trigger or above; the firing properties walk
 * the exact trigger and one tick on either side of it.
 */

export type Order = Record<string, unknown>;
export type TriggerType = 'stop_loss' | 'take_profit' | 'oco';

export const PATHS: Record<TriggerType, string> = { stop_loss: '/stop-loss', take_profit: '/take-profit', oco: '/oco' };
export const PRICE_DECIMALS = 6;
/** The pair prices (scaled by 10^6) the walks choose from. */
const PAIRS: readonly bigint[] = [2_000_000n, 1_600_000n, 1_250_000n, 1_000_000n, 800_000n, 625_000n, 500_000n, 400_000n];
export const START = 1_000_000n;
export const AMOUNT = '12000000';
export const STEP_SECONDS = 30;
export const FIRED = ['executing', 'completed'];
/** Random walks over PAIRS and the given extra pair prices. */
export const path = (maxLength = 5, extra: readonly bigint[] = []) =>
  fc.array(fc.constantFrom(...PAIRS, ...extra), { minLength: 1, maxLength });
/**
 * runs(t) random walks (path) at once, for a property that walks them in lockstep (walks): one property run judges
 * what runs(t) runs of one walk would, and a counterexample shrinks to the failing walk.
 */
export const pathsAtOnce = (t: CheckContext, maxLength = 5, extra: readonly bigint[] = []) =>
  fc.array(path(maxLength, extra), { minLength: runs(t), maxLength: runs(t) });
/** Each trigger and one tick on either side of it. */
export const ticksAround = (...triggers: bigint[]) => triggers.flatMap((trigger) => [trigger - 1n, trigger, trigger + 1n]);
/** The input's USD price that makes the pair `pair` (the output at 1 USD): the scaled pair as a decimal. */
export const inputUsd = (pair: bigint) => `${pair / 1_000_000n}.${(pair % 1_000_000n).toString().padStart(6, '0')}`;
export const runs = (t: CheckContext) => Math.min(t.env.numRuns, 3);

export interface Market {
  user: Funded;
  input: string;
  output: string;
  /** The pair price this market was last set to (setPair). */
  pair: bigint;
}

/** A funded user and a market of two fresh mints, both at 1 USD (the pair at START). */
export async function market(t: CheckContext): Promise<Market> {
  return (await markets(t, 1))[0]!;
}

/**
 * `n` markets of one funded user, with one output mint and an input mint each, all at 1 USD (the pair at START): walks
 * sent in lockstep (walks) trade one in each, so that no walk moves another's price.
 */
export async function markets(t: CheckContext, n: number): Promise<Market[]> {
  const inputs = Array.from({ length: n }, () => t.control.freshMint());
  const output = t.control.freshMint();
  // Independent chains sent at once, while the user signs in: each input mint is made by funding the user's wallet with
  // it (the control API funds a wallet, onboarded or not), then priced; the output mint is made in a wallet of its own.
  const wallet = testWallet(t);
  const pubkey = wallet.keypair.publicKey.toBase58();
  const [onboarded] = await atOnce(
    t,
    () => onboardedUser(t, wallet),
    () => t.control.fund(pubkey, 'native', '1000000000'),
    async () => {
      await t.control.fund(Keypair.generate().publicKey.toBase58(), output, '1');
      await t.control.setPrice(output, '1');
    },
    ...inputs.map((input) => async () => {
      await t.control.fund(pubkey, input, '1000000000');
      await t.control.setPrice(input, inputUsd(START));
    }),
  );
  const user: Funded = { ...onboarded, keypair: wallet.keypair };
  return inputs.map((input) => ({ user, input, output, pair: START }));
}

/** The pair of `m` at `pair` (the input's USD price). */
async function setPair(t: CheckContext, m: Market, pair: bigint): Promise<void> {
  await t.control.setPrice(m.input, inputUsd(pair));
  m.pair = pair;
}

/** Each market at its pair price, set at once; the clock then moves on a little, once for all. */
export async function moveAll(t: CheckContext, moves: ReadonlyArray<readonly [Market, bigint]>): Promise<void> {
  // At once, but one after another under --max-concurrency 1 (control requests count too).
  await atOnce(
    t,
    ...moves.map(
      ([m, pair]) =>
        () =>
          setPair(t, m, pair),
    ),
  );
  await t.control.advanceClock(STEP_SECONDS);
}

/** The pair at `pair` (the input's USD price); the clock then moves on a little. */
export async function move(t: CheckContext, m: Market, pair: bigint): Promise<void> {
  await moveAll(t, [[m, pair]]);
}

/**
 * A confirmed order of `type` selling AMOUNT at priceDecimals 6, created at the pair price 1 (set, then the order
 * created, in one window: no step of the clock between them, as when the check ran alone).
 */
export async function place(t: CheckContext, m: Market, type: TriggerType, values: Record<string, unknown>): Promise<string> {
  const request = intentRequest(type, {
    inputMint: m.input,
    outputMint: m.output,
    config: { amount: AMOUNT, priceDecimals: PRICE_DECIMALS, ...values },
  });
  return await t.window(async () => {
    if (m.pair !== START) await setPair(t, m, START);
    return (await createOrder(t, m.user, request)).orderId;
  });
}

export async function read(t: CheckContext, sub: string, type: TriggerType, id: string): Promise<{ ex: Exchange; order: Order }> {
  const ex = await asUser(t, sub, { path: `${PATHS[type]}/${id}` });
  const order = dataOf(ex);
  if (!is2xx(ex) || !order) throw new SetupFailed(`GET ${PATHS[type]}/${id} answered ${ex.response.status}`, ex);
  return { ex, order };
}

export async function executions(t: CheckContext, sub: string, id: string): Promise<{ ex: Exchange; rows: Order[] }> {
  const ex = await asUser(t, sub, { path: `/orders/${id}/executions` });
  const body = ex.response.body;
  const rows = isObject(body) && Array.isArray(body.data) ? body.data.filter(isObject) : undefined;
  if (!is2xx(ex) || !rows) throw new SetupFailed(`GET /orders/${id}/executions answered ${ex.response.status}`, ex);
  return { ex, rows };
}

/** What a walk does with each read of its order, at the pair price it was read at. */
export type Step = (read: { ex: Exchange; order: Order }, pair: bigint) => void;

/**
 * Walks in lockstep, the i-th in the i-th of `ms`: an order of `type` with `values` in each, walked along `paths[i]`
 * until it leaves active, after a step of the clock at the creation pair (the first observation is START, also on a
 * target that polls its oracle). Each step sets the price of every walk still going at once, advances the clock once for all
 * of them, then reads their orders at once; `steps[i]` sees the i-th walk's reads in path order (with `readFirst`, also
 * a read at START before the first move). Each walk's order sees what a walk alone would: its price set, then the
 * clock moved on, then one read. The id and last status of each walk's order.
 */
export async function walks(
  t: CheckContext,
  ms: readonly Market[],
  type: TriggerType,
  values: Record<string, unknown>,
  paths: readonly (readonly bigint[])[],
  steps: readonly Step[],
  readFirst = false,
): Promise<Array<{ id: string; status: unknown }>> {
  if (paths.length > ms.length || steps.length !== paths.length) throw new Error('walks: one market and one step per path');
  const ids = await atOnce(t, ...paths.map((_, i) => () => place(t, ms[i]!, type, values)));
  // A step of the clock at the creation pair first: a target that polls its oracle observes START before any move, so
  // the walk's first move meets the peak the order was created at (trailing: a "new high" is one above START).
  await t.control.advanceClock(STEP_SECONDS);
  const status: unknown[] = ids.map(() => 'active');
  const readAll = (live: number[]) => atOnce(t, ...live.map((i) => () => read(t, ms[i]!.user.sub, type, ids[i]!)));
  if (readFirst) (await readAll(paths.map((_, i) => i))).forEach((seen, i) => steps[i]!(seen, START));
  for (let k = 0; ; k++) {
    const live = paths.flatMap((p, i) => (status[i] === 'active' && k < p.length ? [i] : []));
    if (live.length === 0) break;
    await moveAll(
      t,
      live.map((i) => [ms[i]!, paths[i]![k]!] as const),
    );
    (await readAll(live)).forEach((seen, j) => {
      const i = live[j]!;
      steps[i]!(seen, paths[i]![k]!);
      status[i] = seen.order.status;
    });
  }
  return ids.map((id, i) => ({ id, status: status[i] }));
}

/**
 * A firing check's walks (area TRIG): the `fixed` paths, then one property run of runs(t) random paths at once around
 * the `edges` (a tick either side of each), every read judged by `step` under `rule`; `ended` sees how each set of walks
 * ended (the orders' ids and last status).
 */
export async function fixedThenRandomWalks(
  t: CheckContext,
  ms: readonly Market[],
  rule: RuleId,
  order: { type: TriggerType; values: Record<string, unknown> },
  fixed: readonly (readonly bigint[])[],
  edges: readonly bigint[],
  step: Step,
  ended: (orders: Array<{ id: string; status: unknown }>) => Promise<void> = async () => {},
): Promise<void> {
  const walkAll = async (paths: readonly (readonly bigint[])[]) =>
    await ended(
      await walks(
        t,
        ms,
        order.type,
        order.values,
        paths,
        paths.map(() => step),
      ),
    );
  await walkAll(fixed);
  await t.property(rule, pathsAtOnce(t, 5, ticksAround(...edges)), walkAll, 1);
}

/** One walk alone (walks). */
export async function walk(
  t: CheckContext,
  m: Market,
  type: TriggerType,
  values: Record<string, unknown>,
  prices: readonly bigint[],
  step: Step,
): Promise<{ id: string; status: unknown }> {
  return (await walks(t, [m], type, values, [prices], [step]))[0]!;
}

/** Fired (completed, or its fill in flight) exactly when `reached`; active otherwise. */
export function firesExactly(
  t: CheckContext,
  rule: RuleId,
  what: string,
  order: Order,
  ex: Exchange,
  pair: bigint,
  reached: boolean,
): void {
  t.expect(rule, reached ? FIRED.includes(String(order.status)) : order.status === 'active', {
    documented: reached
      ? `${what}: at the pair price ${pair} the order fires (completed, or executing)`
      : `${what}: at the pair price ${pair} the order has not fired (active)`,
    received: { status: order.status, pair: pair.toString() },
    exchange: ex,
  });
}

/** A stop at 500000 (half the starting pair), and an oco with legs at half and twice the starting pair. */
export const STOP = { triggerPrice: '500000' };
export const OCO = { stopLossPrice: '500000', takeProfitPrice: '2000000' };

/** A stop_loss at 500000 filled at the pair 500000: its order and execution rows. */
export async function filledStop(
  t: CheckContext,
  m: Market,
  values: Record<string, unknown> = {},
): Promise<{ id: string; order: Order; ex: Exchange }> {
  const id = await place(t, m, 'stop_loss', { ...STOP, ...values });
  await move(t, m, 500_000n);
  return { id, ...(await read(t, m.user.sub, 'stop_loss', id)) };
}

/** A funded user's fresh order of each trigger type (assumed templates), created one at a time as the loop asks. */
export async function* triggerOrdersOfOneUser(t: CheckContext): AsyncGenerator<{ user: Funded; type: TriggerType; orderId: string }> {
  const user = await intentUser(t, true);
  for (const type of ['stop_loss', 'take_profit', 'oco'] as const)
    yield { user, type, orderId: (await createOrder(t, user, intentRequest(type))).orderId };
}

/** A completed trigger order carries executedPrice (integer string) and executedPriceDecimals (integer), under `rule`. */
export function expectExecutedPrice(t: CheckContext, rule: RuleId, order: Order, ex: Exchange): void {
  t.expect(
    rule,
    typeof order.executedPrice === 'string' && INT.test(order.executedPrice) && Number.isInteger(order.executedPriceDecimals),
    {
      documented: 'a completed trigger order has executedPrice (integer string) and executedPriceDecimals (integer)',
      received: { executedPrice: order.executedPrice, executedPriceDecimals: order.executedPriceDecimals },
      exchange: ex,
    },
  );
}
