import { Keypair } from '@solana/web3.js';
import { actionUser } from '../../action-support.ts';
import { DCA_INTENT, dataOf } from '../../reads-support.ts';
import { Target } from '../../support.ts';
import { HOUR, type Probe, status } from '../probe.ts';
import { balanceRows, detailOf, first, keyedUser, partnerRows, readsScene, rowsOf } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/orders/service.ts (OA-HEALTH, OA-ENV, OA-REQID, OA-SHAPE, OA-FMT, OA-EVT, OA-VER): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

async function withFaults<T>(target: Target, database: string, run: () => Promise<T>): Promise<T> {
  await target.faults({ database });
  try {
    return await run();
  } finally {
    await target.faults({ database: 'healthy' });
  }
}

export const ORDERS_SERVICE_PROBES: Record<string, Probe> = {
  'dca-patch-changes-the-recipient': async (t) => {
    const alice = await actionUser(t);
    const { id } = await alice.order();
    const elsewhere = Keypair.generate().publicKey.toBase58();
    await alice.patch(`/dca/${id}`, { config: { cycleFrequencySeconds: 7200, outputRecipientAddress: elsewhere } });
    return (await alice.detail(id)).outputRecipientAddress === elsewhere;
  },
  // ---- OA-HEALTH: GET /health ----
  'health-requires-key': async (t) => status(await t.orders('/health')),
  'health-ok-status-healthy': async (t) => (await t.orders('/health')).body,
  'health-degraded-answered-503': (t) => withFaults(t, 'unhealthy', async () => status(await t.orders('/health'))),
  'health-error-body-with-services': (t) => withFaults(t, 'down', async () => (await t.orders('/health')).body),
  'health-with-envelope-success-flag': async (t) => (await t.orders('/health')).body,

  // ---- OA-ENV: Response envelope ----
  'success-body-without-success-flag': async (t) => (await t.partnerOrders((await t.createTenant()).apiKey)).body,
  'error-body-without-message': async (t) => Object.keys(((await t.partnerOrders(undefined)).body as { error: object }).error).sort(),
  'success-flag-true-on-errors': async (t) => ((await t.partnerOrders(undefined)).body as { success: unknown }).success,

  // ---- OA-REQID: X-Request-Id ----
  'request-id-not-echoed': async (t) => (await t.orders('/health', { headers: { 'x-request-id': 'probe-7' } })).headers['x-request-id'],
  'request-id-missing-when-absent': async (t) => typeof (await t.orders('/health')).headers['x-request-id'],
  'request-id-echoed-on-successes-only': async (t) =>
    (await t.orders('/partners/me/orders', { headers: { 'x-request-id': 'probe-8' } })).headers['x-request-id'],
  'health-without-request-id': async (t) => typeof (await t.orders('/health')).headers['x-request-id'],

  // ---- OA-SHAPE: Response shapes as a whole ----
  'partner-orders-data-not-a-list': async (t) =>
    Array.isArray(((await t.partnerOrders((await t.createTenant()).apiKey)).body as { data: unknown }).data),
  // passive order invariants
  'order-rows-without-withdrawal-status': async (t) => 'withdrawalStatus' in (await first((await readsScene(t)).alice, '/me/orders')),
  'dca-detail-order-type-uppercase': async (t) => (await detailOf(t, 'dca')).orderType,
  'active-rows-without-originating-partner': async (t) =>
    'originatingPartner' in (await first((await readsScene(t)).alice, '/me/orders/active')),
  'dca-detail-user-id-is-the-sub': async (t) => (await detailOf(t, 'dca')).userId === 'alice',
  'output-recipient-a-stranger': async (t) => {
    const { alice } = await readsScene(t);
    return (await first(alice, '/me/orders')).outputRecipientAddress === alice.walletAddress;
  },
  'reads-show-the-user-wallet-as-output-recipient': async (t) => {
    const { alice } = await readsScene(t);
    return (await first(alice, '/me/orders')).outputRecipientAddress === alice.walletAddress;
  },
  'dca-detail-output-mint-equals-input': async (t) => {
    const d = await detailOf(t, 'dca');
    return d.inputMint === d.outputMint;
  },
  'fee-override-as-string': async (t) => typeof (await first((await readsScene(t)).alice, '/me/orders')).platformFeeBpsOverride,

  // ---- OA-FMT: Value conventions (integer strings, timestamps, UUIDv4 ids, mints, token programs, extra fields) ----
  'order-amounts-as-json-numbers': async (t) => typeof (await first((await readsScene(t)).alice, '/me/orders')).amountSpent,
  'balance-amounts-as-json-numbers': async (t) => balanceRows(await (await keyedUser(t)).balance()).map((row) => typeof row.totalBalance),
  'stop-loss-trigger-price-decimal': async (t) => (await detailOf(t, 'stop_loss')).triggerPrice,
  'oco-price-decimals-as-string': async (t) => typeof (await detailOf(t, 'oco')).priceDecimals,
  'dca-detail-created-at-unix-seconds': async (t) => typeof (await detailOf(t, 'dca')).createdAt,
  'order-row-ids-not-uuid': async (t) => UUID.test(String((await first((await readsScene(t)).alice, '/me/orders')).id)),
  'partner-row-mints-as-hex': async (t) => (await partnerRows(t)).map((r) => BASE58.test(String(r.inputMint))),
  'token-2022-mint-reported-as-token': async (t) => {
    const alice = await actionUser(t);
    const mint = Keypair.generate().publicKey.toBase58();
    await t.fund(alice.walletAddress, mint, '1000', { programId: 'token-2022' });
    return rowsOf(await alice.get('/me/balance')).find((row) => row.mint === mint)?.programId;
  },
  'token-2022-transfer-hook-mint-swapped-as-plain': async (t) => {
    const alice = await actionUser(t);
    const { mint } = await t.provision<{ mint: string }>('POST', '/token-2022-mints');
    const order = await alice.order({ ...DCA_INTENT, outputMint: mint });
    await t.advanceClock(HOUR + 1);
    return dataOf<Array<Record<string, unknown>>>(await alice.get(`/orders/${order.id}/executions`)).map((row) => [
      row.status,
      row.failureReason,
    ]);
  },

  // ---- OA-EVT: Events (no webhooks, state is polled) ----
  'me-orders-shows-a-paused-order-as-active': async (t) => {
    const alice = await actionUser(t);
    const order = await alice.order();
    await alice.post(`/orders/${order.id}/pause`);
    return dataOf<Array<Record<string, unknown>>>(await alice.get('/me/orders')).map((row) => row.status);
  },

  // ---- OA-VER: Versioning (stable field names, changeable formats, legacy fields, no version number) ----
  'me-names-the-wallet-address-wallet': async (t) => {
    const alice = await actionUser(t);
    return Object.keys(dataOf<Record<string, unknown>>(await alice.get('/me'))).sort();
  },
};
