import { describe, expect, it } from 'vitest';
import type { ServerRequest } from '../../fixtures/server/http/request.ts';
import { AUTH_TABLE, authenticate } from '../../fixtures/server/orders/auth.ts';
import { Store } from '../../fixtures/server/store/store.ts';

/** The auth layer on its own, for the user-scoped tier (over HTTP: onboarding.test.ts). */

function requestWith(headers: Record<string, string>): ServerRequest {
  return { method: 'GET', path: '/me', query: new URLSearchParams(), headers, body: Buffer.alloc(0) };
}

/** A staging tenant with partner onboarding and sponsored fees. */
const TENANT = {
  environment: 'staging',
  partnerOnboarding: true,
  feeSponsored: true,
  platformFeeBps: 0,
  feeWallet: null,
  minNotionalUsdCents: 1000,
} as const;

function setup() {
  const store = new Store();
  const tenant = store.createTenant(TENANT);
  const key = store.issueServiceKey(tenant, { environment: 'staging', revoked: false, product: 'enabled' });
  store.users.get(tenant.id)!.set('partner-user-1', {
    userId: 'u-1',
    tenantId: tenant.id,
    sub: 'partner-user-1',
    userPubkey: 'So11111111111111111111111111111111111111112',
    walletAddress: '11111111111111111111111111111111',
    managerSecretKey: new Uint8Array(64),
  });
  return { store, tenant, key, deps: { store, environment: 'staging' as const, table: AUTH_TABLE } };
}

describe('order service auth layer: user-scoped tier', () => {
  it('resolves an onboarded X-Service-User to its user', () => {
    const { key, deps } = setup();
    const result = authenticate(requestWith({ 'x-service-key': key.key, 'x-service-user': 'partner-user-1' }), 'user-scoped', deps);
    expect(result.ok && result.caller?.user?.userId).toBe('u-1');
  });

  it.each([
    ['without X-Service-User', {}],
    ['with a sub that was never onboarded', { 'x-service-user': 'someone-else' }],
  ])('answers 401 UNAUTHORIZED %s', (_name, extra) => {
    const { key, deps } = setup();
    const result = authenticate(requestWith({ 'x-service-key': key.key, ...extra }), 'user-scoped', deps);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.reply.status).toBe(401);
      expect(result.reply.body).toMatchObject({ kind: 'json', value: { success: false, error: { code: 'UNAUTHORIZED' } } });
    }
  });

  it('checks the key before the user: a missing key is INVALID_API_KEY even with a user', () => {
    const { deps } = setup();
    const result = authenticate(requestWith({ 'x-service-user': 'partner-user-1' }), 'user-scoped', deps);
    expect(!result.ok && result.reply.body).toMatchObject({ value: { error: { code: 'INVALID_API_KEY' } } });
  });

  it('a user of another tenant is unknown here', () => {
    const { store, deps } = setup();
    const other = store.createTenant(TENANT);
    const otherKey = store.issueServiceKey(other, { environment: 'staging', revoked: false, product: 'enabled' });
    const result = authenticate(requestWith({ 'x-service-key': otherKey.key, 'x-service-user': 'partner-user-1' }), 'user-scoped', deps);
    expect(!result.ok && result.reply.status).toBe(401);
  });

  it('answers 409 ONBOARDING_INCOMPLETE for a user whose manager is not fully provisioned', () => {
    const { store, tenant, key, deps } = setup();
    store.findUser(tenant.id, 'partner-user-1')!.managerIncomplete = true;
    const result = authenticate(requestWith({ 'x-service-key': key.key, 'x-service-user': 'partner-user-1' }), 'user-scoped', deps);
    expect(!result.ok && [result.reply.status, result.reply.body]).toMatchObject([
      409,
      { value: { error: { code: 'ONBOARDING_INCOMPLETE' } } },
    ]);
  });

  it('a public route needs nothing', () => {
    const { deps } = setup();
    expect(authenticate(requestWith({}), 'public', deps)).toEqual({ ok: true });
  });
});
