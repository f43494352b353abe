import type fc from 'fast-check';
import { served, type Model, type Real } from '../model.ts';
import { moveOrder } from './order-move.ts';

/** POST /orders/{orderId}/retry of a failed order (any order when none is): order-move.ts. */
export class RetryOrder implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => served(m, 'POST /orders/{orderId}/retry');
  run = (m: Model, r: Real) => moveOrder(m, r, this.index, 'retry', 'failed');
  toString = () => `retry order #${this.index} (failed first)`;
}
