/**
 * Partner mode (issue 16): the black-box checks (suites/orders/blackbox-*.checks.ts) against the staging-like sandbox,
 * which has no control API, judge on the faithful server and catch, without the control API, mutants that break
 * execution, trigger firing, OCO exclusivity, the automatic return of funds and isolation. The checks that need a
 * second user of the tenant take the partner's second wallet (TEST_WALLET_SECRET_KEY_ALT) and catch theirs too. The
 * sandbox's clock runs TIME_SCALE times faster than the wall clock; the checks know nothing of it (they read the
 * service's time from its answers), so a 60-second DCA cycle takes a few seconds here. Each server runs its checks
 * alone; the servers run at once.
 */
import { describe, expect, test } from 'vitest';
import { startReferenceServer } from '../../fixtures/server/index.ts';
import type { Check } from '../../suites/harness/check.ts';
import { type CheckResult, runCheck } from '../../suites/harness/runner.ts';
import { redact } from '../../suites/harness/redact.ts';
import { allChecks, checkGroups } from '../../suites/index.ts';
import { call } from '../reference-server/support.ts';
import { describeResults, runAgainstReference, SELF_TEST_SEED } from './run.ts';
import { prepareSelfTest, sandboxCredentials } from './sandbox-support.ts';

/**
 * Fast enough for a test, slow enough for the sandbox's time windows: the suite's SIWS sign-ins take their Issued At
 * from the service's time as last learned plus the local time since (suites/harness/service-time.ts), which the
 * sandbox's clock outruns by TIME_SCALE - 1 times that wait (a refused sign-in is sent again on an exact read), and a
 * pending order's 5 minutes are 300 / TIME_SCALE s of wall time.
 */
const TIME_SCALE = 8;

const blackBox: Check[] = Object.entries(checkGroups)
  .filter(([group]) => group.startsWith('orders/blackbox-'))
  .flatMap(([, checks]) => checks);

/** The mutants, by what they break, each with the rule a black-box check must fail on. */
const MUTANTS: ReadonlyArray<[string, string, string]> = [
  ['execution', 'dca-cycle-writes-two-rows', 'OA-EXEC-009'],
  ['trigger firing', 'stop-loss-fill-recorded-as-take-profit', 'OA-EXEC-012'],
  ['trigger firing', 'trigger-fill-sells-half-the-deposit', 'OA-TRIG-028'],
  ['OCO exclusivity', 'oco-take-profit-leg-never-fires', 'OA-TRIG-026'],
  ['OCO exclusivity', 'oco-fill-recorded-under-the-other-leg', 'OA-EXEC-014'],
  ['automatic return of funds', 'expired-trigger-orders-are-not-returned', 'OA-OWD-019'],
  ['isolation', 'executions-of-another-users-order-served', 'OA-ERR-006'],
  ['isolation', 'partner-report-lists-every-tenant', 'OA-REP-005'],
];

/**
 * Checks that need a second user of the tenant, which the partner's second wallet stands in for without `funding`, and
 * the mutants each catches on its rule without the control API.
 */
const SECOND_USER: ReadonlyArray<[string, string, string]> = [
  ['an-idempotency-key-is-scoped-per-end-user', 'idempotency-key-shared-by-the-users-of-a-tenant', 'OA-IDEM-008'],
  ['confirm-of-another-users-pending-order-answers-403-forbidden', 'another-users-pending-order-confirmed', 'OA-CONF-013'],
  ['another-users-order-is-out-of-reach-of-every-action-and-change', 'actions-reach-another-users-order', 'OA-ERR-006'],
  ['onboarding-a-known-sub-with-another-known-subs-wallet-is-rejected-with-409', 'user-pubkey-conflict-not-raised', 'OA-ONB-015'],
];
const secondUser: Check[] = SECOND_USER.map(([name]) => allChecks.find((c) => c.name === name)!);

/**
 * `checks` against a staging-like sandbox (with `mutant`), as a partner runs them: its credentials (without the second
 * wallet when `alt` is false), no control URL.
 */
async function againstSandbox(checks: readonly Check[], mutant?: string, alt = true): Promise<CheckResult[]> {
  const server = await startReferenceServer({ port: 0, mutant, stagingLike: { timeScale: TIME_SCALE, seed: SELF_TEST_SEED } });
  try {
    const env = await prepareSelfTest({
      ordersUrl: server.ordersUrl,
      quotesUrl: server.quotesUrl,
      gatewayUrl: server.gatewayUrl,
      credentials: sandboxCredentials(server, alt),
    });
    expect(env.capabilities).toEqual([]);
    // Both wallet secrets are redacted from every output, as every credential is (suites/harness/redact.ts).
    if (alt) expect(redact(`k=${server.credentials!.TEST_WALLET_SECRET_KEY_ALT}`)).toBe('k=$TEST_WALLET_SECRET_KEY_ALT');
    const results: CheckResult[] = [];
    for (const check of checks) results.push(await runCheck(check, env));
    return results;
  } finally {
    await server.close();
  }
}

/**
 * `checks` against the faithful sandbox, and each mutant against the checks it names, all at once: every faithful
 * result is a pass judged through the services alone, and every mutant is caught (a fail on its rule). The faithful
 * results.
 */
async function judgedAndCaught(
  checks: readonly Check[],
  mutants: ReadonlyArray<{ label: string; mutant: string; rule: string; on: readonly Check[] }>,
): Promise<CheckResult[]> {
  const [faithful, ...mutated] = await Promise.all([againstSandbox(checks), ...mutants.map((m) => againstSandbox(m.on, m.mutant))]);
  const notPassing = faithful!.filter((r) => r.verdict !== 'pass' || r.judgedThrough !== 'black-box');
  expect(notPassing, describeResults(notPassing)).toEqual([]);
  const missed = mutants.flatMap(({ label, rule }, i) =>
    mutated[i]!.some((r) => r.verdict === 'fail' && r.rule === rule) ? [] : [`${label} (${rule})\n${describeResults(mutated[i]!)}`],
  );
  expect(missed).toEqual([]);
  return faithful!;
}

describe(`partner mode: the black-box checks against the staging-like sandbox, no control API (time scale ${TIME_SCALE})`, () => {
  test('every black-box check judges the faithful sandbox a pass, through its own operations alone; each mutant is caught on its rule', async () => {
    expect(blackBox.length).toBeGreaterThanOrEqual(6);
    await judgedAndCaught(
      blackBox,
      MUTANTS.map(([what, mutant, rule]) => ({
        label: `${what}: ${mutant}`,
        mutant,
        rule,
        on: blackBox.filter((c) => c.rules.includes(rule as never)),
      })),
    );
  }, 240_000);

  test("a second user of the tenant is the partner's second wallet: judged and each mutant caught without control; without it unsupported, naming it", async () => {
    expect(secondUser.every(Boolean)).toBe(true);
    const [faithful, withoutAlt] = await Promise.all([
      judgedAndCaught(
        secondUser,
        SECOND_USER.map(([name, mutant, rule]) => ({ label: mutant, mutant, rule, on: secondUser.filter((c) => c.name === name) })),
      ),
      againstSandbox(secondUser, undefined, false),
    ]);
    expect(faithful.flatMap((r) => r.notes).join('\n')).toMatch(/funds: the partner's wallet \(TEST_WALLET_SECRET_KEY_ALT\) pays for/);
    expect(withoutAlt.map((r) => [r.verdict, r.message])).toEqual(
      secondUser.map(() => [
        'unsupported',
        'the target does not offer the "funding (or TEST_WALLET_SECRET_KEY_ALT, a second funded wallet: a second user of the tenant)" capability',
      ]),
    );
  }, 120_000);

  test('with a control API the same checks use it (the clock advances instead of waiting) and say so: judgedThrough control', async () => {
    const results = await runAgainstReference({}, blackBox);
    const notControl = results.filter((r) => r.verdict !== 'pass' || r.judgedThrough !== 'control');
    expect(notControl, describeResults(notControl)).toEqual([]);
  }, 120_000);
});

/**
 * Checks that need a fresh user's exact balances with `funding` judge, without it, what the partner's wallet's own
 * steps move within a bracket (suites/orders/steps/partner-balance.ts), and the model checks run a few sequences on it;
 * each catches its mutant without the control API.
 */
const SHARED_WALLET: ReadonlyArray<[string, string, string]> = [
  ['funding-the-manager-raises-total-balance-and-symbols-resolve-for-sol-usdc-usdt', 'odd-total-balance-one-short', 'OA-BAL-022'],
  [
    'wallet-withdrawal-max-with-everything-locked-is-insufficient-available',
    'wallet-withdrawal-with-everything-locked-is-funds-locked',
    'OA-WDW-006',
  ],
  ['order-withdrawal-after-the-funds-left-is-nothing-to-withdraw', 'order-withdrawal-of-funds-already-gone', 'OA-OWD-016'],
  ['dca-orders-follow-the-model-through-generated-sequences', 'cancelled-order-reads-active-again', 'OA-STATE-002'],
];
const sharedWallet: Check[] = SHARED_WALLET.map(([name]) => allChecks.find((c) => c.name === name)!);

describe("partner mode: exact balances and the model on the partner's shared wallet, no control API", () => {
  test('judged on the faithful sandbox through the services alone; each mutant caught on its rule', async () => {
    expect(sharedWallet.every(Boolean)).toBe(true);
    await judgedAndCaught(
      sharedWallet,
      SHARED_WALLET.map(([name, mutant, rule]) => ({ label: mutant, mutant, rule, on: sharedWallet.filter((c) => c.name === name) })),
    );
  }, 120_000);
});

/**
 * The opt-in rate-limit probe (suites/quotes/blackbox-rate.checks.ts) judges the 429 a burst on the run's own quote key
 * meets, with no control API: the key is one of a small plan (0.25 rps, 15 requests a window) minted on the embedded
 * server, handed to a run that has no control URL. --max-retry-after 1 s, so that the run does not wait out the
 * window's retry-after (that requests are served again after it is then not judged, and the probe says so).
 */
describe('partner mode: the opt-in rate-limit probe, no control API', () => {
  const probe = allChecks.find(
    (c) => c.name === 'a-burst-on-the-runs-quote-key-meets-the-documented-429-and-is-served-again-after-retry-after',
  )!;

  async function probeRun(mutant: string | undefined, allowRateLimitProbes: boolean): Promise<CheckResult> {
    const server = await startReferenceServer({ port: 0, mutant });
    try {
      const minted = await call(`${server.controlUrl}/quote-keys`, { method: 'POST', json: { rps: 0.25 } });
      const env = await prepareSelfTest({
        ordersUrl: server.ordersUrl,
        quotesUrl: server.quotesUrl,
        allowRateLimitProbes,
        bounds: { maxRetryAfterMs: 1000 },
        credentials: { quotesApiKey: (minted.body as { apiKey: string }).apiKey },
      });
      return await runCheck(probe, env);
    } finally {
      await server.close();
    }
  }

  test('opt-in without control (with it, on a key of its own); the faithful 429 passes; a 429 without its body, retry-after or x-edge-requestid fails its rule', async () => {
    const off = await probeRun(undefined, false);
    expect([off.verdict, off.requests, off.message]).toEqual([
      'skipped',
      0,
      "opt-in: it spends the quote key's rate-limit window and credits; --allow-rate-limit-probes runs it",
    ]);
    const faithful = await probeRun(undefined, true);
    expect([faithful.verdict, faithful.judgedThrough], describeResults([faithful])).toEqual(['pass', 'black-box']);
    expect(faithful.requests, 'the burst stops at its first 429: 15 admitted a window, the 16th limited').toBeLessThanOrEqual(16);
    expect(faithful.notes.join('\n')).toMatch(/request of the burst met 429 rate_limited[\s\S]*not waited out here/);
    const withControl = await runAgainstReference({}, [probe]);
    expect(
      withControl.map((r) => [r.verdict, r.judgedThrough]),
      describeResults(withControl),
    ).toEqual([['pass', 'control']]);
    for (const [mutant, rule] of [
      ['rate-limit-429-without-body', 'Q-RATE-007'],
      ['rate-limited-without-retry-after', 'Q-RATE-002'],
      ['edge-requestid-missing-on-429', 'Q-DBG-002'],
    ] as const) {
      const caught = await probeRun(mutant, true);
      expect([mutant, caught.verdict, caught.rule], describeResults([caught])).toEqual([mutant, 'fail', rule]);
    }
  }, 120_000);
});
