import { dataOf, is2xx } from '../../harness/answers.ts';
import type { CheckContext } from '../../harness/check.ts';
import type { Exchange } from '../../harness/exchange.ts';
import { SetupFailed } from '../../harness/failure.ts';
import { isObject } from '../../shared/values.ts';
import {
  atOnce,
  dcaRequest,
  fundUser,
  INT,
  type IntentRequest,
  ISO_8601,
  pendingIntent,
  postConfirm,
  signedDeposit,
  UUID_V4,
} from '../orders.ts';
import { correctBody, postOnboard, testWallet } from '../users.ts';
import { advancePast, type Actor, type Row } from './dca.ts';
import type { RuleId } from '../../../generators/vocabulary.ts';

/** Execution rows as steps of other checks (areas EXEC, REP): the row facts, users and orders of other tenants, cycles run. */

const EXECUTION_TYPES = ['dca_cycle', 'stop_loss', 'take_profit_full', 'take_profit_scaled', 'slice_fill'];
const nullableInt = (v: unknown) => v === null || (typeof v === 'string' && INT.test(v));

/**
 * The row facts of the Execution resource (OA-EXEC-004..007), on rows read from `ex`, and their order, most recent
 * first, under `orderRule` (OA-EXEC-003 for an order's rows, OA-REP-019 for the partner's).
 */
export function expectExecutionRows(
  t: CheckContext,
  rows: readonly Record<string, unknown>[],
  ex: Exchange,
  orderRule: RuleId = 'OA-EXEC-003',
): void {
  for (const [i, r] of rows.entries()) {
    t.expect('OA-EXEC-005', !('failure_reason' in r) && !('failureMessage' in r) && 'failureReason' in r, {
      documented: 'the failure label under the key failureReason',
      received: Object.keys(r),
      exchange: ex,
    });
    t.expect(
      'OA-EXEC-004',
      typeof r.id === 'string' &&
        UUID_V4.test(r.id) &&
        typeof r.orderId === 'string' &&
        typeof r.inputAmount === 'string' &&
        INT.test(r.inputAmount) &&
        typeof r.outputAmount === 'string' &&
        INT.test(r.outputAmount) &&
        nullableInt(r.outputAmountUsd) &&
        Number.isInteger(r.outputAmountUsdDecimals) &&
        typeof r.price === 'string' &&
        INT.test(r.price) &&
        Number.isInteger(r.priceDecimals) &&
        typeof r.txSignature === 'string' &&
        (r.failureReason === null || typeof r.failureReason === 'string') &&
        typeof r.executedAt === 'string' &&
        ISO_8601.test(r.executedAt),
      {
        documented: 'an execution row with the documented fields and types',
        received: r,
        exchange: ex,
      },
    );
    t.expect('OA-EXEC-006', EXECUTION_TYPES.includes(String(r.executionType)), {
      documented: `executionType one of ${EXECUTION_TYPES.join(', ')}`,
      received: r.executionType,
      exchange: ex,
    });
    t.expect('OA-EXEC-007', ['pending', 'success', 'failed'].includes(String(r.status)), {
      documented: 'status pending, success or failed',
      received: r.status,
      exchange: ex,
    });
    const previous = rows[i - 1];
    t.expect(orderRule, !previous || Date.parse(String(previous.executedAt)) >= Date.parse(String(r.executedAt)), {
      documented: 'most recent first: executedAt never increases down the list',
      received: rows.map((row) => row.executedAt),
      exchange: ex,
    });
  }
}

/**
 * A user onboarded on the tenant of `apiKey` (its requests carry that X-Service-Key) and funded with `usdcAmount`: the
 * onboarding and the funding of its wallet (through the control API, which needs no user) at once.
 */
export async function tenantUser(t: CheckContext, apiKey: string, usdcAmount?: string): Promise<Actor> {
  const headers = { 'X-Service-Key': apiKey };
  const wallet = testWallet(t);
  const [onboard] = await atOnce(
    t,
    async () => await postOnboard(t, await correctBody(t, wallet.sub, wallet.keypair), apiKey),
    () => fundUser(t, wallet.keypair.publicKey.toBase58(), usdcAmount),
  );
  const d = dataOf(onboard);
  if (!is2xx(onboard) || typeof d?.userId !== 'string' || typeof d.walletAddress !== 'string')
    throw new SetupFailed(`onboarding on the new tenant answered ${onboard.response.status}`, onboard);
  const user: Actor = {
    sub: wallet.sub,
    userPubkey: wallet.keypair.publicKey.toBase58(),
    userId: d.userId,
    walletAddress: d.walletAddress,
    keypair: wallet.keypair,
    headers,
  };
  return user;
}

/** A confirmed order of `user` (intent -> sign -> confirm with the user's headers); anything else is a broken precondition. */
export async function actorOrder(
  t: CheckContext,
  user: Actor,
  request: IntentRequest = dcaRequest(),
): Promise<{ orderId: string; order: Row }> {
  const intent = await pendingIntent(t, user, request, user.headers);
  const confirm = await postConfirm(
    t,
    user.sub,
    { pendingOrderId: intent.pendingOrderId, signedTransaction: signedDeposit(intent, user) },
    user.headers,
  );
  const order = dataOf(confirm)?.order;
  if (!is2xx(confirm) || !isObject(order) || typeof order.id !== 'string')
    throw new SetupFailed(`confirm answered ${confirm.response.status} ${JSON.stringify(confirm.response.body).slice(0, 300)}`, confirm);
  return { orderId: order.id, order };
}

/** Advances the clock past the latest next cycle time of `orders`, then `extraCycles` more periods. */
export async function runCycles(t: CheckContext, orders: readonly Row[], extraCycles = 0): Promise<void> {
  const next = orders.map((o) => Date.parse(String(o.nextExecutionAt)));
  const frequency = Math.max(...orders.map((o) => Number(o.cycleFrequencySeconds)));
  await advancePast(t, next.every((ms) => !Number.isNaN(ms)) ? new Date(Math.max(...next)).toISOString() : undefined, frequency);
  if (extraCycles > 0) await t.control.advanceClock(extraCycles * frequency);
}
