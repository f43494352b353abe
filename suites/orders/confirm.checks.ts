import { SystemProgram, Transaction } from '@solana/web3.js';
import { dataOf, errorCode, failureOf, is2xx } from '../harness/answers.ts';
import { type Check, defineCheck, type CheckContext } from '../harness/check.ts';
import { isObject } from '../shared/values.ts';
import { signedByThrowaway } from './signing-gate.ts';
import {
  atOnce,
  createOrder,
  depositAmount,
  type Funded,
  type Intent,
  intentRequest,
  intentUser,
  skipIfUnpaidLanded,
  unpaidDeposit,
  valuesOf,
  pendingIntent,
  postConfirm,
  postIntent,
  signedDeposit,
  skipIfTemplateRejected,
  usdc,
} from './orders.ts';
import { userWithSlice } from './steps/actions.ts';
import { orderIds, userWithIntent } from './steps/create.ts';
import { managerBalance } from './steps/dca.ts';
import { othersBracket } from './steps/shared-wallet.ts';
import { type ErrorAnswer, expectError, expectErrorEnvelope } from './steps/expect.ts';
import { asUser, onboardedOnTenant, otherTenantKey, throwawayWallet } from './users.ts';

/**
 * POST /orders/confirm (area CONF: "Orders: create"; Errors, Orders and transactions): the confirm of a signed deposit,
 * its documented refusals (missing fields, a transaction that is not one, a second confirm, another user's or tenant's
 * pending order, a running slice) and the 5-minute window. Tampered and wrongly signed deposits are judged in
 * confirm-tamper.checks.ts.
 */

/**
 * Confirms of the user's own pending order that the document refuses, one row per check: the bodies sent (each named
 * by what is wrong with it) and the answer each gets. A row citing OA-ENV-002 also judges the failure envelope.
 */
interface BadConfirm {
  name: string;
  /** The rule the answer judges first. */
  rules: Check['rules'];
  answer: ErrorAnswer;
  bodies(intent: Intent, user: Funded): Record<string, Record<string, unknown>>;
}

const BAD_CONFIRMS: readonly BadConfirm[] = [
  {
    name: 'confirm-without-pending-order-id-or-signed-transaction-answers-400-missing-params',
    rules: ['OA-CONF-015', 'OA-ENV-002'],
    answer: { status: 400, codes: ['MISSING_PARAMS'] },
    bodies: (intent, user) => {
      const signedTransaction = signedDeposit(intent, user);
      return {
        'only pendingOrderId': { pendingOrderId: intent.pendingOrderId },
        'only signedTransaction': { signedTransaction },
        neither: {},
      };
    },
  },
  {
    // The Errors table; the spec lists SUBMIT_FAILED under 500 only.
    name: 'confirm-with-a-signed-transaction-that-is-not-base64-answers-500-submit-failed',
    rules: ['OA-CONF-016', 'OA-ENV-002'],
    answer: { status: 500, codes: ['SUBMIT_FAILED'] },
    bodies: (intent) => ({
      'a signedTransaction that is not base64': { pendingOrderId: intent.pendingOrderId, signedTransaction: '%%% not base64 %%%' },
    }),
  },
  {
    // Valid base64 of bytes that are no transaction of the expected shape ("bad base64, wrong shape").
    name: 'confirm-with-base64-that-is-no-transaction-answers-500-submit-failed',
    rules: ['OA-CONF-016', 'OA-ENV-002'],
    answer: { status: 500, codes: ['SUBMIT_FAILED'] },
    bodies: (intent) => {
      const bytes = Buffer.from(intent.transaction, 'base64');
      const shapes: Record<string, string> = {
        'three zero bytes': 'AAAA',
        'a line of text': Buffer.from('this is not a solana transaction').toString('base64'),
        'the deposit transaction cut in half': bytes.subarray(0, Math.floor(bytes.length / 2)).toString('base64'),
      };
      return Object.fromEntries(
        Object.entries(shapes).map(([what, signedTransaction]) => [
          `base64 of ${what}`,
          { pendingOrderId: intent.pendingOrderId, signedTransaction },
        ]),
      );
    },
  },
  {
    name: 'confirm-of-the-unsigned-transaction-answers-500-submit-failed',
    rules: ['OA-CONF-017'],
    answer: { status: 500, codes: ['SUBMIT_FAILED'] },
    bodies: (intent) => ({
      "the unsigned transaction sent back without the user's signature": {
        pendingOrderId: intent.pendingOrderId,
        signedTransaction: intent.transaction,
      },
    }),
  },
];

function badConfirm({ name, rules, answer, bodies }: BadConfirm) {
  return defineCheck({
    name,
    service: 'orders',
    rules,
    profile: 'full',
    async run(t: CheckContext) {
      const { user, intent } = await userWithIntent(t);
      for (const [what, body] of Object.entries(bodies(intent, user))) {
        const ex = await postConfirm(t, user.sub, body);
        expectError(t, rules[0]!, ex, {
          ...answer,
          documented: `${answer.status} ${answer.codes.join(' or ')} for a confirm with ${what}`,
        });
        if (rules.includes('OA-ENV-002')) expectErrorEnvelope(t, ex);
      }
    },
  });
}

const badConfirms = BAD_CONFIRMS.map(badConfirm);

const confirmTwice = defineCheck({
  name: 'second-confirm-of-a-consumed-pending-order-answers-400-invalid-status',
  service: 'orders',
  rules: ['OA-CONF-001', 'OA-CONF-012', 'OA-ENV-002'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, intent } = await userWithIntent(t);
    const body = { pendingOrderId: intent.pendingOrderId, signedTransaction: signedDeposit(intent, user) };
    const first = await postConfirm(t, user.sub, body);
    t.expect('OA-CONF-001', is2xx(first), {
      documented: 'the first confirm of the signed, unchanged transaction answers 2xx',
      received: failureOf(first),
      exchange: first,
    });
    const ex = await postConfirm(t, user.sub, body);
    expectError(t, 'OA-CONF-012', ex, {
      status: 400,
      codes: ['INVALID_STATUS'],
      documented: '400 INVALID_STATUS for a second confirm of a consumed pendingOrderId (no idempotency key)',
    });
    expectErrorEnvelope(t, ex);
  },
});

const confirmNeverInvalidTransaction = defineCheck({
  name: 'confirm-never-answers-invalid-transaction-for-a-structural-problem',
  service: 'orders',
  rules: ['OA-CONF-018'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, intent } = await userWithIntent(t);
    for (const signedTransaction of ['%%% not base64 %%%', 'AAAA', intent.transaction]) {
      const ex = await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction });
      t.expect('OA-CONF-018', errorCode(ex) !== 'INVALID_TRANSACTION', {
        documented: 'POST /orders/confirm reports structural problems as SUBMIT_FAILED, never INVALID_TRANSACTION',
        received: failureOf(ex),
        exchange: ex,
      });
    }
  },
});

const confirmOtherUser = defineCheck({
  name: 'confirm-of-another-users-pending-order-answers-403-forbidden',
  service: 'orders',
  rules: ['OA-CONF-013'],
  profile: 'full',
  async run(t: CheckContext) {
    const owner = await intentUser(t, true);
    const other = await intentUser(t, true, 'second');
    const intent = await pendingIntent(t, owner);
    const ex = await postConfirm(t, other.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction: signedDeposit(intent, owner) });
    expectError(t, 'OA-CONF-013', ex, {
      status: 403,
      codes: ['FORBIDDEN'],
      documented: `403 FORBIDDEN when ${other.sub} confirms the pending order of ${owner.sub} (same tenant)`,
    });
  },
});

const confirmOtherTenant = defineCheck({
  name: 'confirm-of-another-tenants-pending-order-answers-403-forbidden',
  service: 'orders',
  rules: ['OA-CONF-014'],
  profile: 'full',
  async run(t: CheckContext) {
    const owner = await intentUser(t, true);
    const intent = await pendingIntent(t, owner);
    const tenant = await otherTenantKey(t);
    const wallet = await onboardedOnTenant(t, tenant.apiKey);
    const ex = await asUser(t, wallet.sub, {
      method: 'POST',
      path: '/orders/confirm',
      headers: { 'X-Service-Key': tenant.apiKey },
      json: { pendingOrderId: intent.pendingOrderId, signedTransaction: signedDeposit(intent, owner) },
    });
    expectError(t, 'OA-CONF-014', ex, {
      status: 403,
      codes: ['FORBIDDEN'],
      documented: '403 FORBIDDEN when a user of another tenant confirms the pending order',
    });
  },
});

const confirmUnknown = defineCheck({
  name: 'confirm-of-an-unknown-pending-order-answers-4xx',
  service: 'orders',
  rules: ['OA-CONF-019'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    // A well-formed signed transaction, so that only the unknown pendingOrderId is wrong.
    const payer = throwawayWallet();
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: throwawayWallet().publicKey.toBase58() }).add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: throwawayWallet().publicKey, lamports: 1 }),
    );
    const signedTransaction = signedByThrowaway(tx, payer);
    const ex = await postConfirm(t, user.sub, { pendingOrderId: '3f2b8c1e-9a4d-4e7b-8c21-5d6f7a8b9c0d', signedTransaction });
    t.expect('OA-CONF-019', ex.response.status >= 400 && ex.response.status < 500, {
      documented: '4xx (NOT_FOUND or INVALID_STATE) for a confirm of a pendingOrderId that was never issued',
      received: failureOf(ex),
      exchange: ex,
    });
  },
});

const sliceRace = defineCheck({
  name: 'second-slice-confirmed-while-one-is-running-answers-409-active-burst-exists-and-the-deposit-lands',
  service: 'orders',
  rules: ['OA-CONF-020', 'OA-CONF-021'],
  profile: 'full',
  async run(t: CheckContext) {
    // With `funding` a fresh user and its first slice; else the partner wallet's slice order of the run, which must
    // still be running (no second slice is confirmed beside a finished one: it would run on the partner's funds).
    const { user, created: first } = await userWithSlice(t);
    const shared = !t.control.has('funding');
    if (shared && !RUNNING_SLICE.includes(String(await sliceStatus(t, user, first.orderId))))
      t.skip(`the partner wallet's slice order ${first.orderId} has stopped running: no second slice can race it; rerun it`);
    const second = await pendingIntent(t, user, intentRequest('slice'));
    const slices = shared ? (await orderIds(t, user.sub, 'slice')).ids : [];
    const settled = await othersBracket(t, user);
    const before = await managerBalance(t, user, usdc());
    const ex = await postConfirm(t, user.sub, { pendingOrderId: second.pendingOrderId, signedTransaction: signedDeposit(second, user) });
    if (is2xx(ex)) {
      // ASSUMED (OA-CONF-020): one running slice per user. Only a first slice that has stopped running excuses a 2xx.
      const status = await sliceStatus(t, user, first.orderId);
      if (!RUNNING_SLICE.includes(String(status)))
        t.skip(`the second slice was confirmed after the first stopped running (${String(status)}): no race happened`);
      t.fail('OA-CONF-020', {
        documented: `409 ACTIVE_BURST_EXISTS for a second slice confirmed while the first (${first.orderId}) is ${String(status)}`,
        received: failureOf(ex),
        exchange: ex,
      });
    }
    expectError(t, 'OA-CONF-020', ex, {
      status: 409,
      codes: ['ACTIVE_BURST_EXISTS'],
      documented: "409 ACTIVE_BURST_EXISTS for a second slice confirmed while the user's first slice is running",
    });
    const after = await managerBalance(t, user, usdc());
    // On the partner's shared wallet other orders (the running slice among them) move USDC too: the bracket skips then.
    await settled();
    t.expect('OA-CONF-021', after - before === BigInt(depositAmount(second.request)), {
      documented: `the deposit landed: the manager's USDC grew by ${depositAmount(second.request)}`,
      received: { before: before.toString(), after: after.toString() },
      exchange: ex,
    });
    const { ex: list, ids } = await orderIds(t, user.sub, 'slice');
    // With `funding` the user's only slice order is its first; the partner's wallet may list slice orders of earlier
    // runs too: no slice order appeared beside those listed before the confirm.
    const made = ids.filter((id) => !slices.includes(id));
    t.expect('OA-CONF-021', ids.includes(first.orderId) && (shared ? made.length === 0 : ids.length === 1), {
      documented: shared
        ? `no order exists for the lost slice: GET /me/orders?type=slice lists the slice orders it listed before the confirm (${first.orderId} among them), no other`
        : `no order exists for the lost slice: the user's only slice order is ${first.orderId}`,
      received: shared ? { made, listed: ids } : ids,
      exchange: list,
    });
  },
});

/** The statuses of a slice order that still runs. */
const RUNNING_SLICE = ['active', 'executing'];

/** The slice order's status as GET /slice/{id} shows it (undefined when it does not). */
async function sliceStatus(t: CheckContext, user: Funded, orderId: string): Promise<unknown> {
  const detail = await asUser(t, user.sub, { method: 'GET', path: `/slice/${orderId}` });
  const order = dataOf(detail)?.order;
  return isObject(order) ? order.status : undefined;
}

const depositSignature = defineCheck({
  name: 'confirm-tx-signature-is-the-signature-of-the-deposit-record',
  service: 'orders',
  rules: ['OA-CONF-003'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const created = await createOrder(t, user);
    const ex = await asUser(t, user.sub, { method: 'GET', path: `/orders/${created.orderId}/deposit` });
    const d = dataOf(ex);
    t.expect('OA-CONF-003', is2xx(ex) && d?.txSignature === created.txSignature, {
      documented: `the deposit record's txSignature is the confirm's ${created.txSignature}`,
      received: failureOf(ex),
      exchange: ex,
    });
  },
});

const sliceListed = defineCheck({
  name: 'confirmed-slice-is-listed-and-served-by-get-slice',
  service: 'orders',
  rules: ['OA-CONF-006'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, created } = await userWithSlice(t);
    const { ex: list, ids } = await orderIds(t, user.sub, 'slice');
    t.expect('OA-CONF-006', ids.includes(created.orderId), {
      documented: `GET /me/orders lists the confirmed slice ${created.orderId}`,
      received: ids,
      exchange: list,
    });
    const ex = await asUser(t, user.sub, { method: 'GET', path: `/slice/${created.orderId}` });
    t.expect('OA-CONF-006', is2xx(ex), {
      documented: `GET /slice/${created.orderId} answers 2xx for the confirmed slice`,
      received: failureOf(ex),
      exchange: ex,
    });
  },
});

/** Just inside a pending order's 5-minute window: 4 minutes 50 seconds after the intent. */
const INSIDE_S = 4 * 60 + 50;

const confirmInsideWindow = defineCheck({
  name: 'confirm-just-inside-the-five-minute-window-succeeds',
  service: 'orders',
  rules: ['OA-CONF-008'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock'],
  async run(t: CheckContext) {
    // The service's time before the intent, then the clock moved to 4 minutes 50 seconds after it less what passed
    // since (the virtual clock goes on with the wall clock): the window, opened at the intent, has 10 s or more left.
    const [user, before] = await atOnce(
      t,
      () => intentUser(t, true),
      () => t.control.clock(),
    );
    const started = Date.now();
    const intent = await pendingIntent(t, user);
    const elapsed = Math.ceil((Date.now() - started) / 1000);
    const landed = (Date.parse(await t.control.advanceClock(Math.max(0, INSIDE_S - elapsed))) - Date.parse(before)) / 1000;
    t.note(`the target's virtual clock was advanced to ${landed.toFixed(1)} s after its time before the intent (shared time)`);
    if (landed > INSIDE_S + 5)
      t.skip(`the clock reached ${landed.toFixed(1)} s after the intent before the confirm could go: not just inside the 5-minute window`);
    const ex = await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction: signedDeposit(intent, user) });
    t.expect('OA-CONF-008', is2xx(ex), {
      documented: `2xx for a confirm ${landed.toFixed(1)} s after the intent (its 5-minute window not over)`,
      received: failureOf(ex),
      exchange: ex,
    });
  },
});

/**
 * Last of the group on purpose: it moves the target's virtual clock 5 minutes and 1 second forward, shared time for
 * every later check (the service's time is read from the clock by the checks that need it).
 */
const confirmLate = defineCheck({
  name: 'confirm-after-the-five-minute-window-answers-400-expired',
  service: 'orders',
  rules: ['OA-CONF-007', 'OA-CONF-009', 'OA-ENV-002'],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock'],
  async run(t: CheckContext) {
    const { user, intent } = await userWithIntent(t);
    const signedTransaction = signedDeposit(intent, user);
    await t.control.advanceClock(5 * 60 + 1);
    t.note("the target's virtual clock was advanced by 301 seconds (shared time)");
    const ex = await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction });
    const code = errorCode(ex);
    // OA-CONF-009 (UNKNOWNS): TRANSACTION_EXPIRED and INVALID_STATE also describe a late confirm; only another class of answer fails.
    if (ex.response.status === 400 && (code === 'TRANSACTION_EXPIRED' || code === 'INVALID_STATE')) {
      t.note(`a late confirm answered 400 ${code} (accepted, OA-CONF-009) rather than 400 EXPIRED`);
    }
    expectError(t, 'OA-CONF-007', ex, {
      status: 400,
      codes: ['EXPIRED', 'TRANSACTION_EXPIRED', 'INVALID_STATE'],
      documented: '400 EXPIRED for a confirm after the 5-minute window (TRANSACTION_EXPIRED or INVALID_STATE also accepted, OA-CONF-009)',
    });
    expectErrorEnvelope(t, ex);
  },
});

/** The statuses of an order that runs (or waits to run) on its deposit. */
const RUNNING = ['active', 'executing', 'pending', 'paused', 'pending_modification'];

const confirmWithoutDeposit = defineCheck({
  name: 'confirm-whose-deposit-cannot-land-leaves-no-running-order',
  service: 'orders',
  rules: ['OA-CONF-025'],
  profile: 'full',
  async run(t: CheckContext) {
    // The wallet pays the fees but holds none of the deposit's input mint: the signed deposit cannot land.
    const { user, request } = await unpaidDeposit(t, intentRequest('dca'));
    const intentEx = await postIntent(t, user.sub, request);
    skipIfTemplateRejected(t, intentEx);
    const data = dataOf(intentEx);
    if (!is2xx(intentEx) || typeof data?.transaction !== 'string')
      t.skip(
        `the intent of a deposit the wallet cannot pay answered ${intentEx.response.status} ${String(errorCode(intentEx))}: nothing to confirm`,
      );
    const ex = await postConfirm(t, user.sub, {
      pendingOrderId: data.pendingOrderId,
      signedTransaction: signedDeposit({ data, ex: intentEx }, user),
    });
    const answered = isObject(dataOf(ex)?.order) ? (dataOf(ex)!.order as Record<string, unknown>) : undefined;
    await skipIfUnpaidLanded(t, user);
    t.note(`the confirm of a deposit that cannot land answered ${ex.response.status} ${String(errorCode(ex) ?? answered?.status)}`);
    t.expect('OA-CONF-025', !is2xx(ex) || !RUNNING.includes(String(answered?.status)), {
      documented: 'a confirm whose deposit cannot land answers an error (500 TX_FAILED), never 2xx with a running order',
      received: failureOf(ex),
      exchange: ex,
    });
    const listed = await asUser(t, user.sub, { path: '/me/orders' });
    const list = (listed.response.body as { data?: unknown } | undefined)?.data;
    // The partner's wallet (no `funding`) has orders of other checks: only those of the input mint of this deposit count.
    const rows = (Array.isArray(list) ? list.filter(isObject) : []).filter(
      (row) => t.control.has('funding') || row.inputMint === valuesOf(request).inputMint,
    );
    t.expect('OA-CONF-025', is2xx(listed) && !rows.some((row) => RUNNING.includes(String(row.status))), {
      documented: `after the failed deposit GET /me/orders lists no order of the user in a running status (${RUNNING.join(', ')})`,
      received: { status: listed.response.status, orders: rows.map((row) => ({ id: row.id, status: row.status })) },
      exchange: listed,
    });
  },
});

/**
 * The group in running order (a module namespace lists its exports alphabetically, an array keeps this order): the
 * clock-advancing confirms run last.
 */
export const confirmChecks = [
  ...badConfirms,
  confirmTwice,
  confirmNeverInvalidTransaction,
  confirmOtherUser,
  confirmOtherTenant,
  confirmUnknown,
  sliceRace,
  depositSignature,
  sliceListed,
  confirmInsideWindow,
  confirmWithoutDeposit,
  confirmLate,
];
