/**
 * Which checks may run at the same time (README, `--max-concurrency`; CONTRIBUTING, "Checks"). Checks run concurrently,
 * at most `--max-concurrency` at once, except those that change or count state every check shares: such a check runs
 * alone, with no other check of its file under way (`runOrder`: the checks that may overlap first, all of the file's
 * areas together, then those that run alone one after another). The rule, from data:
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

/** A block of checks of one area: checks that may run at once, or one check that runs alone. */
export interface Block {
  title: string;
  alone: boolean;
  checks: Check[];
}

/**
 * The blocks of a conformance file (its areas, in declaration order), in the order they run. Sequential (`--max-concurrency
 * 1`, or order checks on one shared wallet): each area's segments in declaration order, one check at a time. Otherwise
 * first every area's checks that may overlap (consecutive concurrent blocks run together, up to `--max-concurrency`),
 * then each check that runs alone, in declaration order: a few alone checks scattered among the others would cut the
 * file into short concurrent runs, each waiting for its slowest check (issue 17: on a 100-300 ms target fewer than 2
 * checks were under way on average).
 */
export function runOrder(groups: ReadonlyArray<readonly [string, readonly Check[]]>, sequential: boolean): Block[] {
  const cut = groups.flatMap(([title, checks]) => segments(checks).map((s): Block => ({ title, ...s })));
  if (sequential) return cut;
  const together = new Map<string, Check[]>();
  for (const b of cut.filter((b) => !b.alone)) together.set(b.title, [...(together.get(b.title) ?? []), ...b.checks]);
  return [...[...together].map(([title, checks]): Block => ({ title, alone: false, checks })), ...cut.filter((b) => b.alone)];
}
