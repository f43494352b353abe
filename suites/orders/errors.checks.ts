import { randomUUID } from 'node:crypto';
import { dataOf, errorCode, failureOf, is2xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed } from '../harness/failure.ts';
import { isObject, randomToken } from '../shared/values.ts';
import { createOrder, dcaRequest, intentRequest, intentUser, pendingIntent, postConfirm, postIntent, signedDeposit } from './orders.ts';
import { ERROR_STATUSES } from './error-table.ts';
import { act, readOrder } from './steps/actions.ts';
import { userWithIntent } from './steps/create.ts';
import { asUser, correctBody, postOnboard, servedRequest, testWallet } from './users.ts';
import { expectAccepted } from './steps/expect.ts';

/**
 * The Errors section as a whole (HTTP status of every code, retries after faults), Events (state changes are found by
 * polling) and Versioning 1 (the identity field names).
 */

const IDEMPOTENCY_KEY = 'X-Idempotency-Key';

/** The rows of a 2xx list answer (a broken list read is a broken precondition). */
function listRows(ex: Exchange): unknown[] {
  const body = ex.response.body;
  if (!is2xx(ex) || !isObject(body) || !Array.isArray(body.data))
    throw new SetupFailed(`${ex.request.method} ${ex.request.url} answered ${ex.response.status}`, ex);
  return body.data;
}

/** 422 only with IDEMPOTENCY_KEY_REUSED (OA-ERR-002), then the table's status for a listed code (OA-ERR-001). */
function judgeStatus(t: CheckContext, what: string, ex: Exchange): void {
  const code = errorCode(ex);
  t.expect('OA-ERR-002', ex.response.status !== 422 || code === 'IDEMPOTENCY_KEY_REUSED', {
    documented: `${what}: HTTP 422 only with IDEMPOTENCY_KEY_REUSED`,
    received: failureOf(ex),
    exchange: ex,
  });
  const statuses = typeof code === 'string' ? ERROR_STATUSES[code] : undefined;
  t.expect('OA-ERR-001', !statuses || statuses.includes(ex.response.status), {
    documented: `${what}: ${String(code)} comes with HTTP ${statuses?.join(' or ')} (Errors table)`,
    received: failureOf(ex),
    exchange: ex,
  });
}

export const errorStatusesFollowTheTable = defineCheck({
  name: 'every-error-code-comes-with-the-status-of-the-errors-table',
  service: 'orders',
  rules: ['OA-ERR-001', 'OA-ERR-002'],
  profile: 'full',
  // The codes of a chain that is down (a fault every check shares): rpcUnavailableIsRetryable, which runs alone.
  async run(t: CheckContext) {
    const unknownOrder = randomUUID();
    const probes: Array<[string, () => Promise<Exchange>]> = [
      ['GET /me without X-Service-Key', () => servedRequest(t, { path: '/me', headers: { 'X-Service-Key': undefined }, validate: false })],
      ['GET /me as a never-onboarded sub', () => asUser(t, randomToken('never-onboarded'), { path: '/me' })],
      ['POST /partner/onboard with {}', () => postOnboard(t, {})],
      [
        'GET /partners/me/orders?createdAtGte=not-a-time',
        () => servedRequest(t, { path: '/partners/me/orders', query: { createdAtGte: 'not-a-time' } }),
      ],
    ];
    for (const [what, send] of probes) judgeStatus(t, what, await send());

    const user = await intentUser(t, t.control.has('funding'));
    const userProbes: Array<[string, () => Promise<Exchange>]> = [
      ['GET /dca/{id} of an unknown order', () => asUser(t, user.sub, { path: `/dca/${unknownOrder}` })],
      [
        'POST /orders/{id}/withdraw/abandon of an unknown order',
        () => asUser(t, user.sub, { method: 'POST', path: `/orders/${unknownOrder}/withdraw/abandon`, json: {} }),
      ],
      ['POST /orders/confirm with {}', () => postConfirm(t, user.sub, {})],
      ['POST /orders/intent with orderType "bogus"', () => postIntent(t, user.sub, { ...dcaRequest(), orderType: 'bogus' })],
    ];
    for (const [what, send] of userProbes) judgeStatus(t, what, await send());

    // Idempotency 5: the same key with another body.
    const key = randomToken('err-table');
    const first = await postIntent(t, user.sub, dcaRequest(), { [IDEMPOTENCY_KEY]: key });
    if (is2xx(first))
      judgeStatus(
        t,
        'POST /orders/intent, same key, another body',
        await postIntent(t, user.sub, intentRequest('slice'), { [IDEMPOTENCY_KEY]: key }),
      );

    if (t.control.has('funding')) {
      const intent = await pendingIntent(t, user);
      judgeStatus(
        t,
        'POST /orders/confirm with a signedTransaction that is not base64',
        await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction: '!!not base64!!' }),
      );
    }
  },
});

export const submitFailedIsRetryable = defineCheck({
  name: 'a-confirm-answered-submit-failed-succeeds-when-repeated-with-its-key',
  service: 'orders',
  rules: ['OA-ERR-008'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, intent } = await userWithIntent(t);
    const idOf = (row: unknown) => (isObject(row) ? row.id : undefined);
    const known = new Set(listRows(await asUser(t, user.sub, { path: '/me/orders' })).map(idOf));
    const headers = { [IDEMPOTENCY_KEY]: randomToken('submit-failed') };
    // "SUBMIT_FAILED also covers a bad transaction sent to /orders/confirm (... missing signatures)": the unsigned one.
    const unsigned = await postConfirm(
      t,
      user.sub,
      { pendingOrderId: intent.pendingOrderId, signedTransaction: intent.transaction },
      headers,
    );
    if (!['SUBMIT_FAILED', 'CONFIRMATION_FAILED', 'ORDER_FINALIZE_FAILED'].includes(String(errorCode(unsigned)))) {
      t.skip(
        `a confirm of the unsigned deposit answered ${unsigned.response.status} ${String(errorCode(unsigned))}, not a retryable submit failure`,
      );
    }
    const again = await postConfirm(
      t,
      user.sub,
      { pendingOrderId: intent.pendingOrderId, signedTransaction: signedDeposit(intent, user) },
      headers,
    );
    expectAccepted(
      t,
      'OA-ERR-008',
      again,
      `after ${String(errorCode(unsigned))} ("safe to retry"), the confirm repeated with the same key and the signature succeeds (2xx with the order)`,
      isObject(dataOf(again)?.order),
    );
    const orders = await asUser(t, user.sub, { path: '/me/orders' });
    const rows = listRows(orders).filter((row) => !known.has(idOf(row)));
    t.expect('OA-ERR-008', rows.length === 1, {
      documented: 'no duplicate effect: the user has exactly one new order after the failed and the repeated confirm',
      received: { newOrders: rows.length },
      exchange: orders,
    });
  },
});

export const rpcUnavailableIsRetryable = defineCheck({
  name: 'an-intent-answered-rpc-unavailable-succeeds-when-repeated-after-the-chain-returns',
  service: 'orders',
  rules: ['OA-ERR-009', 'OA-ERR-001', 'OA-ERR-002'],
  profile: 'full',
  needs: ['faults'],
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    const headers = { [IDEMPOTENCY_KEY]: randomToken('rpc-unavailable') };
    t.defer(async () => {
      await t.control.setFaults({ rpc: 'up' });
    });
    await t.control.setFaults({ rpc: 'down' });
    // The Errors table's status of each code a chain that is down brings (the others: errorStatusesFollowTheTable).
    // A 5xx whose status the Errors table gives its code is what this check waits for: taken at once, no retry waits;
    // any other is retried as before (a passing outage is not judged).
    const settled = (ex: Exchange) => {
      const statuses = ERROR_STATUSES[String(errorCode(ex))];
      return ex.response.status >= 500 && statuses !== undefined && statuses.includes(ex.response.status);
    };
    const balance = await asUser(t, user.sub, { path: '/me/balance', retry: false, settled });
    judgeStatus(t, 'GET /me/balance with the chain down', balance);
    const down = await postIntent(t, user.sub, dcaRequest(), headers);
    judgeStatus(t, 'POST /orders/intent with the chain down', down);
    await t.control.setFaults({ rpc: 'up' });
    if (down.response.status !== 503 || errorCode(down) !== 'RPC_UNAVAILABLE') {
      t.skip(
        `POST /orders/intent with the chain down answered ${down.response.status} ${String(errorCode(down) ?? '')}, not 503 RPC_UNAVAILABLE`,
      );
    }
    const again = await postIntent(t, user.sub, dcaRequest(), headers);
    expectAccepted(
      t,
      'OA-ERR-009',
      again,
      'after 503 RPC_UNAVAILABLE ("retry shortly"), the same intent with the same key succeeds once the chain is back',
      typeof dataOf(again)?.pendingOrderId === 'string',
    );
  },
});

export const actionsVisibleOnTheNextPoll = defineCheck({
  name: 'pause-resume-and-cancel-show-on-the-very-next-poll-of-detail-and-list',
  service: 'orders',
  rules: ['OA-EVT-002'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const created = await createOrder(t, user, dcaRequest());
    for (const [action, status] of [
      ['pause', 'paused'],
      ['resume', 'active'],
      ['cancel', 'cancelled'],
    ] as const) {
      const ex = await act(t, user, created.orderId, action, action === 'cancel' ? { withdraw: false } : {});
      if (!is2xx(ex)) t.skip(`${action} answered ${ex.response.status} ${String(errorCode(ex) ?? '')}: no state change to poll for`);
      const detail = await readOrder(t, user, created);
      t.expect('OA-EVT-002', detail.status === status, {
        documented: `the detail polled right after ${action} shows status ${status}`,
        received: detail.status,
        exchange: t.exchanges.at(-1),
      });
      const list = await asUser(t, user.sub, { path: '/me/orders' });
      const row = listRows(list).find((r) => isObject(r) && r.id === created.orderId);
      t.expect('OA-EVT-002', isObject(row) && row.status === status, {
        documented: `GET /me/orders polled right after ${action} lists order ${created.orderId} with status ${status}`,
        received: isObject(row) ? row.status : '(not listed)',
        exchange: list,
      });
    }
    const history = await asUser(t, user.sub, { path: '/me/orders/history' });
    t.expect(
      'OA-EVT-002',
      listRows(history).some((r) => isObject(r) && r.id === created.orderId),
      {
        documented: `GET /me/orders/history polled right after cancel lists order ${created.orderId}`,
        received: listRows(history),
        exchange: history,
      },
    );
  },
});

export const identityFieldNames = defineCheck({
  name: 'onboarding-and-me-name-the-identity-userid-and-walletaddress',
  service: 'orders',
  rules: ['OA-VER-001'],
  profile: 'full',
  async run(t: CheckContext) {
    const wallet = testWallet(t);
    const onboard = await postOnboard(t, await correctBody(t, wallet.sub, wallet.keypair));
    if (!is2xx(onboard)) throw new SetupFailed(`onboarding ${wallet.sub} answered ${onboard.response.status}`, onboard);
    expectIdentityNames(t, 'POST /partner/onboard', onboard);
    const me = await asUser(t, wallet.sub, { path: '/me' });
    if (!is2xx(me)) throw new SetupFailed(`GET /me answered ${me.response.status}`, me);
    expectIdentityNames(t, 'GET /me', me);
  },
});

/** Versioning 1: the names are stable, the formats may change (OA-VER-002): any non-empty string. */
function expectIdentityNames(t: CheckContext, what: string, ex: Exchange): void {
  const d = dataOf(ex);
  t.expect(
    'OA-VER-001',
    typeof d?.userId === 'string' && d.userId !== '' && typeof d.walletAddress === 'string' && d.walletAddress !== '',
    {
      documented: `${what}: data carries userId and walletAddress under exactly those names (non-empty strings)`,
      received: d,
      exchange: ex,
    },
  );
}
