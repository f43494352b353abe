import type fc from 'fast-check';
import { call, observe, orderAt, served, type Model, type Real } from '../model.ts';

/** POST /orders/{orderId}/withdraw/abandon: releases a pending order-level withdrawal (idempotent). */
export class AbandonWithdrawal implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => served(m, 'POST /orders/{orderId}/withdraw/abandon');
  async run(m: Model, r: Real): Promise<void> {
    await call(m, r, 'POST', `/orders/${orderAt(m, this.index).id}/withdraw/abandon`, {});
    await observe(m, r);
  }
  toString = () => `abandon the withdrawal of order #${this.index}`;
}
