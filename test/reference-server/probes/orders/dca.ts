import { actionUser, sign, SLICE_INTENT, TRIGGER_INTENT } from '../../action-support.ts';
import { MINTS } from '../../quote-support.ts';
import { dataOf, DCA_INTENT } from '../../reads-support.ts';
import type { Target } from '../../support.ts';
import { failure, HOUR, type Probe, type Row } from '../probe.ts';
import { actionScene, confirmBody, dcaAfter, detailOf, instructionsOf, orderField, raised, rowsAfter, rowsOf } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/orders/dca.ts (OA-DCA, OA-SLICE): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

/** A DCA order waiting for a startAt ten minutes ahead, the clock then moved by `seconds`. */
async function laterStart(t: Target, seconds: number): Promise<unknown> {
  const startAt = new Date((await t.now()).getTime() + 600_000).toISOString();
  return (await dcaAfter(t, seconds, { intent: { ...DCA_INTENT, config: { ...DCA_INTENT.config, startAt } } })).status;
}

export const DCA_PROBES: Record<string, Probe> = {
  // ---- OA-DCA: DCA orders (cycles, counters, schedule, modify, the 30-second lock) ----
  'dca-cycle-frequency-as-string': orderField('dca', (order) => typeof order.cycleFrequencySeconds),
  'dca-cycles-completed-beyond-total': async (t) => (await dcaAfter(t, 0)).cyclesCompleted,
  // DCA cycles
  'dca-cycles-not-counted': async (t) => (await dcaAfter(t, HOUR + 1)).cyclesCompleted,
  'dca-never-completes': async (t) => (await dcaAfter(t, 3 * HOUR + 1)).status,
  'dca-starts-pending-orders-at-once': (t) => laterStart(t, 0),
  'dca-stays-pending-after-start-at': (t) => laterStart(t, 601),
  'dca-last-execution-set-before-first-cycle': async (t) => (await dcaAfter(t, 0)).lastExecutionAt,
  // DCA modify
  'in-place-modify-answers-requires-transaction': async (t) => {
    const { alice, id } = await actionScene(t);
    return dataOf<Row>(await alice.patch(`/dca/${id}`, { config: { cycleFrequencySeconds: 7200 } })).requiresTransaction;
  },
  'slice-chunks-include-slices-in-flight': async (t) => {
    const { alice, id } = await actionScene(t, SLICE_INTENT);
    await t.faults({ swaps: 'hang' });
    try {
      await t.advanceClock(61);
      return ((await alice.detail(id, '/slice')).chunks as unknown[]).length;
    } finally {
      await t.faults({ swaps: 'ok' });
    }
  },
  'modify-of-a-terminal-dca-order-applies': async (t) => {
    const { alice, id } = await actionScene(t);
    await alice.post(`/orders/${id}/cancel`, { withdraw: false });
    return failure(await alice.patch(`/dca/${id}`, { config: { cycleFrequencySeconds: 7200 } }));
  },
  'modify-accepts-a-cycle-below-60-seconds': async (t) => {
    const { alice, id } = await actionScene(t);
    return failure(await alice.patch(`/dca/${id}`, { config: { cycleFrequencySeconds: 59 } }));
  },
  'total-amount-modify-answers-no-transaction': async (t) => {
    const { alice, id } = await actionScene(t);
    return dataOf<Row>(await alice.patch(`/dca/${id}`, { config: { totalAmount: '48000000' } })).requiresTransaction;
  },
  'modify-confirm-does-not-apply': async (t) => {
    const { alice, id, signedTransaction } = await raised(t);
    await alice.post(`/dca/${id}/modify/confirm`, confirmBody(signedTransaction));
    return (await alice.detail(id)).totalAmount;
  },
  'dca-lock-keeps-the-original-deposit': async (t) => {
    const alice = await actionUser(t);
    const { id } = await alice.order();
    const lock = async () => rowsOf(await alice.get('/me/balance')).find((row) => row.mint === MINTS.USDC)?.lockedForFutureTxns;
    const before = await lock();
    const patched = (await alice.patch(`/dca/${id}`, { config: { totalAmount: '48000000' } })).body as { data: Row };
    const detail = await alice.detail(id);
    await alice.post(`/dca/${id}/modify/confirm`, {
      signedTransaction: sign(String(patched.data.transaction), alice.wallet),
      cyclesCompleted: detail.cyclesCompleted,
      config: { totalAmount: '48000000' },
    });
    const spent = BigInt(String((await alice.detail(id)).amountSpent));
    return { before, after: await lock(), expected: (48000000n - spent).toString() };
  },
  'modify-lock-never-expires': async (t) => {
    const { alice, id, signedTransaction } = await raised(t);
    await t.advanceClock(31);
    return failure(await alice.post(`/dca/${id}/modify/confirm`, confirmBody(signedTransaction)));
  },
  'concurrent-modify-replaces-the-lock': async (t) => {
    const { alice, id } = await raised(t);
    return failure(await alice.patch(`/dca/${id}`, { config: { totalAmount: '60000000' } }));
  },
  'modify-confirm-ignores-cycles-completed': async (t) => {
    const { alice, id, signedTransaction } = await raised(t);
    return failure(await alice.post(`/dca/${id}/modify/confirm`, confirmBody(signedTransaction, 3)));
  },
  'modify-guard-rejection-leaves-the-order-locked': async (t) => {
    const { alice, id } = await actionScene(t);
    await alice.patch(`/dca/${id}`, { config: { amountPerCycle: '99000000' } });
    return failure(await alice.patch(`/dca/${id}`, { config: { cycleFrequencySeconds: 7200 } }));
  },
  'modify-confirm-bad-body-answers-validation-error': async (t) => {
    const { alice, id } = await raised(t);
    return failure(await alice.post(`/dca/${id}/modify/confirm`, {}));
  },
  'modify-confirm-accepts-an-unsigned-transaction': async (t) => {
    const { alice, id } = await raised(t);
    return failure(await alice.post(`/dca/${id}/modify/confirm`, confirmBody(Buffer.from('not a transaction').toString('base64'))));
  },
  'modify-of-a-trigger-order-answers-invalid-state': async (t) => {
    const { alice, id } = await actionScene(t, TRIGGER_INTENT);
    return failure(await alice.patch(`/dca/${id}`, { config: { cycleFrequencySeconds: 7200 } }));
  },
  'dca-schedule-restarts-at-each-catch-up': async (t) => (await dcaAfter(t, 3 * HOUR + 1)).cyclesCompleted,
  'dca-modify-transaction-also-sends-sol-to-a-stranger': async (t) => {
    const { alice, id } = await actionScene(t);
    return instructionsOf(await alice.patch(`/dca/${id}`, { config: { totalAmount: '48000000' } }));
  },

  // ---- OA-SLICE: Slice orders (GET /slice/{orderId}, slice executions) ----
  'slice-detail-not-nested': async (t) => 'order' in (await detailOf(t, 'slice')),
  'slice-chunks-as-object': async (t) => Array.isArray((await detailOf(t, 'slice')).chunks),
  'slice-fills-recorded-as-dca-cycles': async (t) => (await rowsAfter(t, 61, { intent: SLICE_INTENT })).map((r) => r.executionType),
};
