import type fc from 'fast-check';
import { is2xx } from '../../../harness/answers.ts';
import { call, heldWithdrawal, observe, orderPreferring, served, withdrawing, withdrew, type Model, type Real } from '../model.ts';

/** POST /orders/{orderId}/withdraw/abandon of an order whose withdrawal is pending (any order when none is): releases it (idempotent). */
export class AbandonWithdrawal implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => served(m, 'POST /orders/{orderId}/withdraw/abandon');
  async run(m: Model, r: Real): Promise<void> {
    const order = orderPreferring(m, this.index, withdrawing);
    const from = heldWithdrawal(order);
    const ex = await call(m, r, 'POST', `/orders/${order.id}/withdraw/abandon`, {});
    if (ex && is2xx(ex)) withdrew(order, { kind: 'abandon', from });
    await observe(m, r);
  }
  toString = () => `abandon the withdrawal of order #${this.index} (pending first)`;
}
