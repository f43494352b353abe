/**
 * Partner-reporting checks on a tenant of their own (issue 17; suites/orders/steps/own-tenant.ts): with `tenants` and
 * `funding` every tenant such a check counts is one it made, so it may run beside other checks; otherwise it runs alone
 * on the run's tenant, as before. In process, no target: the control and order clients are stubbed.
 */
import { describe, expect, test } from 'vitest';
import { CheckContext, type Check } from '../../suites/harness/check.ts';
import type { RequestSpec } from '../../suites/harness/client.ts';
import type { Exchange } from '../../suites/harness/exchange.ts';
import { OWN_TENANT_NEEDS, runsAlone } from '../../suites/harness/schedule.ts';
import type { Capability } from '../../suites/harness/types.ts';
import { allChecks } from '../../suites/index.ts';
import { ownTenantCheck } from '../../suites/orders/steps/own-tenant.ts';
import { OFFLINE_ENV } from './offline-target.ts';

const reporting = { name: 'a-reporting-check', service: 'orders', rules: ['OA-REP-001'], profile: 'full', run: async () => {} } as const;

describe('which reporting checks run alone', () => {
  test('a check marked ownTenant runs beside others only on a target offering tenants and funding', () => {
    const own: Check = { ...reporting, ownTenant: true };
    expect(runsAlone(own)).toBe(true);
    expect(runsAlone(own, ['tenants'])).toBe(true);
    expect(runsAlone(own, ['funding'])).toBe(true);
    expect(runsAlone(own, OWN_TENANT_NEEDS)).toBe(false);
    // Unmarked, or sharing the clock as well: alone whatever the target offers.
    expect(runsAlone({ ...reporting }, OWN_TENANT_NEEDS)).toBe(true);
    expect(runsAlone({ ...own, needs: ['clock'] }, OWN_TENANT_NEEDS)).toBe(true);
  });

  test('the checks marked ownTenant cite partner reporting and create orders (full), never in readonly', () => {
    const marked = allChecks.filter((c) => c.ownTenant);
    expect(marked.length).toBeGreaterThan(0);
    for (const c of marked) {
      expect(c.profile, c.name).toBe('full');
      expect(
        c.rules.some((id) => id.startsWith('OA-REP-')),
        c.name,
      ).toBe(true);
    }
  });
});

/** Runs `check` with stubbed clients on a target offering `capabilities`: the order requests it sent, tenants made. */
async function sent(check: Check, capabilities: Capability[]): Promise<{ specs: RequestSpec[]; tenants: number }> {
  const t = new CheckContext(check, { ...OFFLINE_ENV, profile: 'full', capabilities, credentials: { ordersApiKey: 'run-key' } });
  const specs: RequestSpec[] = [];
  let tenants = 0;
  t.control.createTenant = async () => ({ tenantId: `tenant-${++tenants}`, apiKey: `own-key-${tenants}`, environment: 'staging' });
  t.orders.request = async (spec) => {
    specs.push(spec);
    return {} as Exchange;
  };
  await check.run(t);
  return { specs, tenants };
}

describe('ownTenantCheck', () => {
  const check = ownTenantCheck({
    ...reporting,
    async run(t) {
      await t.orders.request({ path: '/partners/me/orders' });
      await t.orders.request({ path: '/me', headers: { 'X-Service-User': 'sub' } });
      await t.orders.request({ path: '/partners/me/orders', headers: { 'x-service-key': 'another-tenant' } });
    },
  });

  test('marks the check ownTenant; a check of the suite keeps the line of its own file', () => {
    expect(check.ownTenant).toBe(true);
    for (const c of allChecks.filter((c) => c.ownTenant)) expect(c.source, c.name).toMatch(/^suites\/orders\/[a-z-]+\.checks\.ts:\d+$/);
  });

  test('with tenants and funding: one fresh tenant, whose key every request carries unless it names its own', async () => {
    const { specs, tenants } = await sent(check, ['tenants', 'funding']);
    expect(tenants).toBe(1);
    expect(specs.map((s) => s.headers)).toEqual([
      { 'X-Service-Key': 'own-key-1' },
      { 'X-Service-Key': 'own-key-1', 'X-Service-User': 'sub' },
      // The client takes the last of two spellings of one header: the check's own key.
      { 'X-Service-Key': 'own-key-1', 'x-service-key': 'another-tenant' },
    ]);
  });

  test('without them: no tenant, the requests as the check wrote them (the run key)', async () => {
    for (const capabilities of [[], ['tenants'], ['funding']] as Capability[][]) {
      const { specs, tenants } = await sent(check, capabilities);
      expect(tenants).toBe(0);
      expect(specs.map((s) => s.headers)).toEqual([undefined, { 'X-Service-User': 'sub' }, { 'x-service-key': 'another-tenant' }]);
    }
  });
});
