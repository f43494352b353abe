import { defineCheck, type CheckContext } from '../harness/check.ts';
import { randomToken } from '../shared/values.ts';
import { PARTNER_READ } from './auth.checks.ts';

export const requestIdIsEchoed = defineCheck({
  name: 'x-request-id-is-echoed-back',
  service: 'orders',
  rules: ['OA-REQID-001'],
  profile: 'smoke',
  async run(t: CheckContext) {
    // On a success and on an auth failure: the header is part of every answer, not of the handler.
    for (const key of [t.env.credentials.ordersApiKey, undefined]) {
      const id = randomToken('conformance-request');
      const ex = await t.orders.request({ path: PARTNER_READ, headers: { 'X-Service-Key': key, 'X-Request-Id': id }, retry: false });
      t.expect('OA-REQID-001', ex.response.headers['x-request-id'] === id, {
        documented: `x-request-id: ${id} echoed back`, received: ex.response.headers['x-request-id'] ?? '(absent)', exchange: ex,
      });
    }
  },
});

export const requestIdIsGenerated = defineCheck({
  name: 'x-request-id-is-generated-when-absent',
  service: 'orders',
  rules: ['OA-REQID-002'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const ex = await t.orders.request({ path: PARTNER_READ, retry: false });
    const id = ex.response.headers['x-request-id'];
    t.expect('OA-REQID-002', typeof id === 'string' && id.trim() !== '', {
      documented: 'a generated x-request-id header when the request has none', received: id ?? '(absent)', exchange: ex,
    });
  },
});
