import { defineCheck, type CheckContext } from '../harness/check.ts';
import { dcaRequest } from './orders.ts';
import { createSmallest, partnerUser, readDetail, reserveWait, serviceNow, skipIfUncovered, waitFor } from './steps/blackbox.ts';
import { expectAmountsAreRowSums, readExecutions, type Row } from './steps/dca.ts';

/**
 * Partner mode, execution (steps/blackbox.ts): a DCA order of two 60-second cycles, the smallest the documents allow,
 * runs its cycles by itself and completes, observed in real time on a target without a control API (the control path:
 * dca-lifecycle.checks.ts). The first cycle's time is not documented: the order's own nextExecutionAt says it.
 */

const CYCLES = 2;
const FREQUENCY = 60;
/** Wall time allowed past the last cycle's time for the service to run and record it ("executions take real seconds"). */
const GRACE_SECONDS = 60;
/** Once the last cycle is counted, the order has this long to read completed. */
const SETTLE_SECONDS = 20;
const TERMINAL = ['completed', 'failed', 'cancelled', 'expired'];

export const dcaRunsByItself = defineCheck({
  name: 'dca-order-of-60-second-cycles-runs-them-by-itself-and-completes',
  service: 'orders',
  rules: ['OA-DCA-003', 'OA-DCA-004', 'OA-EXEC-009', 'OA-EXEC-017', 'OA-EXEC-021', 'OA-EXEC-022', 'OA-STATE-013'],
  profile: 'full',
  pooledUser: true,
  // With the clock capability it advances the clock instead of waiting (steps/blackbox.ts).
  alone: true,
  async run(t: CheckContext) {
    const user = await partnerUser(t);
    // The first cycle comes at most one period after activation on the reference reading; the order says when.
    reserveWait(t, (CYCLES + 1) * FREQUENCY + GRACE_SECONDS, `a DCA order of ${CYCLES} cycles of ${FREQUENCY} s`);
    const created = await createSmallest(t, user, (unit) =>
      dcaRequest({ totalAmount: String(unit * BigInt(CYCLES)), amountPerCycle: String(unit), cycleFrequencySeconds: FREQUENCY }),
    );
    const start = await readDetail(t, user, 'dca', created.orderId);
    // The last cycle's time on the service's clock: the order's own schedule, else one period per cycle from creation.
    const first = Date.parse(String(start.order.nextExecutionAt));
    const lastDue = Number.isNaN(first)
      ? Date.parse(String(start.order.createdAt)) + CYCLES * FREQUENCY * 1000
      : first + (CYCLES - 1) * FREQUENCY * 1000;
    if (Number.isNaN(lastDue))
      t.skip(`no schedule to wait by: nextExecutionAt ${String(start.order.nextExecutionAt)}, createdAt ${String(start.order.createdAt)}`);
    t.note(`nextExecutionAt ${String(start.order.nextExecutionAt)}; the last cycle due ${new Date(lastDue).toISOString()}`);

    const seen: Row[] = [start.order];
    const poll = async () => {
      const read = await readDetail(t, user, 'dca', created.orderId);
      seen.push(read.order);
      return read;
    };
    const over = (read: { order: Row }) => TERMINAL.includes(String(read.order.status));
    const waited = await waitFor(t, poll, (read) => over(read) || Number(read.order.cyclesCompleted) >= CYCLES, {
      stepSeconds: FREQUENCY,
      untilMs: lastDue + GRACE_SECONDS * 1000,
    });
    skipIfUncovered(t, waited, `the DCA order's completion (cyclesCompleted ${String(waited.value.order.cyclesCompleted)})`);
    // The last cycle counted: the order becomes completed (allowed a few seconds of the service's time to settle).
    const end =
      waited.done && !over(waited.value)
        ? (await waitFor(t, poll, over, { stepSeconds: 1, untilMs: (await serviceNow(t)) + SETTLE_SECONDS * 1000 })).value
        : waited.value;
    if (end.order.status === 'failed')
      t.skip(`a cycle failed on this target (failureReason ${String(end.order.failureReason)}): cycles cannot be counted`);

    // Counters never went down from one read to the next, and rose one per cycle.
    const counts = seen.map((o) => Number(o.cyclesCompleted));
    t.expect(
      'OA-STATE-013',
      seen.every(
        (o, i) =>
          i === 0 ||
          (Number(o.cyclesCompleted) >= Number(seen[i - 1]!.cyclesCompleted) &&
            BigInt(String(o.amountSpent ?? 0)) >= BigInt(String(seen[i - 1]!.amountSpent ?? 0)) &&
            BigInt(String(o.amountReceived ?? 0)) >= BigInt(String(seen[i - 1]!.amountReceived ?? 0))),
      ),
      {
        documented: 'cyclesCompleted, amountSpent and amountReceived never go down from one read to the next',
        received: seen.map((o) => ({ cyclesCompleted: o.cyclesCompleted, amountSpent: o.amountSpent, amountReceived: o.amountReceived })),
        exchange: end.ex,
      },
    );
    t.note(`cyclesCompleted over ${seen.length} reads: ${[...new Set(counts)].join(' -> ')}`);
    t.expect('OA-DCA-003', end.order.cyclesCompleted === CYCLES, {
      documented: `after confirm the order ran its ${CYCLES} cycles by itself: cyclesCompleted 0 -> ${CYCLES}, by its schedule (the last cycle due ${new Date(lastDue).toISOString()})`,
      received: { cyclesCompleted: end.order.cyclesCompleted, status: end.order.status, nextExecutionAt: end.order.nextExecutionAt },
      exchange: end.ex,
    });
    t.expect('OA-DCA-004', end.order.status === 'completed', {
      documented: `completed once cyclesCompleted reached totalCycles ${CYCLES}`,
      received: { status: end.order.status, cyclesCompleted: end.order.cyclesCompleted, totalCycles: end.order.totalCycles },
      exchange: end.ex,
    });

    const { ex, rows } = await readExecutions(t, user, created.orderId);
    const done = rows.filter((r) => r.status === 'success');
    t.expect('OA-EXEC-009', done.length === CYCLES && done.every((r) => r.executionType === 'dca_cycle'), {
      documented: `one dca_cycle row per cycle: ${CYCLES} success rows`,
      received: rows.map((r) => ({ executionType: r.executionType, status: r.status, inputAmount: r.inputAmount })),
      exchange: ex,
    });
    expectAmountsAreRowSums(t, 'OA-EXEC-021', end, done);
    const newest = [...done].sort((a, b) => Date.parse(String(b.executedAt)) - Date.parse(String(a.executedAt)))[0];
    t.expect('OA-EXEC-022', end.order.lastExecutionTxHash === newest?.txSignature, {
      documented: `lastExecutionTxHash the txSignature of the most recent success row (${String(newest?.txSignature)})`,
      received: end.order.lastExecutionTxHash,
      exchange: end.ex,
    });
  },
});
