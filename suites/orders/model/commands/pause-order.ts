import type fc from 'fast-check';
import { accepted, call, observe, orderPreferring, served, type Model, type Real } from '../model.ts';

/** POST /orders/{orderId}/pause with `{}` (UNKNOWNS.md O11: the body is not shown) of an active order (any order when none is). */
export class PauseOrder implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => served(m, 'POST /orders/{orderId}/pause');
  async run(m: Model, r: Real): Promise<void> {
    const order = orderPreferring(m, this.index, (o) => o.status === 'active');
    accepted(order, 'pause', await call(m, r, 'POST', `/orders/${order.id}/pause`, {}));
    await observe(m, r);
  }
  toString = () => `pause order #${this.index} (active first)`;
}
