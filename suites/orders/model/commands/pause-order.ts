import type fc from 'fast-check';
import { served, type Model, type Real } from '../model.ts';
import { moveOrder } from './order-move.ts';

/** POST /orders/{orderId}/pause of an active order (any order when none is): order-move.ts. */
export class PauseOrder implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => served(m, 'POST /orders/{orderId}/pause');
  run = (m: Model, r: Real) => moveOrder(m, r, this.index, 'pause', 'active');
  toString = () => `pause order #${this.index} (active first)`;
}
