import { randomUUID } from 'node:crypto';
import { dataOf, DCA_INTENT, FEE_WALLET, lifecycleUser, readsTenant } from '../../reads-support.ts';
import type { Target } from '../../support.ts';
import { HOUR, type Probe, type Row, status } from '../probe.ts';
import { cycled, partnerRows, pastTheCap, readsScene, rows } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/orders/reporting.ts (OA-REP): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

/** The tenant's /partners/me/executions rows (with its key `apiKey`). */
const partnerExecutions = async (t: Target, apiKey: string, query = ''): Promise<Row[]> =>
  rows(await t.orders(`/partners/me/executions${query}`, { headers: { 'x-service-key': apiKey } }));

export const REPORTING_PROBES: Record<string, Probe> = {
  'partner-report-only-the-newest-users-orders': async (t) => {
    const { tenant, bob } = await readsScene(t);
    await bob.order();
    return new Set(rows(await tenant.partner('/partners/me/orders')).map((r) => r.userId)).size;
  },
  // partner reporting
  'partner-rows-carry-tenant-id': async (t) => (await partnerRows(t)).map((r) => 'tenantId' in r),
  'partner-rows-in-the-base-shape': async (t) => (await partnerRows(t)).map((r) => 'cyclesCompleted' in r),
  'partner-report-narrowed-by-user-header': async (t) => {
    const { tenant } = await readsScene(t);
    return rows(await t.orders('/partners/me/orders', { headers: { 'x-service-key': tenant.apiKey, 'x-service-user': 'bob' } })).length;
  },
  'partner-report-lists-every-tenant': async (t) => {
    await readsScene(t);
    return rows(await (await readsTenant(t)).partner('/partners/me/orders')).length;
  },
  'partner-executions-of-every-tenant': async (t) => {
    await cycled(t, HOUR + 1);
    return (await partnerExecutions(t, (await readsTenant(t)).apiKey)).length;
  },
  'partner-status-list-read-as-one-value': async (t) => (await partnerRows(t, '?status=active,paused')).length,
  'partner-report-hides-pending-orders': async (t) => {
    const { tenant, bob } = await readsScene(t);
    await bob.order({
      ...DCA_INTENT,
      config: { ...DCA_INTENT.config, startAt: new Date((await t.now()).getTime() + 86_400_000).toISOString() },
    });
    return rows(await tenant.partner('/partners/me/orders'))
      .map((r) => r.status)
      .sort();
  },
  'partner-order-type-filter-answers-nothing': async (t) => (await partnerRows(t, '?orderType=dca')).length,
  'partner-user-filter-answers-nothing': async (t) => {
    const { tenant, alice } = await readsScene(t);
    return rows(await tenant.partner(`/partners/me/orders?userId=${alice.userId}`)).length;
  },
  'partner-created-at-lte-drops-every-row': async (t) => (await partnerRows(t, '?createdAtLte=2999-01-01T00:00:00Z')).length,
  'partner-created-at-bounds-exclusive': async (t) => {
    const { tenant, order } = await readsScene(t);
    return rows(await tenant.partner(`/partners/me/orders?createdAtGte=${encodeURIComponent(String(order.createdAt))}`)).length;
  },
  'partner-unfilterable-status-lists-every-row': async (t) => {
    const { tenant } = await readsScene(t);
    const answer = await tenant.partner('/partners/me/orders?status=pending');
    return answer.status === 200 ? rows(answer).map((r) => r.status) : status(answer);
  },
  'partner-invalid-timestamp-ignored': async (t) => {
    const { tenant } = await readsScene(t);
    return status(await tenant.partner('/partners/me/orders?createdAtGte=soon'));
  },
  'partner-order-answers-another-id': async (t) => {
    const { tenant, order } = await readsScene(t);
    return dataOf<Row>(await tenant.partner(`/partners/me/orders/${order.id}`)).id === order.id;
  },
  'partner-unknown-order-answered-null': async (t) => {
    const { tenant } = await readsScene(t);
    return status(await tenant.partner(`/partners/me/orders/${randomUUID()}`));
  },
  'partner-order-of-another-tenant-readable': async (t) => {
    const { order } = await readsScene(t);
    return status(await (await readsTenant(t)).partner(`/partners/me/orders/${order.id}`));
  },
  'partner-deposit-submitted-at-renamed': async (t) => {
    const { tenant, order } = await readsScene(t);
    return 'submittedAt' in dataOf<Row>(await tenant.partner(`/partners/me/orders/${order.id}/deposit`));
  },
  'partner-executions-fee-snapshot-half-set': async (t) => {
    const user = await lifecycleUser(t, 'probe', { platformFeeBps: 100, feeWallet: FEE_WALLET });
    await user.order();
    await t.advanceClock(HOUR + 1);
    return (await partnerExecutions(t, user.apiKey)).map((r) => [r.platformFeeWallet === null, r.platformFeeMint === null]);
  },
  'partner-executions-user-filter-ignored': async (t) => {
    const { tenant, alice, bob } = await readsScene(t);
    await bob.order();
    await t.advanceClock(HOUR + 1);
    return new Set((await partnerExecutions(t, tenant.apiKey, `?userId=${alice.userId}`)).map((r) => r.orderId)).size;
  },
  'partner-executions-oldest-first': async (t) => {
    const { tenant } = await cycled(t, 2 * HOUR + 1);
    const [newest, older] = await partnerExecutions(t, tenant.apiKey);
    return Date.parse(String(newest?.executedAt)) > Date.parse(String(older?.executedAt));
  },
  'partner-executions-uncapped': async (t) => {
    const { tenant } = await pastTheCap(t);
    return (await partnerExecutions(t, tenant.apiKey)).length;
  },
};
