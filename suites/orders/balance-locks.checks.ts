import { dataOf } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { isObject } from '../shared/values.ts';
import type { Exchange } from '../harness/exchange.ts';
import { atOnce, type Created, INT, intentUser, NATIVE_MINT, ORDER_TYPES } from './orders.ts';
import { advancePast } from './steps/dca.ts';
import {
  activeOrderOf,
  BUCKETS,
  currentOrder,
  expectUnspentInputLocked,
  getBalance,
  listedOrder,
  lockEntriesOf,
  type Row,
  rowsOf,
} from './steps/balance-locks.ts';
import { otherLocks } from './steps/shared-wallet.ts';

/**
 * The locks of active orders on GET /me/balance (area BAL: Balance row, lockedForFutureTxns and lockedBreakdown): each
 * order locks its unspent input on its input mint only, with one entry of that amount, and its output mint is not
 * locked.
 */

/**
 * OA-BAL-026: the row of the output mint of the user's one active order locks nothing. Whether an execution fee paid
 * in the native asset is reserved is not stated, so a native output row is judged only when the intent charged none.
 * On the partner's shared wallet (no `funding`) other orders may lock that mint: the order adds nothing to the row's
 * lockedForFutureTxns, from `prior` (GET /me/balance before the order was made) to now, judged only when no other
 * order's lock moved in between (steps/shared-wallet.ts otherLocks) and the order is the check's own new one.
 */
function expectOutputUnlocked(
  t: CheckContext,
  ex: Exchange,
  output: Row | undefined,
  order: Row,
  created: Created,
  prior: { balance: unknown; made: boolean } | undefined,
): void {
  const fee = String(created.intent.data.feeLamports);
  if (output === undefined) return t.note(`no balance row for the output mint ${String(order.outputMint)}: its lock is not judged`);
  if (order.outputMint === NATIVE_MINT && fee !== '0') {
    return t.note(`the output mint is the native asset and the intent charged feeLamports ${fee}: its lockedForFutureTxns is not judged`);
  }
  if (prior === undefined) {
    return t.expect('OA-BAL-026', output.lockedForFutureTxns === '0', {
      documented: `output mints are not locked: the row of ${String(order.outputMint)}, the output of the user's only order, has lockedForFutureTxns 0`,
      received: output,
      exchange: ex,
    });
  }
  const type = String(order.orderType);
  if (!prior.made) return t.note(`${type}: the partner wallet's order was made before the check: its output lock is not judged`);
  if (otherLocks(prior.balance, []) !== otherLocks(dataOf(ex), [created.orderId]))
    return t.note(`${type}: another order of the partner's wallet moved funds while the order was made: its output lock is not judged`);
  const before = rowsOfBalance(prior.balance).find((row) => row.mint === order.outputMint)?.lockedForFutureTxns ?? '0';
  t.expect('OA-BAL-026', output.lockedForFutureTxns === before, {
    documented: `output mints are not locked: making the ${type} order adds nothing to lockedForFutureTxns of ${String(order.outputMint)}, its output (${String(before)} before)`,
    received: output,
    exchange: ex,
  });
}

/** The rows of a GET /me/balance body's data (none when it has none). */
const rowsOfBalance = (data: unknown): Row[] => (isObject(data) && Array.isArray(data.balances) ? data.balances.filter(isObject) : []);

/**
 * On the partner's shared wallet (no `funding`) the service's clock runs: an order of the check may run a cycle, a
 * chunk or fire between the balance read and the order read. True when the order read the same (status, amountSpent)
 * `before` the balance read and `after` it; with `funding` the virtual clock stands still and there is no `before`.
 */
function heldStill(t: CheckContext, before: Row | undefined, after: Row): boolean {
  if (before === undefined || (before.status === after.status && before.amountSpent === after.amountSpent)) return true;
  t.note(
    `${String(after.orderType)}: the order ran while its balance was read (${String(before.status)}, amountSpent ${String(before.amountSpent)}; then ${String(after.status)}, ${String(after.amountSpent)}): its lock is not judged`,
  );
  return false;
}

export const activeOrdersLockTheirInput = defineCheck({
  name: 'an-active-order-locks-its-unspent-input-on-its-input-mint-only',
  service: 'orders',
  rules: [
    'OA-BAL-001',
    'OA-FMT-001',
    'OA-BAL-017',
    'OA-BAL-018',
    'OA-BAL-019',
    'OA-BAL-008',
    'OA-BAL-009',
    'OA-BAL-010',
    'OA-BAL-011',
    'OA-BAL-025',
    'OA-BAL-026',
    'OA-BAL-007',
  ],
  profile: 'full',
  async run(t: CheckContext) {
    // With `funding` each order has a fresh user of its own; else every order is the partner's wallet's, beside others.
    const shared = t.control.has('funding') ? undefined : await intentUser(t, true);
    let judged = 0;
    for (const type of ORDER_TYPES) {
      const prior = shared && dataOf(await getBalance(t, shared.sub));
      const made = await activeOrderOf(t, type, shared);
      if (!made) continue;
      const { user, created } = made;
      const first = shared && (await currentOrder(t, user.sub, created));
      const ex = await getBalance(t, user.sub);
      const rows = rowsOf(t, ex);
      const order = await currentOrder(t, user.sub, created);
      const entries = rows.flatMap((row) => (Array.isArray(row.lockedBreakdown) ? row.lockedBreakdown : []));
      for (const row of rows) {
        t.expect(
          'OA-FMT-001',
          BUCKETS.every((k) => typeof row[k] === 'string' && INT.test(row[k] as string)),
          {
            documented: 'the four balance buckets are integer strings',
            received: row,
            exchange: ex,
          },
        );
      }
      for (const entry of entries) {
        t.expect('OA-FMT-001', isObject(entry) && typeof entry.amount === 'string' && INT.test(entry.amount), {
          documented: 'a lockedBreakdown amount is an integer string',
          received: entry,
          exchange: ex,
        });
        t.expect(
          'OA-BAL-017',
          typeof entry.orderId === 'string' &&
            (ORDER_TYPES as readonly unknown[]).includes(entry.orderType) &&
            typeof entry.status === 'string' &&
            typeof entry.kind === 'string',
          {
            documented:
              'a lockedBreakdown entry {orderId: string, orderType: dca|stop_loss|take_profit|oco|slice, status: string, kind: string, amount}',
            received: entry,
            exchange: ex,
          },
        );
        // With `funding` the user is fresh: its one order is the only one an entry can name. The partner's wallet
        // has other orders: an entry naming the check's order carries its type.
        if (shared && entry.orderId !== created.orderId) continue;
        t.expect('OA-BAL-018', entry.orderId === created.orderId && entry.orderType === type, {
          documented: shared
            ? `the lockedBreakdown entry naming the order ${created.orderId} carries its orderType ${type}`
            : `every lockedBreakdown entry names the user's one order ${created.orderId} (${type})`,
          received: entry,
          exchange: ex,
        });
      }
      if (order.status !== 'active') {
        t.note(`${type}: the order is ${String(order.status)}, not active: its lock is not judged`);
        continue;
      }
      if (!heldStill(t, first, order)) continue;
      judged++;
      const lock = lockEntriesOf(
        rows.find((row) => row.mint === order.inputMint),
        created.orderId,
      )[0];
      t.expect('OA-BAL-019', lock === undefined || lock.kind === 'locked', {
        documented: `the lockedBreakdown entry of the active ${type} order has kind "locked"`,
        received: lock,
        exchange: ex,
      });
      const { lock: entry, unspent } = expectUnspentInputLocked(t, ex, rows, order, created);
      if (entry !== undefined && unspent !== undefined) {
        t.expect('OA-BAL-025', entry.amount === unspent.toString(), {
          documented: `the lockedBreakdown entry of the ${type} order carries the amount it locks, ${unspent} in the smallest units of ${String(order.inputMint)}`,
          received: entry,
          exchange: ex,
        });
      }
      const output = rows.find((row) => row.mint === order.outputMint);
      t.expect('OA-BAL-011', lockEntriesOf(output, created.orderId).length === 0, {
        documented: `no lockedBreakdown entry of the order on the row of its output mint ${String(order.outputMint)}`,
        received: output,
        exchange: ex,
      });
      expectOutputUnlocked(t, ex, output, order, created, shared && { balance: prior, made: type !== 'slice' });
      for (const row of rows) {
        const [total, locked, pending, available] = BUCKETS.map((k) => BigInt(row[k] as string)) as [bigint, bigint, bigint, bigint];
        const expected = total - locked - pending > 0n ? total - locked - pending : 0n;
        t.expect('OA-BAL-007', available === expected, {
          documented: `with an active ${type} order, availableToWithdraw = max(${total} - ${locked} - ${pending}, 0) = ${expected}`,
          received: row,
          exchange: ex,
        });
        const sum = (Array.isArray(row.lockedBreakdown) ? row.lockedBreakdown : [])
          .filter((e) => isObject(e) && e.kind === 'locked')
          .reduce((s: bigint, e) => s + BigInt(String((e as Row).amount)), 0n);
        if (sum !== locked) t.note(`OA-BAL-021: on ${String(row.mint)} the locked entries sum to ${sum}, lockedForFutureTxns is ${locked}`);
      }
    }
    if (judged === 0) t.skip('no order type could be created active: no lock to judge');
    t.note('OA-BAL-013 (paused orders) and OA-BAL-012 (cancel releases the lock) are not observed: this check does not pause or cancel');
  },
});

/** listedOrder's fallback when the order is not in the list. */
const NOT_LISTED: Row = {};

export const locksShrinkAsTheInputIsSpent = defineCheck({
  name: 'a-dca-or-slice-order-locks-only-its-unspent-input-after-executions-ran',
  service: 'orders',
  rules: ['OA-BAL-001', 'OA-BAL-008', 'OA-BAL-010'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock'],
  async run(t: CheckContext) {
    let judged = 0;
    for (const type of ['dca', 'slice'] as const) {
      const made = await activeOrderOf(t, type);
      if (!made) continue;
      const { user, created } = made;
      // The clock past the first execution (the order's nextExecutionAt; a minute when it names none): the listed
      // order and the clock read at once.
      const [listed, now] = await atOnce(
        t,
        () => listedOrder(t, user.sub, created.orderId, created.order),
        () => t.control.clock(),
      );
      await advancePast(t, listed.nextExecutionAt, 60, now);
      t.note(`the target's virtual clock was advanced past the first execution of the ${type} order (shared time)`);
      // The order as listed (else its detail), both read at once.
      const [detail, inList] = await atOnce(
        t,
        () => currentOrder(t, user.sub, created),
        () => listedOrder(t, user.sub, created.orderId, NOT_LISTED),
      );
      const order = inList === NOT_LISTED ? detail : inList;
      if (order.status !== 'active' && order.status !== 'executing') {
        t.note(`${type}: the order is ${String(order.status)} after the clock moved: its lock is not judged`);
        continue;
      }
      if (order.amountSpent === '0') t.note(`${type}: amountSpent is still 0 after the clock passed the first execution time`);
      judged++;
      const ex = await getBalance(t, user.sub);
      expectUnspentInputLocked(t, ex, rowsOf(t, ex), order, created);
    }
    if (judged === 0) t.skip('no DCA or slice order was still running after its first execution: no lock to judge');
  },
});
