import { defineCheck, type CheckContext } from '../harness/check.ts';
import { randomToken } from '../shared/values.ts';
import { PARTNER_READ } from './steps/auth.ts';
import type { RuleId } from '../../generators/vocabulary.ts';

export const requestIdIsEchoed = defineCheck({
  name: 'x-request-id-is-echoed-back',
  service: 'orders',
  rules: ['OA-REQID-001', 'OA-REQID-003', 'OA-REQID-004'],
  profile: 'readonly',
  async run(t: CheckContext) {
    // A success, an auth failure and the public health endpoint: the header belongs to every answer.
    const cases: { rule: RuleId; what: string; path: string; key: string | undefined }[] = [
      { rule: 'OA-REQID-001', what: 'a success', path: PARTNER_READ, key: t.env.credentials.ordersApiKey },
      { rule: 'OA-REQID-003', what: 'a failure', path: PARTNER_READ, key: undefined },
      { rule: 'OA-REQID-004', what: 'GET /health', path: '/health', key: undefined },
    ];
    for (const { rule, what, path, key } of cases) {
      const id = randomToken('conformance-request');
      const ex = await t.orders.request({ path, headers: { 'X-Service-Key': key, 'X-Request-Id': id }, retry: false });
      t.expect(rule, ex.response.headers['x-request-id'] === id, {
        documented: `x-request-id: ${id} echoed back on ${what}`,
        received: ex.response.headers['x-request-id'] ?? '(absent)',
        exchange: ex,
      });
    }
  },
});

export const requestIdIsGenerated = defineCheck({
  name: 'x-request-id-is-generated-when-absent',
  service: 'orders',
  rules: ['OA-REQID-002'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const ex = await t.orders.request({ path: PARTNER_READ, retry: false });
    const id = ex.response.headers['x-request-id'];
    t.expect('OA-REQID-002', typeof id === 'string' && id.trim() !== '', {
      documented: 'a generated x-request-id header when the request has none',
      received: id ?? '(absent)',
      exchange: ex,
    });
  },
});
