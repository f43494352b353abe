import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newOrder } from '../../fixtures/server/orders/confirm.ts';
import { moveTo } from '../../fixtures/server/orders/lifecycle/state-machine.ts';
import type { Order } from '../../fixtures/server/store/orders.ts';
import { SLICE_INTENT } from './action-support.ts';
import { MINTS } from './quote-support.ts';
import { dataOf, DCA_INTENT, FEE_WALLET, lifecycleUser, type ReadsUser } from './reads-support.ts';
import { Target } from './support.ts';

/** The order lifecycle of the reference server: DCA cycles on the virtual clock, slice chunks, swaps and faults. */

type Row = Record<string, unknown>;

describe('order lifecycle: DCA cycles, slices, swaps', () => {
  let target: Target;
  let user: (sub: string, tenant?: Record<string, unknown>) => Promise<ReadsUser & { apiKey: string }>;
  beforeAll(async () => {
    target = await Target.start();
    user = (sub, tenant = {}) => lifecycleUser(target, sub, tenant);
  });
  afterAll(async () => {
    await target.faults({ swaps: 'ok', rpc: 'up', oracle: 'up' });
    await target.close();
  });

  /** An hour of the clock with `faults` set; `restore` afterwards, whatever happens. */
  const hourUnder = async (faults: Record<string, unknown>, restore: Record<string, unknown>) => {
    await target.faults(faults);
    try {
      await target.advanceClock(3600);
    } finally {
      await target.faults(restore);
    }
  };
  const dca = async (u: ReadsUser, id: string) => dataOf<Row>(await u.get(`/dca/${id}`));
  const executions = async (u: ReadsUser, id: string) => dataOf<Row[]>(await u.get(`/orders/${id}/executions`));

  it('runs one dca_cycle per period at its scheduled time, even when the clock jumps several cycles, then completes', async () => {
    const u = await user('dca-runner');
    const order = await u.order();
    expect(order).toMatchObject({ status: 'active', cyclesCompleted: 0, totalCycles: 3, lastExecutionAt: null });
    const first = Date.parse(String(order.nextExecutionAt));
    expect(first - Date.parse(String(order.createdAt))).toBe(3600_000);
    await target.advanceClock(3600);
    const one = await dca(u, order.id);
    expect(one).toMatchObject({
      status: 'active',
      cyclesCompleted: 1,
      amountSpent: '12000000',
      lastExecutionAt: new Date(first).toISOString(),
    });
    expect(one.nextExecutionAt).toBe(new Date(first + 3600_000).toISOString());
    await target.advanceClock(7200);
    const done = await dca(u, order.id);
    expect(done).toMatchObject({ status: 'completed', cyclesCompleted: 3, amountSpent: '36000000', nextExecutionAt: null });
    const rows = await executions(u, order.id);
    expect(rows.map((r) => [r.executionType, r.status, r.executedAt])).toEqual(
      [2, 1, 0].map((k) => ['dca_cycle', 'success', new Date(first + k * 3600_000).toISOString()]),
    );
    expect(done.lastExecutionTxHash).toBe(rows[0]?.txSignature);
    // 12 USDC at 1 USD into SOL at 150 USD: 0.08 SOL per cycle, no fee on this tenant.
    expect(rows.map((r) => r.outputAmount)).toEqual(['80000000', '80000000', '80000000']);
    expect(done.amountReceived).toBe('240000000');
    expect(rows[0]).toMatchObject({
      platformFeeWallet: null,
      platformFeeBps: null,
      platformFeeMint: null,
      platformFeeAmount: null,
      outputAmountUsd: '12000000',
      outputAmountUsdDecimals: 6,
    });
  });

  it('a pending DCA activates at startAt and runs its first cycle one period later', async () => {
    const u = await user('dca-later');
    const startAt = new Date((await target.now()).getTime() + 600_000).toISOString();
    const order = await u.order({ ...DCA_INTENT, config: { ...DCA_INTENT.config, startAt } });
    expect(order.status).toBe('pending');
    await target.advanceClock(601);
    expect(await dca(u, order.id)).toMatchObject({ status: 'active', cyclesCompleted: 0 });
    await target.advanceClock(3600);
    expect(await dca(u, order.id)).toMatchObject({ status: 'active', cyclesCompleted: 1 });
  });

  it('a failing swap fails the order with its failureReason and a failed row', async () => {
    const u = await user('dca-failing');
    const order = await u.order();
    await hourUnder({ swaps: 'fail' }, { swaps: 'ok' });
    expect(await dca(u, order.id)).toMatchObject({
      status: 'failed',
      failureReason: 'swap_failed',
      nextExecutionAt: null,
      cyclesCompleted: 0,
    });
    expect((await executions(u, order.id)).map((r) => [r.status, r.failureReason, r.platformFeeWallet])).toEqual([
      ['failed', 'swap_failed', null],
    ]);
  });

  it('a chain that cannot be reached fails the cycle and the order (rpc_unavailable)', async () => {
    const u = await user('dca-no-chain');
    const order = await u.order();
    await hourUnder({ rpc: 'down' }, { rpc: 'up' });
    expect(await dca(u, order.id)).toMatchObject({ status: 'failed', failureReason: 'rpc_unavailable' });
  });

  it('a hanging swap leaves a pending row and the order executing with previousStatus, then settles', async () => {
    const u = await user('dca-hanging');
    const order = await u.order();
    await target.faults({ swaps: 'hang' });
    try {
      await target.advanceClock(3600);
      expect(await dca(u, order.id)).toMatchObject({ status: 'executing', previousStatus: 'active', cyclesCompleted: 0 });
      expect((await executions(u, order.id)).map((r) => r.status)).toEqual(['pending']);
    } finally {
      await target.faults({ swaps: 'ok' });
    }
    expect(await dca(u, order.id)).toMatchObject({ status: 'active', previousStatus: null, cyclesCompleted: 1 });
    expect((await executions(u, order.id)).map((r) => r.status)).toEqual(['success']);
  });

  it('cycles missed while paused are not made up: after resume one cycle is due at once, then one per period', async () => {
    const u = await user('dca-paused');
    const order = await u.order();
    const post = (path: string) =>
      target.orders(path, { method: 'POST', headers: { 'x-service-key': u.apiKey, 'x-service-user': u.sub }, json: {} });
    expect((await post(`/orders/${order.id}/pause`)).status).toBe(200);
    await target.advanceClock(3 * 3600);
    expect((await post(`/orders/${order.id}/resume`)).status).toBe(200);
    const resumed = await dca(u, order.id);
    expect(resumed).toMatchObject({ status: 'active', cyclesCompleted: 1 });
    expect(Date.parse(String(resumed.nextExecutionAt)) - Date.parse(String(resumed.lastExecutionAt))).toBe(3600_000);
  });

  it('the oracle down leaves outputAmountUsd null; the tenant fee is snapshotted and paid to its fee wallet', async () => {
    const u = await user('dca-fees', { platformFeeBps: 100, feeWallet: FEE_WALLET });
    const order = await u.order();
    await hourUnder({ oracle: 'down' }, { oracle: 'up' });
    const [row] = await executions(u, order.id);
    expect(row).toMatchObject({
      status: 'success',
      outputAmountUsd: null,
      outputAmount: '79200000',
      platformFeeWallet: FEE_WALLET,
      platformFeeBps: 100,
      platformFeeMint: MINTS.SOL,
      platformFeeAmount: '800000',
    });
    const balance = dataOf<{ balances: Row[] }>(await u.get('/me/balance')).balances.find((b) => b.mint === MINTS.SOL);
    expect(balance?.totalBalance).toBe('79200000');
  });

  it('a slice sells its amount in sliceCount chunks a minute apart from confirm, each a slice_fill row and a chunk', async () => {
    const u = await user('slicer');
    const order = await u.order(SLICE_INTENT);
    expect(dataOf<{ chunks: Row[] }>(await u.get(`/slice/${order.id}`)).chunks).toEqual([]);
    await target.advanceClock(61);
    const early = dataOf<{ order: Row; chunks: Row[] }>(await u.get(`/slice/${order.id}`));
    expect(early.order).toMatchObject({ status: 'active', amountSpent: '4000000' });
    expect(early.chunks).toHaveLength(1);
    await target.advanceClock(120);
    const late = dataOf<{ order: Row; chunks: Row[] }>(await u.get(`/slice/${order.id}`));
    expect(late.order).toMatchObject({ status: 'completed', amountSpent: '12000000', nextExecutionAt: null });
    expect(late.chunks.map((c) => c.executionType)).toEqual(['slice_fill', 'slice_fill', 'slice_fill']);
  });
});

describe('order state machine (moveTo)', () => {
  const at = Date.parse('2026-01-01T00:00:00.000Z');
  const order = (orderType: Order['orderType'], status: Order['status']) => ({
    ...newOrder(
      { orderType, config: { cycleFrequencySeconds: 60, totalAmount: '2', amountPerCycle: '1', startAt: null, amount: '1' } } as never,
      'p',
      'w',
      new Date(at).toISOString(),
    ),
    status,
  });

  it('refuses a move the table does not list: out of a terminal state, a trigger order into pending_modification', () => {
    expect(() => moveTo(order('dca', 'cancelled'), 'active', at)).toThrow(/cannot move from cancelled to active/);
    expect(() => moveTo(order('stop_loss', 'active'), 'pending_modification', at)).toThrow();
    expect(() => moveTo(order('slice', 'active'), 'paused', at)).toThrow();
  });

  it('sets previousStatus exactly while executing or pending_modification', () => {
    const o = order('dca', 'paused');
    moveTo(o, 'pending_modification', at);
    expect([o.status, o.previousStatus]).toEqual(['pending_modification', 'paused']);
    moveTo(o, 'paused', at);
    expect([o.status, o.previousStatus]).toEqual(['paused', null]);
  });

  it('stamps terminal states, clears the schedule, and keeps failureReason only while failed', () => {
    const o = order('dca', 'active');
    moveTo(o, 'failed', at + 1000, { failureReason: 'swap_failed' });
    expect(o).toMatchObject({
      failedAt: '2026-01-01T00:00:01.000Z',
      failureReason: 'swap_failed',
      nextExecutionAt: null,
      updatedAt: '2026-01-01T00:00:01.000Z',
    });
    moveTo(o, 'active', at + 2000);
    expect(o.failureReason).toBeNull();
    moveTo(o, 'cancelled', at + 3000);
    expect(o).toMatchObject({ status: 'cancelled', cancelledAt: '2026-01-01T00:00:03.000Z', nextExecutionAt: null });
  });
});
