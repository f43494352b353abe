import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { KeyState, TenantState } from '../harness/control.ts';
import type { Exchange } from '../harness/exchange.ts';
import { isObject, randomToken } from '../shared/values.ts';

/** A partner-only read that creates nothing: the tenant's order report. */
export const PARTNER_READ = '/partners/me/orders';

/** OA-ENV-002: {success: false, error: {code: string, message: string, details?: object}}. */
export function expectErrorEnvelope(t: CheckContext, ex: Exchange): void {
  const b = ex.response.body;
  const e = isObject(b) ? b.error : undefined;
  t.expect('OA-ENV-002', isObject(b) && b.success === false && isObject(e) && typeof e.code === 'string' && typeof e.message === 'string' &&
    (!('details' in e) || e.details === undefined || isObject(e.details)), {
    documented: 'the failure body {success: false, error: {code: string, message: string, details?: object}}', received: b, exchange: ex,
  });
}

function expectCode(t: CheckContext, rule: string, ex: Exchange, status: number, code: string): void {
  const b = ex.response.body;
  const got = isObject(b) && isObject(b.error) ? b.error.code : undefined;
  t.expect(rule, ex.response.status === status && got === code, {
    documented: `${status} ${code}`, received: { status: ex.response.status, code: got ?? '(none)' }, exchange: ex,
  });
}

function partnerRead(t: CheckContext, key: string | undefined): Promise<Exchange> {
  return t.orders.request({ path: PARTNER_READ, headers: { 'X-Service-Key': key }, retry: false });
}

export const missingServiceKeyIsRejected = defineCheck({
  name: 'missing-service-key-is-rejected-with-401-invalid-api-key',
  service: 'orders',
  // error.message is for people and may change (OA-ERR-003): only its type is checked.
  rules: ['OA-AUTH-001', 'OA-ENV-002', 'OA-ERR-003'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const ex = await partnerRead(t, undefined);
    expectCode(t, 'OA-AUTH-001', ex, 401, 'INVALID_API_KEY');
    expectErrorEnvelope(t, ex);
  },
});

export const unknownServiceKeyIsRejected = defineCheck({
  name: 'unknown-service-key-is-rejected-with-401-invalid-api-key',
  service: 'orders',
  rules: ['OA-AUTH-002', 'OA-ENV-002'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const ex = await partnerRead(t, randomToken('unknown-service-key'));
    expectCode(t, 'OA-AUTH-002', ex, 401, 'INVALID_API_KEY');
    expectErrorEnvelope(t, ex);
  },
});

export const partnerReadNeedsOnlyTheKeyAndIsEnveloped = defineCheck({
  name: 'partner-read-with-the-key-alone-answers-the-success-envelope',
  service: 'orders',
  // Any 2xx is a success (OA-ERR-011); extra fields are fine (OA-FMT-009): neither is asserted against.
  rules: ['OA-AUTH-012', 'OA-ENV-001', 'OA-ERR-011', 'OA-FMT-009'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const ex = await partnerRead(t, t.env.credentials.ordersApiKey);
    const b = ex.response.body;
    t.expect('OA-AUTH-012', ex.response.status >= 200 && ex.response.status < 300, {
      documented: `GET ${PARTNER_READ} with X-Service-Key and no X-Service-User answers 2xx (partner-only tier)`, received: { status: ex.response.status, body: b }, exchange: ex,
    });
    t.expect('OA-ENV-001', isObject(b) && b.success === true && 'data' in b, {
      documented: 'the success body {success: true, data}', received: b, exchange: ex,
    });
  },
});

export const successFlagFollowsTheStatus = defineCheck({
  name: 'success-flag-is-true-on-2xx-and-false-on-4xx',
  service: 'orders',
  rules: ['OA-ENV-003'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const answers = [
      await partnerRead(t, t.env.credentials.ordersApiKey),
      await partnerRead(t, undefined),
      await partnerRead(t, randomToken('unknown-service-key')),
      await t.orders.request({ path: `/${randomToken('no-such-path')}`, retry: false }),
    ];
    for (const ex of answers) {
      const b = ex.response.body;
      const expected = ex.response.status < 300;
      t.expect('OA-ENV-003', isObject(b) && b.success === expected, {
        documented: `success: ${expected} on a ${ex.response.status}`, received: isObject(b) ? b.success : b, exchange: ex,
      });
    }
  },
});

/**
 * Errors, Auth and tenancy: each credential state with the status and code the document gives it. Each is tried on
 * every operation (auth-matrix.checks.ts, keyStateSweeps).
 */
export interface CredentialState {
  slug: string;
  rule: string;
  status: number;
  code: string;
  /** a new key of the tenant in this state, or else the tenant's own key once the tenant is in `tenant` */
  key?: KeyState;
  tenant?: TenantState;
}

export const CREDENTIAL_STATES: readonly CredentialState[] = [
  { slug: 'revoked-key-is-rejected-with-401-key-revoked', rule: 'OA-AUTH-003', status: 401, code: 'KEY_REVOKED', key: 'revoked' },
  { slug: 'other-environment-key-is-rejected-with-401-env-mismatch', rule: 'OA-AUTH-004', status: 401, code: 'ENV_MISMATCH', key: 'other-environment' },
  { slug: 'product-disabled-key-is-rejected-with-403-product-disabled', rule: 'OA-AUTH-007', status: 403, code: 'PRODUCT_DISABLED', key: 'product-disabled' },
  { slug: 'product-expired-key-is-rejected-with-403-product-expired', rule: 'OA-AUTH-008', status: 403, code: 'PRODUCT_EXPIRED', key: 'product-expired' },
  { slug: 'suspended-tenant-is-rejected-with-403-tenant-suspended', rule: 'OA-AUTH-009', status: 403, code: 'TENANT_SUSPENDED', tenant: 'suspended' },
  { slug: 'deleted-tenant-is-rejected-with-403-tenant-deleted', rule: 'OA-AUTH-010', status: 403, code: 'TENANT_DELETED', tenant: 'deleted' },
  { slug: 'unprovisioned-tenant-is-rejected-with-403-tenant-not-provisioned', rule: 'OA-AUTH-011', status: 403, code: 'TENANT_NOT_PROVISIONED', tenant: 'not-provisioned' },
];

/** The key that presents `state` for `tenant`. */
export async function keyInState(t: CheckContext, tenant: { tenantId: string; apiKey: string }, state: CredentialState): Promise<string> {
  if (state.key) return await t.control.createKey(tenant.tenantId, state.key);
  await t.control.setTenantState(tenant.tenantId, state.tenant!);
  return tenant.apiKey;
}

export const suspensionIsRecoverable = defineCheck({
  name: 'suspended-tenant-key-is-accepted-again-once-active',
  service: 'orders',
  rules: ['OA-AUTH-015', 'OA-AUTH-009'],
  profile: 'full',
  needs: ['tenants'],
  async run(t: CheckContext) {
    const tenant = await t.control.createTenant();
    await t.control.setTenantState(tenant.tenantId, 'suspended');
    expectCode(t, 'OA-AUTH-009', await partnerRead(t, tenant.apiKey), 403, 'TENANT_SUSPENDED');
    await t.control.setTenantState(tenant.tenantId, 'active');
    const ex = await partnerRead(t, tenant.apiKey);
    t.expect('OA-AUTH-015', ex.response.status >= 200 && ex.response.status < 300, {
      documented: 'TENANT_SUSPENDED is recoverable: the same key is accepted once the tenant is active again', received: { status: ex.response.status, body: ex.response.body }, exchange: ex,
    });
  },
});

export const partnerAnswersMatchTheSpec = defineCheck({
  name: 'health-and-partner-reads-answer-documented-statuses-and-shapes',
  service: 'orders',
  rules: ['OA-SHAPE-001'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const answers = [
      await t.orders.request({ path: '/health', headers: { 'X-Service-Key': undefined }, retry: false }),
      await partnerRead(t, t.env.credentials.ordersApiKey),
      await partnerRead(t, undefined),
    ];
    for (const ex of answers) {
      if (!ex.operationId) throw new Error(`${ex.request.url} matches no operation of the spec, so nothing was validated`);
    }
  },
});
