import type fc from 'fast-check';
import type { OrderType } from '../../orders.ts';
import { addOrder, MAX_ORDERS, observe, type Model, type Real } from '../model.ts';

/** POST /orders/intent, sign, POST /orders/confirm: one more order of the family. */
export class CreateOrder implements fc.AsyncCommand<Model, Real> {
  constructor(readonly type: OrderType) {}
  check = (m: Readonly<Model>) => m.orders.length < MAX_ORDERS;
  async run(m: Model, r: Real): Promise<void> {
    await addOrder(m, r, this.type);
    await observe(m, r);
  }
  toString = () => `create ${this.type}`;
}
