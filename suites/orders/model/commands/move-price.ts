import type fc from 'fast-check';
import { observe, type Model, type Real } from '../model.ts';

/** The oracle's USD price of the run's own output mint (control API, capability prices): triggers may fire. */
export class MovePrice implements fc.AsyncCommand<Model, Real> {
  constructor(readonly usdPrice: string) {}
  check = (m: Readonly<Model>) => m.can.prices;
  async run(m: Model, r: Real): Promise<void> {
    await r.t.control.setPrice(r.outputMint, this.usdPrice);
    await observe(m, r);
  }
  toString = () => `price the output mint at ${this.usdPrice} USD`;
}
