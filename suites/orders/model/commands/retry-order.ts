import type fc from 'fast-check';
import { accepted, call, observe, orderAt, served, type Model, type Real } from '../model.ts';

/** POST /orders/{orderId}/retry with `{}` (UNKNOWNS.md O11: the body is not shown). */
export class RetryOrder implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => served(m, 'POST /orders/{orderId}/retry');
  async run(m: Model, r: Real): Promise<void> {
    const order = orderAt(m, this.index);
    accepted(order, 'retry', await call(m, r, 'POST', `/orders/${order.id}/retry`, {}));
    await observe(m, r);
  }
  toString = () => `retry order #${this.index}`;
}
