import { Target } from '../../support.ts';
import { failure, type Probe, serialized, status } from '../probe.ts';
import { pendingDca, userOnFreshTenant, withKey } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/orders/auth.ts (OA-AUTH): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

async function keyOfState(target: Target, state: string): Promise<string> {
  const { tenantId } = await target.createTenant();
  return target.createKey(tenantId, state);
}

async function keyOfTenantIn(target: Target, state: string): Promise<string> {
  const { tenantId, apiKey } = await target.createTenant();
  await target.setTenantState(tenantId, state);
  return apiKey;
}

export const ORDERS_AUTH_PROBES: Record<string, Probe> = {
  'partner-executions-served-without-a-key': async (t) => failure(await t.orders('/partners/me/executions')),
  'missing-key-answered-403': async (t) => failure(await t.partnerOrders(undefined)),
  'unknown-key-answered-tenant-not-provisioned': async (t) => failure(await t.partnerOrders('oa_test_never-issued')),
  'revoked-key-answered-invalid-api-key': async (t) => failure(await t.partnerOrders(await keyOfState(t, 'revoked'))),
  'env-mismatch-ignored-on-writes': async (t) =>
    failure(
      await t.orders('/orders/intent', {
        method: 'POST',
        headers: { 'x-service-key': await keyOfState(t, 'other-environment'), 'x-service-user': 'probe-sub' },
        json: {},
      }),
    ),
  'other-environment-key-accepted': async (t) => failure(await t.partnerOrders(await keyOfState(t, 'other-environment'))),
  'missing-user-answered-404-not-found': async (t) => {
    const { apiKey } = await t.createTenant();
    await t.onboard(apiKey, 'probe-sub');
    return failure(await t.orders('/me', { headers: { 'x-service-key': apiKey } }));
  },
  'missing-user-answered-403': async (t) => {
    const { apiKey } = await userOnFreshTenant(t);
    return failure(await t.orders('/me', { headers: { 'x-service-key': apiKey } }));
  },
  'missing-user-header-served-as-first-user': async (t) => {
    const { apiKey } = await userOnFreshTenant(t);
    return status(await t.asUser(apiKey, undefined, '/me'));
  },
  'unknown-user-answered-404-not-found': async (t) => {
    const { apiKey } = await t.createTenant();
    await t.onboard(apiKey, 'probe-sub');
    return failure(await t.orders('/me', { headers: { 'x-service-key': apiKey, 'x-service-user': 'never-onboarded-sub' } }));
  },
  'never-onboarded-user-answered-403': async (t) => {
    const { apiKey } = await t.createTenant();
    return failure(await t.asUser(apiKey, 'never-onboarded', '/me'));
  },
  'product-disabled-answered-401': async (t) => failure(await t.partnerOrders(await keyOfState(t, 'product-disabled'))),
  'product-expired-answered-product-disabled': async (t) => failure(await t.partnerOrders(await keyOfState(t, 'product-expired'))),
  'suspended-tenant-answered-tenant-deleted': async (t) => failure(await t.partnerOrders(await keyOfTenantIn(t, 'suspended'))),
  'deleted-tenant-accepted': async (t) => failure(await t.partnerOrders(await keyOfTenantIn(t, 'deleted'))),
  'not-provisioned-tenant-answered-404': async (t) => failure(await t.partnerOrders(await keyOfTenantIn(t, 'not-provisioned'))),
  'partner-read-requires-user-header': async (t) => failure(await t.partnerOrders((await t.createTenant()).apiKey)),
  'user-without-key-answered-unauthorized': async (t) => {
    await userOnFreshTenant(t);
    return failure(await t.orders('/me', { headers: { 'x-service-user': 'probe-sub' } }));
  },
  'suspension-is-permanent': async (t) => {
    const { tenantId, apiKey } = await t.createTenant();
    await t.setTenantState(tenantId, 'suspended');
    await t.partnerOrders(apiKey);
    await t.setTenantState(tenantId, 'active');
    return failure(await t.partnerOrders(apiKey));
  },
  'service-user-resolved-across-tenants': async (t) => {
    const first = await t.createTenant();
    const other = await t.createTenant();
    await t.onboard(first.apiKey, 'cross-tenant-probe');
    return failure(await t.orders('/me', { headers: withKey(other.apiKey, 'cross-tenant-probe') }));
  },
  'dca-detail-resolves-service-user-across-tenants': async (t) => {
    const p = await pendingDca(t);
    p.tx.partialSign(p.wallet);
    const confirmed = await p.confirm({ pendingOrderId: p.pendingOrderId, signedTransaction: serialized(p.tx) });
    const orderId = (confirmed.body as { data: { order: { id: string } } }).data.order.id;
    return status(await t.asUser((await t.createTenant()).apiKey, 'probe-sub', `/dca/${orderId}`));
  },
  'service-key-read-from-the-query-string': async (t) => {
    const { apiKey } = await t.createTenant();
    return failure(await t.orders(`/partners/me/orders?apiKey=${encodeURIComponent(apiKey)}`));
  },
};
