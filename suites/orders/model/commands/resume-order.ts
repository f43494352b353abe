import type fc from 'fast-check';
import { accepted, call, observe, orderPreferring, served, type Model, type Real } from '../model.ts';

/** POST /orders/{orderId}/resume with `{}` (UNKNOWNS.md O11: the body is not shown) of a paused order (any order when none is). */
export class ResumeOrder implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => served(m, 'POST /orders/{orderId}/resume');
  async run(m: Model, r: Real): Promise<void> {
    const order = orderPreferring(m, this.index, (o) => o.status === 'paused');
    accepted(order, 'resume', await call(m, r, 'POST', `/orders/${order.id}/resume`, {}));
    await observe(m, r);
  }
  toString = () => `resume order #${this.index} (paused first)`;
}
