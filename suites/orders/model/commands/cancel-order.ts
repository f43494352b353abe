import type fc from 'fast-check';
import { accepted, call, observe, orderAt, served, type Model, type Real } from '../model.ts';

/** POST /orders/{orderId}/cancel with `{withdraw: false}` or `{withdraw: true, userPubkey}` (the user's own wallet). */
export class CancelOrder implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number, readonly withdraw: boolean) {}
  check = (m: Readonly<Model>) => served(m, 'POST /orders/{orderId}/cancel');
  async run(m: Model, r: Real): Promise<void> {
    const order = orderAt(m, this.index);
    const body = this.withdraw ? { withdraw: true, userPubkey: r.user.userPubkey } : { withdraw: false };
    accepted(order, 'cancel', await call(m, r, 'POST', `/orders/${order.id}/cancel`, body));
    await observe(m, r);
  }
  toString = () => `cancel order #${this.index}${this.withdraw ? ' with withdraw' : ''}`;
}
