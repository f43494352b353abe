import { randomUUID } from 'node:crypto';
import { actionUser, sign, TRIGGER_INTENT } from '../../action-support.ts';
import { DCA_INTENT } from '../../reads-support.ts';
import type { Target } from '../../support.ts';
import { failure, type Probe, status } from '../probe.ts';
import { actionScene, readsScene, unfundedConfirm, withKey } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/orders/errors.ts (OA-ERR): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

/** alice's intent while the chain is down, and the status of the same intent once it is back. */
async function intentWithTheChainDown(t: Target): Promise<{ down: unknown; up: number }> {
  const alice = await actionUser(t);
  await t.faults({ rpc: 'down' });
  let down: unknown;
  try {
    down = failure(await alice.post('/orders/intent', DCA_INTENT));
  } finally {
    await t.faults({ rpc: 'up' });
  }
  return { down, up: (await alice.post('/orders/intent', DCA_INTENT)).status };
}

/** alice with a fresh order (DCA unless `intent` says otherwise), and calls as bob, another user of her tenant. */
async function aliceAndBob(t: Target, intent?: unknown) {
  const alice = await actionUser(t);
  const { id } = await alice.order(intent);
  await t.onboard(alice.apiKey, 'bob');
  const bob = (method: 'POST' | 'PATCH', path: string, json: unknown) =>
    t.orders(path, { method, headers: withKey(alice.apiKey, 'bob'), json });
  return { id, bob };
}

export const ORDERS_ERROR_PROBES: Record<string, Probe> = {
  'intent-rpc-unavailable-answered-500': async (t) => (await intentWithTheChainDown(t)).down,
  'intent-client-errors-answered-422': async (t) => {
    const alice = await actionUser(t);
    return failure(await alice.post('/orders/intent', { ...DCA_INTENT, orderType: 'bogus' }));
  },
  'unknown-order-executions-answered-empty': async (t) =>
    status(await (await readsScene(t)).alice.get(`/orders/${randomUUID()}/executions`)),
  // Another user of the same tenant (bob) acts on alice's order.
  'actions-reach-another-users-order': async (t) => {
    const { id, bob } = await aliceAndBob(t);
    return failure(await bob('POST', `/orders/${id}/pause`, {}));
  },
  'order-withdrawal-reaches-another-users-order': async (t) => {
    const { id, bob } = await aliceAndBob(t);
    return failure(await bob('POST', `/orders/${id}/withdraw/abandon`, {}));
  },
  'executions-of-another-users-order-served': async (t) => {
    const s = await readsScene(t);
    return status(await s.bob.get(`/orders/${s.order.id}/executions`));
  },
  'in-flight-answer-never-resolves': async (t) => {
    const { alice, id } = await actionScene(t);
    await t.faults({ swaps: 'hang' });
    await t.advanceClock(3600);
    await t.faults({ swaps: 'ok' });
    return failure(await alice.post(`/orders/${id}/pause`));
  },
  'pause-in-flight-answered-internal-error': async (t) => {
    const { alice, id } = await actionScene(t);
    await t.faults({ swaps: 'hang' });
    await t.advanceClock(3600);
    try {
      return failure(await alice.post(`/orders/${id}/pause`));
    } finally {
      await t.faults({ swaps: 'ok' });
    }
  },
  'submit-failed-consumes-the-pending-order': async (t) => {
    const alice = await actionUser(t);
    const { pendingOrderId, transaction } = await alice.intent(DCA_INTENT);
    const unsigned = failure(await alice.post('/orders/confirm', { pendingOrderId, signedTransaction: transaction }));
    const again = await alice.post('/orders/confirm', { pendingOrderId, signedTransaction: sign(transaction, alice.wallet) });
    return { unsigned, again: again.status };
  },
  'chain-recovery-noticed-five-minutes-late': async (t) => (await intentWithTheChainDown(t)).up,
  'tx-failed-answered-400': async (t) => (await unfundedConfirm(t)).confirm.status,
  'trigger-patch-reaches-another-users-order': async (t) => {
    const { id, bob } = await aliceAndBob(t, TRIGGER_INTENT);
    return failure(await bob('PATCH', `/stop-loss/${id}`, { config: { triggerPrice: '2' } }));
  },
};
