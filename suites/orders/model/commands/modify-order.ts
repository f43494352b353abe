import type fc from 'fast-check';
import type { OrderType } from '../../orders.ts';
import { call, observe, orderAt, served, type Model, type Real } from '../model.ts';

/**
 * An in-place modify (no transaction): PATCH /dca/{orderId} with a new cycleFrequencySeconds (UNKNOWNS.md O8), or a
 * trigger order's PATCH with a nearer stop or take-profit (O10). The read after it is judged like any other.
 */
const MODIFY: Partial<Record<OrderType, { path: string; config: Record<string, unknown> }>> = {
  dca: { path: '/dca', config: { cycleFrequencySeconds: 7200 } },
  stop_loss: { path: '/stop-loss', config: { triggerPrice: '400000' } },
  take_profit: { path: '/take-profit', config: { triggerPrice: '2500000' } },
  oco: { path: '/oco', config: { stopLossPrice: '400000' } },
};

export class ModifyOrder implements fc.AsyncCommand<Model, Real> {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => {
    const modify = MODIFY[orderAt(m, this.index).type];
    return modify !== undefined && served(m, `PATCH ${modify.path}/{orderId}`);
  };
  async run(m: Model, r: Real): Promise<void> {
    const order = orderAt(m, this.index);
    const modify = MODIFY[order.type];
    if (modify) await call(m, r, 'PATCH', `${modify.path}/${order.id}`, { config: modify.config });
    await observe(m, r);
  }
  toString = () => `modify order #${this.index}`;
}
