import type { CheckContext } from '../../harness/check.ts';
import { medianRoundTripMs } from '../../harness/round-trips.ts';

/** Few, short sequences: each run onboards a user and creates orders, and the suite runs 8 times in npm test. */
const allRuns = (t: CheckContext) => Math.max(16, Math.round(t.env.numRuns / 5));

/** What one run costs, about (the figures of bin/bench.ts: 2,252 requests for 3 families of 20 runs), one after another. */
const REQUESTS_PER_RUN = 38;
/** The wall time a family's runs may take on a given target whose round trips are long; never fewer runs than this. */
const FAMILY_BUDGET_MS = 30_000;
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
  const fit = Math.floor(FAMILY_BUDGET_MS / (REQUESTS_PER_RUN * Math.max(1, rtt ?? 0)));
  const n = Math.min(all, Math.max(LEAST_RUNS, fit));
  if (n < all) {
    t.note(
      `model runs: ${n} of ${all}, sized to the target's median round trip of ${Math.round(rtt ?? 0)} ms (about ${REQUESTS_PER_RUN} requests a run, ` +
        `${FAMILY_BUDGET_MS / 1000} s a family); the embedded server runs all ${all}`,
    );
  }
  return n;
}
