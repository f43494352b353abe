import { MINTS } from '../../quote-support.ts';
import { dataOf, FEE_WALLET } from '../../reads-support.ts';
import { HOUR, type Probe, type Row } from '../probe.ts';
import { cycled, dcaAfter, lifecycleScene, OCO, pastTheCap, readsScene, rows, rowsAfter, rowsOfFill } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/orders/executions.ts (OA-EXEC): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

const feeFields = (rows: Row[]) =>
  rows.map((r) => [r.platformFeeWallet === null, r.platformFeeBps === null, r.platformFeeMint === null, r.platformFeeAmount === null]);

export const EXECUTION_PROBES: Record<string, Probe> = {
  'executions-wrapped-in-an-object': async (t) => {
    const s = await readsScene(t);
    return Array.isArray(dataOf(await s.alice.get(`/orders/${s.order.id}/executions`)));
  },
  'order-executions-uncapped': async (t) => {
    const { bob, order } = await pastTheCap(t);
    return rows(await bob.get(`/orders/${order.id}/executions`)).length;
  },
  'executions-oldest-first': async (t) => {
    const rows = await rowsAfter(t, 2 * HOUR + 1);
    return Date.parse(String(rows[0]?.executedAt)) > Date.parse(String(rows[1]?.executedAt));
  },
  'execution-output-usd-as-decimal': async (t) =>
    (await cycled(t, HOUR + 1)).executions.map((r) => r.outputAmountUsd === null || /^(0|[1-9][0-9]*)$/.test(String(r.outputAmountUsd))),
  'execution-failure-reason-snake-case': async (t) => (await cycled(t, HOUR + 1)).executions.map((r) => 'failureReason' in r),
  'dca-cycle-recorded-as-dca': async (t) => (await cycled(t, HOUR + 1)).executions.map((r) => r.executionType),
  'execution-status-confirmed': async (t) => (await cycled(t, HOUR + 1)).executions.map((r) => r.status),
  'failed-execution-without-reason': async (t) => (await rowsAfter(t, HOUR + 1, { faults: { swaps: 'fail' } })).map((r) => r.failureReason),
  // execution rows
  'dca-cycle-writes-two-rows': async (t) => (await rowsAfter(t, HOUR + 1)).length,
  // execution rows (EXEC-010 .. 014)
  'armed-trigger-writes-a-row': (t) => rowsOfFill(t, 'stop_loss', { triggerPrice: '500000' }, ['1']),
  'trigger-fill-writes-a-failed-attempt-first': (t) => rowsOfFill(t, 'stop_loss', { triggerPrice: '500000' }, ['2']),
  'stop-loss-fill-recorded-as-take-profit': (t) => rowsOfFill(t, 'stop_loss', { triggerPrice: '500000' }, ['2']),
  'take-profit-fill-recorded-as-scaled': (t) => rowsOfFill(t, 'take_profit', { triggerPrice: '2000000' }, ['0.5']),
  'oco-fill-recorded-under-the-other-leg': (t) => rowsOfFill(t, 'oco', OCO, ['2']),
  'oco-fill-recorded-as-oco': (t) => rowsOfFill(t, 'oco', OCO, ['0.5']),
  'output-usd-priced-while-the-oracle-is-down': async (t) =>
    (await rowsAfter(t, HOUR + 1, { faults: { oracle: 'down' } })).map((r) => r.outputAmountUsd),
  'fee-snapshot-half-set': async (t) => feeFields(await rowsAfter(t, HOUR + 1, { tenant: { platformFeeBps: 100, feeWallet: FEE_WALLET } })),
  'fee-snapshot-never-recorded': async (t) =>
    feeFields(await rowsAfter(t, HOUR + 1, { tenant: { platformFeeBps: 100, feeWallet: FEE_WALLET } })),
  'zero-bps-fee-snapshot-recorded': async (t) =>
    feeFields(await rowsAfter(t, HOUR + 1, { tenant: { platformFeeBps: 0, feeWallet: FEE_WALLET } })),
  'fee-charged-without-a-fee-wallet': async (t) => feeFields(await rowsAfter(t, HOUR + 1, { tenant: { platformFeeBps: 100 } })),
  'dca-amount-received-not-accumulated': async (t) => (await dcaAfter(t, HOUR + 1)).amountReceived,
  'dca-last-execution-tx-hash-of-no-execution': async (t) => {
    const s = await lifecycleScene(t, HOUR + 1);
    return (await s.detail()).lastExecutionTxHash === (await s.executions())[0]?.txSignature;
  },
  'swap-output-lands-nowhere': async (t) => {
    const s = await lifecycleScene(t, HOUR + 1);
    return dataOf<{ balances: Row[] }>(await s.user.get('/me/balance')).balances.find((b) => b.mint === MINTS.SOL)?.totalBalance;
  },
};
