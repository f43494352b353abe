import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../fixtures/server/orders/error-catalogue.ts';
import { errorCode, Target } from './support.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('order service: GET /health', () => {
  let target: Target;
  beforeAll(async () => {
    target = await Target.start();
  });
  afterAll(() => target.close());

  it('answers 200 {status:"ok", services:{database:"healthy"}} without credentials', async () => {
    const answer = await target.orders('/health');
    expect(answer.status).toBe(200);
    expect(answer.contentType).toBe('application/json');
    expect(answer.body).toEqual({ status: 'ok', services: { database: 'healthy' } });
  });

  it.each([
    {
      title: 'answers 200 {status:"degraded", services:{database:"unhealthy"}} with an unhealthy database',
      database: 'unhealthy',
      status: 200,
      body: { status: 'degraded', services: { database: 'unhealthy' } },
    },
    {
      title: 'answers 503 {status:"error"} with no services and no error detail when the database is down',
      database: 'down',
      status: 503,
      body: { status: 'error' },
    },
  ])('$title', async ({ database, status, body }) => {
    await target.faults({ database });
    const answer = await target.orders('/health');
    await target.faults({ database: 'healthy' });
    expect(answer.status).toBe(status);
    expect(answer.body).toEqual(body);
  });

  it('is outside the envelope and ignores a bad key', async () => {
    const answer = await target.orders('/health', { headers: { 'x-service-key': 'nonsense' } });
    expect(answer.status).toBe(200);
    expect(answer.body).not.toHaveProperty('success');
  });

  it('other methods on /health are 404 NOT_FOUND in the envelope', async () => {
    const answer = await target.orders('/health', { method: 'POST', json: {} });
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
  });
});

describe('order service: X-Request-Id and the envelope', () => {
  let target: Target;
  beforeAll(async () => {
    target = await Target.start();
  });
  afterAll(() => target.close());

  it('echoes X-Request-Id as x-request-id on success, failure and health', async () => {
    const { apiKey } = await target.createTenant();
    for (const [path, headers] of [
      ['/health', {}],
      ['/partners/me/orders', { 'x-service-key': apiKey }],
      ['/partners/me/orders', {}],
      ['/no/such/path', {}],
    ] as const) {
      const answer = await target.orders(path, { headers: { ...headers, 'x-request-id': 'trace-42 abc' } });
      expect(answer.headers['x-request-id'], path).toBe('trace-42 abc');
    }
  });

  it('generates a UUID x-request-id when the client sends none, a fresh one per request', async () => {
    const first = await target.orders('/health');
    const second = await target.orders('/no/such/path');
    expect(first.headers['x-request-id']).toMatch(UUID);
    expect(second.headers['x-request-id']).toMatch(UUID);
    expect(first.headers['x-request-id']).not.toBe(second.headers['x-request-id']);
  });

  it('answers unknown paths 404 NOT_FOUND with {success:false, error:{code, message}}', async () => {
    const answer = await target.orders('/orders/intent/extra');
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });

  it("lists the partner's orders as {success:true, data:[]} (no orders exist yet)", async () => {
    const { apiKey } = await target.createTenant();
    const answer = await target.partnerOrders(apiKey);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true, data: [] });
  });

  it('rejects an invalid createdAtGte/createdAtLte or an unfilterable status with 400 VALIDATION_ERROR and details', async () => {
    const { apiKey } = await target.createTenant();
    for (const query of ['?createdAtGte=yesterday', '?createdAtLte=2024-13-45T00:00:00Z', '?status=active,expired']) {
      const answer = await target.partnerOrders(apiKey, query);
      expect(answer.status, query).toBe(400);
      expect(errorCode(answer)).toBe('VALIDATION_ERROR');
      expect((answer.body as { error: { details: object } }).error.details).toBeTypeOf('object');
    }
    const fine = await target.partnerOrders(apiKey, '?status=active,paused&createdAtGte=2024-01-01T00:00:00Z&orderType=dca');
    expect(fine.status).toBe(200);
  });
});

describe('order service: auth and tenancy on GET /partners/me/orders', () => {
  let target: Target;
  beforeAll(async () => {
    target = await Target.start();
  });
  afterAll(() => target.close());

  const expectRejected = (answer: Awaited<ReturnType<Target['partnerOrders']>>, status: number, code: string): void => {
    expect({ status: answer.status, code: errorCode(answer) }).toEqual({ status, code });
    expect(answer.body).toEqual({ success: false, error: { code, message: expect.any(String) } });
  };

  it('missing X-Service-Key: 401 INVALID_API_KEY', async () => {
    expectRejected(await target.partnerOrders(undefined), 401, 'INVALID_API_KEY');
  });

  it('unknown X-Service-Key: 401 INVALID_API_KEY', async () => {
    expectRejected(await target.partnerOrders('oa_test_never-issued'), 401, 'INVALID_API_KEY');
  });

  it.each([
    ['revoked', 401, 'KEY_REVOKED'],
    ['other-environment', 401, 'ENV_MISMATCH'],
    ['product-disabled', 403, 'PRODUCT_DISABLED'],
    ['product-expired', 403, 'PRODUCT_EXPIRED'],
  ])('a %s key: %i %s', async (state, status, code) => {
    const { tenantId } = await target.createTenant();
    expectRejected(await target.partnerOrders(await target.createKey(tenantId, state)), status, code);
  });

  it('an extra active key of the tenant is served', async () => {
    const { tenantId } = await target.createTenant();
    expect((await target.partnerOrders(await target.createKey(tenantId, 'active'))).status).toBe(200);
  });

  it.each([
    ['suspended', 'TENANT_SUSPENDED'],
    ['deleted', 'TENANT_DELETED'],
    ['not-provisioned', 'TENANT_NOT_PROVISIONED'],
  ])('a %s tenant: 403 %s, and active again it is served', async (state, code) => {
    const { tenantId, apiKey } = await target.createTenant();
    await target.setTenantState(tenantId, state);
    expectRejected(await target.partnerOrders(apiKey), 403, code);
    await target.setTenantState(tenantId, 'active');
    expect((await target.partnerOrders(apiKey)).status).toBe(200);
  });

  it('a tenant created for the other environment holds keys that get 401 ENV_MISMATCH here', async () => {
    const { apiKey, environment } = await target.createTenant({ environment: 'production' });
    expect(environment).toBe('production');
    expectRejected(await target.partnerOrders(apiKey), 401, 'ENV_MISMATCH');
  });
});

describe('order service: a production deployment', () => {
  it('serves production keys and answers staging keys ENV_MISMATCH', async () => {
    const target = await Target.start({ environment: 'production' });
    try {
      const production = await target.createTenant();
      expect(production.environment).toBe('production');
      expect((await target.partnerOrders(production.apiKey)).status).toBe(200);
      const staging = await target.createTenant({ environment: 'staging' });
      expect(errorCode(await target.partnerOrders(staging.apiKey))).toBe('ENV_MISMATCH');
    } finally {
      await target.close();
    }
  });
});

describe('order service: the error catalogue', () => {
  it("holds every code of the document's Errors section with its status", () => {
    const byStatus = (status: number): string[] =>
      Object.entries(ERROR_CATALOGUE)
        .filter(([, entry]) => entry.status === status)
        .map(([code]) => code)
        .sort();
    expect(Object.keys(ERROR_CATALOGUE)).toHaveLength(59);
    expect(byStatus(401)).toEqual(['ENV_MISMATCH', 'INVALID_API_KEY', 'KEY_REVOKED', 'UNAUTHORIZED']);
    expect(byStatus(403)).toEqual([
      'FORBIDDEN',
      'PRODUCT_DISABLED',
      'PRODUCT_EXPIRED',
      'TENANT_DELETED',
      'TENANT_NOT_PROVISIONED',
      'TENANT_SUSPENDED',
    ]);
    expect(byStatus(409)).toEqual([
      'ACTIVE_BURST_EXISTS',
      'EXECUTION_IN_FLIGHT',
      'LOCK_EXPIRED',
      'LOCK_FAILED',
      'ONBOARDING_INCOMPLETE',
      'USER_PUBKEY_CONFLICT',
      'WALLET_NEEDS_USER_CONSENT',
      'WITHDRAWAL_IN_FLIGHT',
      'WITHDRAWAL_IN_PROGRESS',
    ]);
    expect(byStatus(422)).toEqual(['IDEMPOTENCY_KEY_REUSED']);
    expect(byStatus(503)).toEqual(['PRICE_ORACLE_UNAVAILABLE', 'RPC_UNAVAILABLE']);
    expect(ERROR_CATALOGUE.PROVISIONING_FAILED).toMatchObject({ status: 500, alsoStatus: [502] });
  });
});
