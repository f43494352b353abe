import fc from 'fast-check';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { isObject } from '../shared/values.ts';
import { atOnce, INT, intentRequest, intentUser, createOrder, DCA_FREQUENCY, usdt } from './orders.ts';
import {
  advancePast,
  dcaOrder,
  fetchDca,
  fetchExecutions,
  expectAmountsAreRowSums,
  managerBalances,
  readDca,
  readExecutions,
  readPath,
  type Row,
  sum,
  withFaults,
} from './steps/dca.ts';
import { USER_ORDER_RULES } from './steps/invariant-rules.ts';
import { serviceNow } from './users.ts';

/**
 * DCA orders after creation (area DCA; "After activation a DCA order runs its cycles on its own"; Order: cyclesCompleted,
 * totalCycles, amountSpent, amountReceived, nextExecutionAt, lastExecutionAt, lastExecutionTxHash; Execution:
 * `dca_cycle`, one row per cycle), on the target's virtual clock. The document gives no time for the first cycle: the
 * checks schedule by the order's own nextExecutionAt (one cycleFrequencySeconds when it is null) and judge counters
 * against the cycles whose time the clock passed. Every order read is also held to the passive order invariants.
 */

export const dcaCounters = defineCheck({
  name: 'confirmed-dca-order-carries-integer-string-amounts-and-an-integer-frequency',
  service: 'orders',
  rules: ['OA-DCA-001'],
  profile: 'full',
  async run(t: CheckContext) {
    const { order, confirm } = await createOrder(t, await intentUser(t, true));
    t.expect(
      'OA-DCA-001',
      typeof order.totalAmount === 'string' &&
        INT.test(order.totalAmount) &&
        typeof order.amountPerCycle === 'string' &&
        INT.test(order.amountPerCycle) &&
        Number.isInteger(order.cycleFrequencySeconds) &&
        (order.cycleFrequencySeconds as number) >= 60,
      {
        documented: 'totalAmount and amountPerCycle integer strings, cycleFrequencySeconds an integer >= 60',
        received: {
          totalAmount: order.totalAmount,
          amountPerCycle: order.amountPerCycle,
          cycleFrequencySeconds: order.cycleFrequencySeconds,
        },
        exchange: confirm,
      },
    );
  },
});

const success = (rows: Row[]) => rows.filter((r) => r.status === 'success');
const newest = (rows: Row[]) => [...rows].sort((a, b) => Date.parse(String(b.executedAt)) - Date.parse(String(a.executedAt)))[0];

export const dcaBeforeItsFirstCycle = defineCheck({
  name: 'dca-order-before-its-first-cycle-has-no-last-execution',
  service: 'orders',
  rules: ['OA-DCA-007', 'OA-DCA-008', ...USER_ORDER_RULES],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, orderId } = await dcaOrder(t);
    const { ex, order } = await readDca(t, user, orderId);
    t.note(`OA-DCA-008: before the first cycle nextExecutionAt is ${String(order.nextExecutionAt)}`);
    if (order.cyclesCompleted !== 0)
      t.skip(`the order already ran ${String(order.cyclesCompleted)} cycle(s) when first read: nothing to judge before the first cycle`);
    t.expect('OA-DCA-007', order.lastExecutionAt === null, {
      documented: 'lastExecutionAt null before the first cycle (cyclesCompleted 0)',
      received: { cyclesCompleted: order.cyclesCompleted, lastExecutionAt: order.lastExecutionAt },
      exchange: ex,
    });
  },
});

/** A startAt ten minutes into the service's future. */
async function futureStartAt(t: CheckContext): Promise<string> {
  // The service's time (its virtual clock, else its Date): a staging's clock may run ahead of this machine's.
  const { now } = await serviceNow(t);
  return new Date(now.getTime() + 600_000).toISOString();
}

export const dcaWithFutureStartIsPending = defineCheck({
  name: 'dca-order-with-a-future-start-at-is-pending',
  service: 'orders',
  rules: ['OA-DCA-005', ...USER_ORDER_RULES],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, orderId } = await dcaOrder(t, { startAt: await futureStartAt(t) });
    const { ex, order } = await readDca(t, user, orderId);
    t.expect('OA-DCA-005', order.status === 'pending', {
      documented: 'a DCA order waiting for a future startAt is pending',
      received: { status: order.status, startAt: order.startAt },
      exchange: ex,
    });
  },
});

export const pendingDcaStartsAtStartAt = defineCheck({
  name: 'pending-dca-order-leaves-pending-once-start-at-passed',
  service: 'orders',
  rules: ['OA-DCA-006', ...USER_ORDER_RULES],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock'],
  async run(t: CheckContext) {
    const startAt = await futureStartAt(t);
    // The order made, and the clock read at once (the clock only moves forward: the advance still passes startAt).
    const [{ user, orderId }, now] = await atOnce(
      t,
      () => dcaOrder(t, { startAt }),
      () => t.control.clock(),
    );
    await advancePast(t, startAt, 600, now);
    const { ex, order } = await readDca(t, user, orderId);
    t.expect('OA-DCA-006', order.status !== 'pending', {
      documented: `no longer pending once startAt ${startAt} has passed`,
      received: { status: order.status, startAt: order.startAt },
      exchange: ex,
    });
  },
});

export const dcaRunsItsCycles = defineCheck({
  name: 'dca-order-runs-one-cycle-per-scheduled-time-and-completes',
  service: 'orders',
  rules: [
    'OA-DCA-003',
    'OA-DCA-021',
    'OA-DCA-004',
    'OA-DCA-008',
    'OA-EXEC-009',
    'OA-EXEC-003',
    'OA-EXEC-016',
    'OA-EXEC-017',
    'OA-EXEC-021',
    'OA-EXEC-022',
    'OA-EXEC-023',
    'OA-STATE-013',
    ...USER_ORDER_RULES,
  ],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock'],
  async run(t: CheckContext) {
    // Into USDT, so that no lamports spent on fees blur the output mint's balance.
    const { user, orderId } = await dcaOrder(t, { outputMint: usdt() });
    // The order, the manager's balances and the clock, read at once before the clock moves.
    const [{ order: start }, balancesBefore, now] = await atOnce(
      t,
      () => readDca(t, user, orderId),
      () => managerBalances(t, user),
      () => t.control.clock(),
    );
    const frequency = Number(start.cycleFrequencySeconds);
    const total = Number(start.totalCycles);
    const before = Number(start.cyclesCompleted);
    if (before >= total) t.skip(`the order ran all its ${total} cycles before the clock moved`);
    const toManager = start.outputRecipientAddress === user.walletAddress;
    const balanceBefore = balancesBefore(start.outputMint);

    await advancePast(t, start.nextExecutionAt, frequency, now);
    // The order and its rows after the first cycle time, read at once (judged in turn below).
    const [oneRead, firstRead] = await atOnce(
      t,
      () => fetchDca(t, user, orderId),
      () => fetchExecutions(t, user, orderId),
    );
    const one = oneRead();
    if (one.order.status === 'failed')
      t.skip(`the cycle failed on this target (${String(one.order.failureReason)}): cycles cannot be counted`);
    t.expect('OA-DCA-003', one.order.cyclesCompleted === before + 1, {
      documented: `after the clock passed the next cycle time ${String(start.nextExecutionAt)}, cyclesCompleted ${before} + 1`,
      received: { cyclesCompleted: one.order.cyclesCompleted, status: one.order.status },
      exchange: one.ex,
    });
    const first = firstRead();
    t.expect('OA-EXEC-009', success(first.rows).filter((r) => r.executionType === 'dca_cycle').length === before + 1, {
      documented: `one dca_cycle row per cycle: ${before + 1}`,
      received: first.rows,
      exchange: first.ex,
    });

    // The remaining cycles at once: the clock jumps over every one of their times.
    await t.control.advanceClock((total - before - 1) * frequency);
    // The order, its rows and (when the output goes to the manager) the manager's balances, read at once.
    const [endRead, lastRead, balancesAfter] = await atOnce(
      t,
      () => fetchDca(t, user, orderId),
      () => fetchExecutions(t, user, orderId),
      async () => (toManager ? await managerBalances(t, user) : undefined),
    );
    const end = endRead();
    if (end.order.status === 'failed') t.skip(`a later cycle failed on this target (${String(end.order.failureReason)})`);
    const counters = (o: Row) => ({ cyclesCompleted: o.cyclesCompleted, amountSpent: o.amountSpent, amountReceived: o.amountReceived });
    const grew = (field: 'cyclesCompleted' | 'amountSpent' | 'amountReceived') =>
      BigInt(String(end.order[field] ?? 0)) >= BigInt(String(one.order[field] ?? 0));
    t.expect('OA-STATE-013', grew('cyclesCompleted') && grew('amountSpent') && grew('amountReceived'), {
      documented: 'cyclesCompleted, amountSpent and amountReceived never go down from one read to the next',
      received: { after: counters(one.order), now: counters(end.order) },
      exchange: end.ex,
    });
    t.expect('OA-DCA-021', end.order.cyclesCompleted === total, {
      documented: `every cycle whose time the clock passed has run: cyclesCompleted ${total}`,
      received: { cyclesCompleted: end.order.cyclesCompleted, nextExecutionAt: end.order.nextExecutionAt },
      exchange: end.ex,
    });
    t.expect('OA-DCA-004', end.order.status === 'completed', {
      documented: `completed once cyclesCompleted reached totalCycles ${total}`,
      received: { status: end.order.status, cyclesCompleted: end.order.cyclesCompleted },
      exchange: end.ex,
    });

    t.note(`OA-DCA-008: once ${String(end.order.status)} lastExecutionAt is ${String(end.order.lastExecutionAt)}`);
    const { ex, rows } = lastRead();
    const done = success(rows);
    t.note(
      `OA-EXEC-016: price / priceDecimals of the rows (not cross-checked): ${rows.map((r) => `${String(r.price)}/${String(r.priceDecimals)}`).join(', ')}`,
    );
    t.expect('OA-EXEC-009', done.length === total && done.every((r) => r.executionType === 'dca_cycle'), {
      documented: `one dca_cycle row per cycle: ${total}`,
      received: rows,
      exchange: ex,
    });
    const times = rows.map((r) => Date.parse(String(r.executedAt)));
    t.expect(
      'OA-EXEC-003',
      times.every((time, i) => i === 0 || time <= (times[i - 1] as number)),
      { documented: 'execution rows most recent first', received: rows.map((r) => r.executedAt), exchange: ex },
    );
    expectAmountsAreRowSums(t, 'OA-EXEC-021', end, done);
    t.expect('OA-EXEC-022', end.order.lastExecutionTxHash === newest(done)?.txSignature, {
      documented: `lastExecutionTxHash the txSignature of the most recent success row (${String(newest(done)?.txSignature)})`,
      received: end.order.lastExecutionTxHash,
      exchange: end.ex,
    });
    if (!toManager || !balancesAfter)
      return t.note(`output goes to ${String(start.outputRecipientAddress)}, not the manager: OA-EXEC-023 not judged`);
    const rise = balancesAfter(start.outputMint) - balanceBefore;
    t.expect('OA-EXEC-023', rise === sum(done, 'outputAmount'), {
      documented: `the manager's ${String(start.outputMint)} totalBalance rose by the success rows' outputAmount ${sum(done, 'outputAmount')}`,
      received: rise.toString(),
      exchange: ex,
    });
  },
});

export const failedCycleCarriesReason = defineCheck({
  name: 'failed-dca-cycle-carries-a-failure-reason',
  service: 'orders',
  rules: ['OA-EXEC-008', 'OA-EXEC-017', 'OA-STATE-008', ...USER_ORDER_RULES],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock', 'faults'],
  async run(t: CheckContext) {
    const { user, orderId, order } = await dcaOrder(t);
    await withFaults(
      t,
      { swaps: 'fail' },
      { swaps: 'ok' },
      (now) => advancePast(t, order.nextExecutionAt, Number(order.cycleFrequencySeconds), now),
      {
        clock: true,
      },
    );
    // The order and its rows after the failed cycle, read at once.
    const [after, { ex, rows }] = await atOnce(
      t,
      () => readDca(t, user, orderId),
      () => readExecutions(t, user, orderId),
    );
    t.note(
      `after a cycle with swaps failing the order is ${String(after.order.status)} (failureReason ${String(after.order.failureReason)})`,
    );
    const failed = rows.filter((r) => r.status === 'failed');
    if (failed.length === 0) t.note('no failed execution row was written');
    t.expect(
      'OA-EXEC-008',
      failed.every((r) => typeof r.failureReason === 'string' && r.failureReason !== ''),
      {
        documented: 'every failed execution row has a non-empty failureReason',
        received: failed,
        exchange: ex,
      },
    );
    // A failed order's funds come back by themselves (States and transitions): its later reads, withdrawal fields
    // included, are held to the passive invariants too.
    await t.control.advanceClock(3600);
    const later = await readDca(t, user, orderId);
    t.note(`an hour later the order is ${String(later.order.status)} with withdrawalStatus ${String(later.order.withdrawalStatus)}`);
    if (after.order.status !== 'failed' || later.order.withdrawalStatus === after.order.withdrawalStatus) return;
    t.expect('OA-STATE-008', later.order.status === 'failed', {
      documented: `withdrawalStatus moved (${String(after.order.withdrawalStatus)} -> ${String(later.order.withdrawalStatus)}) independently of status: the order stays failed`,
      received: { status: later.order.status, withdrawalStatus: later.order.withdrawalStatus },
      exchange: later.ex,
    });
  },
});

export const hangingSwapShowsExecuting = defineCheck({
  name: 'order-with-a-swap-in-flight-shows-executing-with-its-resting-state',
  service: 'orders',
  rules: ['OA-STATE-012', ...USER_ORDER_RULES],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock', 'faults'],
  async run(t: CheckContext) {
    const { user, orderId, order } = await dcaOrder(t);
    const inFlight = await withFaults(
      t,
      { swaps: 'hang' },
      { swaps: 'ok' },
      async (now) => {
        await advancePast(t, order.nextExecutionAt, Number(order.cycleFrequencySeconds), now);
        return (await readDca(t, user, orderId)).order;
      },
      { clock: true },
    );
    t.note(
      `OA-STATE-012: ${String(order.status)} at confirm; with the swap hanging the order read ${String(inFlight.status)} (previousStatus ${String(inFlight.previousStatus)})`,
    );
    const settled = await readDca(t, user, orderId);
    t.note(`once the swap settled the order read ${String(settled.order.status)}`);
  },
});

export const dcaFollowsItsSchedule = defineCheck({
  name: 'dca-cycles-follow-the-schedule-over-any-path-of-the-clock',
  service: 'orders',
  rules: ['OA-DCA-021'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock'],
  async run(t: CheckContext) {
    // Plain reads (the other checks hold them to the passive invariants), so that only the schedule is judged here.
    // Clock paths of one to three jumps, each up to two cycle periods: the counter after each jump is the number of
    // cycle times passed (the first at nextExecutionAt, then every cycleFrequencySeconds), capped at totalCycles.
    const paths = fc.noBias(fc.array(fc.integer({ min: 1, max: 2 * DCA_FREQUENCY }), { minLength: 1, maxLength: 3 }));
    await t.property(
      'OA-DCA-021',
      paths,
      async (jumps) => {
        const { user, orderId } = await dcaOrder(t);
        const start = (await readPath(t, user, `/dca/${orderId}`)).data as Row;
        const first = Date.parse(String(start.nextExecutionAt));
        if (Number.isNaN(first) || start.cyclesCompleted !== 0)
          t.skip(
            `no first cycle time to schedule by (nextExecutionAt ${String(start.nextExecutionAt)}, cyclesCompleted ${String(start.cyclesCompleted)})`,
          );
        const periodMs = Number(start.cycleFrequencySeconds) * 1000;
        const passed = (ms: number) => (ms < first ? 0 : Math.min(Number(start.totalCycles), Math.floor((ms - first) / periodMs) + 1));
        for (const seconds of jumps) {
          const now = Date.parse(await t.control.advanceClock(seconds));
          const { ex, data } = await readPath(t, user, `/dca/${orderId}`);
          const order = data as Row;
          // The service's clock runs on while the read travels: a cycle time within that second may have passed too.
          t.expect('OA-DCA-021', order.cyclesCompleted === passed(now) || order.cyclesCompleted === passed(now + 1000), {
            documented: `after the clock path ${jumps.join('s, ')}s (now ${new Date(now).toISOString()}), ${passed(now)} cycle(s) from ${String(start.nextExecutionAt)} every ${periodMs / 1000}s`,
            received: { cyclesCompleted: order.cyclesCompleted, status: order.status },
            exchange: ex,
          });
        }
      },
      Math.min(t.env.numRuns, 3),
    );
  },
});

export const sliceChunksHoldOnlyConfirmedSlices = defineCheck({
  name: 'slice-chunks-hold-the-confirmed-slices-and-none-in-flight',
  service: 'orders',
  rules: ['OA-SLICE-004'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock', 'faults'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const created = await createOrder(t, user, intentRequest('slice'));
    // Chunk fields are not shown (UNKNOWNS O2): the chunks are counted against the order's confirmed (success) rows.
    // The order and its rows are read at once.
    const judge = async (when: string) => {
      const [{ ex, data }, { data: executions }] = await atOnce(
        t,
        () => readPath(t, user, `/slice/${created.orderId}`),
        () => readPath(t, user, `/orders/${created.orderId}/executions`),
      );
      const chunks = isObject(data) && Array.isArray(data.chunks) ? data.chunks : undefined;
      const rows = (Array.isArray(executions) ? executions : []).filter(isObject);
      const count = (status: string) => rows.filter((row) => row.status === status).length;
      t.expect('OA-SLICE-004', chunks?.length === count('success'), {
        documented: `${when}: data.chunks holds the confirmed slices only, one per success row (${count('success')}; ${count('pending')} in flight)`,
        received: { chunks: chunks?.length ?? data, executions: rows.map((row) => row.status) },
        exchange: ex,
      });
      return { pending: count('pending'), success: count('success') };
    };
    const inFlight = await withFaults(
      t,
      { swaps: 'hang' },
      { swaps: 'ok' },
      async (now) => {
        await advancePast(t, created.order.nextExecutionAt, 61, now);
        return await judge('with the swaps hanging after the first slice time');
      },
      { clock: true },
    );
    if (inFlight.pending === 0) t.note('no slice was in flight while the swaps hung: only settled slices were judged');
    const settled = await judge('once the slice in flight settled');
    if (inFlight.pending === 0 && settled.success === 0) t.skip('no slice of the order ran after the clock passed its first slice time');
  },
});
