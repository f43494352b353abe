import type fc from 'fast-check';
import { is2xx } from '../../../harness/answers.ts';
import { accepted, call, heldWithdrawal, isTerminal, observe, orderPreferring, served, withdrew, type Model, type Real } from '../model.ts';

/**
 * POST /orders/{orderId}/cancel with `{withdraw: false}` or `{withdraw: true, userPubkey}` (the user's own wallet), of an
 * order still running (any order when none is).
 */
export class CancelOrder implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly index: number,
    readonly withdraw: boolean,
  ) {}
  check = (m: Readonly<Model>) => served(m, 'POST /orders/{orderId}/cancel');
  async run(m: Model, r: Real): Promise<void> {
    const order = orderPreferring(m, this.index, (o) => !isTerminal(o));
    const body = this.withdraw ? { withdraw: true, userPubkey: r.user.userPubkey } : { withdraw: false };
    const from = heldWithdrawal(order);
    const ex = await call(m, r, 'POST', `/orders/${order.id}/cancel`, body);
    accepted(order, 'cancel', ex);
    if (this.withdraw && ex && is2xx(ex)) withdrew(order, { kind: 'cancel-with-withdraw', from });
    await observe(m, r);
  }
  toString = () => `cancel order #${this.index} (running first)${this.withdraw ? ' with withdraw' : ''}`;
}
