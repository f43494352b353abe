import { Keypair } from '@solana/web3.js';
import { dataOf, is2xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { atOnce, dcaRequest, fundUser, INT, intentUser, postConfirm, postIntent, signedDeposit, unpaidDeposit } from './orders.ts';
import { userWithSlice } from './steps/actions.ts';
import { serviceNow, waitFor } from './steps/blackbox.ts';
import {
  advancePast,
  dcaOrder,
  fetchDca,
  fetchExecutions,
  judgedLater,
  readExecutions,
  withFaults,
  type Actor,
  type Row,
} from './steps/dca.ts';
import { actorOrder, expectExecutionRows, runCycles, tenantUser } from './steps/executions.ts';
import { LIST_CAP, rowsOf } from './steps/reads.ts';
import { servedRequest } from './users.ts';
import { USER_ORDER_RULES } from './steps/invariant-rules.ts';

/**
 * Execution rows (area EXEC; "Resources and their fields: Execution"): the fee snapshot against the tenant's fee settings, the
 * price oracle's outage, the slice fills. Rows come from DCA cycles run on the target's virtual clock.
 */

/** A funded user of a new tenant created with `tenant` (POST /tenants options), with one confirmed DCA order. */
async function tenantDca(
  t: CheckContext,
  tenant: { platformFeeBps: number; feeWallet?: string },
): Promise<{ user: Actor; orderId: string; order: Row }> {
  const { apiKey } = await t.control.createTenant(tenant);
  const user = await tenantUser(t, apiKey);
  return { user, ...(await actorOrder(t, user)) };
}

const FEE_FIELDS = ['platformFeeWallet', 'platformFeeBps', 'platformFeeMint', 'platformFeeAmount'];
const noFee = (row: Row) => FEE_FIELDS.every((k) => row[k] === null);

export const feeSnapshotFollowsTheTenant = defineCheck({
  name: 'execution-fee-snapshot-follows-the-tenant-fee-settings',
  service: 'orders',
  rules: ['OA-EXEC-017', 'OA-EXEC-018', 'OA-EXEC-019', 'OA-EXEC-020', ...USER_ORDER_RULES],
  profile: 'full',
  needs: ['funding', 'clock', 'tenants'],
  async run(t: CheckContext) {
    const feeWallet = Keypair.generate().publicKey.toBase58();
    // Three tenants, each with its own user and order: independent, so set up at once.
    const [charged, zeroBps, noWallet] = await atOnce(
      t,
      () => tenantDca(t, { platformFeeBps: 100, feeWallet }),
      () => tenantDca(t, { platformFeeBps: 0, feeWallet }),
      () => tenantDca(t, { platformFeeBps: 100 }),
    );
    await runCycles(
      t,
      [charged, zeroBps, noWallet].map((o) => o.order),
    );

    // Every order and its rows, read at once after the cycles ran (no write in between), judged tenant by tenant.
    const [chargedDca, chargedRows, zeroDca, zeroRows, noneDca, noneRows] = await atOnce(
      t,
      () => fetchDca(t, charged.user, charged.orderId),
      () => fetchExecutions(t, charged.user, charged.orderId),
      () => fetchDca(t, zeroBps.user, zeroBps.orderId),
      () => fetchExecutions(t, zeroBps.user, zeroBps.orderId),
      () => fetchDca(t, noWallet.user, noWallet.orderId),
      () => fetchExecutions(t, noWallet.user, noWallet.orderId),
    );
    const successRows = (order: () => unknown, executions: () => { ex: Exchange; rows: Row[] }) => {
      order();
      const read = executions();
      const rows = read.rows.filter((r) => r.status === 'success');
      if (rows.length === 0)
        t.skip(`no success execution row after the first cycle time (rows: ${JSON.stringify(read.rows).slice(0, 300)})`);
      return { ...read, rows };
    };
    const fee = successRows(chargedDca, chargedRows);
    t.expect(
      'OA-EXEC-018',
      fee.rows.every(
        (r) =>
          typeof r.platformFeeWallet === 'string' &&
          Number.isInteger(r.platformFeeBps) &&
          typeof r.platformFeeMint === 'string' &&
          typeof r.platformFeeAmount === 'string' &&
          INT.test(r.platformFeeAmount),
      ),
      {
        documented:
          'on a tenant with a fee wallet and 100 bps, every success row carries platformFeeWallet, platformFeeBps, platformFeeMint and platformFeeAmount',
        received: fee.rows,
        exchange: fee.ex,
      },
    );
    const zero = successRows(zeroDca, zeroRows);
    t.expect('OA-EXEC-019', zero.rows.every(noFee), {
      documented: 'on a tenant with zero fee bps, all four fee snapshot fields null',
      received: zero.rows,
      exchange: zero.ex,
    });
    const none = successRows(noneDca, noneRows);
    t.expect('OA-EXEC-020', none.rows.every(noFee), {
      documented: 'on a tenant without a fee wallet, all four fee snapshot fields null',
      received: none.rows,
      exchange: none.ex,
    });
  },
});

export const outputUsdNullWhileOracleDown = defineCheck({
  name: 'execution-output-amount-usd-null-while-the-oracle-is-down',
  service: 'orders',
  rules: ['OA-EXEC-015', 'OA-EXEC-017', ...USER_ORDER_RULES],
  profile: 'full',
  pooledUser: true,
  needs: ['funding', 'clock', 'faults'],
  async run(t: CheckContext) {
    const { user, orderId, order } = await dcaOrder(t);
    const during = await withFaults(
      t,
      { oracle: 'down' },
      { oracle: 'up' },
      async (now) => {
        await advancePast(t, order.nextExecutionAt, Number(order.cycleFrequencySeconds), now);
        return await readExecutions(t, user, orderId);
      },
      { clock: true },
    );
    if (during.rows.length === 0) t.skip('no execution row was written while the oracle was down');
    t.expect(
      'OA-EXEC-015',
      during.rows.every((r) => r.outputAmountUsd === null),
      {
        documented: 'outputAmountUsd null on every row executed while pricing was unavailable',
        received: during.rows.map((r) => ({ status: r.status, outputAmountUsd: r.outputAmountUsd })),
        exchange: during.ex,
      },
    );
  },
});

export const sliceRowsAreSliceFills = defineCheck({
  name: 'slice-order-execution-rows-are-slice-fills',
  service: 'orders',
  rules: ['OA-SLICE-003', 'OA-EXEC-017'],
  profile: 'full',
  pooledUser: true,
  alone: true,
  async run(t: CheckContext) {
    const { user, created } = await userWithSlice(t);
    if (t.control.has('clock')) await t.control.advanceClock(3600);
    // Without the clock the slice fills in real time: its first row is awaited within the wait budget (blackbox.ts).
    const read = () => readExecutions(t, user, created.orderId);
    const { ex, rows } = t.control.has('clock')
      ? await read()
      : (await waitFor(t, read, (r) => r.rows.length > 0, { stepSeconds: 60, untilMs: (await serviceNow(t)) + 180_000 })).value;
    if (rows.length === 0 && !t.control.has('clock'))
      t.skip("the partner wallet's slice order has no execution row yet (it fills in real time): nothing to judge; a later run may");
    if (rows.length === 0) t.note('the slice order has no execution row yet');
    t.expect(
      'OA-SLICE-003',
      rows.every((r) => r.executionType === 'slice_fill'),
      { documented: 'every execution row of a slice order is a slice_fill', received: rows.map((r) => r.executionType), exchange: ex },
    );
  },
});

export const unconfirmedDepositIsTxFailed = defineCheck({
  name: 'deposit-that-does-not-confirm-is-reported-in-the-failure-envelope',
  service: 'orders',
  rules: ['OA-ERR-010'],
  profile: 'full',
  async run(t: CheckContext) {
    // The wallet pays the fees but holds none of the deposit's USDC: the signed deposit cannot confirm.
    const { user, request } = await unpaidDeposit(t, dcaRequest());
    const intent = await postIntent(t, user.sub, request);
    const d = dataOf(intent);
    if (!is2xx(intent) || typeof d?.transaction !== 'string')
      t.skip(`the intent of an unfunded deposit answered ${intent.response.status}: no deposit to submit`);
    const ex = await postConfirm(t, user.sub, {
      pendingOrderId: d.pendingOrderId,
      signedTransaction: signedDeposit({ data: d, ex: intent }, user),
    });
    const body = ex.response.body as { success?: unknown; error?: { code?: unknown; message?: unknown } } | undefined;
    const code = body?.error?.code;
    t.note(`confirm of an unfunded deposit answered ${ex.response.status} ${String(code)}`);
    if (code !== 'TX_FAILED' && code !== 'INTERNAL_ERROR') return;
    t.expect('OA-ERR-010', ex.response.status === 500 && body?.success === false && typeof body.error?.message === 'string', {
      documented: `${String(code)} answered 500 with the failure envelope {success: false, error: {code, message}}`,
      received: { status: ex.response.status, body },
      exchange: ex,
    });
  },
});

/** More cycles than the 500-row cap of execution lists: 60-second cycles of 12 USDC (above the default minimum). */
const CAPPED_CYCLES = 510;

export const executionListsAreCappedAt500 = defineCheck({
  name: 'dca-order-of-510-cycles-lists-500-execution-rows-of-the-documented-shape',
  service: 'orders',
  rules: [
    'OA-EXEC-001',
    'OA-EXEC-002',
    'OA-EXEC-003',
    'OA-EXEC-004',
    'OA-EXEC-005',
    'OA-EXEC-006',
    'OA-EXEC-007',
    'OA-EXEC-017',
    'OA-REP-020',
    ...USER_ORDER_RULES,
  ],
  profile: 'full',
  needs: ['funding', 'clock'],
  async run(t: CheckContext) {
    const user: Actor = await intentUser(t, false);
    const perCycle = 12_000_000n;
    await fundUser(t, user.userPubkey, String(perCycle * BigInt(CAPPED_CYCLES + 10)));
    const { orderId, order } = await actorOrder(
      t,
      user,
      dcaRequest({ totalAmount: String(perCycle * BigInt(CAPPED_CYCLES)), amountPerCycle: String(perCycle), cycleFrequencySeconds: 60 }),
    );
    await runCycles(t, [order], CAPPED_CYCLES);
    // The order, its rows and the partner's report of the user's rows, read at once (judged in turn below).
    const [afterRead, rowsRead, partner] = await atOnce(
      t,
      () => fetchDca(t, user, orderId),
      () => fetchExecutions(t, user, orderId),
      () =>
        judgedLater(async () => {
          const ex = await servedRequest(t, { path: `/partners/me/executions?userId=${encodeURIComponent(user.userId)}` });
          return () => ex;
        }),
    );
    const after = afterRead().order;
    if (!(Number(after.cyclesCompleted) > LIST_CAP))
      t.skip(
        `the order ran ${String(after.cyclesCompleted)} cycles (status ${String(after.status)}), not more than ${LIST_CAP}: the cap cannot be reached`,
      );

    const { ex, rows } = rowsRead();
    if (rows.length === 0)
      t.skip(`GET /orders/${orderId}/executions lists no row after ${String(after.cyclesCompleted)} cycles: no row to judge`);
    t.expect(
      'OA-EXEC-001',
      rows.every((r) => r.orderId === orderId),
      { documented: `rows of the order ${orderId}`, received: rows.slice(0, 3), exchange: ex },
    );
    t.expect('OA-EXEC-002', rows.length <= LIST_CAP, {
      documented: `at most ${LIST_CAP} rows of ${String(after.cyclesCompleted)} cycles`,
      received: rows.length,
      exchange: ex,
    });
    expectExecutionRows(t, rows, ex);

    const report = partner();
    const reported = rowsOf(t, 'OA-REP-020', report);
    t.expect('OA-REP-020', reported.length <= LIST_CAP, {
      documented: `at most ${LIST_CAP} rows of the user's ${String(after.cyclesCompleted)} cycles`,
      received: reported.length,
      exchange: report,
    });
  },
});
