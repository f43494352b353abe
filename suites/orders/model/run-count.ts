import type { CheckContext } from '../../harness/check.ts';
import { medianRoundTripMs } from '../../harness/round-trips.ts';

/** Few, short sequences: each run onboards a user and creates orders, and the suite runs 8 times in npm test. */
const allRuns = (t: CheckContext) => Math.max(16, Math.round(t.env.numRuns / 5));

/**
 * What one run costs, about, in round trips one after another (requests sent at once count as one), in units of the
 * median round trip: the setup's 5 (onboarding, funding and the output mint at once; intent; confirm; the reads), then
 * 2 to 4 a command (the command, then the order and balance reads at once), about 7 commands a run. Measured against
 * the reference server with 100-300 ms latency: 19 runs of the three families, 4.6-5.1 s a run at a median round
 * trip of 187-223 ms, 21-27 a run.
 */
const ROUND_TRIPS_PER_RUN = 24;
/**
 * The wall time a family's runs may take on a given target whose round trips are long; never fewer runs than
 * LEAST_RUNS. The three families run alone, one after another: against 100-300 ms they fit 3 runs, ~13 s a family
 * (issue 17: a full run there within 5 minutes).
 */
const FAMILY_BUDGET_MS = 15_000;
const LEAST_RUNS = 3;

/**
 * The runs of a family: all of them against the embedded server (`hostileInputs` absent or `every`; the mutant
 * self-test relies on every run) and on a given target with short round trips; on a given target whose median round
 * trip would make them last longer than FAMILY_BUDGET_MS, as many as fit (at least LEAST_RUNS), said in a note of the
 * check (matrix.json, junit.xml) so that the user knows the judgement rests on fewer sequences. Without the funding
 * capability at most SHARED_WALLET_RUNS, said in a note too.
 */
export async function modelRunCount(t: CheckContext): Promise<number> {
  const n = await sizedRunCount(t);
  if (t.control.has('funding') || n <= SHARED_WALLET_RUNS) return n;
  t.note(
    `model runs: ${SHARED_WALLET_RUNS} of ${n}: without the funding capability every run deposits from the partner's wallet ` +
      '(the smallest orders, released before the next run); a target offering funding runs them all on fresh users',
  );
  return SHARED_WALLET_RUNS;
}

/** Without `funding`, the runs of a family on the partner's wallet: each deposits up to MAX_ORDERS small orders. */
const SHARED_WALLET_RUNS = 6;

async function sizedRunCount(t: CheckContext): Promise<number> {
  const all = allRuns(t);
  if (t.env.hostileInputs !== 'per-branch') return all;
  let rtt = medianRoundTripMs(5);
  for (let probe = 0; rtt === undefined && probe < 3; probe++) {
    await t.orders.request({ path: '/health', headers: { 'X-Service-Key': undefined }, retry: false, validate: false });
    rtt = medianRoundTripMs(3);
  }
  const fit = Math.floor(FAMILY_BUDGET_MS / (ROUND_TRIPS_PER_RUN * Math.max(1, rtt ?? 0)));
  const n = Math.min(all, Math.max(LEAST_RUNS, fit));
  if (n < all) {
    t.note(
      `model runs: ${n} of ${all}, sized to the target's median round trip of ${Math.round(rtt ?? 0)} ms (about ${ROUND_TRIPS_PER_RUN} round trips a run, ` +
        `${FAMILY_BUDGET_MS / 1000} s a family); the embedded server runs all ${all}`,
    );
  }
  return n;
}
