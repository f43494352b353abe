import type fc from 'fast-check';
import { forgetReservations, observe, type Model, type Real } from '../model.ts';

/**
 * The chain fails for an hour of virtual time (control API: `swaps: fail` or `rpc: down`, then the clock moves one
 * DCA cycle): what falls due fails. The fault is always lifted again before the read.
 */
export class FailChain implements fc.AsyncCommand<Model, Real> {
  constructor(readonly fault: 'swaps' | 'rpc') {}
  check = (m: Readonly<Model>) => m.can.faults && m.can.clock;
  async run(m: Model, r: Real): Promise<void> {
    await r.t.control.setFaults(this.fault === 'swaps' ? { swaps: 'fail' } : { rpc: 'down' });
    try {
      await r.t.control.advanceClock(3600);
    } finally {
      await r.t.control.setFaults(this.fault === 'swaps' ? { swaps: 'ok' } : { rpc: 'up' });
    }
    forgetReservations(m);
    await observe(m, r);
  }
  toString = () => `fail the chain (${this.fault}) for an hour`;
}
