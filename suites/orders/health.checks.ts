import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Faults } from '../harness/control.ts';
import type { Exchange } from '../harness/exchange.ts';
import { isObject } from '../shared/values.ts';
import type { RuleId } from '../../generators/vocabulary.ts';

/**
 * GET /health without any credential; 503 is one of its documented answers, so no retry but the client's own on a 5xx
 * to a GET (a passing outage); `settled`: the lasting answer a check that set the database's state waits for, returned
 * at once.
 */
async function getHealth(t: CheckContext, settled?: (ex: Exchange) => boolean) {
  return await t.orders.request({ path: '/health', headers: { 'X-Service-Key': undefined }, retry: false, settled });
}

export const healthNeedsNoCredentials = defineCheck({
  name: 'health-answers-without-credentials',
  service: 'orders',
  rules: ['OA-HEALTH-001'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const ex = await getHealth(t);
    t.expect('OA-HEALTH-001', ex.response.status === 200 || ex.response.status === 503, {
      documented: 'GET /health needs no X-Service-Key: 200 or 503 with a health body',
      received: ex.response.status,
      exchange: ex,
    });
  },
});

export const healthIsOutsideTheEnvelope = defineCheck({
  name: 'health-body-is-outside-the-envelope',
  service: 'orders',
  rules: ['OA-HEALTH-005'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const ex = await getHealth(t);
    const body = ex.response.body;
    t.expect('OA-HEALTH-005', isObject(body) && !('success' in body) && typeof body.status === 'string', {
      documented: 'a health body {status, services?} without the success envelope',
      received: body,
      exchange: ex,
    });
  },
});

/** Drive the database state through the control API and read the health answer. */
function healthUnder(
  name: string,
  rule: RuleId,
  database: NonNullable<Faults['database']>,
  expected: { status: number; body: string; ok(body: Record<string, unknown>): boolean },
) {
  return defineCheck({
    name,
    service: 'orders',
    rules: [rule],
    profile: 'full',
    needs: ['faults'],
    async run(t: CheckContext) {
      t.defer(() => t.control.setFaults({ database: 'healthy' }));
      await t.control.setFaults({ database });
      const holds = (ex: Exchange) => ex.response.status === expected.status && isObject(ex.response.body) && expected.ok(ex.response.body);
      const ex = await getHealth(t, holds);
      const body = ex.response.body;
      t.expect(rule, holds(ex), {
        documented: `with the database ${database}: ${expected.status} ${expected.body}`,
        received: { status: ex.response.status, body },
        exchange: ex,
      });
    },
  });
}

export const healthOkWhenDatabaseHealthy = healthUnder('health-is-200-ok-when-the-database-is-healthy', 'OA-HEALTH-002', 'healthy', {
  status: 200,
  body: '{status: "ok", services: {database: "healthy"}}',
  ok: (b) => b.status === 'ok' && isObject(b.services) && b.services.database === 'healthy',
});

export const healthDegradedWhenDatabaseUnhealthy = healthUnder(
  'health-is-200-degraded-when-the-database-is-unhealthy',
  'OA-HEALTH-003',
  'unhealthy',
  {
    status: 200,
    body: '{status: "degraded", services: {database: "unhealthy"}}',
    ok: (b) => b.status === 'degraded' && isObject(b.services) && b.services.database === 'unhealthy',
  },
);

export const healthErrorWhenDown = healthUnder('health-is-503-error-without-services-when-down', 'OA-HEALTH-004', 'down', {
  status: 503,
  body: '{status: "error"} with no services field and no error detail',
  ok: (b) => b.status === 'error' && !('services' in b) && !('error' in b) && !('details' in b),
});
