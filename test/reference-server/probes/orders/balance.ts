import { MINTS } from '../../quote-support.ts';
import { dataOf } from '../../reads-support.ts';
import { type Answer, Target } from '../../support.ts';
import { failure, type Probe, type Row } from '../probe.ts';
import { actionScene, balanceRows, IDEM_DCA, keyedUser, pending, userOnFreshTenant, withdrawalScene } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/orders/balance.ts (OA-BAL): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

const rowsOf = (a: Answer) => (a.body as { data: { balances: { symbol: unknown; programId: unknown }[] } }).data.balances;

const LOCK_INTENTS: Record<string, unknown> = {
  dca: IDEM_DCA,
  stop_loss: {
    orderType: 'stop_loss',
    inputMint: MINTS.USDC,
    outputMint: MINTS.SOL,
    config: { amount: '12000000', triggerPrice: '1', priceDecimals: 18 },
  },
  slice: { orderType: 'slice', inputMint: MINTS.USDC, outputMint: MINTS.SOL, config: { amount: '12000000', sliceCount: 3 } },
};

/** The balance rows of a user whose one order of `type` was just confirmed, with entries naming it by `orderId: true`. */
async function lockedRows(t: Target, type: string, advanceSeconds = 0) {
  const u = await keyedUser(t);
  const confirmed = await u.post('/orders/confirm', await u.confirmBody(LOCK_INTENTS[type]));
  const orderId = (confirmed.body as { data: { order: { id: string } } }).data.order.id;
  if (advanceSeconds > 0) await t.advanceClock(advanceSeconds);
  return balanceRows(await u.balance()).map((row) => ({
    ...row,
    lockedBreakdown: (row.lockedBreakdown as Record<string, unknown>[]).map((entry) => ({ ...entry, orderId: entry.orderId === orderId })),
  }));
}

export const BALANCE_PROBES: Record<string, Probe> = {
  'balance-rows-under-data-rows': async (t) => Object.keys(((await (await keyedUser(t)).balance()).body as { data: object }).data).sort(),
  'balance-wallet-is-the-user-wallet': async (t) => {
    const { apiKey, user } = await userOnFreshTenant(t);
    return (
      ((await t.asUser(apiKey, 'probe-sub', '/me/balance')).body as { data: { walletAddress: unknown } }).data.walletAddress ===
      user.walletAddress
    );
  },
  'balance-decimals-as-a-string': async (t) => balanceRows(await (await keyedUser(t)).balance()).map((row) => typeof row.decimals),
  'token-row-program-id-spl-token': async (t) => {
    const { apiKey, user } = await userOnFreshTenant(t);
    await t.fund(user.walletAddress, MINTS.JUP, '5');
    return rowsOf(await t.asUser(apiKey, 'probe-sub', '/me/balance')).map((row) => row.programId);
  },
  'native-row-without-symbol': async (t) => {
    const { apiKey } = await userOnFreshTenant(t);
    return rowsOf(await t.asUser(apiKey, 'probe-sub', '/me/balance')).map((row) => row.symbol);
  },
  'balance-symbol-for-every-mint': async (t) => {
    const { apiKey, user } = await userOnFreshTenant(t);
    await t.fund(user.walletAddress, MINTS.JUP, '5');
    return rowsOf(await t.asUser(apiKey, 'probe-sub', '/me/balance')).map((row) => row.symbol);
  },
  'available-to-withdraw-ignores-withdrawal-pending': async (t) => {
    const s = await withdrawalScene(t);
    await pending(s);
    return (await s.usdc()).availableToWithdraw;
  },
  'available-to-withdraw-ignores-locks': (t) => lockedRows(t, 'dca'),
  'available-to-withdraw-one-more-than-total': async (t) => {
    const { apiKey, user } = await userOnFreshTenant(t);
    await t.fund(user.walletAddress, MINTS.JUP, '5');
    return rowsOf(await t.asUser(apiKey, 'probe-sub', '/me/balance')).map((row) => (row as Record<string, unknown>).availableToWithdraw);
  },
  'dca-locks-one-cycle': (t) => lockedRows(t, 'dca'),
  'dca-lock-ignores-amount-spent': (t) => lockedRows(t, 'dca', 3601),
  'stop-loss-locks-nothing': (t) => lockedRows(t, 'stop_loss'),
  'slice-locks-nothing': (t) => lockedRows(t, 'slice'),
  'slice-lock-ignores-amount-spent': (t) => lockedRows(t, 'slice', 61),
  'output-mint-locked-too': (t) => lockedRows(t, 'dca'),
  'output-mint-locked-without-an-entry': (t) => lockedRows(t, 'dca'),
  'locked-breakdown-amount-in-whole-tokens': (t) => lockedRows(t, 'dca'),
  'cancelled-orders-keep-their-lock': async (t) => {
    const { alice, id } = await actionScene(t);
    await alice.post(`/orders/${id}/cancel`, { withdraw: false });
    return (dataOf<Row>(await alice.get('/me/balance')).balances as { mint: string; lockedForFutureTxns: string }[]).find(
      (row) => row.mint === MINTS.USDC,
    )?.lockedForFutureTxns;
  },
  'withdrawal-pending-without-a-withdrawal': async (t) =>
    balanceRows(await (await keyedUser(t)).balance()).map((row) => row.withdrawalPending),
  'hide-zero-keeps-the-empty-native-row': async (t) => {
    const { apiKey } = await userOnFreshTenant(t);
    return rowsOf(await t.asUser(apiKey, 'probe-sub', '/me/balance?hideZero=true')).length;
  },
  'hide-zero-drops-fully-locked-rows': async (t) => {
    const u = await keyedUser(t);
    await u.post('/orders/confirm', await u.confirmBody(IDEM_DCA));
    return rowsOf(await u.balance('?hideZero=true')).length;
  },
  'hide-zero-defaults-to-true': async (t) => {
    const { apiKey } = await userOnFreshTenant(t);
    return rowsOf(await t.asUser(apiKey, 'probe-sub', '/me/balance')).length;
  },
  'locked-breakdown-without-status': (t) => lockedRows(t, 'dca'),
  'locked-breakdown-names-an-unknown-order': (t) => lockedRows(t, 'dca'),
  'active-lock-of-kind-reserved': (t) => lockedRows(t, 'dca'),
  'odd-total-balance-one-short': async (t) => {
    const { apiKey, user } = await userOnFreshTenant(t);
    await t.fund(user.walletAddress, MINTS.JUP, '5');
    return rowsOf(await t.asUser(apiKey, 'probe-sub', '/me/balance')).map((row) => (row as Record<string, unknown>).totalBalance);
  },
  'chain-down-answered-rpc-unavailable': async (t) => {
    const { apiKey } = await userOnFreshTenant(t);
    await t.faults({ rpc: 'down' });
    try {
      return failure(await t.asUser(apiKey, 'probe-sub', '/me/balance'));
    } finally {
      await t.faults({ rpc: 'up' });
    }
  },
};
