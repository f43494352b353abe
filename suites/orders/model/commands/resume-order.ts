import type fc from 'fast-check';
import { accepted, call, observe, orderAt, served, type Model, type Real } from '../model.ts';

/** POST /orders/{orderId}/resume with `{}` (UNKNOWNS.md O11: the body is not shown). */
export class ResumeOrder implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => served(m, 'POST /orders/{orderId}/resume');
  async run(m: Model, r: Real): Promise<void> {
    const order = orderAt(m, this.index);
    accepted(order, 'resume', await call(m, r, 'POST', `/orders/${order.id}/resume`, {}));
    await observe(m, r);
  }
  toString = () => `resume order #${this.index}`;
}
