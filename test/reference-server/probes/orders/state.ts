import { MINTS } from '../../quote-support.ts';
import { dataOf } from '../../reads-support.ts';
import type { Target } from '../../support.ts';
import { HOUR, type Probe, type Row } from '../probe.ts';
import { dcaAfter, fundedUser, lifecycleScene } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/orders/state.ts (OA-STATE): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

const STOP_LOSS_INTENT = {
  orderType: 'stop_loss',
  inputMint: MINTS.USDC,
  outputMint: MINTS.SOL,
  config: { amount: '12000000', triggerPrice: '1', priceDecimals: 18 },
};

/** previousStatus of a DCA order whose first cycle hangs in flight. */
async function previousStatusWhileExecuting(t: Target): Promise<unknown> {
  const s = await lifecycleScene(t, 0);
  await t.faults({ swaps: 'hang' });
  try {
    await t.advanceClock(HOUR + 1);
    return (await s.detail()).previousStatus;
  } finally {
    await t.faults({ swaps: 'ok' });
  }
}

export const STATE_PROBES: Record<string, Probe> = {
  'failure-reason-on-a-live-order': async (t) => (await dcaAfter(t, 0)).failureReason,
  // passive lifecycle invariants
  'dca-status-running': async (t) => (await dcaAfter(t, 0)).status,
  'cancelled-order-reads-active-again': async (t) => {
    const u = await fundedUser(t);
    const id = await (await u.order()).id();
    await u.post(`/orders/${id}/cancel`, { withdraw: false });
    return [(await u.get(`/dca/${id}`)).status, (await u.get(`/dca/${id}`)).status];
  },
  'armed-stop-loss-shown-pending': async (t) =>
    (await (await lifecycleScene(t, 0, { intent: STOP_LOSS_INTENT })).detail('/stop-loss')).status,
  'previous-status-missing-while-executing': previousStatusWhileExecuting,
  'previous-status-on-resting-orders': async (t) =>
    dataOf<Row[]>(await (await lifecycleScene(t, 0)).user.get('/me/orders')).map((r) => r.previousStatus),
  'previous-status-executing-while-executing': previousStatusWhileExecuting,
  'withdrawal-status-uppercase': async (t) => (await dcaAfter(t, 0)).withdrawalStatus,
  'returned-failed-order-shown-expired': async (t) => {
    const s = await lifecycleScene(t, HOUR + 1, { faults: { swaps: 'fail' } });
    await t.advanceClock(HOUR);
    return (await s.detail()).status;
  },
  'failed-order-without-reason': async (t) => (await dcaAfter(t, HOUR + 1, { faults: { swaps: 'fail' } })).failureReason,
  'failure-reason-with-a-stack-trace': async (t) => (await dcaAfter(t, HOUR + 1, { faults: { swaps: 'fail' } })).failureReason,
  'completed-order-without-completed-at': async (t) => (await dcaAfter(t, 3 * HOUR + 1)).completedAt === null,
  'terminal-order-keeps-next-execution': async (t) => (await dcaAfter(t, 3 * HOUR + 1)).nextExecutionAt,
  'terminal-dca-order-reads-nothing-spent': async (t) => {
    const u = await fundedUser(t);
    const id = await (await u.order()).id();
    await t.advanceClock(3600);
    await u.post(`/orders/${id}/cancel`, { withdraw: false });
    const read = await u.get(`/dca/${id}`);
    return { status: read.status, amountSpent: read.amountSpent, cyclesCompleted: read.cyclesCompleted };
  },
  'paused-order-stays-active': async (t) => {
    const u = await fundedUser(t);
    const id = await (await u.order()).id();
    await u.post(`/orders/${id}/pause`, {});
    return (await u.get(`/dca/${id}`)).status;
  },
  'completed-withdrawal-reads-none-again': async (t) => {
    const u = await fundedUser(t);
    const id = await (await u.order()).id();
    await t.faults({ swaps: 'fail' });
    try {
      await t.advanceClock(3600);
    } finally {
      await t.faults({ swaps: 'ok' });
    }
    await t.advanceClock(3600); // the failed order's funds are returned automatically
    return [(await u.get(`/dca/${id}`)).withdrawalStatus, (await u.get(`/dca/${id}`)).withdrawalStatus];
  },
};
