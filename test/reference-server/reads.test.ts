import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, Target } from './support.ts';
import { dataOf, DCA_INTENT, idsOf, readsTenant, type ReadsTenant, type ReadsUser } from './reads-support.ts';

const DETAILS = ['/dca', '/stop-loss', '/take-profit', '/oco', '/slice'];
const failure = (a: { status: number; body: unknown }) => ({ status: a.status, code: errorCode(a as never) });

describe('order service: user-scoped reads', () => {
  let target: Target;
  let tenant: ReadsTenant;
  let alice: ReadsUser;
  let bob: ReadsUser;
  let order: Record<string, unknown> & { id: string };
  beforeAll(async () => {
    target = await Target.start();
    tenant = await readsTenant(target);
    alice = await tenant.user('alice');
    bob = await tenant.user('bob');
    order = await alice.order();
  });
  afterAll(() => target.close());

  it("/me/orders lists the user's orders with tenantId and originatingPartner, never another user's", async () => {
    const rows = dataOf<Record<string, unknown>[]>(await alice.get('/me/orders'));
    expect(rows.map((r) => r.id)).toEqual([order.id]);
    expect(rows[0]).toMatchObject({
      tenantId: expect.any(String),
      originatingPartner: { id: expect.any(String), name: expect.any(String) },
      cyclesCompleted: 0,
    });
    expect(idsOf(await bob.get('/me/orders'))).toEqual([]);
  });

  it('/me/orders filters status and type exactly and unvalidated', async () => {
    expect(idsOf(await alice.get('/me/orders?status=active'))).toEqual([order.id]);
    expect(idsOf(await alice.get('/me/orders?status=paused'))).toEqual([]);
    expect(idsOf(await alice.get('/me/orders?type=dca'))).toEqual([order.id]);
    expect(idsOf(await alice.get('/me/orders?type=oco'))).toEqual([]);
    const unknown = await alice.get('/me/orders?status=ACTIVE&type=nope');
    expect([unknown.status, dataOf(unknown)]).toEqual([200, []]);
  });

  it('/me/orders/active lists running orders, /me/orders/history only terminal ones', async () => {
    expect(idsOf(await alice.get('/me/orders/active'))).toEqual([order.id]);
    expect(idsOf(await alice.get('/me/orders/history'))).toEqual([]);
  });

  it('pending-order lists follow the intent: pending, consumed on confirm, failed once its window elapsed', async () => {
    const carol = await tenant.user('carol');
    const open = await carol.intent();
    expect(idsOf(await carol.get('/orders/pending'), 'pendingOrderId')).toEqual([open.pendingOrderId]);
    await carol.order();
    const history = dataOf<Record<string, unknown>[]>(await carol.get('/orders/pending/history'));
    expect(history.map((r) => r.status)).toEqual(['consumed', 'pending']);
    expect(history[1]?.pendingOrderId).toBe(open.pendingOrderId);
    await target.advanceClock(301);
    expect(idsOf(await carol.get('/orders/pending'), 'pendingOrderId')).toEqual([]);
    expect(idsOf(await carol.get('/orders/pending/failed'), 'pendingOrderId')).toEqual([open.pendingOrderId]);
  });

  it('/orders/pending/history is capped at 50 rows, most recent first', async () => {
    const dave = await tenant.user('dave');
    const ids: string[] = [];
    for (let i = 0; i < 51; i++) ids.push((await dave.intent()).pendingOrderId);
    expect(idsOf(await dave.get('/orders/pending/history'), 'pendingOrderId')).toEqual(ids.reverse().slice(0, 50));
  });

  it("each detail endpoint serves its own type only and 404s another user's order", async () => {
    const dca = await alice.get(`/dca/${order.id}`);
    expect(dataOf<Record<string, unknown>>(dca)).toMatchObject({
      id: order.id,
      orderType: 'dca',
      totalCycles: 3,
      tenantId: expect.any(String),
    });
    for (const path of DETAILS.slice(1))
      expect(failure(await alice.get(`${path}/${order.id}`))).toEqual({ status: 404, code: 'NOT_FOUND' });
    for (const path of DETAILS) expect(failure(await alice.get(`${path}/${randomUUID()}`))).toEqual({ status: 404, code: 'NOT_FOUND' });
    expect(failure(await bob.get(`/dca/${order.id}`))).toEqual({ status: 404, code: 'NOT_FOUND' });
  });

  it("executions and deposit: the user's order only", async () => {
    expect(dataOf(await alice.get(`/orders/${order.id}/executions`))).toEqual([]);
    expect(dataOf(await alice.get(`/orders/${order.id}/deposit`))).toEqual({
      txSignature: expect.any(String),
      submittedAt: order.createdAt,
    });
    for (const path of ['executions', 'deposit']) {
      expect(failure(await bob.get(`/orders/${order.id}/${path}`))).toEqual({ status: 404, code: 'NOT_FOUND' });
      expect(failure(await alice.get(`/orders/${randomUUID()}/${path}`))).toEqual({ status: 404, code: 'NOT_FOUND' });
    }
  });
});

describe('order service: partner reporting', () => {
  let target: Target;
  let tenant: ReadsTenant;
  let other: ReadsTenant;
  let alice: ReadsUser;
  let bob: ReadsUser;
  let a: Record<string, unknown> & { id: string };
  let b: Record<string, unknown> & { id: string };
  beforeAll(async () => {
    target = await Target.start();
    tenant = await readsTenant(target);
    other = await readsTenant(target);
    alice = await tenant.user('alice');
    bob = await tenant.user('bob');
    a = await alice.order();
    b = await bob.order({ ...DCA_INTENT, config: { ...DCA_INTENT.config, startAt: new Date(Date.now() + 86_400_000).toISOString() } });
  });
  afterAll(() => target.close());

  it('lists every user of the tenant, most recent first, without tenantId and originatingPartner', async () => {
    const rows = dataOf<Record<string, unknown>[]>(await tenant.partner('/partners/me/orders'));
    expect(rows.map((r) => r.id)).toEqual([b.id, a.id]);
    expect(rows.map((r) => r.status)).toEqual(['pending', 'active']);
    for (const row of rows) {
      expect(row).not.toHaveProperty('tenantId');
      expect(row).not.toHaveProperty('originatingPartner');
      expect(row).toHaveProperty('cyclesCompleted', 0);
    }
    expect(idsOf(await other.partner('/partners/me/orders'))).toEqual([]);
  });

  it('filters status (comma-separated), orderType, userId and the createdAt range', async () => {
    const ids = async (query: string) => idsOf(await tenant.partner(`/partners/me/orders?${query}`));
    expect(await ids('status=active,paused')).toEqual([a.id]);
    expect(await ids('status=completed')).toEqual([]);
    expect(await ids('orderType=dca')).toEqual([b.id, a.id]);
    expect(await ids('orderType=oco')).toEqual([]);
    expect(await ids(`userId=${alice.userId}`)).toEqual([a.id]);
    const created = String(a.createdAt);
    const shifted = (ms: number) => encodeURIComponent(new Date(Date.parse(created) + ms).toISOString());
    expect(await ids(`userId=${alice.userId}&createdAtGte=${encodeURIComponent(created)}`)).toEqual([a.id]);
    expect(await ids(`userId=${alice.userId}&createdAtGte=${shifted(1)}`)).toEqual([]);
    expect(await ids(`userId=${alice.userId}&createdAtLte=${encodeURIComponent(created)}`)).toEqual([a.id]);
    expect(await ids(`userId=${alice.userId}&createdAtLte=${shifted(-1)}`)).toEqual([]);
    for (const query of ['createdAtGte=yesterday', 'createdAtLte=2024-13-45T99:00:00Z', 'status=expired']) {
      expect(failure(await tenant.partner(`/partners/me/orders?${query}`))).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    }
  });

  it('one order and its deposit: 404 for an unknown id and for another tenant', async () => {
    expect(dataOf<Record<string, unknown>>(await tenant.partner(`/partners/me/orders/${b.id}`))).toMatchObject({
      id: b.id,
      userId: bob.userId,
    });
    expect(dataOf(await tenant.partner(`/partners/me/orders/${a.id}/deposit`))).toEqual({
      txSignature: expect.any(String),
      submittedAt: a.createdAt,
    });
    for (const path of [`/partners/me/orders/${a.id}`, `/partners/me/orders/${a.id}/deposit`]) {
      expect(failure(await other.partner(path))).toEqual({ status: 404, code: 'NOT_FOUND' });
    }
    expect(failure(await tenant.partner(`/partners/me/orders/${randomUUID()}`))).toEqual({ status: 404, code: 'NOT_FOUND' });
  });

  it('executions: an array (the store has no execution rows yet); an invalid timestamp is 400', async () => {
    expect(dataOf(await tenant.partner(`/partners/me/executions?userId=${alice.userId}`))).toEqual([]);
    expect(failure(await tenant.partner('/partners/me/executions?createdAtGte=soon'))).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  });
});
