import { defineCheck, type CheckContext } from '../harness/check.ts';
import { isObject, randomToken } from '../shared/values.ts';
import { PARTNER_READ, partnerRead } from './steps/auth.ts';
import { expectError, expectErrorEnvelope } from './steps/expect.ts';

/** Authentication, tenancy and the envelope (areas AUTH, ENV) on the partner read, the one request that creates nothing. */

export const missingServiceKeyIsRejected = defineCheck({
  name: 'missing-service-key-is-rejected-with-401-invalid-api-key',
  service: 'orders',
  // error.message is for people and may change (OA-ERR-003): only its type is checked.
  rules: ['OA-AUTH-001', 'OA-ENV-002', 'OA-ERR-003'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const ex = await partnerRead(t, undefined);
    expectError(t, 'OA-AUTH-001', ex, { status: 401, codes: ['INVALID_API_KEY'] });
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
    expectError(t, 'OA-AUTH-002', ex, { status: 401, codes: ['INVALID_API_KEY'] });
    expectErrorEnvelope(t, ex);
  },
});

export const partnerReadNeedsOnlyTheKeyAndIsEnveloped = defineCheck({
  name: 'partner-read-with-the-key-alone-answers-the-success-envelope',
  service: 'orders',
  // Any 2xx is a success (OA-ERR-011); extra fields are fine (OA-FMT-009): neither is asserted against.
  rules: ['OA-AUTH-012', 'OA-ENV-001', 'OA-ERR-011', 'OA-FMT-009'],
  profile: 'smoke', // smoke's read of partner reporting (README, Profiles)
  async run(t: CheckContext) {
    const ex = await partnerRead(t, t.env.credentials.ordersApiKey);
    const b = ex.response.body;
    t.expect('OA-AUTH-012', ex.response.status >= 200 && ex.response.status < 300, {
      documented: `GET ${PARTNER_READ} with X-Service-Key and no X-Service-User answers 2xx (partner-only tier)`,
      received: { status: ex.response.status, body: b },
      exchange: ex,
    });
    t.expect('OA-ENV-001', isObject(b) && b.success === true && 'data' in b, {
      documented: 'the success body {success: true, data}',
      received: b,
      exchange: ex,
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
        documented: `success: ${expected} on a ${ex.response.status}`,
        received: isObject(b) ? b.success : b,
        exchange: ex,
      });
    }
  },
});

export const suspensionIsRecoverable = defineCheck({
  name: 'suspended-tenant-key-is-accepted-again-once-active',
  service: 'orders',
  rules: ['OA-AUTH-015', 'OA-AUTH-009'],
  profile: 'full',
  needs: ['tenants'],
  async run(t: CheckContext) {
    const tenant = await t.control.createTenant();
    await t.control.setTenantState(tenant.tenantId, 'suspended');
    expectError(t, 'OA-AUTH-009', await partnerRead(t, tenant.apiKey), { status: 403, codes: ['TENANT_SUSPENDED'] });
    await t.control.setTenantState(tenant.tenantId, 'active');
    const ex = await partnerRead(t, tenant.apiKey);
    t.expect('OA-AUTH-015', ex.response.status >= 200 && ex.response.status < 300, {
      documented: 'TENANT_SUSPENDED is recoverable: the same key is accepted once the tenant is active again',
      received: { status: ex.response.status, body: ex.response.body },
      exchange: ex,
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
