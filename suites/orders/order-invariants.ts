import bs58 from 'bs58';
import type { CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { isObject } from '../shared/values.ts';
import { ORDER_TYPES } from '../../generators/vocabulary.ts';
import { INT, ISO_8601, UUID_V4 } from './orders.ts';

/**
 * The passive order invariants (Resources and their fields: Order, Trigger-order fields; Conventions): facts every
 * Order object holds on every read. A check that calls `expectOrderInvariants` cites their rules literally (t.expect
 * refuses a rule the check does not cite):
 * - on every read: OA-SHAPE-002, OA-SHAPE-003, OA-SHAPE-008, OA-SHAPE-009, OA-FMT-001 to OA-FMT-006, and the lifecycle
 *   rules OA-STATE-001, OA-STATE-003 to OA-STATE-007, OA-STATE-009 to OA-STATE-011, OA-OWD-008, OA-OWD-009, OA-DCA-002;
 * - with a known owner and creation (user-scoped reads and the partner's own orders): OA-SHAPE-005 to OA-SHAPE-007;
 * - user-scoped reads (tenantId and originatingPartner present): OA-SHAPE-004; `/partners/me/*` reads omit them
 *   (OA-REP-002, judged by the caller).
 */

export const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** OA-SHAPE-002: the fields every order carries. */
const BASE_FIELDS = [
  'id',
  'userId',
  'walletAddress',
  'outputRecipientAddress',
  'orderType',
  'status',
  'previousStatus',
  'inputMint',
  'outputMint',
  'createdAt',
  'updatedAt',
  'withdrawalStatus',
];
/** OA-FMT-001: amounts on an order (integer strings). */
const AMOUNT_FIELDS = ['totalAmount', 'amountPerCycle', 'amountSpent', 'amountReceived', 'amount', 'minOutputAmount', 'amountRemaining'];
/** OA-FMT-002: prices on an order (integer strings). */
const PRICE_FIELDS = ['triggerPrice', 'takeProfitPrice', 'stopLossPrice', 'currentTriggerPrice', 'highestObservedPrice', 'executedPrice'];
/** OA-FMT-003: scales on an order (JSON integers). */
const SCALE_FIELDS = ['priceDecimals', 'executedPriceDecimals'];
/** OA-FMT-004: timestamps that are always set, and those that may be null. */
const TIMESTAMPS = ['createdAt', 'updatedAt'];
const NULLABLE_TIMESTAMPS = [
  'startAt',
  'expiresAt',
  'nextExecutionAt',
  'lastExecutionAt',
  'cancelledAt',
  'completedAt',
  'failedAt',
  'withdrawalRequestedAt',
  'withdrawalCompletedAt',
];

/** Whose order it is, as GET /me and onboarding give it (OA-SHAPE-005, OA-SHAPE-006). */
export interface OrderOwner {
  userId: string;
  walletAddress: string;
  userPubkey: string;
}

export interface InvariantContext {
  /** user: a user-scoped read (tenantId, originatingPartner present); partner: `/partners/me/*` (checked by the caller). */
  scope: 'user' | 'partner';
  exchange: Exchange;
  /** The owner, when the check knows it (rows of other users in a partner report are not judged on it). */
  owner?: OrderOwner;
  /** outputRecipientAddress of known orders at creation, by order id (OA-SHAPE-007). */
  created?: ReadonlyMap<string, string>;
}

const present = (o: Record<string, unknown>, k: string) => k in o && o[k] !== undefined && o[k] !== null;

/** Every passive invariant of one order object read from the target. */
export function expectOrderInvariants(t: CheckContext, order: unknown, c: InvariantContext): asserts order is Record<string, unknown> {
  const exchange = c.exchange;
  const o = isObject(order) ? order : {};
  const missing = BASE_FIELDS.filter((k) => !(k in o));
  t.expect('OA-SHAPE-002', isObject(order) && missing.length === 0, {
    documented: `an order object with ${BASE_FIELDS.join(', ')}`,
    received: { missing, order },
    exchange,
  });
  t.expect('OA-SHAPE-003', (ORDER_TYPES as readonly unknown[]).includes(o.orderType), {
    documented: `orderType one of ${ORDER_TYPES.join(', ')}`,
    received: o.orderType,
    exchange,
  });
  t.expect('OA-FMT-005', typeof o.id === 'string' && UUID_V4.test(o.id), {
    documented: 'the order id is a UUIDv4 string',
    received: o.id,
    exchange,
  });
  if (c.owner) {
    t.expect('OA-SHAPE-005', o.userId === c.owner.userId && o.walletAddress === c.owner.walletAddress, {
      documented: `userId ${c.owner.userId} and walletAddress ${c.owner.walletAddress}, as GET /me gives them`,
      received: { userId: o.userId, walletAddress: o.walletAddress },
      exchange,
    });
    t.expect('OA-SHAPE-006', o.outputRecipientAddress === c.owner.walletAddress || o.outputRecipientAddress === c.owner.userPubkey, {
      documented: `outputRecipientAddress the manager ${c.owner.walletAddress} or the user's wallet ${c.owner.userPubkey}`,
      received: o.outputRecipientAddress,
      exchange,
    });
  }
  const atCreation = c.created?.get(String(o.id));
  if (atCreation !== undefined) {
    t.expect('OA-SHAPE-007', o.outputRecipientAddress === atCreation, {
      documented: `outputRecipientAddress unchanged since creation (${atCreation})`,
      received: o.outputRecipientAddress,
      exchange,
    });
  }
  t.expect(
    'OA-FMT-006',
    typeof o.inputMint === 'string' && BASE58.test(o.inputMint) && typeof o.outputMint === 'string' && BASE58.test(o.outputMint),
    {
      documented: 'inputMint and outputMint are base58 strings',
      received: { inputMint: o.inputMint, outputMint: o.outputMint },
      exchange,
    },
  );
  t.expect('OA-SHAPE-008', o.inputMint !== o.outputMint, {
    documented: 'inputMint and outputMint differ',
    received: { inputMint: o.inputMint, outputMint: o.outputMint },
    exchange,
  });
  t.expect(
    'OA-SHAPE-009',
    !('platformFeeBpsOverride' in o) || o.platformFeeBpsOverride === undefined || Number.isInteger(o.platformFeeBpsOverride),
    {
      documented: 'platformFeeBpsOverride, when present, is an integer',
      received: o.platformFeeBpsOverride,
      exchange,
    },
  );
  const badAmounts = AMOUNT_FIELDS.filter((k) => present(o, k) && !(typeof o[k] === 'string' && INT.test(o[k])));
  t.expect('OA-FMT-001', badAmounts.length === 0, {
    documented: 'amount fields are integer strings',
    received: Object.fromEntries(badAmounts.map((k) => [k, o[k]])),
    exchange,
  });
  const badPrices = PRICE_FIELDS.filter((k) => present(o, k) && !(typeof o[k] === 'string' && INT.test(o[k])));
  t.expect('OA-FMT-002', badPrices.length === 0, {
    documented: 'price fields are integer strings',
    received: Object.fromEntries(badPrices.map((k) => [k, o[k]])),
    exchange,
  });
  const badScales = SCALE_FIELDS.filter((k) => present(o, k) && !Number.isInteger(o[k]));
  t.expect('OA-FMT-003', badScales.length === 0, {
    documented: 'scale fields are JSON integers',
    received: Object.fromEntries(badScales.map((k) => [k, o[k]])),
    exchange,
  });
  const iso = (v: unknown) => typeof v === 'string' && ISO_8601.test(v) && !Number.isNaN(Date.parse(v));
  const badTimes = [...TIMESTAMPS.filter((k) => !iso(o[k])), ...NULLABLE_TIMESTAMPS.filter((k) => present(o, k) && !iso(o[k]))];
  t.expect('OA-FMT-004', badTimes.length === 0, {
    documented: 'timestamps are ISO-8601 strings (or null where nullable)',
    received: Object.fromEntries(badTimes.map((k) => [k, o[k]])),
    exchange,
  });
  expectLifecycleInvariants(t, o, exchange);
  if (c.scope === 'user') {
    const partner = o.originatingPartner;
    t.expect(
      'OA-SHAPE-004',
      typeof o.tenantId === 'string' && isObject(partner) && typeof partner.id === 'string' && typeof partner.name === 'string',
      {
        documented: 'a user-scoped read carries tenantId (string) and originatingPartner {id: string, name: string}',
        received: { tenantId: o.tenantId, originatingPartner: partner },
        exchange,
      },
    );
  }
}

/** The invariants on every row of a list answer (`data` must be an array: the caller asserts that first). */
export function expectRowInvariants(t: CheckContext, rows: readonly unknown[], c: InvariantContext): void {
  for (const row of rows) expectOrderInvariants(t, row, c);
}

const STATUSES = ['pending', 'active', 'executing', 'pending_modification', 'paused', 'completed', 'cancelled', 'failed', 'expired'];
const PASSING = ['executing', 'pending_modification'];
const TERMINAL = ['completed', 'cancelled', 'failed', 'expired'];
const TRIGGER_TYPES = ['stop_loss', 'take_profit', 'oco'];
/** OA-STATE-010: the timestamp each of these statuses sets. */
const STATE_TIMESTAMPS: Record<string, string> = { cancelled: 'cancelledAt', completed: 'completedAt', failed: 'failedAt' };

/** A real transaction signature: base58 of 64 bytes, not all zero (the placeholder of "no signature"). */
export function isSignature(value: unknown): boolean {
  if (typeof value !== 'string' || !/^[1-9A-HJ-NP-Za-km-z]{64,90}$/.test(value)) return false;
  try {
    const bytes = bs58.decode(value);
    return bytes.length === 64 && bytes.some((b) => b !== 0);
  } catch {
    return false;
  }
}

/** States and transitions, on one order: status values, previousStatus, terminal states, withdrawal hash, DCA counters. */
function expectLifecycleInvariants(t: CheckContext, o: Record<string, unknown>, exchange: Exchange): void {
  const status = o.status;
  const passing = PASSING.includes(status as string);
  t.expect('OA-STATE-001', STATUSES.includes(status as string), {
    documented: `status one of ${STATUSES.join(', ')}`,
    received: status,
    exchange,
  });
  t.expect('OA-STATE-003', !TRIGGER_TYPES.includes(o.orderType as string) || (status !== 'pending' && status !== 'pending_modification'), {
    documented: 'a trigger order is never pending nor pending_modification',
    received: { orderType: o.orderType, status },
    exchange,
  });
  t.expect('OA-STATE-004', !passing || (o.previousStatus !== null && o.previousStatus !== undefined), {
    documented: `previousStatus set while ${String(status)}`,
    received: { status, previousStatus: o.previousStatus },
    exchange,
  });
  t.expect('OA-STATE-005', passing || o.previousStatus === null, {
    documented: 'previousStatus null unless the order is executing or pending_modification',
    received: { status, previousStatus: o.previousStatus },
    exchange,
  });
  t.expect(
    'OA-STATE-006',
    o.previousStatus === null ||
      o.previousStatus === undefined ||
      (STATUSES.includes(o.previousStatus as string) && !PASSING.includes(o.previousStatus as string)),
    {
      documented: 'previousStatus, when set, is a resting status (neither executing nor pending_modification)',
      received: { status, previousStatus: o.previousStatus },
      exchange,
    },
  );
  t.expect('OA-STATE-007', ['none', 'pending', 'completed'].includes(o.withdrawalStatus as string), {
    documented: 'withdrawalStatus one of none, pending, completed',
    received: o.withdrawalStatus,
    exchange,
  });
  t.expect('OA-STATE-009', status !== 'failed' || (typeof o.failureReason === 'string' && o.failureReason !== ''), {
    documented: 'a failed order has a non-empty failureReason',
    received: { status, failureReason: o.failureReason },
    exchange,
  });
  const stamp = STATE_TIMESTAMPS[status as string];
  t.expect('OA-STATE-010', stamp === undefined || present(o, stamp), {
    documented: `${String(stamp)} set on a ${String(status)} order`,
    received: { status, [String(stamp)]: stamp === undefined ? undefined : o[stamp] },
    exchange,
  });
  t.expect('OA-STATE-011', !TERMINAL.includes(status as string) || !present(o, 'nextExecutionAt'), {
    documented: 'nextExecutionAt null on a terminal order',
    received: { status, nextExecutionAt: o.nextExecutionAt },
    exchange,
  });
  t.expect('OA-OWD-008', o.withdrawalStatus === 'completed' || !present(o, 'withdrawalTxHash'), {
    documented: 'withdrawalTxHash null while withdrawalStatus is none or pending',
    received: { withdrawalStatus: o.withdrawalStatus, withdrawalTxHash: o.withdrawalTxHash },
    exchange,
  });
  t.expect('OA-OWD-009', !present(o, 'withdrawalTxHash') || isSignature(o.withdrawalTxHash), {
    documented: 'withdrawalTxHash, when set, is a real signature (base58 of 64 bytes), never a placeholder',
    received: o.withdrawalTxHash,
    exchange,
  });
  if (o.orderType === 'dca') {
    const done = o.cyclesCompleted;
    const total = o.totalCycles;
    t.expect(
      'OA-DCA-002',
      Number.isInteger(done) && Number.isInteger(total) && (done as number) >= 0 && (done as number) <= (total as number),
      {
        documented: 'cyclesCompleted and totalCycles integers with 0 <= cyclesCompleted <= totalCycles',
        received: { cyclesCompleted: done, totalCycles: total },
        exchange,
      },
    );
  }
}

const FEE_SNAPSHOT = ['platformFeeWallet', 'platformFeeBps', 'platformFeeMint', 'platformFeeAmount'];

/** OA-EXEC-017 on one execution row: the four fee snapshot fields are all set or all null. */
export function expectFeeSnapshotWhole(t: CheckContext, row: Record<string, unknown>, exchange: Exchange): void {
  const set = FEE_SNAPSHOT.filter((k) => row[k] !== null && row[k] !== undefined);
  t.expect('OA-EXEC-017', set.length === 0 || set.length === FEE_SNAPSHOT.length, {
    documented: `${FEE_SNAPSHOT.join(', ')} all set or all null`,
    received: Object.fromEntries(FEE_SNAPSHOT.map((k) => [k, row[k]])),
    exchange,
  });
}
