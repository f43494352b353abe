import { validateResponse } from '../../generators/index.ts';
import { dataOf, errorCode, failureOf, is2xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed } from '../harness/failure.ts';
import { isObject, randomToken } from '../shared/values.ts';
import { ERROR_STATUSES } from './error-table.ts';
import {
  dcaRequest,
  type Funded,
  INT,
  intentUser,
  type OrderType,
  postConfirm,
  postIntent,
  signedDeposit,
  signedWithdrawal,
  skipIfTemplateRejected,
} from './orders.ts';
import { act, failedDca, readOrder } from './steps/actions.ts';
import { bucket, usdcRow } from './steps/balance.ts';
import { userWithIntent } from './steps/create.ts';
import { DETAIL_PATHS, LIST_CAP } from './steps/reads.ts';
import { othersBracket } from './steps/shared-wallet.ts';
import { builtTransaction, walletWithdraw, withdrawUser } from './steps/withdrawals.ts';
import { asUser } from './users.ts';
import type { RuleId } from '../../generators/vocabulary.ts';

/**
 * The concurrency facts: the same request sent a few times at once (Promise.all of a handful, within the run's
 * concurrency cap) has one effect; the other answers are errors the document gives, or for a keyed intent the replay;
 * funds are counted and locked once (GET /me/balance after the race).
 * A server that checks, then writes, with a pause between the two lets more than one through. Cancels and order-level
 * withdrawal confirms race in actions.checks.ts, wallet-withdrawals.checks.ts and order-withdrawals.checks.ts.
 */

/** How many copies of one request a race sends at once. */
const RACE_WIDTH = 3;

/** `send` RACE_WIDTH times at once. */
const race = (send: () => Promise<Exchange>) => Promise.all(Array.from({ length: RACE_WIDTH }, send));

/** The rows of a user-scoped list, or undefined when the target does not answer it with a list. */
async function rowsOf(t: CheckContext, user: Funded, path: string): Promise<unknown[] | undefined> {
  const ex = await t.orders.request({ path, headers: { 'X-Service-User': user.sub }, validate: false, retry: false });
  const data = (ex.response.body as { data?: unknown } | undefined)?.data;
  return is2xx(ex) && Array.isArray(data) ? data : undefined;
}
const orderIds = async (t: CheckContext, user: Funded) =>
  (await rowsOf(t, user, '/me/orders'))?.map((row) => String((row as { id?: unknown }).id));
const pendingRows = async (t: CheckContext, user: Funded) => await rowsOf(t, user, '/orders/pending');
/** Does a pending-order row carry `id` in some field (row fields not shown, UNKNOWNS.md O4)? */
const carries = (row: unknown, id: unknown) => isObject(row) && Object.values(row).includes(id);

/** Whether a confirm's failure carries a code the spec documents for POST /orders/confirm, with the Errors table's status. */
function documentedConfirmError(ex: Exchange): boolean {
  const code = errorCode(ex);
  const shape = validateResponse('orders', 'postOrdersConfirm', ex.response.status, ex.response.mediaType, ex.response.body);
  return (
    typeof code === 'string' &&
    shape.documentedStatus &&
    shape.documentedMediaType &&
    shape.errors.length === 0 &&
    (ERROR_STATUSES[code] ?? []).includes(ex.response.status)
  );
}

/** The row of `mint` of the user's GET /me/balance (undefined without one). */
async function balanceRow(t: CheckContext, user: Funded, mint: unknown): Promise<{ ex: Exchange; row?: Record<string, unknown> }> {
  const ex = await asUser(t, user.sub, { path: '/me/balance' });
  const rows = dataOf(ex)?.balances;
  return {
    ex,
    row: Array.isArray(rows) ? (rows.find((r) => isObject(r) && r.mint === mint) as Record<string, unknown> | undefined) : undefined,
  };
}
const totalOf = (row?: Record<string, unknown>) =>
  BigInt(typeof row?.totalBalance === 'string' && INT.test(row.totalBalance) ? row.totalBalance : '0');

/**
 * On the partner's shared wallet (no `funding`) the service's clock runs: the order the race confirmed may run a cycle
 * while the check reads its balance, which then no longer shows the deposit alone. Skips when the order no longer
 * reads as the confirm returned it (status, amountSpent); with `funding` the virtual clock stands still: no request.
 */
async function skipIfItRan(t: CheckContext, user: Funded, order: Record<string, unknown>): Promise<void> {
  if (t.control.has('funding')) return;
  const ex = await asUser(t, user.sub, { path: `${DETAIL_PATHS[order.orderType as OrderType] ?? '/dca'}/${String(order.id)}` });
  const now = dataOf(ex);
  if (!is2xx(ex) || now?.status !== order.status || now?.amountSpent !== order.amountSpent)
    t.skip(
      `the confirmed order ${String(order.id)} ran on the service's clock while its balance was read (${String(order.status)}, amountSpent ${String(order.amountSpent)} at confirm; now ${String(now?.status)}, ${String(now?.amountSpent)}): the deposit alone is not observed; rerun it`,
    );
}

/**
 * After a race that confirmed `order` (whose intent deposited `inputAmount`): the input mint's row counts the deposit
 * once (totalBalance up by inputAmount from `before`) and holds one lock of the order, the order's totalAmount -
 * amountSpent. With `funding` the user is fresh: that lock is the row's only one and its lockedForFutureTxns. On the
 * partner's shared wallet other orders lock the same mint: only the order's own entry is judged, and `settled` (the
 * othersBracket started before `before` was read) skips the check when another order moved funds meanwhile.
 */
async function expectDepositedAndLockedOnce(
  t: CheckContext,
  rule: RuleId,
  user: Funded,
  order: Record<string, unknown>,
  inputAmount: string,
  before: bigint,
  settled: (made: readonly string[]) => Promise<void>,
): Promise<void> {
  const { ex, row } = await balanceRow(t, user, order.inputMint);
  await skipIfItRan(t, user, order);
  await settled([String(order.id)]);
  const whole = t.control.has('funding');
  const entries = (Array.isArray(row?.lockedBreakdown) ? row.lockedBreakdown : []).filter(isObject);
  const own = entries.filter((entry) => entry.orderId === order.id);
  const unspent =
    typeof order.totalAmount === 'string' && typeof order.amountSpent === 'string'
      ? BigInt(order.totalAmount) - BigInt(order.amountSpent)
      : undefined;
  const locked = whole ? row?.lockedForFutureTxns : own[0]?.amount;
  t.expect(
    rule,
    row !== undefined &&
      totalOf(row) - before === BigInt(inputAmount) &&
      own.length === 1 &&
      (!whole || entries.length === 1) &&
      (unspent === undefined || locked === unspent.toString()),
    {
      documented:
        `after the race, the ${String(order.inputMint)} row counts the deposit once (totalBalance ${before} + ${inputAmount}) and holds one lock of order ${String(order.id)}` +
        (whole ? ', its only one' : " (the partner's wallet holds other orders' locks too)") +
        (unspent === undefined ? '' : ` of ${unspent} = totalAmount - amountSpent${whole ? ' (lockedForFutureTxns)' : ''}`),
      received: row ?? '(no row for the input mint)',
      exchange: ex,
    },
  );
}

export const confirmsAtOnceMakeOneOrder = defineCheck({
  name: 'confirms-of-one-pending-order-at-once-make-one-order-and-one-deposit',
  service: 'orders',
  rules: ['OA-CONF-023'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, intent } = await userWithIntent(t);
    const body = { pendingOrderId: intent.pendingOrderId, signedTransaction: signedDeposit(intent, user) };
    const settled = await othersBracket(t, user);
    const before = await orderIds(t, user);
    const deposited = totalOf((await balanceRow(t, user, intent.data.inputMint)).row);
    const answers = await race(() => postConfirm(t, user.sub, body));
    const winners = answers.filter(is2xx);
    const losers = answers.filter((ex) => !is2xx(ex));
    t.expect('OA-CONF-023', winners.length === 1 && losers.every(documentedConfirmError), {
      documented: `of ${RACE_WIDTH} confirms of one valid pending order sent at once, exactly one answers 2xx and each other one an error code documented for POST /orders/confirm, with the Errors table's status`,
      received: answers.map(failureOf),
      exchange: winners[1] ?? losers.find((ex) => !documentedConfirmError(ex)) ?? answers[0],
    });
    for (const ex of losers) t.note(`a confirm of the race answered ${ex.response.status} ${String(errorCode(ex) ?? '')}`);
    const order = dataOf(winners[0]!)?.order as Record<string, unknown> | undefined;
    const after = await orderIds(t, user);
    // On the partner's wallet an order of the check may be beyond a list at its cap (OA-READ-016: 500 rows).
    const listed = before !== undefined && after !== undefined && (t.control.has('funding') || after.length < LIST_CAP);
    if (!listed && after !== undefined) t.note(`GET /me/orders lists ${after.length} orders (the cap): the orders created are not counted`);
    if (isObject(order))
      await expectDepositedAndLockedOnce(t, 'OA-CONF-023', user, order, String(intent.data.inputAmount), deposited, settled);
    else await settled([]);
    if (listed) {
      const created = after.filter((id) => !before.includes(id));
      t.expect('OA-CONF-023', created.length === 1 && created[0] === order?.id, {
        documented: `the race created one order, the one the 2xx answer returned (${String(order?.id)}; GET /me/orders)`,
        received: { created },
        exchange: winners[0],
      });
    }
  },
});

export const sameKeyAtOnceMakesOnePendingOrder = defineCheck({
  name: 'the-same-idempotency-key-several-times-at-once-makes-one-pending-order-and-one-deposit',
  service: 'orders',
  rules: ['OA-IDEM-014'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const headers = { 'X-Idempotency-Key': randomToken('race') };
    const request = dcaRequest();
    const before = await pendingRows(t, user);
    const answers = await race(() => postIntent(t, user.sub, request, headers));
    for (const ex of answers) skipIfTemplateRejected(t, ex);
    const ids = new Set(answers.filter(is2xx).map((ex) => dataOf(ex)?.pendingOrderId));
    const others = answers.filter((ex) => !is2xx(ex));
    t.expect('OA-IDEM-014', ids.size === 1 && others.every((ex) => ex.response.status === 409 || ex.response.status >= 500), {
      documented: `the same key and body sent ${RACE_WIDTH} times at once: every 2xx carries one pendingOrderId (the replay), any other answer is a 409 or a retryable 5xx`,
      received: answers.map((ex) => ({ status: ex.response.status, code: errorCode(ex), pendingOrderId: dataOf(ex)?.pendingOrderId })),
      exchange: answers[1],
    });
    const after = await pendingRows(t, user);
    const data = dataOf(answers.find(is2xx)!)!;
    if (before !== undefined && after !== undefined) {
      // With `funding` the user is fresh; the partner's wallet may hold pending orders of earlier checks, whose window
      // may close meanwhile (they leave the list): the race's own row is counted, and no more rows than one new.
      const whole = t.control.has('funding');
      const own = after.filter((row) => carries(row, data.pendingOrderId)).length;
      t.expect('OA-IDEM-014', whole ? after.length - before.length === 1 : own === 1 && after.length - before.length <= 1, {
        documented: whole
          ? `the same key and body sent ${RACE_WIDTH} times at once create one pending order (GET /orders/pending)`
          : `the same key and body sent ${RACE_WIDTH} times at once create one pending order: one row of GET /orders/pending carries ${String(data.pendingOrderId)}, and the list grew by at most one`,
        received: { before: before.length, after: after.length, ...(whole ? {} : { rowsOfTheRace: own }) },
        exchange: answers[0],
      });
    }
    // The one pending order confirmed: its deposit lands once and locks once.
    const settled = await othersBracket(t, user);
    const deposited = totalOf((await balanceRow(t, user, data.inputMint)).row);
    const confirm = await postConfirm(t, user.sub, {
      pendingOrderId: data.pendingOrderId,
      signedTransaction: signedDeposit({ data, ex: answers.find(is2xx) }, user),
    });
    const order = dataOf(confirm)?.order;
    if (!is2xx(confirm) || !isObject(order))
      throw new SetupFailed(`the confirm of the raced intent's pending order answered ${confirm.response.status}`, confirm);
    await expectDepositedAndLockedOnce(t, 'OA-IDEM-014', user, order, String(data.inputAmount), deposited, settled);
  },
});

export const retriesAtOnceHaveOneEffect = defineCheck({
  name: 'retries-of-one-failed-order-at-once-have-one-effect',
  service: 'orders',
  rules: ['OA-RETRY-009'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock', 'faults'],
  async run(t: CheckContext) {
    const { user, created } = await failedDca(t);
    const answers = await race(() => act(t, user, created.orderId, 'retry'));
    const others = answers.filter((ex) => !is2xx(ex));
    t.expect(
      'OA-RETRY-009',
      answers.length - others.length === 1 &&
        others.every((ex) => ex.response.status === 400 && ['ORDER_NOT_FAILED', 'INVALID_STATE'].includes(String(errorCode(ex)))),
      {
        documented: `of ${RACE_WIDTH} retries of one failed DCA order sent at once, exactly one answers 2xx and the others 400 ORDER_NOT_FAILED or INVALID_STATE`,
        received: answers.map(failureOf),
        exchange: others[0] ?? answers[1],
      },
    );
    const order = await readOrder(t, user, created);
    t.expect('OA-RETRY-009', order.status === 'active', {
      documented: 'the order reads back as active after the race',
      received: order.status,
    });
  },
});

export const walletConfirmsAtOnceMoveFundsOnce = defineCheck({
  name: 'one-wallet-withdrawal-confirmed-several-times-at-once-moves-the-funds-once',
  service: 'orders',
  rules: ['OA-WDW-014'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await withdrawUser(t);
    const amount = 2_000_000n;
    const built = builtTransaction(await walletWithdraw(t, user, { amount: amount.toString() }), 'POST /withdraw/transaction');
    const settled = await othersBracket(t, user);
    const before = bucket((await usdcRow(t, user)).row, 'totalBalance');
    const body = { signedTransaction: signedWithdrawal(built, user) };
    const answers = await race(() => asUser(t, user.sub, { method: 'POST', path: '/withdraw/confirm', json: body, retry: false }));
    const winners = answers.filter(is2xx);
    const others = answers.filter((ex) => !is2xx(ex));
    t.expect('OA-WDW-014', winners.length <= 1 && others.every((ex) => ex.response.status >= 400 && ex.response.status < 500), {
      documented: `of ${RACE_WIDTH} confirms of one signed withdrawal sent at once, at most one answers 2xx and the others a 4xx or 409`,
      received: answers.map(failureOf),
      exchange: winners[1] ?? others[0],
    });
    const after = bucket((await usdcRow(t, user)).row, 'totalBalance');
    await settled();
    t.expect('OA-WDW-014', before - after === (winners.length === 1 ? amount : 0n) && after >= 0n, {
      documented: `USDC totalBalance drops by ${amount} once (${winners.length} confirm answered 2xx)`,
      received: { before: before.toString(), after: after.toString() },
    });
  },
});
