import type fc from 'fast-check';
import { served, type Model, type Real } from '../model.ts';
import { moveOrder } from './order-move.ts';

/** POST /orders/{orderId}/resume of a paused order (any order when none is): order-move.ts. */
export class ResumeOrder implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => served(m, 'POST /orders/{orderId}/resume');
  run = (m: Model, r: Real) => moveOrder(m, r, this.index, 'resume', 'paused');
  toString = () => `resume order #${this.index} (paused first)`;
}
