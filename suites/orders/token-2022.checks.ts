import { dataOf, errorCode, is2xx } from '../harness/answers.ts';
import { type CheckContext, defineCheck } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed } from '../harness/failure.ts';
import { isObject } from '../shared/values.ts';
import { dcaRequest, intentUser, pendingIntent, postConfirm, postIntent, signedDeposit } from './orders.ts';
import { readPath, type Row } from './steps/dca.ts';
import { runCycles } from './steps/executions.ts';

/**
 * Conventions, token programs: "Token-2022 mints with transfer hooks, transfer fees or unusual extensions may fail to
 * swap or transfer. The API then returns an explicit error." Which mints a deployment cannot swap is its own business:
 * the control API names one (`POST /token-2022-mints`, capability token-extensions). A DCA order of USDC into it may be
 * refused at the intent or at the confirm, or fail at its first swap; each with an error a client can read.
 */

/** A refusal a client can branch on: a 4xx or 5xx with the failure envelope and a code. */
function explicitRefusal(ex: Exchange): boolean {
  const body = ex.response.body;
  return ex.response.status >= 400 && isObject(body) && body.success === false && typeof errorCode(ex) === 'string';
}

const withReason = (row: Row) => typeof row.failureReason === 'string' && row.failureReason !== '';

export const unsupportedToken2022MintGetsAnExplicitError = defineCheck({
  name: 'a-swap-into-a-token-2022-mint-the-target-cannot-swap-ends-in-an-explicit-error',
  service: 'orders',
  rules: ['OA-FMT-008'],
  profile: 'full',
  pooledUser: true,
  needs: ['token-extensions'],
  // Follows the order to its first swap with the clock when the target offers it.
  alone: true,
  async run(t: CheckContext) {
    const { mint, extensions } = await t.control.createUnsupportedMint();
    const what = `USDC into the Token-2022 mint ${mint} (extensions ${extensions.join(', ')}, which the target says it cannot swap)`;
    const user = await intentUser(t, true);
    // The positive case: the same template into a mint the target swaps (confirms the DCA template for this check).
    await pendingIntent(t, user);

    const intent = await postIntent(t, user.sub, dcaRequest({ outputMint: mint }));
    if (!is2xx(intent)) {
      t.expect('OA-FMT-008', explicitRefusal(intent), {
        documented: `an explicit error for a DCA order of ${what}: the failure envelope with an error code`,
        received: { status: intent.response.status, body: intent.response.body },
        exchange: intent,
      });
      t.note(`the intent was refused with ${intent.response.status} ${String(errorCode(intent))}`);
      return;
    }
    const data = dataOf(intent) ?? {};
    if (!t.control.has('clock')) {
      t.skip(
        `the target accepted the intent of ${what}; whether its first swap ends in an explicit error is judged by following the order to it, which needs the clock capability`,
      );
    }
    const confirm = await postConfirm(t, user.sub, {
      pendingOrderId: data.pendingOrderId,
      signedTransaction: signedDeposit({ data, ex: intent }, user),
    });
    if (!is2xx(confirm)) {
      t.expect('OA-FMT-008', explicitRefusal(confirm), {
        documented: `an explicit error for the confirm of a DCA order of ${what}: the failure envelope with an error code`,
        received: { status: confirm.response.status, body: confirm.response.body },
        exchange: confirm,
      });
      t.note(`the confirm was refused with ${confirm.response.status} ${String(errorCode(confirm))}`);
      return;
    }
    const order = dataOf(confirm)?.order;
    if (!isObject(order) || typeof order.id !== 'string')
      throw new SetupFailed(`POST /orders/confirm answered ${confirm.response.status} without data.order.id`, confirm);
    const orderId = order.id;
    await runCycles(t, [order]);
    const detail = (await readPath(t, user, `/dca/${orderId}`)).data as Row;
    const executions = await readPath(t, user, `/orders/${orderId}/executions`);
    const rows = (Array.isArray(executions.data) ? executions.data : []).filter(isObject);
    const failedRow = rows.find((row) => row.status === 'failed' && withReason(row));
    const orderFailed = detail.status === 'failed' && withReason(detail);
    const succeeded = rows.some((row) => row.status === 'success');
    t.expect('OA-FMT-008', (failedRow !== undefined || orderFailed) && !succeeded, {
      documented: `the first swap of a DCA order of ${what} fails with an explicit error: a failed execution row or a failed order with a failureReason, and no successful swap`,
      received: {
        order: { status: detail.status, failureReason: detail.failureReason },
        executions: rows.map((row) => ({ status: row.status, failureReason: row.failureReason })),
      },
      exchange: executions.ex,
    });
    t.note(`the first swap failed with ${String(failedRow?.failureReason ?? detail.failureReason)}`);
  },
});
