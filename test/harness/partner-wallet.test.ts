/**
 * Without the `funding` capability, a check that needs only enough money is paid by the run's funded wallet
 * (TEST_WALLET_SECRET_KEY, users.ts partnerWalletFunds): it runs and says so in a note; any other wallet, or no run's
 * wallet at all, leaves it unsupported, naming what would make it judgeable. No request is sent.
 */
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { expect, test } from 'vitest';
import { defineCheck, type CheckContext } from '../../suites/harness/check.ts';
import { runCheck } from '../../suites/harness/runner.ts';
import { fundUser } from '../../suites/orders/orders.ts';
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
  expect(own.notes.join('\n')).toMatch(/funds: the run's wallet \(TEST_WALLET_SECRET_KEY\) pays for/);
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
