/**
 * Without the `funding` capability, a check that needs only enough money is paid by the partner's funded wallets
 * (TEST_WALLET_SECRET_KEY, and TEST_WALLET_SECRET_KEY_ALT for a second user; users.ts partnerWalletFunds): it runs and
 * says so in a note; any other wallet, or no partner wallet at all, leaves it unsupported, naming what would make it
 * judgeable. The deposits those wallets sign count against --budget-lamports (lamports.ts). No request is sent.
 */
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { expect, test } from 'vitest';
import { defineCheck, type CheckContext } from '../../suites/harness/check.ts';
import { runCheck } from '../../suites/harness/runner.ts';
import { fundUser } from '../../suites/orders/orders.ts';
import { noteSignedDeposit, spendLamports, spendOnSend } from '../../suites/orders/lamports.ts';
import { testWallet, throwawayWallet } from '../../suites/orders/users.ts';
import { OFFLINE_ENV } from './offline-target.ts';

const paying = (wallet: (t: CheckContext) => string) =>
  defineCheck({
    name: 'a-check-that-needs-enough-money',
    service: 'orders',
    rules: ['OA-INT-001'],
    profile: 'full',
    run: async (t) => await fundUser(t, wallet(t)),
  });

test("the run's wallet pays where the target cannot fund; another wallet or none is unsupported, naming the fix", async () => {
  const walletSecretKey = bs58.encode(Keypair.generate().secretKey);
  const env = { ...OFFLINE_ENV, profile: 'full' as const, capabilities: [], credentials: { ...OFFLINE_ENV.credentials, walletSecretKey } };
  const own = await runCheck(
    paying((t) => testWallet(t).keypair.publicKey.toBase58()),
    env,
  );
  expect([own.verdict, own.requests, own.judgedThrough]).toEqual(['pass', 0, 'black-box']);
  expect(own.notes.join('\n')).toMatch(/funds: the partner's wallet \(TEST_WALLET_SECRET_KEY\) pays for/);
  const other = await runCheck(
    paying(() => throwawayWallet().publicKey.toBase58()),
    env,
  );
  expect([other.verdict, other.message]).toEqual([
    'unsupported',
    'the target does not offer the "funding (or TEST_WALLET_SECRET_KEY, a funded wallet the check onboards)" capability',
  ]);
  const none = await runCheck(
    paying(() => throwawayWallet().publicKey.toBase58()),
    { ...env, credentials: { ...OFFLINE_ENV.credentials, walletSecretKey: undefined } },
  );
  expect(none.verdict).toBe('unsupported');
});

test("a second user is the partner's second wallet (TEST_WALLET_SECRET_KEY_ALT); without it unsupported, naming it", async () => {
  const [own, second] = [Keypair.generate(), Keypair.generate()].map((k) => bs58.encode(k.secretKey));
  const credentials = { ...OFFLINE_ENV.credentials, walletSecretKey: own, walletSecretKeyAlt: second };
  const env = { ...OFFLINE_ENV, profile: 'full' as const, capabilities: [], credentials };
  const twoUsers = paying((t) => {
    const [a, b] = [testWallet(t), testWallet(t, 'second')];
    expect(a.keypair.publicKey.equals(b.keypair.publicKey)).toBe(false);
    return b.keypair.publicKey.toBase58();
  });
  const withAlt = await runCheck(twoUsers, env);
  expect([withAlt.verdict, withAlt.requests]).toEqual(['pass', 0]);
  expect(withAlt.notes.join('\n')).toMatch(/funds: the partner's wallet \(TEST_WALLET_SECRET_KEY_ALT\) pays for/);
  const without = await runCheck(twoUsers, { ...env, credentials: { ...credentials, walletSecretKeyAlt: undefined } });
  expect([without.verdict, without.message]).toEqual([
    'unsupported',
    'the target does not offer the "funding (or TEST_WALLET_SECRET_KEY_ALT, a second funded wallet: a second user of the tenant)" capability',
  ]);
  const same = await runCheck(twoUsers, { ...env, credentials: { ...credentials, walletSecretKeyAlt: own } });
  expect([same.verdict, same.message]).toEqual([
    'setup-failed',
    'TEST_WALLET_SECRET_KEY_ALT is TEST_WALLET_SECRET_KEY: a second wallet is needed',
  ]);
});

test('deposits of the partner wallets count against --budget-lamports once each; one that would pass it skips, saying so', async () => {
  const spending = defineCheck({
    name: 'a-check-whose-deposits-the-partner-pays',
    service: 'orders',
    rules: ['OA-INT-001'],
    profile: 'full',
    run: async (t) => {
      noteSignedDeposit('signed-deposit-a', 10_000n, 'the deposit of a dca order');
      for (let i = 0; i < 3; i++) spendOnSend(t, 'signed-deposit-a'); // sent three times at once (a race): paid once
      spendOnSend(t, 'a transaction no partner wallet signed');
      spendLamports(t, 5000n, 'an order-level withdrawal');
    },
  });
  const env = { ...OFFLINE_ENV, profile: 'full' as const, capabilities: [], budgetLamports: 1_000_000 };
  const within = await runCheck(spending, env);
  expect([within.verdict, within.notes]).toEqual([
    'pass',
    ['lamports: 10000 (the deposit of a dca order)', 'lamports: 5000 (an order-level withdrawal)'],
  ]);
  const over = await runCheck(spending, { ...env, budgetLamports: 20_000 });
  expect(over.verdict).toBe('skipped');
  expect(over.message).toMatch(
    /^the deposit of a dca order would cost 10000 lamports; the run's checks spent 15000 of --budget-lamports 20000: raise --budget-lamports to judge it/,
  );
});
