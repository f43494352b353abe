import type fc from 'fast-check';
import { isObject } from '../../../shared/values.ts';
import { signed } from '../../orders.ts';
import { dataOf, is2xx } from '../../users.ts';
import { call, observe, orderAt, served, type Model, type Real } from '../model.ts';

/**
 * An order-level withdrawal: POST /orders/{orderId}/withdraw builds it; with `confirm`, the transaction (assumed under
 * data.transaction, UNKNOWNS.md O12) is signed by the user and sent to POST /orders/{orderId}/withdraw/confirm as
 * `{signedTransaction}` (O12). Without, the withdrawal stays pending.
 */
export class WithdrawOrder implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number, readonly confirm: boolean) {}
  check = (m: Readonly<Model>) => served(m, 'POST /orders/{orderId}/withdraw');
  async run(m: Model, r: Real): Promise<void> {
    const order = orderAt(m, this.index);
    const built = await call(m, r, 'POST', `/orders/${order.id}/withdraw`, {});
    const data = built && is2xx(built) ? dataOf(built) : undefined;
    if (this.confirm && isObject(data) && typeof data.transaction === 'string' && served(m, 'POST /orders/{orderId}/withdraw/confirm')) {
      await call(m, r, 'POST', `/orders/${order.id}/withdraw/confirm`, { signedTransaction: signed(data.transaction, r.user.keypair) });
    }
    await observe(m, r);
  }
  toString = () => `withdraw order #${this.index}${this.confirm ? ' and confirm' : ''}`;
}
