import { dataOf, errorCode, failureOf, is2xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { SetupFailed } from '../harness/failure.ts';
import { createOrder, intentRequest, intentUser, signedModify } from './orders.ts';
import { act, readOrder, userWithOrder } from './steps/actions.ts';
import { orderLock } from './steps/balance.ts';
import { confirmModify, modifyTransaction, patchDca, RAISED_TOTAL, raiseTotal, skipIfPatchRejected } from './steps/dca.ts';
import { expectAccepted, expectError } from './steps/expect.ts';

/**
 * DCA modification (area DCA: "Orders: modify"; Limits: modification lock). The bodies are not shown (UNKNOWNS.md O8,
 * O9): the suite sends its assumed templates (steps/dca.ts); a target that rejects the PATCH template with 400
 * VALIDATION_ERROR makes the check skip.
 */

export const inPlaceModify = defineCheck({
  name: 'dca-in-place-modify-answers-requires-transaction-false',
  service: 'orders',
  rules: ['OA-DCA-009'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, created } = await userWithOrder(t);
    const ex = await patchDca(t, user, created.orderId, { cycleFrequencySeconds: 7200 });
    skipIfPatchRejected(t, ex);
    t.expect('OA-DCA-009', is2xx(ex) && dataOf(ex)?.requiresTransaction === false, {
      documented: 'an in-place edit (cycleFrequencySeconds): 2xx with requiresTransaction false',
      received: { status: ex.response.status, body: ex.response.body },
      exchange: ex,
    });
  },
});

export const modifyBelowMinimum = defineCheck({
  name: 'dca-modify-of-amount-per-cycle-below-the-minimum-is-min-notional-not-met',
  service: 'orders',
  rules: ['OA-LIM-010'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, created } = await userWithOrder(t);
    const ex = await patchDca(t, user, created.orderId, { amountPerCycle: '1000000' });
    skipIfPatchRejected(t, ex);
    expectError(t, 'OA-LIM-010', ex, {
      status: 400,
      codes: ['MIN_NOTIONAL_NOT_MET'],
      documented: 'amountPerCycle of 1 USDC (below the default 10 USD minimum): 400 MIN_NOTIONAL_NOT_MET',
    });
  },
});

export const guardRejectionRepeatable = defineCheck({
  name: 'dca-modify-rejected-by-a-guard-can-be-repeated-after-a-re-fetch',
  service: 'orders',
  rules: ['OA-DCA-016'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, created } = await userWithOrder(t);
    // More per cycle than the whole order: a guard the document leaves to the server (opportunistic).
    const rejected = await patchDca(t, user, created.orderId, { amountPerCycle: '99000000' });
    skipIfPatchRejected(t, rejected);
    if (rejected.response.status !== 400 || errorCode(rejected) !== 'MODIFICATION_ERROR') {
      t.skip(
        `an amountPerCycle above totalAmount answered ${rejected.response.status} ${String(errorCode(rejected))}, not a guard's MODIFICATION_ERROR: nothing to repeat`,
      );
    }
    await readOrder(t, user, created);
    const repeated = await patchDca(t, user, created.orderId, { cycleFrequencySeconds: 7200 });
    expectAccepted(t, 'OA-DCA-016', repeated, 'after MODIFICATION_ERROR, re-fetching and repeating a valid modify succeeds');
  },
});

export const modifyOfTrigger = defineCheck({
  name: 'dca-modify-of-a-trigger-order-is-not-found',
  service: 'orders',
  rules: ['OA-DCA-019'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    // The assumed body first, on a DCA order (or the check skips), then on a stop_loss.
    const dca = await createOrder(t, user, intentRequest('dca'));
    skipIfPatchRejected(t, await patchDca(t, user, dca.orderId, { cycleFrequencySeconds: 7200 }));
    const created = await createOrder(t, user, intentRequest('stop_loss'));
    const ex = await patchDca(t, user, created.orderId, { cycleFrequencySeconds: 7200 });
    expectError(t, 'OA-DCA-019', ex, { status: 404, codes: ['NOT_FOUND'], documented: '404 NOT_FOUND (DCA only)' });
  },
});

/** The PATCH template on the user's fresh DCA order first (skips when the target rejects it), then the order read back. */
async function patchedDca(t: CheckContext) {
  const { user, created } = await userWithOrder(t);
  const first = await patchDca(t, user, created.orderId, { cycleFrequencySeconds: 7200 });
  skipIfPatchRejected(t, first);
  if (!is2xx(first)) t.skip(`the in-place PATCH of an active DCA order answered ${first.response.status} ${String(errorCode(first))}`);
  return { user, created, order: await readOrder(t, user, created) };
}

export const modifyOfTerminalDca = defineCheck({
  name: 'dca-modify-of-a-cancelled-order-is-refused-and-changes-nothing',
  service: 'orders',
  rules: ['OA-DCA-023'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, created } = await patchedDca(t);
    const cancel = await act(t, user, created.orderId, 'cancel', { withdraw: false });
    if (!is2xx(cancel)) throw new SetupFailed(`cancel {withdraw: false} of an active DCA order answered ${cancel.response.status}`, cancel);
    const before = await readOrder(t, user, created);
    const ex = await patchDca(t, user, created.orderId, { cycleFrequencySeconds: 10800 });
    const after = await readOrder(t, user, created);
    t.note(`PATCH /dca/{id} of a ${String(before.status)} order answered ${ex.response.status} ${String(errorCode(ex))}`);
    const refused = ex.response.status >= 400 && ex.response.status < 500 && errorCode(ex) !== undefined;
    t.expect('OA-DCA-023', refused && after.status === before.status && after.cycleFrequencySeconds === before.cycleFrequencySeconds, {
      documented: `PATCH of a ${String(before.status)} DCA order (only active or paused ones are modified): a 4xx error, the order unchanged`,
      received: { answer: failureOf(ex), before: pick(before), after: pick(after) },
      exchange: ex,
    });
  },
});

export const modifyBelowMinimumFrequency = defineCheck({
  name: 'dca-modify-of-cycle-frequency-below-60-is-a-validation-error-and-changes-nothing',
  service: 'orders',
  rules: ['OA-DCA-024'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, created, order: before } = await patchedDca(t);
    const ex = await patchDca(t, user, created.orderId, { cycleFrequencySeconds: 59 });
    const after = await readOrder(t, user, created);
    t.expect(
      'OA-DCA-024',
      ex.response.status === 400 && errorCode(ex) === 'VALIDATION_ERROR' && after.cycleFrequencySeconds === before.cycleFrequencySeconds,
      {
        documented: `cycleFrequencySeconds 59 (minimum 60, as the intent): 400 VALIDATION_ERROR, the order keeps ${String(before.cycleFrequencySeconds)}`,
        received: { answer: failureOf(ex), cycleFrequencySeconds: after.cycleFrequencySeconds },
        exchange: ex,
      },
    );
  },
});

export const modifyKeepsTheRecipient = defineCheck({
  name: 'dca-modify-naming-output-recipient-address-leaves-it-unchanged',
  service: 'orders',
  rules: ['OA-SHAPE-011'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, created, order: before } = await patchedDca(t);
    // The other address a recipient may be (OA-SHAPE-006): the manager or the user's external wallet.
    const other = before.outputRecipientAddress === user.walletAddress ? user.userPubkey : user.walletAddress;
    const ex = await patchDca(t, user, created.orderId, { cycleFrequencySeconds: 10800, outputRecipientAddress: other });
    t.note(`a PATCH naming outputRecipientAddress answered ${ex.response.status} ${String(errorCode(ex) ?? '')}`);
    const after = await readOrder(t, user, created);
    t.expect('OA-SHAPE-011', after.outputRecipientAddress === before.outputRecipientAddress, {
      documented: `outputRecipientAddress is immutable: after a PATCH naming ${other} the order still reads ${String(before.outputRecipientAddress)}`,
      received: { answer: failureOf(ex), outputRecipientAddress: after.outputRecipientAddress },
      exchange: ex,
    });
  },
});

const pick = (order: Record<string, unknown>) => ({ status: order.status, cycleFrequencySeconds: order.cycleFrequencySeconds });

export const totalAmountModify = defineCheck({
  name: 'dca-total-amount-modify-locks-checks-its-confirm-and-applies-it',
  service: 'orders',
  rules: ['OA-DCA-010', 'OA-DCA-014', 'OA-DCA-017', 'OA-DCA-018', 'OA-DCA-015', 'OA-DCA-011', 'OA-DCA-020', 'OA-DCA-022'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, created } = await userWithOrder(t);
    const ex = await patchDca(t, user, created.orderId, { totalAmount: RAISED_TOTAL });
    skipIfPatchRejected(t, ex);
    const transaction = modifyTransaction(ex);
    t.expect('OA-DCA-010', is2xx(ex) && dataOf(ex)?.requiresTransaction === true && transaction !== undefined, {
      documented: 'a totalAmount change: 2xx with requiresTransaction true and an unsigned transaction',
      received: { status: ex.response.status, body: ex.response.body },
      exchange: ex,
    });
    const during = await readOrder(t, user, created);
    t.note(
      `OA-DCA-020: while the modify waits for its confirm the order is ${String(during.status)} (previousStatus ${String(during.previousStatus)})`,
    );

    const second = await patchDca(t, user, created.orderId, { totalAmount: '60000000' });
    expectError(t, 'OA-DCA-014', second, {
      status: 409,
      codes: ['LOCK_FAILED'],
      documented: "a second PATCH while the first modify's lock runs: 409 LOCK_FAILED",
    });
    for (const body of [{}, []]) {
      const bad = await confirmModify(t, user, created.orderId, body);
      expectError(t, 'OA-DCA-017', bad, {
        status: 400,
        codes: ['INVALID_REQUEST'],
        documented: `modify confirm with the body ${JSON.stringify(body)}: 400 INVALID_REQUEST`,
      });
    }
    const cyclesCompleted = Number(during.cyclesCompleted ?? 0);
    const config = { totalAmount: RAISED_TOTAL };
    const garbage = await confirmModify(t, user, created.orderId, {
      signedTransaction: Buffer.from('not a transaction').toString('base64'),
      cyclesCompleted,
      config,
    });
    expectError(t, 'OA-DCA-018', garbage, {
      status: 400,
      codes: ['INVALID_TRANSACTION'],
      documented: 'modify confirm whose signedTransaction is no transaction: 400 INVALID_TRANSACTION',
    });
    const signedTransaction = signedModify(ex, transaction as string, user, created.order, RAISED_TOTAL);
    const mismatch = await confirmModify(t, user, created.orderId, { signedTransaction, cyclesCompleted: cyclesCompleted + 1, config });
    expectError(t, 'OA-DCA-015', mismatch, {
      status: 400,
      codes: ['MODIFICATION_ERROR'],
      documented: `modify confirm with cyclesCompleted ${cyclesCompleted + 1} (the order has ${cyclesCompleted}): 400 MODIFICATION_ERROR`,
    });
    const done = await confirmModify(t, user, created.orderId, { signedTransaction, cyclesCompleted, config });
    const after = await readOrder(t, user, created);
    t.expect('OA-DCA-011', is2xx(done) && after.totalAmount === RAISED_TOTAL, {
      documented: `modify confirm within the lock: 2xx, then totalAmount ${RAISED_TOTAL}`,
      received: { answer: failureOf(done), totalAmount: after.totalAmount },
      exchange: done,
    });
  },
});

export const lateModifyConfirm = defineCheck({
  name: 'dca-modify-confirm-after-the-30-second-lock-is-lock-expired',
  service: 'orders',
  rules: ['OA-DCA-013'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock'],
  async run(t: CheckContext) {
    const { user, created } = await userWithOrder(t);
    const { signedTransaction } = await raiseTotal(t, user, created);
    const cyclesCompleted = Number((await readOrder(t, user, created)).cyclesCompleted ?? 0);
    await t.control.advanceClock(31);
    const ex = await confirmModify(t, user, created.orderId, { signedTransaction, cyclesCompleted, config: { totalAmount: RAISED_TOTAL } });
    expectError(t, 'OA-DCA-013', ex, {
      status: 409,
      codes: ['LOCK_EXPIRED'],
      documented: 'modify confirm 31 seconds after the PATCH: 409 LOCK_EXPIRED',
    });
  },
});

export const modifiedTotalMovesTheLock = defineCheck({
  name: 'dca-confirmed-total-amount-change-moves-the-input-lock',
  service: 'orders',
  rules: ['OA-DCA-012'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, created } = await userWithOrder(t);
    const before = await orderLock(t, user, created, created.order.inputMint);
    t.note(`before the modify the order locks ${String(before.entry?.amount ?? '(no entry)')} of its input`);
    const { signedTransaction } = await raiseTotal(t, user, created);
    const cyclesCompleted = Number((await readOrder(t, user, created)).cyclesCompleted ?? 0);
    const done = await confirmModify(t, user, created.orderId, {
      signedTransaction,
      cyclesCompleted,
      config: { totalAmount: RAISED_TOTAL },
    });
    if (!is2xx(done)) throw new SetupFailed(`POST /dca/{id}/modify/confirm answered ${done.response.status}`, done);
    const order = await readOrder(t, user, created);
    const { row, entry, ex } = await orderLock(t, user, created, order.inputMint);
    const again = await readOrder(t, user, created);
    if (order.totalAmount !== RAISED_TOTAL)
      t.skip(`the confirmed change did not apply (totalAmount ${String(order.totalAmount)}, OA-DCA-011): its lock is not judged`);
    if (order.status !== 'active' || again.amountSpent !== order.amountSpent) {
      t.skip(
        `the order is ${String(order.status)}, amountSpent ${String(order.amountSpent)} then ${String(again.amountSpent)}: no settled active lock to judge`,
      );
    }
    const expected = (BigInt(RAISED_TOTAL) - BigInt(String(order.amountSpent))).toString();
    // With `funding` the user is fresh: this order is the only lock on its input mint, and the row's total is its lock.
    // On the partner's shared wallet other orders lock the same mint, moving on their own: only the order's entry counts.
    const whole = t.control.has('funding');
    t.expect('OA-DCA-012', entry?.amount === expected && (!whole || row?.lockedForFutureTxns === expected), {
      documented: `after the confirmed change the input lock is the new totalAmount - amountSpent = ${RAISED_TOTAL} - ${String(order.amountSpent)} = ${expected}${whole ? '' : " (the order's lockedBreakdown entry; the partner's wallet holds other orders' locks)"}`,
      received: (whole ? row : entry) ?? row ?? '(no row for the input mint)',
      exchange: ex,
    });
  },
});
