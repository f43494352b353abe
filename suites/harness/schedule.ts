/**
 * Which checks may run at the same time (README, `--max-concurrency`; CONTRIBUTING, "Checks"). Checks run concurrently,
 * at most `--max-concurrency` at once, except those that change or count state every check shares: such a check runs
 * alone, after every check declared before it has finished and before any declared after it starts. The rule, from data:
 * - it needs a capability whose state is global to the target (`SHARED_CAPABILITIES`: the virtual clock, prices and
 *   pools, faults, a quote key's metered rate limit);
 * - or it cites a rule of an area that counts everything of a tenant or a key (`SHARED_AREAS`: partner reporting,
 *   the quote rate limit and allowance);
 * - or it says so itself (`alone: true` on the check: it changes global state only when the target offers it).
 * A check that is not marked and still tries to change the clock, prices, pools or faults is stopped before the call
 * with a suite error (`guardSharedState`), so a missing mark is found on the first run, never a flaky verdict.
 */
import type { Check } from './check.ts';
import type { ControlAdapter } from './control.ts';
import type { Capability, TargetEnv } from './types.ts';

export const SHARED_CAPABILITIES: readonly Capability[] = ['clock', 'prices', 'faults', 'rate-limits'];

/** Rule-id prefixes of the areas whose checks count everything of a tenant (`/partners/me/*`) or of a key (429 metering). */
export const SHARED_AREAS: readonly string[] = ['OA-REP-', 'Q-RATE-'];

/** Does `check` run with no other check at the same time? */
export function runsAlone(check: Check): boolean {
  return (
    check.alone === true ||
    (check.needs ?? []).some((c) => SHARED_CAPABILITIES.includes(c)) ||
    check.rules.some((id) => SHARED_AREAS.some((prefix) => id.startsWith(prefix)))
  );
}

/**
 * Do the order checks share one user? Without the `funding` capability every order check onboards the run's own wallet
 * (TEST_WALLET_SECRET_KEY, suites/orders/users.ts): its balances, locks and order lists are one state that every check
 * reads, so a full run's order checks then run one at a time, whatever `--max-concurrency` says.
 */
export function ordersShareOneWallet(env: Pick<TargetEnv, 'capabilities' | 'profile'>): boolean {
  return env.profile === 'full' && !env.capabilities.includes('funding');
}

/** How many checks may run at once for `--max-concurrency N` (0: no cap). 1 is a strictly sequential run. */
export function checkSlots(maxConcurrency: number): number {
  return maxConcurrency > 0 ? maxConcurrency : 1000;
}

/** Consecutive checks cut into runs: a run of checks that may overlap, or one check that runs alone. */
export function segments(checks: readonly Check[]): Array<{ alone: boolean; checks: Check[] }> {
  const out: Array<{ alone: boolean; checks: Check[] }> = [];
  for (const check of checks) {
    const alone = runsAlone(check);
    const last = out.at(-1);
    if (last && !alone && !last.alone) last.checks.push(check);
    else out.push({ alone, checks: [check] });
  }
  return out;
}

/** The control calls that change what every check of the target sees. */
const SHARED_WRITES = ['advanceClock', 'setPrice', 'setPool', 'setFaults'] as const;

/** Stop a check that does not run alone before it changes the target's shared state (a suite error naming the fix). */
export function guardSharedState(control: ControlAdapter, check: Check): void {
  if (runsAlone(check)) return;
  for (const method of SHARED_WRITES) {
    control[method] = async () => {
      throw new Error(
        `check "${check.name}" calls ${method}, which changes state every check shares, but may run beside other checks: ` +
          'give it `alone: true` (suites/harness/schedule.ts)',
      );
    };
  }
}
