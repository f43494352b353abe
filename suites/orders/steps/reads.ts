import { dataOf, is2xx } from '../../harness/answers.ts';
import type { CheckContext } from '../../harness/check.ts';
import type { Exchange } from '../../harness/exchange.ts';
import { SetupFailed, Skipped } from '../../harness/failure.ts';
import { isObject } from '../../shared/values.ts';
import type { OrderOwner } from '../order-invariants.ts';
import { type Created, createOrder, type Funded, intentRequest, intentUser, ISO_8601, ORDER_TYPES, type OrderType } from '../orders.ts';
import { type PartnerWallet, asUser } from '../users.ts';
import { sharedSlice } from './shared-wallet.ts';
import type { RuleId } from '../../../generators/vocabulary.ts';

/** Reading orders as steps of other checks (areas READ, DET, REP): detail paths, readers, orders of every type, list rows. */

export const LIST_CAP = 500;

/** The detail endpoint of each order type. */
export const DETAIL_PATHS: Record<OrderType, string> = {
  dca: '/dca',
  stop_loss: '/stop-loss',
  take_profit: '/take-profit',
  oco: '/oco',
  slice: '/slice',
};

/** The fields each per-type detail adds to the base Order (OA-DET-001..004; the slice order's own are not shown, O2). */
export const TYPE_FIELDS: Record<OrderType, readonly string[]> = {
  dca: ['totalAmount', 'amountPerCycle', 'cycleFrequencySeconds', 'cyclesCompleted', 'totalCycles'],
  stop_loss: ['amount', 'triggerPrice', 'priceDecimals', 'priceBasis', 'currentTriggerPrice'],
  take_profit: ['amount', 'triggerPrice', 'priceDecimals', 'priceBasis', 'trailingActivated', 'amountRemaining', 'scaleStepsExecuted'],
  oco: ['amount', 'takeProfitPrice', 'stopLossPrice', 'priceDecimals', 'priceBasis', 'currentTriggerPrice'],
  slice: [],
};

export interface Reader extends Funded {
  owner: OrderOwner;
}

/** An onboarded user (funded when `fund`; the partner's wallet `which` without `funding`) and who GET /me says they are. */
export async function reader(t: CheckContext, fund: boolean, which: PartnerWallet = 'own'): Promise<Reader> {
  const user = await intentUser(t, fund, which);
  const ex = await asUser(t, user.sub, { path: '/me' });
  const me = dataOf(ex);
  if (!is2xx(ex) || typeof me?.userId !== 'string' || typeof me.walletAddress !== 'string')
    throw new SetupFailed(`GET /me answered ${ex.response.status}`, ex);
  return { ...user, owner: { userId: me.userId, walletAddress: me.walletAddress, userPubkey: user.userPubkey } };
}

/**
 * An order of `type` (with `config` overrides), or undefined (with a note) when the target rejects or does not serve
 * that template. The plain DCA template is the core: its rejection skips the check.
 */
export async function createIfAccepted(
  t: CheckContext,
  user: Funded,
  type: OrderType,
  config?: Record<string, unknown>,
): Promise<Created | undefined> {
  if (type === 'dca' && !config) return await createOrder(t, user, intentRequest('dca'));
  try {
    return await createOrder(t, user, intentRequest(type, { config }));
  } catch (e) {
    if (!(e instanceof Skipped)) throw e;
    t.note(`${type} left out: ${e.reason}`);
    return undefined;
  }
}

/** One order of each type the target accepts (DCA at least); the slice order is userSlice's. */
export async function ordersOfEveryType(t: CheckContext, user: Funded): Promise<Created[]> {
  const created: Created[] = [];
  for (const type of ORDER_TYPES) {
    const order = type === 'slice' ? await userSlice(t, user) : await createIfAccepted(t, user, type);
    if (order) created.push(order);
  }
  return created;
}

/**
 * A slice order of `user` (undefined, with a note, when the target rejects the template): a fresh one with `funding`,
 * else the partner wallet's slice order of the run, the same for every check (shared-wallet.ts sharedSlice).
 */
export async function userSlice(t: CheckContext, user: Funded): Promise<Created | undefined> {
  return await sharedSlice(t, user, () => createIfAccepted(t, user, 'slice'));
}

/** outputRecipientAddress at creation, by order id (OA-SHAPE-007). */
export const recipients = (created: readonly Created[]) => new Map(created.map((c) => [c.orderId, String(c.order.outputRecipientAddress)]));

/** The 2xx array `data` of a list answer, asserted under `rule`. */
export function rowsOf(t: CheckContext, rule: RuleId, ex: Exchange): Record<string, unknown>[] {
  const b = ex.response.body;
  const data = isObject(b) ? b.data : undefined;
  t.expect(rule, is2xx(ex) && Array.isArray(data), {
    documented: `2xx with data an array (${ex.request.method} ${new URL(ex.request.url).pathname})`,
    received: { status: ex.response.status, body: b },
    exchange: ex,
  });
  return data.filter(isObject);
}

export const idsIn = (rows: readonly Record<string, unknown>[]) => rows.map((r) => r.id);

/** `ex` answers `created`'s deposit record {txSignature: string, submittedAt: ISO-8601} (user or partner path), under `rule`. */
export function expectDepositRecord(t: CheckContext, rule: RuleId, ex: Exchange, created: Created): void {
  const d = dataOf(ex);
  t.expect(
    rule,
    is2xx(ex) &&
      typeof d?.txSignature === 'string' &&
      d.txSignature !== '' &&
      typeof d.submittedAt === 'string' &&
      ISO_8601.test(d.submittedAt),
    {
      documented: `the deposit record {txSignature: string, submittedAt: ISO-8601} of the ${String(created.order.orderType)} order`,
      received: { status: ex.response.status, body: ex.response.body },
      exchange: ex,
    },
  );
}
