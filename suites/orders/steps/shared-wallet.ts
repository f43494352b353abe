import { dataOf } from '../../harness/answers.ts';
import type { CheckContext } from '../../harness/check.ts';
import { isObject } from '../../shared/values.ts';
import type { Created, Funded } from '../orders.ts';
import { asUser } from '../users.ts';
import type { Row } from './balance.ts';

/**
 * The partner's wallet is one user shared by every order check and by the partner's own orders (no `funding`:
 * users.ts testWallet). A balance the check compares before and after its own action may then move for an order that
 * is not the check's: a DCA cycle or a trigger fill spends that order's lock (and pays its output mint), a new order
 * adds a lock, a cancel removes one. Each of these changes the lockedBreakdown of an order other than the check's own,
 * so a check brackets its comparison: the locks of the other orders are read before its first read and after its last,
 * and when they differ the check skips, saying so, instead of judging a movement it did not cause. With `funding`
 * every check has a fresh user of its own: no bracket, no extra request, the comparison as strict as ever.
 */

/** Every lockedBreakdown entry of every mint of the user, but those of `own` orders, in a stable text. */
export function otherLocks(balance: unknown, own: readonly string[]): string {
  const rows = isObject(balance) && Array.isArray(balance.balances) ? balance.balances.filter(isObject) : [];
  const entries = rows.flatMap((row: Row) =>
    (Array.isArray(row.lockedBreakdown) ? row.lockedBreakdown.filter(isObject) : [])
      .filter((entry) => !own.includes(String(entry.orderId)))
      .map((entry) => `${String(row.mint)} ${String(entry.orderId)} ${String(entry.kind)} ${String(entry.amount)}`),
  );
  return entries.sort().join('\n');
}

/** The sum of the row's lockedBreakdown amounts of orders other than `own` (a non-integer amount counts 0). */
export function otherOrdersLocked(row: Row | undefined, own: readonly string[]): bigint {
  const entries = Array.isArray(row?.lockedBreakdown) ? row.lockedBreakdown.filter(isObject) : [];
  return entries
    .filter((entry) => !own.includes(String(entry.orderId)))
    .reduce((sum, entry) => sum + (/^[0-9]+$/.test(String(entry.amount)) ? BigInt(String(entry.amount)) : 0n), 0n);
}

/**
 * Starts a bracket on the partner's shared wallet (see above); the function it returns ends it, skipping the check when
 * another order's lock moved in between. `own`: the ids of the orders the check made; `made`, given at the end: those
 * it made inside the bracket (they had no lock at its start).
 */
export async function othersBracket(
  t: CheckContext,
  user: Funded,
  own: readonly string[] = [],
): Promise<(made?: readonly string[]) => Promise<void>> {
  if (t.control.has('funding')) return async () => {};
  const read = async (mine: readonly string[]) => otherLocks(dataOf(await asUser(t, user.sub, { path: '/me/balance' })), mine);
  const before = await read(own);
  return async (made = []) => {
    const after = await read([...own, ...made]);
    if (after !== before)
      t.skip(
        "another order of the partner's shared wallet moved funds during the check (its lockedBreakdown changed): " +
          `a balance comparison cannot tell that from the check's own effect; rerun it\nbefore:\n${before}\nafter:\n${after}`,
      );
  };
}

/** The partner wallet's slice order of this run, by target and user (sharedSlice). */
const slices = new Map<string, Promise<Created | undefined>>();

/**
 * The slice order a check reads on the partner's shared wallet (no `funding`): made once per run and user by `make`,
 * then the same order for every check that needs one to read (lists, detail, deposit record), running or finished. A
 * user runs one slice order at a time (a second confirm answers 409 ACTIVE_BURST_EXISTS, OA-CONF-020) and one runs for
 * minutes, so checks running at once could not each make their own. With `funding` each check makes its own.
 */
export async function sharedSlice(t: CheckContext, user: Funded, make: () => Promise<Created | undefined>): Promise<Created | undefined> {
  if (t.control.has('funding')) return await make();
  const key = `${t.orders.baseUrl} ${user.sub}`;
  let slice = slices.get(key);
  const first = slice === undefined;
  if (!slice) {
    slice = make();
    slices.set(key, slice);
  }
  const created = await slice;
  if (!first)
    t.note(
      created
        ? `slice: the partner wallet's one slice order of this run (${created.orderId}), made by another check and read here`
        : 'slice left out: the target did not accept the slice order another check made for this wallet (see its notes)',
    );
  return created;
}
