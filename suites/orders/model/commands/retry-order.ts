import type fc from 'fast-check';
import { accepted, call, observe, orderPreferring, served, type Model, type Real } from '../model.ts';

/** POST /orders/{orderId}/retry with `{}` (UNKNOWNS.md O11: the body is not shown) of a failed order (any order when none is). */
export class RetryOrder implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => served(m, 'POST /orders/{orderId}/retry');
  async run(m: Model, r: Real): Promise<void> {
    const order = orderPreferring(m, this.index, (o) => o.status === 'failed');
    accepted(order, 'retry', await call(m, r, 'POST', `/orders/${order.id}/retry`, {}));
    await observe(m, r);
  }
  toString = () => `retry order #${this.index} (failed first)`;
}
