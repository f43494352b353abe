import fc from 'fast-check';
import { AbandonWithdrawal } from './commands/abandon-withdrawal.ts';
import { AdvanceClock } from './commands/advance-clock.ts';
import { CancelOrder } from './commands/cancel-order.ts';
import { CreateOrder } from './commands/create-order.ts';
import { FailChain } from './commands/fail-chain.ts';
import { ModifyOrder } from './commands/modify-order.ts';
import { MovePrice } from './commands/move-price.ts';
import { PauseOrder } from './commands/pause-order.ts';
import { ResumeOrder } from './commands/resume-order.ts';
import { RetryOrder } from './commands/retry-order.ts';
import { WithdrawOrder } from './commands/withdraw-order.ts';
import { DCA_FREQUENCY, MAX_ORDERS, type Family, type Model, type Real } from './model.ts';

/** The table of commands of each order family (fast-check `commands`); short sequences, they run 8 times in npm test. */

type Arb = fc.Arbitrary<fc.AsyncCommand<Model, Real>>;

const order = fc.nat({ max: MAX_ORDERS - 1 });
/** Seconds: inside a DCA cycle, one cycle, half of them, and an hour (all of them; a trigger order's expiry may pass). */
const seconds = fc.constantFrom(60, DCA_FREQUENCY, 3 * DCA_FREQUENCY, 3600);
/** USD prices of the run's output mint around its starting 1 USD (crossing the stops at 2 and the take-profits at 0.5). */
const prices = fc.constantFrom('0.25', '0.5', '1', '2', '4');

/**
 * The moves of a withdrawal, of a pause and of the clock come twice as often as the rest: their effects show only in
 * two or three steps in a row (build, then confirm or abandon; pause, then resume; cycles, chunks and expiry fall due
 * only as time passes).
 */
const twice = (arb: Arb): Arb[] => [arb, arb];
const everyFamily: Arb[] = [
  ...twice(order.map((i) => new PauseOrder(i))),
  ...twice(order.map((i) => new ResumeOrder(i))),
  fc.tuple(order, fc.boolean()).map(([i, withdraw]) => new CancelOrder(i, withdraw)),
  order.map((i) => new RetryOrder(i)),
  ...twice(
    fc
      .tuple(order, fc.constantFrom('confirm' as const, 'abandon' as const, 'leave' as const))
      .map(([i, then]) => new WithdrawOrder(i, then)),
  ),
  ...twice(order.map((i) => new AbandonWithdrawal(i))),
  ...twice(seconds.map((s) => new AdvanceClock(s))),
  fc.constantFrom('swaps' as const, 'rpc' as const).map((fault) => new FailChain(fault)),
];

const COMMANDS: Record<Family, Arb[]> = {
  dca: [...everyFamily, fc.constant(new CreateOrder('dca')), order.map((i) => new ModifyOrder(i))],
  trigger: [
    ...everyFamily,
    fc.constantFrom('stop_loss' as const, 'take_profit' as const, 'oco' as const).map((type) => new CreateOrder(type)),
    order.map((i) => new ModifyOrder(i)),
    prices.map((p) => new MovePrice(p)),
  ],
  slice: [...everyFamily, fc.constant(new CreateOrder('slice'))],
};

export const commandsOf = (family: Family, maxCommands: number) => fc.commands(COMMANDS[family], { maxCommands, size: 'max' });
