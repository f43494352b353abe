import { actionUser, TRIGGER_INTENT } from '../../action-support.ts';
import type { Answer } from '../../support.ts';
import { failure, type Probe } from '../probe.ts';
import { withKey } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/orders/hostile.ts (OA-HOST): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

const message = (a: Answer) => String((a.body as { error?: { message?: unknown } }).error?.message);

export const ORDERS_HOSTILE_PROBES: Record<string, Probe> = {
  'invalid-json-body-answers-500': async (t) => {
    const { apiKey } = await t.createTenant();
    return failure(await t.orders('/partner/onboard', { method: 'POST', headers: withKey(apiKey), rawBody: '{"sub":' }));
  },
  'intent-invalid-json-served-with-a-default-body': async (t) => {
    const alice = await actionUser(t);
    return failure(
      await t.orders('/orders/intent', { method: 'POST', headers: withKey(alice.apiKey, alice.sub), rawBody: '{"orderType":' }),
    );
  },
  'validation-errors-carry-a-made-up-code': async (t) => {
    const { apiKey } = await t.createTenant();
    return failure(await t.orders('/partners/me/orders?createdAtGte=not-a-time', { headers: withKey(apiKey) }));
  },
  'intent-validation-answers-missing-params': async (t) =>
    failure(await (await actionUser(t)).post('/orders/intent', { orderType: 'dca', config: { totalAmount: '-1' } })),
  'health-query-parameters-answer-500': async (t) => (await t.orders('/health?conformanceUnknown=1')).status,
  'trigger-patch-with-a-string-config-answers-500': async (t) => {
    const alice = await actionUser(t);
    const { id } = await alice.order(TRIGGER_INTENT);
    return failure(await alice.patch(`/stop-loss/${id}`, { config: 'not an object' }));
  },
  'error-message-carries-a-stack-trace': async (t) => {
    const { apiKey } = await t.createTenant();
    return message(await t.orders('/partners/me/orders?createdAtGte=not-a-time', { headers: withKey(apiKey) })).includes('\n');
  },
  'trigger-patch-serves-a-negative-price': async (t) => {
    const alice = await actionUser(t);
    const { id } = await alice.order(TRIGGER_INTENT);
    return failure(await alice.patch(`/stop-loss/${id}`, { config: { triggerPrice: '-1' } }));
  },
};
