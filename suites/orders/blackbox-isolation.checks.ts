import { dataOf, errorCode, failureOf, is2xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed } from '../harness/failure.ts';
import { isObject, randomToken } from '../shared/values.ts';
import { type Created, dcaRequest, intentRequest } from './orders.ts';
import { createSmallest, partnerUser } from './steps/blackbox.ts';
import { expectError } from './steps/expect.ts';
import { DETAIL_PATHS } from './steps/reads.ts';
import { asUser, correctBody, otherTenantKey, postOnboard, throwawayWallet } from './users.ts';

/**
 * Partner mode, isolation (steps/blackbox.ts): the partner's own orders (the run's wallet, the smallest amounts) are out
 * of reach of another user of the same tenant and of a user of another tenant (ORDERS_API_KEY_ALT), and another
 * tenant's reporting shows none of them. The intruders are throwaway wallets that only sign in: they need no funds
 * (the control path: isolation.checks.ts, reporting.checks.ts, with generated funded users and provisioned tenants).
 */

const WATCHED = [
  'status',
  'withdrawalStatus',
  'totalAmount',
  'cycleFrequencySeconds',
  'amount',
  'triggerPrice',
  'currentTriggerPrice',
  'cancelledAt',
];

/** A throwaway wallet signed in under `apiKey` (the run's tenant when absent): an intruder with no funds. */
async function intruder(t: CheckContext, apiKey?: string): Promise<{ sub: string; headers: Record<string, string> }> {
  const sub = randomToken('conformance-intruder');
  const ex = await postOnboard(t, await correctBody(t, sub, throwawayWallet()), apiKey);
  if (!is2xx(ex))
    throw new SetupFailed(
      `onboarding a throwaway intruder answered ${ex.response.status} ${JSON.stringify(ex.response.body).slice(0, 300)}`,
      ex,
    );
  return { sub, headers: apiKey ? { 'X-Service-Key': apiKey } : {} };
}

async function partnerRead(t: CheckContext, path: string, apiKey: string): Promise<Exchange> {
  return await t.orders.request({ path, headers: { 'X-Service-Key': apiKey, 'X-Service-User': undefined } });
}

export const partnerOrdersOutOfReach = defineCheck({
  name: 'partner-orders-are-out-of-reach-of-another-user-and-another-tenant',
  service: 'orders',
  rules: ['OA-ERR-006', 'OA-ERR-013', 'OA-REP-005', 'OA-REP-015'],
  profile: 'full',
  // It counts only the other tenant's reports: with `tenants` a fresh tenant of its own (otherTenantKey).
  ownTenant: true,
  async run(t: CheckContext) {
    const owner = await partnerUser(t);
    const other = await otherTenantKey(t);
    // Armed orders that never run while the check does: a daily DCA, and a stop far below any market.
    const dca = await createSmallest(t, owner, (unit) =>
      dcaRequest({ totalAmount: String(unit), amountPerCycle: String(unit), cycleFrequencySeconds: 86_400 }),
    );
    const stop = await createSmallest(t, owner, (unit) => intentRequest('stop_loss', { config: { amount: String(unit) } }));
    const orders: Created[] = [dca, stop];
    const snapshot = async () =>
      await Promise.all(
        orders.map(async (o) => {
          const ex = await asUser(t, owner.sub, { path: `${DETAIL_PATHS[o.order.orderType as 'dca' | 'stop_loss']}/${o.orderId}` });
          const d = dataOf(ex) ?? {};
          return Object.fromEntries(WATCHED.map((k) => [k, d[k]]));
        }),
      );
    const before = await snapshot();

    for (const [who, actor] of [
      ['another user of the tenant', await intruder(t)],
      ["a user of another tenant's key", await intruder(t, other.apiKey)],
    ] as const) {
      const as = (method: string, path: string, json?: unknown) =>
        asUser(t, actor.sub, { method, path, json, headers: actor.headers, retry: false });
      for (const o of orders) {
        const type = o.order.orderType as 'dca' | 'stop_loss';
        for (const path of [`${DETAIL_PATHS[type]}/${o.orderId}`, `/orders/${o.orderId}/executions`, `/orders/${o.orderId}/deposit`]) {
          expectError(t, 'OA-ERR-006', await as('GET', path), {
            status: 404,
            codes: ['NOT_FOUND'],
            documented: `GET ${path.replace(o.orderId, '{orderId}')} of an order not of this user, by ${who}: 404 NOT_FOUND`,
          });
        }
        for (const [action, json] of [
          ['pause', {}],
          ['resume', {}],
          ['cancel', { withdraw: false }],
          ['withdraw', {}],
          ['withdraw/abandon', {}],
        ] as const) {
          expectError(t, 'OA-ERR-006', await as('POST', `/orders/${o.orderId}/${action}`, json), {
            status: 404,
            codes: ['NOT_FOUND'],
            documented: `POST /orders/{orderId}/${action} of an order not of this user, by ${who}: 404 NOT_FOUND`,
          });
        }
      }
      for (const [method, path, json] of [
        ['PATCH', `/dca/${dca.orderId}`, { config: { cycleFrequencySeconds: 7200 } }],
        ['PATCH', `/stop-loss/${stop.orderId}`, { config: { triggerPrice: '2' } }],
      ] as const) {
        const ex = await as(method, path, json);
        t.expect('OA-ERR-013', ex.response.status >= 400 && ex.response.status < 500, {
          documented: `${method} ${path.replace(/[0-9a-f-]{36}/, '{orderId}')} of an order not of this user, by ${who}, is refused (404 NOT_FOUND)`,
          received: failureOf(ex),
          exchange: ex,
        });
        if (errorCode(ex) !== 'NOT_FOUND') t.note(`${method} ${path} by ${who} answered ${ex.response.status} ${String(errorCode(ex))}`);
      }
    }
    const after = await snapshot();
    t.expect('OA-ERR-013', JSON.stringify(after) === JSON.stringify(before), {
      documented: "the partner's orders read the same after the intruders tried every action and change on them",
      received: { before, after },
    });

    // Another tenant's reporting: none of these orders, nor their executions; their ids answer 404.
    const ids = orders.map((o) => o.orderId);
    for (const path of ['/partners/me/orders', '/partners/me/executions']) {
      const ex = await partnerRead(t, path, other.apiKey);
      const rows = Array.isArray((ex.response.body as { data?: unknown })?.data)
        ? ((ex.response.body as { data: unknown[] }).data as unknown[])
        : undefined;
      if (!is2xx(ex) || !rows) throw new SetupFailed(`GET ${path} with the other tenant's key answered ${ex.response.status}`, ex);
      const leaked = rows.filter((r) => isObject(r) && (ids.includes(String(r.id)) || ids.includes(String(r.orderId))));
      t.expect('OA-REP-005', leaked.length === 0, {
        documented: `another tenant's ${path} shows none of this tenant's orders or their executions`,
        received: leaked,
        exchange: ex,
      });
    }
    for (const id of ids) {
      for (const path of [`/partners/me/orders/${id}`, `/partners/me/orders/${id}/deposit`]) {
        expectError(t, 'OA-REP-015', await partnerRead(t, path, other.apiKey), {
          status: 404,
          codes: ['NOT_FOUND'],
          documented: `GET ${path.replace(id, '{id}')} of another partner's order: 404 NOT_FOUND`,
        });
      }
    }
  },
});
