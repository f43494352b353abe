import { Keypair } from '@solana/web3.js';
import { dataOf, errorCode, failureOf, is2xx, is4xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed } from '../harness/failure.ts';
import { isObject } from '../shared/values.ts';
import {
  type Created,
  createOrder,
  decodeTransaction,
  depositedTo,
  type Funded,
  intentRequest,
  intentUser,
  signedWithdrawal,
  usdc,
} from './orders.ts';
import { act, failedDca, healthyAfter, readOrder, skipIfSliceFinished, userWithOrder, userWithSlice } from './steps/actions.ts';
import { orderLock } from './steps/balance.ts';
import { otherOrdersLocked } from './steps/shared-wallet.ts';
import { expectError } from './steps/expect.ts';
import { market, move, place, read, STOP } from './steps/triggers.ts';
import { asUser } from './users.ts';

/**
 * Orders: pause, resume, retry, cancel (areas PAUSE, RESUME, RETRY, CANCEL; "Orders: modify, pause, resume, retry,
 * cancel"; "States and transitions").
 * The bodies and answers of pause, resume and retry are not shown (UNKNOWNS.md O11): the suite sends `{}` and reads
 * the new status back from the detail endpoint. Which states permit cancel is not shown (O6): cancel is asserted
 * from `active` and from `cancelled` only; from `paused` either documented answer is accepted.
 */

/** The moves of pause-then-resume, in order: each action, its rule, whether it is accepted and the status after it. */
const PAUSE_RESUME_MOVES = [
  { action: 'resume', rule: 'OA-RESUME-002', accepted: false, after: 'active', what: 'resume of an active order' },
  { action: 'pause', rule: 'OA-PAUSE-001', accepted: true, after: 'paused', what: 'pause of an active order' },
  { action: 'pause', rule: 'OA-PAUSE-003', accepted: false, after: 'paused', what: 'pause of a paused order' },
  { action: 'resume', rule: 'OA-RESUME-001', accepted: true, after: 'active', what: 'resume of a paused order' },
] as const;

export const pauseThenResume = defineCheck({
  name: 'pause-then-resume-dca-and-trigger-orders',
  service: 'orders',
  rules: ['OA-PAUSE-001', 'OA-PAUSE-003', 'OA-RESUME-001', 'OA-RESUME-002'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    for (const type of ['dca', 'stop_loss'] as const) {
      const created = await createOrder(t, user, intentRequest(type));
      for (const { action, rule, accepted, after, what } of PAUSE_RESUME_MOVES) {
        const ex = await act(t, user, created.orderId, action);
        // The order is read back after a 2xx move and after a 4xx refusal; any other answer fails without a read.
        const status = accepted || is4xx(ex) ? (await readOrder(t, user, created)).status : undefined;
        t.expect(rule, (accepted ? is2xx(ex) : is4xx(ex)) && status === after, {
          documented: `${what} (${type}): ${accepted ? '2xx' : 'a 4xx'}, then status ${after}`,
          received: { answer: failureOf(ex), status },
          exchange: ex,
        });
        if (!accepted) t.note(`${what} (${type}) answered ${ex.response.status} ${String(errorCode(ex))}`);
      }
    }
  },
});

export const sliceCannotPause = defineCheck({
  name: 'pause-of-a-slice-order-is-pause-not-supported',
  service: 'orders',
  rules: ['OA-PAUSE-002'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, created } = await userWithSlice(t);
    const ex = await act(t, user, created.orderId, 'pause');
    await skipIfSliceFinished(t, user, created, ex, 'PAUSE_NOT_SUPPORTED');
    expectError(t, 'OA-PAUSE-002', ex, { status: 400, codes: ['PAUSE_NOT_SUPPORTED'], documented: '400 PAUSE_NOT_SUPPORTED' });
  },
});

export const pausedOrderCancel = defineCheck({
  name: 'cancel-of-a-paused-order-answers-2xx-or-not-cancellable',
  service: 'orders',
  rules: ['OA-CANCEL-004', 'OA-BAL-013'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, created } = await userWithOrder(t);
    const paused = await act(t, user, created.orderId, 'pause');
    if (!is2xx(paused)) throw new SetupFailed(`pause answered ${paused.response.status}`, paused);
    const balance = dataOf(await asUser(t, user.sub, { path: '/me/balance' }));
    const rows = Array.isArray(balance?.balances) ? balance.balances.filter(isObject) : [];
    const entry = rows
      .flatMap((row) => (Array.isArray(row.lockedBreakdown) ? row.lockedBreakdown.filter(isObject) : []))
      .find((e) => e.orderId === created.orderId);
    t.note(
      `OA-BAL-013: a paused DCA order ${entry ? `still locks ${String(entry.amount)} (kind ${String(entry.kind)})` : 'locks nothing'}`,
    );
    const ex = await act(t, user, created.orderId, 'cancel', { withdraw: false });
    const status = (await readOrder(t, user, created)).status;
    t.expect(
      'OA-CANCEL-004',
      (is2xx(ex) && status === 'cancelled') || (ex.response.status === 400 && errorCode(ex) === 'NOT_CANCELLABLE' && status === 'paused'),
      {
        documented: '2xx and then cancelled, or 400 NOT_CANCELLABLE and still paused',
        received: { answer: failureOf(ex), status },
        exchange: ex,
      },
    );
  },
});

export const retryOfActiveDca = defineCheck({
  name: 'retry-of-an-active-dca-order-is-order-not-failed-with-its-status',
  service: 'orders',
  rules: ['OA-RETRY-004', 'OA-RETRY-005'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, created } = await userWithOrder(t);
    const ex = await act(t, user, created.orderId, 'retry');
    expectError(t, 'OA-RETRY-004', ex, { status: 400, codes: ['ORDER_NOT_FAILED'], documented: '400 ORDER_NOT_FAILED' });
    const body = ex.response.body as { error: { details?: unknown } };
    const status = (await readOrder(t, user, created)).status;
    t.expect('OA-RETRY-005', isObject(body.error.details) && body.error.details.status === status, {
      documented: `error.details.status is the current status (${String(status)})`,
      received: body.error.details,
      exchange: ex,
    });
  },
});

export const retryOfTriggerNotFailed = defineCheck({
  name: 'retry-of-a-trigger-order-that-is-not-failed-is-refused',
  service: 'orders',
  rules: ['OA-RETRY-011', 'OA-RETRY-008'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, created } = await userWithOrder(t, 'stop_loss');
    const ex = await act(t, user, created.orderId, 'retry');
    expectError(t, 'OA-RETRY-011', ex, {
      status: 400,
      codes: ['ORDER_NOT_FAILED', 'RETRY_NOT_SUPPORTED', 'ALREADY_WITHDRAWN'],
      documented:
        'retry of an active stop_loss (retry is DCA only): 400 ORDER_NOT_FAILED, RETRY_NOT_SUPPORTED or ALREADY_WITHDRAWN, never 2xx',
    });
    expectError(t, 'OA-RETRY-008', ex, {
      status: 400,
      codes: ['ORDER_NOT_FAILED', 'RETRY_NOT_SUPPORTED'],
      documented: '400 ORDER_NOT_FAILED or 400 RETRY_NOT_SUPPORTED (UNKNOWNS.md B, retry precedence)',
    });
  },
});

export const retryOfFailedDca = defineCheck({
  name: 'retry-of-a-failed-dca-order-before-the-return-makes-it-active',
  service: 'orders',
  rules: ['OA-RETRY-001'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock', 'faults'],
  async run(t: CheckContext) {
    const { user, created } = await failedDca(t);
    const ex = await act(t, user, created.orderId, 'retry');
    const status = (await readOrder(t, user, created)).status;
    t.expect('OA-RETRY-001', is2xx(ex) && status === 'active', {
      documented: 'retry of a failed DCA order whose funds were not returned: 2xx, then status active',
      received: { answer: failureOf(ex), status },
      exchange: ex,
    });
  },
});

/** ASSUMED: the automatic return "runs by itself" within a day of the failure (the document gives no delay). */
const AUTO_RETURN_SECONDS = 24 * 60 * 60;

export const retryAfterTheReturn = defineCheck({
  name: 'retry-of-a-failed-dca-order-after-the-automatic-return-is-already-withdrawn',
  service: 'orders',
  rules: ['OA-RETRY-010'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock', 'faults'],
  async run(t: CheckContext) {
    const { user, created } = await failedDca(t);
    await t.control.advanceClock(AUTO_RETURN_SECONDS);
    const order = await readOrder(t, user, created);
    if (order.withdrawalStatus !== 'completed')
      t.skip(`withdrawalStatus ${String(order.withdrawalStatus)} a day after the failure: the automatic return has not run`);
    const ex = await act(t, user, created.orderId, 'retry');
    expectError(t, 'OA-RETRY-010', ex, {
      status: 400,
      codes: ['ALREADY_WITHDRAWN'],
      documented:
        'retry of a failed DCA order after its automatic return ran: 400 ALREADY_WITHDRAWN (retry only before the return), never 2xx',
    });
  },
});

export const retryWithoutFunds = defineCheck({
  name: 'retry-of-a-failed-dca-order-whose-input-left-is-insufficient-funds',
  service: 'orders',
  rules: ['OA-RETRY-002', 'OA-RETRY-003', 'OA-CANCEL-005'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock', 'faults'],
  async run(t: CheckContext) {
    const { user, created } = await failedDca(t);
    // The failed order no longer locks its input: a wallet-level withdraw of the maximum takes it out of the manager.
    const built = await asUser(t, user.sub, {
      method: 'POST',
      path: '/withdraw/transaction',
      json: { userPubkey: user.userPubkey, tokenMint: usdc() },
    });
    const transaction = dataOf(built)?.transaction;
    if (!is2xx(built) || typeof transaction !== 'string')
      t.skip(`POST /withdraw/transaction answered ${built.response.status}: the input cannot be taken out to make retry lack funds`);
    const sent = await asUser(t, user.sub, {
      method: 'POST',
      path: '/withdraw/confirm',
      json: { signedTransaction: signedWithdrawal({ ex: built, base64: transaction }, user) },
    });
    if (!is2xx(sent)) t.skip(`POST /withdraw/confirm answered ${sent.response.status}: the input is still in the manager`);
    const ex = await act(t, user, created.orderId, 'retry');
    expectError(t, 'OA-RETRY-002', ex, { status: 400, codes: ['INSUFFICIENT_FUNDS'], documented: '400 INSUFFICIENT_FUNDS' });
    const details = (ex.response.body as { error: { details?: unknown } }).error.details;
    t.expect(
      'OA-RETRY-003',
      isObject(details) &&
        ['mint', 'required', 'currentBalance', 'gap'].every((name) => details[name] !== undefined && details[name] !== null),
      {
        documented: 'error.details carries mint, required, currentBalance and gap',
        received: details,
        exchange: ex,
      },
    );
    const cancel = await act(t, user, created.orderId, 'cancel', { withdraw: false });
    t.note(`OA-CANCEL-005: cancel of a failed order answered ${cancel.response.status} ${String(errorCode(cancel))}`);
  },
});

export const retryOfFailedSlice = defineCheck({
  name: 'retry-of-a-failed-slice-order-is-refused-and-after-the-return-already-withdrawn',
  service: 'orders',
  rules: ['OA-RETRY-006', 'OA-RETRY-007'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock', 'faults'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    healthyAfter(t);
    await t.control.setFaults({ swaps: 'fail' });
    const created = await createOrder(t, user, intentRequest('slice'));
    await t.control.advanceClock(60);
    await t.control.setFaults({ swaps: 'ok' });
    let order = await readOrder(t, user, created);
    if (order.status !== 'failed') t.skip(`a failed swap did not fail the slice order (status ${String(order.status)})`);
    if (order.withdrawalStatus === 'none') {
      const early = await act(t, user, created.orderId, 'retry');
      expectError(t, 'OA-RETRY-007', early, {
        status: 400,
        codes: ['RETRY_NOT_SUPPORTED'],
        documented: 'retry of a failed slice order whose funds were not returned: 400 RETRY_NOT_SUPPORTED',
      });
    }
    for (let i = 0; i < 6 && order.withdrawalStatus !== 'completed'; i++) {
      await t.control.advanceClock(300);
      order = await readOrder(t, user, created);
    }
    if (order.withdrawalStatus !== 'completed')
      t.skip('the automatic return of the failed slice order did not run within 30 minutes of virtual time');
    const late = await act(t, user, created.orderId, 'retry');
    expectError(t, 'OA-RETRY-006', late, {
      status: 400,
      codes: ['ALREADY_WITHDRAWN'],
      documented: 'retry after the automatic return: 400 ALREADY_WITHDRAWN (checked before RETRY_NOT_SUPPORTED)',
    });
  },
});

/**
 * The order's lockedBreakdown entry and its input row's lockedForFutureTxns, less the entries of other orders where
 * the wallet is the partner's shared one (their locks move on their own: steps/shared-wallet.ts); with `funding` the
 * whole lockedForFutureTxns of the fresh user's row.
 */
async function lockOf(
  t: CheckContext,
  user: Funded,
  created: Created,
): Promise<{ locked: bigint; entry?: Record<string, unknown>; ex: Exchange }> {
  const { row, entry, ex } = await orderLock(t, user, created);
  const others = t.control.has('funding') ? 0n : otherOrdersLocked(row, [created.orderId]);
  return { locked: BigInt(String(row?.lockedForFutureTxns ?? 0)) - others, entry, ex };
}

export const cancelActive = defineCheck({
  name: 'cancel-of-an-active-dca-order-cancels-it-releases-its-lock-and-lists-it-in-history',
  service: 'orders',
  rules: ['OA-CANCEL-001', 'OA-CANCEL-014', 'OA-STATE-016', 'OA-BAL-012', 'OA-READ-010', 'OA-CANCEL-003'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, created } = await userWithOrder(t);
    const active = await readOrder(t, user, created);
    const before = await lockOf(t, user, created);
    if (!before.entry) throw new SetupFailed('the active order has no lockedBreakdown entry', before.ex);
    const ex = await act(t, user, created.orderId, 'cancel', { withdraw: false });
    const cancelled = await readOrder(t, user, created);
    const status = cancelled.status;
    t.expect('OA-CANCEL-001', is2xx(ex) && status === 'cancelled', {
      documented: 'cancel {withdraw:false} of an active order: 2xx, then status cancelled',
      received: { answer: failureOf(ex), status },
      exchange: ex,
    });
    t.expect('OA-CANCEL-014', cancelled.withdrawalStatus === 'none', {
      documented: 'cancel {withdraw:false} builds no withdrawal: the cancelled order reads back with withdrawalStatus none',
      received: { status, withdrawalStatus: cancelled.withdrawalStatus },
      exchange: ex,
    });
    for (const [when, order] of [
      ['active', active],
      ['cancelled', cancelled],
    ] as const) {
      t.expect('OA-STATE-016', order.failureReason === null, {
        documented: `the ${when} order (it never failed) has failureReason null`,
        received: { status: order.status, failedAt: order.failedAt, failureReason: order.failureReason },
        exchange: ex,
      });
    }
    const after = await lockOf(t, user, created);
    t.expect('OA-BAL-012', !after.entry && after.locked === before.locked - BigInt(String(before.entry.amount)), {
      documented: `no lockedBreakdown entry for the order and lockedForFutureTxns ${before.locked} - ${String(before.entry.amount)}${t.control.has('funding') ? '' : " (less other orders' entries)"}`,
      received: { entry: after.entry, lockedForFutureTxns: after.locked.toString() },
      exchange: after.ex,
    });
    const history = await asUser(t, user.sub, { path: '/me/orders/history' });
    const rows = (history.response.body as { data?: unknown }).data;
    const listed = Array.isArray(rows) && rows.some((row) => isObject(row) && row.id === created.orderId);
    t.expect('OA-READ-010', listed, {
      documented: `GET /me/orders/history lists the cancelled order ${created.orderId}`,
      received: rows,
      exchange: history,
    });
    const again = await act(t, user, created.orderId, 'cancel', { withdraw: false });
    expectError(t, 'OA-CANCEL-003', again, {
      status: 400,
      codes: ['NOT_CANCELLABLE'],
      documented: 'cancel of a cancelled order: 400 NOT_CANCELLABLE',
    });
  },
});

export const cancelSlice = defineCheck({
  name: 'cancel-of-a-slice-order-is-cancel-not-supported',
  service: 'orders',
  rules: ['OA-CANCEL-002'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, created } = await userWithSlice(t);
    const ex = await act(t, user, created.orderId, 'cancel', { withdraw: false });
    await skipIfSliceFinished(t, user, created, ex, 'CANCEL_NOT_SUPPORTED');
    expectError(t, 'OA-CANCEL-002', ex, { status: 400, codes: ['CANCEL_NOT_SUPPORTED'], documented: '400 CANCEL_NOT_SUPPORTED' });
  },
});

export const cancelWithWithdraw = defineCheck({
  name: 'cancel-with-withdraw-needs-the-user-pubkey-and-cancels-the-order',
  service: 'orders',
  rules: ['OA-CANCEL-011', 'OA-CANCEL-012', 'OA-CANCEL-006', 'OA-CANCEL-007'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, created } = await userWithOrder(t, 'stop_loss');
    const missing = await act(t, user, created.orderId, 'cancel', { withdraw: true });
    expectError(t, 'OA-CANCEL-011', missing, {
      status: 400,
      codes: ['VALIDATION_ERROR'],
      documented: 'cancel {withdraw:true} without userPubkey: 400 VALIDATION_ERROR',
    });
    const stranger = Keypair.generate().publicKey.toBase58();
    const foreign = await act(t, user, created.orderId, 'cancel', { withdraw: true, userPubkey: stranger });
    const paid = typeof dataOf(foreign)?.transaction === 'string' ? decodeTransaction(dataOf(foreign)?.transaction as string) : undefined;
    const toStranger = paid ? depositedTo(paid, stranger, String(created.intent.data.inputMint)).amount : 0n;
    // A transaction found where the suite assumes it (data.transaction, UNKNOWNS O12) confirms that place.
    if (paid) t.confirm('withdrawal-transaction');
    t.expect(
      'OA-CANCEL-012',
      is4xx(foreign) ||
        (foreign.response.status === 500 && errorCode(foreign) === 'WITHDRAWAL_BUILD_FAILED') ||
        (is2xx(foreign) && toStranger === 0n),
      {
        documented: 'a foreign userPubkey: a 4xx, 500 WITHDRAWAL_BUILD_FAILED, or a 2xx whose transaction pays nothing to that key',
        received: { answer: failureOf(foreign), paidToForeignKey: toStranger.toString() },
        exchange: foreign,
      },
    );
    if (is2xx(foreign) || (await readOrder(t, user, created)).status !== 'active')
      t.skip('the order was cancelled with the foreign userPubkey: the own-wallet cancel cannot be observed');
    const ex = await act(t, user, created.orderId, 'cancel', { withdraw: true, userPubkey: user.userPubkey });
    const status = (await readOrder(t, user, created)).status;
    t.expect('OA-CANCEL-006', is2xx(ex) && status === 'cancelled', {
      documented: 'cancel {withdraw:true, userPubkey} of an active order: 2xx, then status cancelled',
      received: { answer: failureOf(ex), status },
      exchange: ex,
    });
    const d = dataOf(ex);
    const transaction = typeof d?.transaction === 'string' ? decodeTransaction(d.transaction) : undefined;
    t.note(
      `OA-CANCEL-007: the cancel answer ${transaction ? 'carries the withdrawal transaction in data.transaction' : `carries data keys ${Object.keys(d ?? {}).join(', ')}`}`,
    );
  },
});

export const cancelWithFailedBuild = defineCheck({
  name: 'cancel-with-withdraw-while-the-chain-is-down-is-withdrawal-build-failed-and-cancelled',
  service: 'orders',
  rules: ['OA-CANCEL-008', 'OA-CANCEL-009', 'OA-CANCEL-010'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'faults'],
  async run(t: CheckContext) {
    const { user, created } = await userWithOrder(t);
    healthyAfter(t);
    await t.control.setFaults({ rpc: 'down' });
    const ex = await act(t, user, created.orderId, 'cancel', { withdraw: true, userPubkey: user.userPubkey });
    await t.control.setFaults({ rpc: 'up' });
    if (is2xx(ex)) t.skip('the withdrawal built although the chain was down: the build failure cannot be made to happen');
    if (['RPC_ERROR', 'RPC_UNAVAILABLE'].includes(String(errorCode(ex))))
      t.skip(`the cancel was refused before it ran (${String(errorCode(ex))})`);
    expectError(t, 'OA-CANCEL-008', ex, { status: 500, codes: ['WITHDRAWAL_BUILD_FAILED'], documented: '500 WITHDRAWAL_BUILD_FAILED' });
    const status = (await readOrder(t, user, created)).status;
    t.expect('OA-CANCEL-009', status === 'cancelled', {
      documented: 'after WITHDRAWAL_BUILD_FAILED the order is cancelled',
      received: status,
      exchange: ex,
    });
    const leg = await asUser(t, user.sub, { method: 'POST', path: `/orders/${created.orderId}/withdraw`, json: {} });
    t.expect('OA-CANCEL-010', is2xx(leg) && dataOf(leg)?.withdrawalAmounts !== undefined, {
      documented: 'POST /orders/{id}/withdraw then builds the withdrawal leg (2xx with withdrawalAmounts)',
      received: failureOf(leg),
      exchange: leg,
    });
  },
});

export const concurrentCancels = defineCheck({
  name: 'two-cancels-of-one-order-at-once-have-one-effect',
  service: 'orders',
  rules: ['OA-CANCEL-013'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, created } = await userWithOrder(t);
    const answers = await Promise.all([0, 1].map(() => act(t, user, created.orderId, 'cancel', { withdraw: false })));
    const won = answers.filter(is2xx);
    const lost = answers.filter((ex) => ex.response.status === 400 && ['NOT_CANCELLABLE', 'INVALID_STATE'].includes(String(errorCode(ex))));
    t.expect('OA-CANCEL-013', won.length === 1 && lost.length === 1, {
      documented: 'one 2xx, the other 400 NOT_CANCELLABLE or 400 INVALID_STATE',
      received: answers.map(failureOf),
      exchange: answers[1],
    });
  },
});

export const inFlightResolves = defineCheck({
  name: 'execution-in-flight-resolves-once-the-swap-settles',
  service: 'orders',
  rules: ['OA-ERR-007'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock', 'faults'],
  async run(t: CheckContext) {
    const { user, created } = await userWithOrder(t);
    healthyAfter(t);
    await t.control.setFaults({ swaps: 'hang' });
    await t.control.advanceClock(Number(created.order.cycleFrequencySeconds ?? 3600));
    const first = await act(t, user, created.orderId, 'pause');
    await t.control.setFaults({ swaps: 'ok' });
    if (first.response.status !== 409 || errorCode(first) !== 'EXECUTION_IN_FLIGHT') {
      t.skip(
        `a hanging swap did not give 409 EXECUTION_IN_FLIGHT (pause answered ${first.response.status} ${String(errorCode(first))}): nothing to resolve`,
      );
    }
    let last = first;
    for (let attempt = 0; attempt < 5 && last.response.status === 409; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      last = await act(t, user, created.orderId, 'pause');
    }
    t.expect('OA-ERR-007', last.response.status !== 409, {
      documented: 'after the swap settles, repeating the request with back-off gets a non-409 answer',
      received: failureOf(last),
      exchange: last,
    });
  },
});

export const actionsOnOthersOrders = defineCheck({
  name: 'actions-on-an-unknown-or-another-users-order-are-not-found',
  service: 'orders',
  rules: ['OA-ERR-005', 'OA-ERR-006'],
  profile: 'full',
  async run(t: CheckContext) {
    const { created } = await userWithOrder(t);
    const other = await intentUser(t, false, 'second');
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const action of ['pause', 'resume', 'retry', 'cancel'] as const) {
      const body = action === 'cancel' ? { withdraw: false } : {};
      const missing = await act(t, other, unknown, action, body);
      expectError(t, 'OA-ERR-005', missing, {
        status: 404,
        codes: ['NOT_FOUND'],
        documented: `${action} of an unknown order: 404 NOT_FOUND`,
      });
      const foreign = await act(t, other, created.orderId, action, body);
      expectError(t, 'OA-ERR-006', foreign, {
        status: 404,
        codes: ['NOT_FOUND'],
        documented: `${action} of another user's order: 404 NOT_FOUND`,
      });
    }
  },
});

// ---- retry of a trigger order (DCA only) ----

export const failedTriggerCannotRetry = defineCheck({
  name: 'retry-of-a-failed-stop-loss-is-never-2xx',
  service: 'orders',
  rules: ['OA-RETRY-011'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock', 'faults'],
  async run(t: CheckContext) {
    const m = await market(t);
    const id = await place(t, m, 'stop_loss', STOP);
    t.defer(() => t.control.setFaults({ swaps: 'ok' }));
    await t.control.setFaults({ swaps: 'fail' });
    await move(t, m, 500_000n);
    await t.control.setFaults({ swaps: 'ok' });
    const { order } = await read(t, m.user.sub, 'stop_loss', id);
    if (order.status !== 'failed')
      t.skip(`a failing swap at the trigger left the stop_loss ${String(order.status)}, not failed: no failed trigger order to retry`);
    const ex = await act(t, m.user, id, 'retry');
    expectError(t, 'OA-RETRY-011', ex, {
      status: 400,
      codes: ['RETRY_NOT_SUPPORTED', 'ALREADY_WITHDRAWN', 'ORDER_NOT_FAILED'],
      documented: `retry of a failed stop_loss (withdrawalStatus ${String(order.withdrawalStatus)}): 400 RETRY_NOT_SUPPORTED, ALREADY_WITHDRAWN or ORDER_NOT_FAILED (retry is DCA only), never 2xx`,
    });
  },
});
