/**
 * Without `funding` every order check's user is the partner's wallet, shared with the partner's own orders and the
 * suite's other checks (suites/orders/steps/shared-wallet.ts). The checks that compare a balance before and after
 * their own action judge only what they caused: against the staging-like sandbox (no control API) whose wallet already
 * holds other active orders, they pass; a bracket across which another order moved funds skips, naming why; with
 * `funding` the bracket sends nothing. The sandbox's clock runs at wall speed, so no DCA cycle comes due meanwhile.
 */
import { expect, test } from 'vitest';
import { startReferenceServer } from '../../fixtures/server/index.ts';
import { type CheckContext, defineCheck } from '../../suites/harness/check.ts';
import { runCheck } from '../../suites/harness/runner.ts';
import { forgetServiceTime } from '../../suites/harness/service-time.ts';
import { allChecks } from '../../suites/index.ts';
import { createOrder, dcaRequest, intentUser } from '../../suites/orders/orders.ts';
import { otherLocks, otherOrdersLocked, othersBracket } from '../../suites/orders/steps/shared-wallet.ts';
import { describeResults, SELF_TEST_SEED } from '../self-test/run.ts';
import { prepareSelfTest, sandboxCredentials } from '../self-test/sandbox-support.ts';

/** The checks that compare a balance before and after, as converted to partner mode. */
const COMPARING = [
  'wallet-withdrawal-without-amount-builds-the-available-amount',
  'wallet-withdrawal-of-the-available-amount-pays-the-user',
  'wallet-withdrawal-above-available-is-funds-locked-with-the-breakdown',
  'wallet-withdrawal-confirm-moves-the-amount-out',
  'one-wallet-withdrawal-confirmed-several-times-at-once-moves-the-funds-once',
  'two-order-withdrawal-confirms-at-once-have-one-effect',
  'cancel-of-an-active-dca-order-cancels-it-releases-its-lock-and-lists-it-in-history',
  'hidezero-keeps-every-row-with-a-non-zero-bucket-a-fully-locked-mint-included',
  'wallet-withdrawal-confirm-repeated-with-the-same-idempotency-key-replays-and-moves-funds-once',
  'order-withdrawal-confirm-repeated-with-the-same-idempotency-key-replays-and-moves-funds-once',
  'second-slice-confirmed-while-one-is-running-answers-409-active-burst-exists-and-the-deposit-lands',
  'dca-confirmed-total-amount-change-moves-the-input-lock',
  'confirms-of-one-pending-order-at-once-make-one-order-and-one-deposit',
  'the-same-idempotency-key-several-times-at-once-makes-one-pending-order-and-one-deposit',
  'an-active-order-locks-its-unspent-input-on-its-input-mint-only',
];

/** A bracket across which `between` runs; its verdict says whether the check judged or skipped. */
const bracketed = (between: 'no bracket' | 'nothing' | 'another order' | 'an order of its own') =>
  defineCheck({
    name: 'a-balance-comparison-on-the-shared-wallet',
    service: 'orders',
    rules: ['OA-BAL-012'],
    profile: 'full',
    async run(t: CheckContext) {
      const user = await intentUser(t, true);
      const { orderId } = await createOrder(t, user, dcaRequest());
      if (between === 'no bracket') return t.expect('OA-BAL-012', true, { documented: 'judged' });
      const settled = await othersBracket(t, user, [orderId]);
      const made = between === 'nothing' ? undefined : await createOrder(t, user, dcaRequest());
      // An order the check made inside the bracket, named when it ends, is its own: its new lock is no other's move.
      await settled(between === 'an order of its own' && made ? [made.orderId] : []);
      t.expect('OA-BAL-012', true, { documented: 'judged' });
    },
  });

async function sandbox(control: boolean) {
  const server = await startReferenceServer({ port: 0, ...(control ? {} : { stagingLike: { timeScale: 1, seed: SELF_TEST_SEED } }) });
  const env = await prepareSelfTest({
    ordersUrl: server.ordersUrl,
    quotesUrl: server.quotesUrl,
    gatewayUrl: server.gatewayUrl,
    ...(control ? { controlUrl: server.controlUrl } : { credentials: sandboxCredentials(server) }),
  });
  return { server, env };
}

test('locks of other orders: every mint, own orders left out; their sum on one row', () => {
  const balance = {
    balances: [
      {
        mint: 'U',
        lockedBreakdown: [
          { orderId: 'own', kind: 'deposit', amount: '5' },
          { orderId: 'b', kind: 'deposit', amount: '7' },
        ],
      },
      { mint: 'S', lockedBreakdown: [{ orderId: 'c', kind: 'deposit', amount: '2' }] },
    ],
  };
  expect(otherLocks(balance, ['own'])).toBe('S c deposit 2\nU b deposit 7');
  expect(otherOrdersLocked(balance.balances[0], ['own'])).toBe(7n);
  expect(otherOrdersLocked(balance.balances[0], [])).toBe(12n);
  expect(otherOrdersLocked(undefined, [])).toBe(0n);
});

test("on the partner's shared wallet the balance comparisons judge only their own effect; another order moving funds skips", async () => {
  const { server, env } = await sandbox(false);
  try {
    expect(env.capabilities).toEqual([]);
    const quiet = await runCheck(bracketed('nothing'), env);
    expect([quiet.verdict, quiet.message]).toEqual(['pass', undefined]);
    const moved = await runCheck(bracketed('another order'), env);
    expect(moved.verdict).toBe('skipped');
    expect(moved.message).toMatch(/another order of the partner's shared wallet moved funds during the check/);
    const own = await runCheck(bracketed('an order of its own'), env);
    expect([own.verdict, own.message]).toEqual(['pass', undefined]);
    // The wallet now holds other active orders, as a partner's does: each comparing check still passes.
    const checks = COMPARING.map((name) => allChecks.find((c) => c.name === name));
    expect(checks.every(Boolean)).toBe(true);
    const results = [];
    for (const check of checks) results.push(await runCheck(check!, env));
    const notPassing = results.filter((r) => r.verdict !== 'pass');
    expect(notPassing, describeResults(notPassing)).toEqual([]);
  } finally {
    await server.close();
  }
}, 120_000);

test('with funding (a fresh user per check) the bracket sends nothing and never skips', async () => {
  const { server, env } = await sandbox(true);
  try {
    expect(env.capabilities).toContain('funding');
    // Each check reads the virtual clock for its sign-in (nothing learned of it: suites/harness/service-time.ts).
    const run = (between: Parameters<typeof bracketed>[0]) => (forgetServiceTime(env.controlUrl!), runCheck(bracketed(between), env));
    const none = await run('no bracket');
    const [quiet, moved] = [await run('nothing'), await run('another order')];
    expect([none.verdict, quiet.verdict, moved.verdict]).toEqual(['pass', 'pass', 'pass']);
    expect(quiet.requests).toBe(none.requests);
  } finally {
    await server.close();
  }
}, 60_000);
