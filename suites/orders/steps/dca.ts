import { dataOf, errorCode, is2xx } from '../../harness/answers.ts';
import type { CheckContext } from '../../harness/check.ts';
import type { Faults } from '../../harness/control.ts';
import type { Exchange } from '../../harness/exchange.ts';
import { SetupFailed } from '../../harness/failure.ts';
import type { RuleId } from '../../../generators/vocabulary.ts';
import { isObject } from '../../shared/values.ts';
import { expectFeeSnapshotWhole, expectOrderInvariants } from '../order-invariants.ts';
import { atOnce, type Created, createOrder, dcaRequest, decodeTransaction, type Funded, intentUser, signedModify } from '../orders.ts';
import { asUser } from '../users.ts';

/**
 * DCA orders as steps of other checks (area DCA): reads held to the order invariants, the clock and the faults, and
 * the modification (PATCH /dca/{id} and its confirm). The modify bodies are not shown (UNKNOWNS.md O8, O9): the suite
 * sends its assumed templates (spec: AssumedDcaModifyRequest `{config: {...}}`, AssumedDcaModifyConfirmRequest
 * `{signedTransaction, cyclesCompleted, config}`). A target that rejects the PATCH template with 400
 * VALIDATION_ERROR makes the check skip: the template is the suite's guess, not the document. The name of the
 * unsigned transaction's field is not shown either: the first string of `data` that decodes as a transaction.
 */

export type Row = Record<string, unknown>;
/** A user, and the headers its requests carry beyond the run's (another tenant's X-Service-Key). */
export type Actor = Funded & { headers?: Record<string, string> };

/** GET of one order-scoped path as `user`; anything but 2xx with an object or array `data` is a broken precondition. */
export async function readPath(t: CheckContext, user: Actor, path: string): Promise<{ ex: Exchange; data: unknown }> {
  const ex = await asUser(t, user.sub, { path, headers: user.headers });
  const data = (ex.response.body as { data?: unknown } | undefined)?.data;
  if (!is2xx(ex) || !(isObject(data) || Array.isArray(data)))
    throw new SetupFailed(`GET ${path} answered ${ex.response.status} ${JSON.stringify(ex.response.body).slice(0, 300)}`, ex);
  return { ex, data };
}

/*
 * The fetch* reads answer a function that judges what was read when called: reads sent at once (atOnce) are judged
 * in the order the check gives, as when they were sent one after another (t.expect stops at the first failure). A read
 * that went wrong (transport, a broken precondition) throws when its answer is called too, not at once: a read judged
 * before it still fails its rule first, as it did when the reads went one after another.
 */

/** `read()`, whose failure is thrown only when its answer is called (judgedLater). */
export async function judgedLater<T>(read: () => Promise<() => T>): Promise<() => T> {
  try {
    return await read();
  } catch (error) {
    return () => {
      throw error;
    };
  }
}

/** GET /dca/{id}, held to the passive order invariants. */
export async function readDca(t: CheckContext, user: Actor, orderId: string): Promise<{ ex: Exchange; order: Row }> {
  return (await fetchDca(t, user, orderId))();
}

/** GET /dca/{id} now; held to the passive order invariants when the answer is called. */
export function fetchDca(t: CheckContext, user: Actor, orderId: string): Promise<() => { ex: Exchange; order: Row }> {
  return judgedLater(async () => {
    const { ex, data } = await readPath(t, user, `/dca/${orderId}`);
    return () => {
      expectOrderInvariants(t, data, { scope: 'user', exchange: ex, owner: user });
      return { ex, order: data as Row };
    };
  });
}

/** GET /orders/{id}/executions; every row's fee snapshot is whole (OA-EXEC-017). */
export async function readExecutions(t: CheckContext, user: Actor, orderId: string): Promise<{ ex: Exchange; rows: Row[] }> {
  return (await fetchExecutions(t, user, orderId))();
}

/** GET /orders/{id}/executions now; each row's fee snapshot held whole (OA-EXEC-017) when the answer is called. */
export function fetchExecutions(t: CheckContext, user: Actor, orderId: string): Promise<() => { ex: Exchange; rows: Row[] }> {
  return judgedLater(async () => {
    const { ex, data } = await readPath(t, user, `/orders/${orderId}/executions`);
    return () => {
      const rows = (Array.isArray(data) ? data : []).filter(isObject);
      for (const row of rows) expectFeeSnapshotWhole(t, row, ex);
      return { ex, rows };
    };
  });
}

/** The manager's totalBalance of `mint` (GET /me/balance), 0 without a row. */
export async function managerBalance(t: CheckContext, user: Actor, mint: unknown): Promise<bigint> {
  return (await managerBalances(t, user))(mint);
}

/** One GET /me/balance: the manager's totalBalance by mint, 0 without a row (for a read sent before the mint is known). */
export async function managerBalances(t: CheckContext, user: Actor): Promise<(mint: unknown) => bigint> {
  const { data } = await readPath(t, user, '/me/balance');
  const rows = isObject(data) && Array.isArray(data.balances) ? data.balances.filter(isObject) : [];
  return (mint) => {
    const row = rows.find((r) => r.mint === mint);
    return BigInt(typeof row?.totalBalance === 'string' ? row.totalBalance : '0');
  };
}

/**
 * Advances the clock to just past `atIso` (or by `fallbackSeconds` when there is no time to aim at), from `nowIso`: a
 * clock answer read at once with what gave `atIso` (a clock that moved since only ends further past), else read here.
 */
export async function advancePast(t: CheckContext, atIso: unknown, fallbackSeconds: number, nowIso?: string): Promise<void> {
  const now = Date.parse(nowIso ?? (await t.control.clock()));
  const target = typeof atIso === 'string' && !Number.isNaN(Date.parse(atIso)) ? Date.parse(atIso) : now + fallbackSeconds * 1000;
  await t.control.advanceClock(Math.max(1, Math.ceil((target - now) / 1000) + 1));
}

/**
 * Runs `body` with `faults` set, restoring `restore` afterwards whatever happens. With `clock`, the clock is read at
 * once with the fault set (setting a fault does not move the clock) and its answer handed to `body` (for advancePast).
 */
export async function withFaults<T>(
  t: CheckContext,
  faults: Faults,
  restore: Faults,
  body: (now: string | undefined) => Promise<T>,
  { clock = false } = {},
): Promise<T> {
  try {
    // Inside the try: a clock read that fails after the fault was set still restores it.
    const [, now] = await atOnce(
      t,
      () => t.control.setFaults(faults),
      async () => (clock ? await t.control.clock() : undefined),
    );
    return await body(now);
  } finally {
    await t.control.setFaults(restore);
  }
}

/** A funded user with one confirmed DCA order (the assumed template, 3 cycles of 12 USDC hourly, with `over`: dcaRequest). */
export async function dcaOrder(
  t: CheckContext,
  over: Parameters<typeof dcaRequest>[0] = {},
): Promise<{ user: Funded; orderId: string; order: Row }> {
  const user = await intentUser(t, true);
  const created = await createOrder(t, user, dcaRequest(over));
  return { user, orderId: created.orderId, order: created.order };
}

export const RAISED_TOTAL = '48000000';

/** PATCH /dca/{id} with the assumed body: a 2xx confirms it for this check (assumptions.ts `dca-patch`). */
export async function patchDca(t: CheckContext, user: Funded, orderId: string, config: Record<string, unknown>): Promise<Exchange> {
  t.exercise('dca-patch');
  const ex = await asUser(t, user.sub, { method: 'PATCH', path: `/dca/${orderId}`, json: { config }, retry: false });
  if (is2xx(ex)) t.confirm('dca-patch');
  return ex;
}

/** POST /dca/{id}/modify/confirm: a 2xx confirms the assumed body for this check (assumptions.ts `dca-modify-confirm`). */
export async function confirmModify(t: CheckContext, user: Funded, orderId: string, body: unknown): Promise<Exchange> {
  t.exercise('dca-modify-confirm');
  const ex = await asUser(t, user.sub, { method: 'POST', path: `/dca/${orderId}/modify/confirm`, json: body, retry: false });
  if (is2xx(ex)) t.confirm('dca-modify-confirm');
  return ex;
}

/** A PATCH whose answer is 400 VALIDATION_ERROR: the assumed template is not this target's (UNKNOWNS.md O8). */
export function skipIfPatchRejected(t: CheckContext, ex: Exchange): void {
  if (ex.response.status === 400 && errorCode(ex) === 'VALIDATION_ERROR') {
    t.rejectAssumption(
      'dca-patch',
      `the target rejects the assumed PATCH /dca/{id} body (UNKNOWNS.md O8) with 400 VALIDATION_ERROR: ${JSON.stringify(ex.response.body).slice(0, 300)}`,
    );
  }
}

/** The unsigned transaction of a modify answer: the first string field of `data` that decodes as a transaction. */
export function modifyTransaction(ex: Exchange): string | undefined {
  return Object.values(dataOf(ex) ?? {}).find(
    (value): value is string => typeof value === 'string' && value.length > 40 && decodeTransaction(value) !== undefined,
  );
}

/** PATCH of totalAmount that must answer a transaction (a broken precondition otherwise). */
export async function raiseTotal(
  t: CheckContext,
  user: Funded,
  created: Created,
): Promise<{ ex: Exchange; transaction: string; signedTransaction: string }> {
  const ex = await patchDca(t, user, created.orderId, { totalAmount: RAISED_TOTAL });
  skipIfPatchRejected(t, ex);
  const transaction = modifyTransaction(ex);
  if (!is2xx(ex) || dataOf(ex)?.requiresTransaction !== true || !transaction)
    throw new SetupFailed(`PATCH /dca/{id} of totalAmount answered ${ex.response.status} without a transaction`, ex);
  return { ex, transaction, signedTransaction: signedModify(ex, transaction, user, created.order, RAISED_TOTAL) };
}

/** The sum of the rows' integer-string `field` (a missing one counts 0). */
export const sum = (rows: Row[], field: string) =>
  rows.reduce((total, r) => total + BigInt(typeof r[field] === 'string' ? (r[field] as string) : '0'), 0n);

/** The order's amountSpent and amountReceived (read in `end`) are the sums over its success rows `done`, under `rule`. */
export function expectAmountsAreRowSums(t: CheckContext, rule: RuleId, end: { order: Row; ex: Exchange }, done: Row[]): void {
  t.expect(
    rule,
    end.order.amountSpent === sum(done, 'inputAmount').toString() && end.order.amountReceived === sum(done, 'outputAmount').toString(),
    {
      documented: `amountSpent ${sum(done, 'inputAmount')} and amountReceived ${sum(done, 'outputAmount')}: the sums over the success rows`,
      received: { amountSpent: end.order.amountSpent, amountReceived: end.order.amountReceived },
      exchange: end.ex,
    },
  );
}
