import { errorCode, failureOf, is2xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { act, failedDca, healthyAfter, readOrder, userWithOrder } from './steps/actions.ts';
import { readExecutions } from './steps/dca.ts';
import { atOnce } from './orders.ts';

/**
 * Orders whose swap failed or is still in flight (areas STATE and ERR: "Order: failureReason", "Execution:
 * failureReason"; Errors, EXECUTION_IN_FLIGHT): the failure label a failed order and its failed row carry, and a pause
 * sent while a swap is reconciling.
 */

/**
 * A stack frame or a source position: "at name (file:line:col)", a path with a source extension and a line
 * ("/srv/swap.ts:120", "at /srv/swap.js:12:5"), a Python frame. Plain words with a time or a ratio ("at 12:30") are not.
 */
const STACK_FRAME =
  /(^|\s)at\s+\S*\s*\([^()\s]+:\d+:\d+\)|File "[^"]+", line \d+|[\w/\\.-]+\.(?:[cm]?[jt]sx?|py|go|rs|java|kt|rb|php|cs|cpp|c|h):\d+/;

/** Why `reason` is not a one-line label, or undefined when it is one. */
function notALabel(reason: unknown): string | undefined {
  if (typeof reason !== 'string' || reason === '') return 'not a non-empty string';
  if (/[\r\n]/.test(reason)) return 'more than one line';
  if (STACK_FRAME.test(reason)) return 'a stack frame or source position';
  return undefined;
}

export const failureReasonIsALabel = defineCheck({
  name: 'failure-reason-of-a-failed-order-and-its-row-is-a-one-line-label-not-a-stack-trace',
  service: 'orders',
  rules: ['OA-STATE-017', 'OA-EXEC-017'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock', 'faults'],
  async run(t: CheckContext) {
    // failedDca's last request is the read of the failed order: judged as read, not read again.
    const { user, created, order: detail } = await failedDca(t, { returned: true });
    const why = notALabel(detail.failureReason);
    t.expect('OA-STATE-017', why === undefined, {
      documented: 'the failed order carries failureReason as a short label: one line, no stack frames',
      received: { status: detail.status, failureReason: detail.failureReason, problem: why },
      exchange: t.exchanges.at(-1),
    });
    if (String(detail.failureReason).length > 200) t.note(`failureReason is ${String(detail.failureReason).length} characters long`);
    const { ex, rows } = await readExecutions(t, user, created.orderId);
    const failed = rows.filter((row) => row.status === 'failed');
    if (failed.length === 0) t.note('the failed order lists no failed execution row: only the order is judged');
    for (const row of failed) {
      const problem = notALabel(row.failureReason);
      t.expect('OA-STATE-017', problem === undefined, {
        documented: 'a failed execution row carries failureReason as a short label: one line, no stack frames',
        received: { id: row.id, failureReason: row.failureReason, problem },
        exchange: ex,
      });
    }
  },
});

export const noPauseWhileInFlight = defineCheck({
  name: 'pause-of-an-order-whose-swap-is-in-flight-is-refused-not-5xx-and-not-applied',
  service: 'orders',
  rules: ['OA-ERR-014', 'OA-EXEC-017'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock', 'faults'],
  async run(t: CheckContext) {
    const { user, created } = await userWithOrder(t);
    healthyAfter(t);
    await t.control.setFaults({ swaps: 'hang' });
    await t.control.advanceClock(Number(created.order.cycleFrequencySeconds ?? 3600));
    // The order and its rows with the swap held, read at once.
    const [held, { rows }] = await atOnce(
      t,
      () => readOrder(t, user, created),
      () => readExecutions(t, user, created.orderId),
    );
    const pendingRow = rows.some((row) => row.status === 'pending');
    if (held.status !== 'executing' && !pendingRow) {
      await t.control.setFaults({ swaps: 'ok' });
      t.skip(`with swaps held in flight the order reads ${String(held.status)} with no pending execution row: no swap in flight to act on`);
    }
    const ex = await act(t, user, created.orderId, 'pause');
    await t.control.setFaults({ swaps: 'ok' });
    const code = String(errorCode(ex));
    t.expect(
      'OA-ERR-014',
      (ex.response.status === 409 && code === 'EXECUTION_IN_FLIGHT') || (ex.response.status === 400 && code === 'INVALID_STATE'),
      {
        documented: `a pause while the order's swap is in flight (status ${String(held.status)}) answers 409 EXECUTION_IN_FLIGHT or 400 INVALID_STATE, never 2xx or 5xx`,
        received: failureOf(ex),
        exchange: ex,
      },
    );
    // The swap settles at the next look of the target's clock; a refused pause must not apply then.
    await t.control.advanceClock(30);
    const after = await readOrder(t, user, created);
    t.expect('OA-ERR-014', after.status !== 'paused' || is2xx(ex), {
      documented: 'once the swap has settled, the refused pause has not paused the order',
      received: { status: after.status },
      exchange: t.exchanges.at(-1),
    });
  },
});
