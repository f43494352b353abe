import type fc from 'fast-check';
import { forgetReservations, observe, type Model, type Real } from '../model.ts';

/** The target's virtual clock moves forward (control API, capability clock): cycles, chunks and expiry fall due. */
export class AdvanceClock implements fc.AsyncCommand<Model, Real> {
  constructor(readonly seconds: number) {}
  check = (m: Readonly<Model>) => m.can.clock;
  async run(m: Model, r: Real): Promise<void> {
    await r.t.control.advanceClock(this.seconds);
    forgetReservations(m);
    await observe(m, r);
  }
  toString = () => `advance the clock ${this.seconds} s`;
}
