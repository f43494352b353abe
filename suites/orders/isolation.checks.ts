import { errorCode } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { createOrder, intentRequest, intentUser, type Created } from './orders.ts';
import { readOrder } from './steps/actions.ts';
import { expectError, expectRefused } from './steps/expect.ts';
import { asUser } from './users.ts';

/**
 * Isolation of users within one tenant: another user of the same partner reaches none of an order's actions, nor its
 * changes (Errors: NOT_FOUND, "not this user's"). The reads are judged in reads.checks.ts; here every operation that
 * would change an order is tried by the intruder, and the owner's orders must read the same afterwards.
 */

/** The fields a change by the intruder would move. */
const WATCHED = [
  'status',
  'withdrawalStatus',
  'totalAmount',
  'amountPerCycle',
  'cycleFrequencySeconds',
  'amount',
  'triggerPrice',
  'currentTriggerPrice',
  'expiresAt',
  'trailingStopBps',
  'cancelledAt',
  'withdrawalRequestedAt',
];

const watched = (order: Record<string, unknown>) => Object.fromEntries(WATCHED.map((name) => [name, order[name]]));

export const othersOrdersAreOutOfReach = defineCheck({
  name: 'another-users-order-is-out-of-reach-of-every-action-and-change',
  service: 'orders',
  rules: ['OA-ERR-006', 'OA-ERR-013'],
  profile: 'full',
  async run(t: CheckContext) {
    const owner = await intentUser(t, true);
    const intruder = await intentUser(t, true, 'second');
    const dca = await createOrder(t, owner, intentRequest('dca'));
    const stop = await createOrder(t, owner, intentRequest('stop_loss'));
    const read = async (order: Created) => watched(await readOrder(t, owner, order));
    const before = [await read(dca), await read(stop)];

    // Every /orders/{orderId}/* action: 404 NOT_FOUND (OA-ERR-006).
    const actions: Array<[string, unknown]> = [
      ['pause', {}],
      ['resume', {}],
      ['retry', {}],
      ['cancel', { withdraw: true, userPubkey: intruder.userPubkey }],
      ['withdraw', {}],
      ['withdraw/confirm', { signedTransaction: 'AQAB' }],
      ['withdraw/abandon', {}],
    ];
    for (const order of [dca, stop]) {
      for (const [action, json] of actions) {
        const ex = await asUser(t, intruder.sub, { method: 'POST', path: `/orders/${order.orderId}/${action}`, json, retry: false });
        expectError(t, 'OA-ERR-006', ex, {
          status: 404,
          codes: ['NOT_FOUND'],
          documented: `POST /orders/{orderId}/${action} of another user's ${order.order.orderType} order: 404 NOT_FOUND`,
        });
      }
    }

    // The changes of one order: refused (OA-ERR-013); which 4xx when the body is judged first is not shown.
    const changes: Array<[string, string, unknown]> = [
      ['PATCH', `/dca/${dca.orderId}`, { config: { totalAmount: '48000000' } }],
      ['PATCH', `/dca/${dca.orderId}`, { config: { cycleFrequencySeconds: 7200 } }],
      [
        'POST',
        `/dca/${dca.orderId}/modify/confirm`,
        { signedTransaction: 'AQAB', cyclesCompleted: 0, config: { totalAmount: '48000000' } },
      ],
      ['PATCH', `/stop-loss/${stop.orderId}`, { config: { triggerPrice: '2' } }],
    ];
    for (const [method, path, json] of changes) {
      const ex = await asUser(t, intruder.sub, { method, path, json, retry: false });
      expectRefused(
        t,
        'OA-ERR-013',
        ex,
        `${method} ${path.replace(/[0-9a-f-]{36}/, '{orderId}')} of another user's order is refused (404 NOT_FOUND)`,
      );
      if (errorCode(ex) !== 'NOT_FOUND')
        t.note(`${method} ${path} by another user answered ${ex.response.status} ${String(errorCode(ex))}, not 404 NOT_FOUND`);
    }

    const after = [await read(dca), await read(stop)];
    t.expect('OA-ERR-013', JSON.stringify(after) === JSON.stringify(before), {
      documented: "the owner's orders read the same after another user tried every action and change on them",
      received: { before, after },
    });
  },
});
