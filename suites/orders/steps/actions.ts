import { dataOf, errorCode, is2xx } from '../../harness/answers.ts';
import type { CheckContext } from '../../harness/check.ts';
import type { Exchange } from '../../harness/exchange.ts';
import { SetupFailed } from '../../harness/failure.ts';
import { isObject } from '../../shared/values.ts';
import {
  type Created,
  createOrder,
  type Funded,
  fundUser,
  intentRequest,
  intentUser,
  type OrderType,
  TERMINAL_STATUSES,
} from '../orders.ts';
import { asUser } from '../users.ts';
import { DETAIL_PATHS, userSlice } from './reads.ts';

/**
 * The order actions as steps of other checks (areas PAUSE, RESUME, RETRY, CANCEL): the action itself, the order read
 * back, a user with a fresh order, a cancelled DCA order and a DCA order failed by a failing swap.
 */

export type Action = 'pause' | 'resume' | 'retry' | 'cancel';

export async function act(t: CheckContext, user: Funded, orderId: string, action: Action, body: unknown = {}): Promise<Exchange> {
  return await asUser(t, user.sub, { method: 'POST', path: `/orders/${orderId}/${action}`, json: body, retry: false });
}

/** The order as its detail endpoint shows it now (a failed read is a broken precondition). */
export async function readOrder(t: CheckContext, user: Funded, created: Created): Promise<Record<string, unknown>> {
  const type = String(created.order.orderType ?? created.intent.request.orderType) as OrderType;
  const ex = await asUser(t, user.sub, { path: `${DETAIL_PATHS[type]}/${created.orderId}` });
  const d = dataOf(ex);
  const order = type === 'slice' && isObject(d?.order) ? d.order : d;
  if (!is2xx(ex) || !order) throw new SetupFailed(`GET ${DETAIL_PATHS[type]}/${created.orderId} answered ${ex.response.status}`, ex);
  return order;
}

/** A funded user with one fresh order of `type` (the assumed template). */
export async function userWithOrder(t: CheckContext, type: OrderType = 'dca'): Promise<{ user: Funded; created: Created }> {
  const user = await intentUser(t, true);
  return { user, created: await createOrder(t, user, intentRequest(type)) };
}

/**
 * A funded user and a slice order of theirs, for an action the document rejects on every slice order: a fresh order
 * with `funding`, else the partner wallet's slice order of the run (reads.ts userSlice), which the rejection leaves as
 * it was.
 */
export async function userWithSlice(t: CheckContext): Promise<{ user: Funded; created: Created }> {
  if (t.control.has('funding')) return await userWithOrder(t, 'slice');
  const user = await intentUser(t, true);
  const created = await userSlice(t, user);
  if (!created) t.skip('the target does not accept the slice order template (see the notes): no slice order to act on');
  return { user, created };
}

/**
 * The shared slice order (userWithSlice) may have finished before the action: a service that looks at the status
 * first then answers otherwise, which the check does not judge. Skips when the answer `ex` is not `code` and the
 * order now reads finished; with `funding` the order is the check's own and fresh: nothing to skip.
 */
export async function skipIfSliceFinished(t: CheckContext, user: Funded, created: Created, ex: Exchange, code: string): Promise<void> {
  if (t.control.has('funding') || errorCode(ex) === code) return;
  const status = String((await readOrder(t, user, created)).status);
  if (TERMINAL_STATUSES.includes(status))
    t.skip(
      `the partner wallet's slice order ${created.orderId} is ${status}: an answer other than ${code} is not judged on a finished order`,
    );
}

/** Restores healthy faults after the check, pass or fail. */
export function healthyAfter(t: CheckContext): void {
  t.defer(async () => {
    await t.control.setFaults({ swaps: 'ok', rpc: 'up' });
  });
}

/**
 * Fails the user's DCA order through a failed swap: `swaps: fail` while its first cycle comes due. The check skips
 * unless the order failed, and (unless `returned` allows it) before its automatic return ran (withdrawalStatus none).
 */
export async function failedDca(
  t: CheckContext,
  { returned = false } = {},
): Promise<{ user: Funded; created: Created; order: Record<string, unknown> }> {
  const { user, created } = await userWithOrder(t);
  healthyAfter(t);
  await t.control.setFaults({ swaps: 'fail' });
  await t.control.advanceClock(Number(created.order.cycleFrequencySeconds ?? 3600));
  await t.control.setFaults({ swaps: 'ok' });
  const order = await readOrder(t, user, created);
  if (order.status !== 'failed')
    t.skip(`a failed swap did not fail the DCA order (status ${String(order.status)}): no failed order to judge`);
  if (!returned && order.withdrawalStatus !== 'none')
    t.skip(
      `the automatic return already ran (withdrawalStatus ${String(order.withdrawalStatus)}): the failed order before it cannot be observed`,
    );
  return { user, created, order };
}

/** A cancelled ({withdraw: false}) DCA order of `user`, its deposit left in the manager; anything but 2xx is a broken precondition. */
export async function cancelledDca(t: CheckContext, user: Funded, { fund = false } = {}): Promise<Created> {
  if (fund) await fundUser(t, user.userPubkey);
  const created = await createOrder(t, user, intentRequest('dca'));
  const ex = await act(t, user, created.orderId, 'cancel', { withdraw: false });
  if (!is2xx(ex))
    throw new SetupFailed(
      `POST /orders/${created.orderId}/cancel {withdraw: false} answered ${ex.response.status} ${JSON.stringify(ex.response.body).slice(0, 300)}`,
      ex,
    );
  return created;
}
