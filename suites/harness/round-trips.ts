/**
 * The round trips the client measured (client.ts): what a check that sizes its work to the target reads (the model
 * checks' run count, suites/orders/model/run-count.ts).
 */

/** The round trips of this process's latest whole answers, ms (sent to last byte, without the budget's waits). */
const roundTrips: number[] = [];
const KEPT_ROUND_TRIPS = 64;

export function noteRoundTrip(ms: number): void {
  roundTrips.push(ms);
  if (roundTrips.length > KEPT_ROUND_TRIPS) roundTrips.shift();
}

/** The median round trip of this process's latest answers (up to 64), ms; undefined before `least` of them. */
export function medianRoundTripMs(least = 1): number | undefined {
  if (roundTrips.length < Math.max(1, least)) return undefined;
  const sorted = [...roundTrips].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
