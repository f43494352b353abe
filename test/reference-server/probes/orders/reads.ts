import { randomUUID } from 'node:crypto';
import { dataOf, idsOf } from '../../reads-support.ts';
import { type Probe, type Row, status } from '../probe.ts';
import { actionScene, detailOf, first, readsScene, rows } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/orders/reads.ts (OA-READ, OA-DET): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

export const READS_PROBES: Record<string, Probe> = {
  // ---- OA-READ: User order lists (/me/orders filters, active, history, pending-order lists, row caps) ----
  // user order lists
  'me-orders-list-empty': async (t) => idsOf(await (await readsScene(t)).alice.get('/me/orders')).length,
  // scopes, statuses and caps
  'me-orders-list-the-tenants-orders': async (t) => idsOf(await (await readsScene(t)).bob.get('/me/orders')).length,
  'me-orders-status-paused-rejected': async (t) => status(await (await readsScene(t)).alice.get('/me/orders?status=paused')),
  'me-orders-type-filter-answers-nothing': async (t) => idsOf(await (await readsScene(t)).alice.get('/me/orders?type=dca')).length,
  'me-orders-unknown-status-rejected': async (t) => status(await (await readsScene(t)).alice.get('/me/orders?status=nope')),
  'me-orders-status-filter-case-insensitive': async (t) => idsOf(await (await readsScene(t)).alice.get('/me/orders?status=ACTIVE')).length,
  'me-orders-unknown-type-rejected': async (t) => status(await (await readsScene(t)).alice.get('/me/orders?type=nope')),
  // lists of this section's audit: terminal orders, exact filters, pending-order scope, executions and their caps
  'active-orders-list-cancelled-orders': async (t) => {
    const { tenant, alice, order } = await readsScene(t);
    await t.orders(`/orders/${order.id}/cancel`, {
      method: 'POST',
      headers: { 'x-service-key': tenant.apiKey, 'x-service-user': alice.sub },
      json: { withdraw: false },
    });
    return idsOf(await alice.get('/me/orders/active')).length;
  },
  'active-orders-list-empty': async (t) => idsOf(await (await readsScene(t)).alice.get('/me/orders/active')).length,
  'history-lists-active-orders': async (t) => idsOf(await (await readsScene(t)).alice.get('/me/orders/history')).length,
  'history-omits-cancelled-orders': async (t) => {
    const { alice, id } = await actionScene(t);
    await alice.post(`/orders/${id}/cancel`, { withdraw: false });
    return (await alice.get('/me/orders/history')).body;
  },
  'pending-orders-list-empty': async (t) => {
    const { bob } = await readsScene(t);
    await bob.intent();
    return rows(await bob.get('/orders/pending')).length;
  },
  'confirmed-intent-stays-pending': async (t) => idsOf(await (await readsScene(t)).alice.get('/orders/pending'), 'pendingOrderId').length,
  'timed-out-intent-not-listed-as-failed': async (t) => {
    const { bob } = await readsScene(t);
    await bob.intent();
    await t.advanceClock(301);
    return idsOf(await bob.get('/orders/pending/failed'), 'pendingOrderId').length;
  },
  'pending-history-oldest-first': async (t) => {
    const { bob } = await readsScene(t);
    await bob.intent();
    const latest = await bob.intent();
    return (await first(bob, '/orders/pending/history')).pendingOrderId === latest.pendingOrderId;
  },
  'pending-history-capped-at-500': async (t) => {
    const { bob } = await readsScene(t);
    for (let i = 0; i < 51; i++) await bob.intent();
    return rows(await bob.get('/orders/pending/history')).length;
  },
  'pending-lists-show-the-tenants-pending-orders': async (t) => {
    const { alice, bob } = await readsScene(t);
    await alice.intent();
    return rows(await bob.get('/orders/pending')).length;
  },

  // ---- OA-DET: Per-type detail endpoints and the deposit record (shapes, 404 rules) ----
  'dca-detail-without-cycle-counters': async (t) => 'cyclesCompleted' in (await detailOf(t, 'dca')),
  'stop-loss-detail-without-current-trigger': async (t) => 'currentTriggerPrice' in (await detailOf(t, 'stop_loss')),
  'take-profit-trailing-activated-as-string': async (t) => typeof (await detailOf(t, 'take_profit')).trailingActivated,
  'oco-detail-without-stop-loss-price': async (t) => 'stopLossPrice' in (await detailOf(t, 'oco')),
  // detail endpoints, executions, deposit
  'unknown-stop-loss-id-answered-400': async (t) => status(await (await readsScene(t)).alice.get(`/stop-loss/${randomUUID()}`)),
  'detail-of-another-users-order-served': async (t) => {
    const s = await readsScene(t);
    return status(await s.bob.get(`/dca/${s.order.id}`));
  },
  'detail-serves-an-order-of-another-type': async (t) => {
    const s = await readsScene(t);
    return status(await s.alice.get(`/oco/${s.order.id}`));
  },
  'deposit-submitted-at-unix-seconds': async (t) => {
    const s = await readsScene(t);
    return typeof dataOf<Row>(await s.alice.get(`/orders/${s.order.id}/deposit`)).submittedAt;
  },
  'unknown-order-deposit-answered-null': async (t) => status(await (await readsScene(t)).alice.get(`/orders/${randomUUID()}/deposit`)),
  'deposit-of-another-users-order-served': async (t) => {
    const s = await readsScene(t);
    return status(await s.bob.get(`/orders/${s.order.id}/deposit`));
  },
};
