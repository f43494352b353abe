/**
 * Partner mode (issue 16): the black-box checks (suites/orders/blackbox-*.checks.ts) against the staging-like sandbox,
 * which has no control API, judge on the faithful server and catch, without the control API, mutants that break
 * execution, trigger firing, OCO exclusivity, the automatic return of funds and isolation. The sandbox's clock runs
 * TIME_SCALE times faster than the wall clock; the checks know nothing of it (they read the service's time from its
 * answers), so a 60-second DCA cycle takes a few seconds here. Each server runs its checks alone; the servers run at once.
 */
import { describe, expect, test } from 'vitest';
import { startReferenceServer } from '../../fixtures/server/index.ts';
import type { Check } from '../../suites/harness/check.ts';
import { type CheckResult, runCheck } from '../../suites/harness/runner.ts';
import { prepareTarget } from '../../suites/harness/target.ts';
import { checkGroups } from '../../suites/index.ts';
import { describeResults, runAgainstReference, SELF_TEST_SEED } from './run.ts';

/**
 * Fast enough for a test, slow enough that the suite's SIWS sign-ins (Issued At from the machine's clock, which the
 * sandbox's clock outruns) stay within the 10-minute window for the 600 / (TIME_SCALE - 1) s a server runs here.
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

/** `checks` against a staging-like sandbox (with `mutant`), as a partner runs them: its credentials, no control URL. */
async function againstSandbox(checks: readonly Check[], mutant?: string): Promise<CheckResult[]> {
  const server = await startReferenceServer({ port: 0, mutant, stagingLike: { timeScale: TIME_SCALE, seed: SELF_TEST_SEED } });
  try {
    const c = server.credentials!;
    const env = await prepareTarget({
      ordersUrl: server.ordersUrl,
      quotesUrl: server.quotesUrl,
      gatewayUrl: server.gatewayUrl,
      profile: 'full',
      seed: SELF_TEST_SEED,
      strict: false,
      numRuns: 5,
      timeoutMs: 10_000,
      maxRps: 0,
      expectedProviders: 2,
      credentials: {
        ordersApiKey: c.ORDERS_API_KEY,
        ordersApiKeyAlt: c.ORDERS_API_KEY_ALT,
        quotesApiKey: c.QUOTES_API_KEY,
        quotesJwt: c.QUOTES_JWT,
        walletSecretKey: c.TEST_WALLET_SECRET_KEY,
      },
    });
    expect(env.capabilities).toEqual([]);
    const results: CheckResult[] = [];
    for (const check of checks) results.push(await runCheck(check, env));
    return results;
  } finally {
    await server.close();
  }
}

describe(`partner mode: the black-box checks against the staging-like sandbox, no control API (time scale ${TIME_SCALE})`, () => {
  test('every black-box check judges the faithful sandbox a pass, through its own operations alone; each mutant is caught on its rule', async () => {
    expect(blackBox.length).toBeGreaterThanOrEqual(6);
    const [faithful, ...mutated] = await Promise.all([
      againstSandbox(blackBox),
      ...MUTANTS.map(([, mutant, rule]) =>
        againstSandbox(
          blackBox.filter((c) => c.rules.includes(rule as never)),
          mutant,
        ),
      ),
    ]);
    const notPassing = faithful!.filter((r) => r.verdict !== 'pass' || r.judgedThrough !== 'black-box');
    expect(notPassing, describeResults(notPassing)).toEqual([]);
    const missed = MUTANTS.flatMap(([what, mutant, rule], i) =>
      mutated[i]!.some((r) => r.verdict === 'fail' && r.rule === rule)
        ? []
        : [`${what}: ${mutant} (${rule})\n${describeResults(mutated[i]!)}`],
    );
    expect(missed).toEqual([]);
  }, 240_000);

  test('with a control API the same checks use it (the clock advances instead of waiting) and say so: judgedThrough control', async () => {
    const results = await runAgainstReference({}, blackBox);
    const notControl = results.filter((r) => r.verdict !== 'pass' || r.judgedThrough !== 'control');
    expect(notControl, describeResults(notControl)).toEqual([]);
  }, 120_000);
});
