import type fc from 'fast-check';
import { dataOf, is2xx } from '../../../harness/answers.ts';
import { isObject } from '../../../shared/values.ts';
import { SIGNATURE_LAMPORTS, spendLamports } from '../../lamports.ts';
import { signedWithdrawal } from '../../orders.ts';
import { call, heldWithdrawal, isTerminal, observe, orderPreferring, served, withdrew, type Model, type Real } from '../model.ts';

/** What follows the build: its confirm, its abandon, or nothing (the withdrawal stays pending). */
export type AfterBuild = 'confirm' | 'abandon' | 'leave';

/**
 * An order-level withdrawal of a terminal order not yet withdrawn (any order when there is none): POST
 * /orders/{orderId}/withdraw builds it; then, with `confirm`, the transaction (assumed under data.transaction,
 * UNKNOWNS.md O12) is signed by the user and sent to POST /orders/{orderId}/withdraw/confirm as `{signedTransaction}`
 * (O12); with `abandon`, POST /orders/{orderId}/withdraw/abandon releases it; with `leave`, it stays pending.
 */
export class WithdrawOrder implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly index: number,
    readonly then: AfterBuild,
  ) {}
  check = (m: Readonly<Model>) => served(m, 'POST /orders/{orderId}/withdraw');
  async run(m: Model, r: Real): Promise<void> {
    const order = orderPreferring(m, this.index, (o) => isTerminal(o) && o.withdrawalStatus !== 'completed');
    const from = heldWithdrawal(order);
    const built = await call(m, r, 'POST', `/orders/${order.id}/withdraw`, {});
    const data = built && is2xx(built) ? dataOf(built) : undefined;
    if (built && is2xx(built)) withdrew(order, { kind: 'build', from, preview: data?.withdrawalAmounts });
    if (
      this.then === 'confirm' &&
      isObject(data) &&
      typeof data.transaction === 'string' &&
      served(m, 'POST /orders/{orderId}/withdraw/confirm')
    ) {
      if (r.shared) spendLamports(r.t, SIGNATURE_LAMPORTS, 'an order-level withdrawal');
      const signedTransaction = signedWithdrawal({ ex: built!, base64: data.transaction }, r.user);
      const confirmed = await call(m, r, 'POST', `/orders/${order.id}/withdraw/confirm`, { signedTransaction });
      if (confirmed && is2xx(confirmed)) withdrew(order, { kind: 'confirm', from, signedTransaction });
    }
    if (this.then === 'abandon' && data && served(m, 'POST /orders/{orderId}/withdraw/abandon')) {
      const abandoned = await call(m, r, 'POST', `/orders/${order.id}/withdraw/abandon`, {});
      if (abandoned && is2xx(abandoned)) withdrew(order, { kind: 'abandon', from });
    }
    await observe(m, r);
  }
  toString = () => `withdraw order #${this.index} (terminal first)${this.then === 'leave' ? '' : ` and ${this.then}`}`;
}
