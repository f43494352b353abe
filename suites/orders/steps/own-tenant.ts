import { type Check, type CheckContext, defineCheck } from '../../harness/check.ts';
import { OWN_TENANT_NEEDS } from '../../harness/schedule.ts';

/**
 * A check whose partner reports count a tenant of its own (area REP: /partners/me/* lists everything of the key's
 * tenant, whoever wrote it). When the target offers OWN_TENANT_NEEDS (`tenants`, `funding`), the check starts on a
 * fresh tenant (control POST /tenants): every order request it sends without a key of its choosing carries that
 * tenant's key, and its users are generated wallets, so nothing another check writes lands in what it counts and it
 * runs beside other checks (`ownTenant`, schedule.ts runsAlone). Without them it counts the run's tenant, which every
 * check's users write into, and runs alone, as before.
 */
export function ownTenantCheck(check: Check): Check {
  const { run } = check;
  return defineCheck({
    ...check,
    ownTenant: true,
    async run(t: CheckContext) {
      await useOwnTenant(t);
      await run(t);
    },
  });
}

/** Send the check's order requests that name no X-Service-Key with the key of a fresh tenant, when the target can. */
async function useOwnTenant(t: CheckContext): Promise<void> {
  if (!OWN_TENANT_NEEDS.every((c) => t.control.has(c))) return;
  const { apiKey } = await t.control.createTenant();
  const send = t.orders.request.bind(t.orders);
  // The check's own headers come last: a key it names (another tenant's, none) still wins.
  t.orders.request = async (spec) => await send({ ...spec, headers: { 'X-Service-Key': apiKey, ...spec.headers } });
}
