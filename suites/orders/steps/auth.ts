import type { CheckContext } from '../../harness/check.ts';
import type { KeyState, TenantState } from '../../harness/control.ts';
import type { Exchange } from '../../harness/exchange.ts';
import type { RuleId } from '../../../generators/vocabulary.ts';

/** A partner-only read that creates nothing: the tenant's order report. */
export const PARTNER_READ = '/partners/me/orders';

export function partnerRead(t: CheckContext, key: string | undefined): Promise<Exchange> {
  return t.orders.request({ path: PARTNER_READ, headers: { 'X-Service-Key': key }, retry: false });
}

/**
 * Errors, Auth and tenancy: each credential state with the status and code the document gives it. Each is tried on
 * every operation (auth-matrix.checks.ts, keyStateSweeps).
 */
export interface CredentialState {
  slug: string;
  rule: RuleId;
  status: number;
  code: string;
  /** a new key of the tenant in this state, or else the tenant's own key once the tenant is in `tenant` */
  key?: KeyState;
  tenant?: TenantState;
}

export const CREDENTIAL_STATES: readonly CredentialState[] = [
  { slug: 'revoked-key-is-rejected-with-401-key-revoked', rule: 'OA-AUTH-003', status: 401, code: 'KEY_REVOKED', key: 'revoked' },
  {
    slug: 'other-environment-key-is-rejected-with-401-env-mismatch',
    rule: 'OA-AUTH-004',
    status: 401,
    code: 'ENV_MISMATCH',
    key: 'other-environment',
  },
  {
    slug: 'product-disabled-key-is-rejected-with-403-product-disabled',
    rule: 'OA-AUTH-007',
    status: 403,
    code: 'PRODUCT_DISABLED',
    key: 'product-disabled',
  },
  {
    slug: 'product-expired-key-is-rejected-with-403-product-expired',
    rule: 'OA-AUTH-008',
    status: 403,
    code: 'PRODUCT_EXPIRED',
    key: 'product-expired',
  },
  {
    slug: 'suspended-tenant-is-rejected-with-403-tenant-suspended',
    rule: 'OA-AUTH-009',
    status: 403,
    code: 'TENANT_SUSPENDED',
    tenant: 'suspended',
  },
  {
    slug: 'deleted-tenant-is-rejected-with-403-tenant-deleted',
    rule: 'OA-AUTH-010',
    status: 403,
    code: 'TENANT_DELETED',
    tenant: 'deleted',
  },
  {
    slug: 'unprovisioned-tenant-is-rejected-with-403-tenant-not-provisioned',
    rule: 'OA-AUTH-011',
    status: 403,
    code: 'TENANT_NOT_PROVISIONED',
    tenant: 'not-provisioned',
  },
];

/** The key that presents `state` for `tenant`. */
export async function keyInState(t: CheckContext, tenant: { tenantId: string; apiKey: string }, state: CredentialState): Promise<string> {
  if (state.key) return await t.control.createKey(tenant.tenantId, state.key);
  await t.control.setTenantState(tenant.tenantId, state.tenant!);
  return tenant.apiKey;
}
