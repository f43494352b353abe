/**
 * What this process last learned of a target's time, per source (a control URL for the virtual clock, an order-service
 * URL for its `Date` headers), so that a plain onboarding can date its SIWS `Issued At` (within 10 minutes of the
 * service's time) without a read of its own (issue 17: one sequential round trip fewer per check's user). An estimate is
 * what was learned plus the local time elapsed since, and only while that is younger than MAX_AGE_MS: a virtual clock
 * moves only when a check that runs alone or in the company advances it (schedule.ts), through the control adapter,
 * which learns its answer (a company member dates its sign-in inside a window: no advance is under way then). Whoever uses an estimate must survive a wrong one (a clock moved by someone else, a server restarted): users.ts
 * retries a refused onboarding once with an exact read.
 */

/** How long what was learned stands in for a read. */
export const MAX_AGE_MS = 60_000;

const learned = new Map<string, { serviceMs: number; at: number }>();

/** The service of `source` said its time is `serviceMs` (an answer that just arrived): the latest answer wins. */
export function learnServiceTime(source: string, serviceMs: number): void {
  if (Number.isFinite(serviceMs)) learned.set(source, { serviceMs, at: performance.now() });
}

/** What was learned of `source` no longer holds (a call that may have moved its clock failed). */
export function forgetServiceTime(source: string): void {
  learned.delete(source);
}

/** The service's time now by what was learned of `source` less than MAX_AGE_MS ago; undefined otherwise. */
export function estimatedServiceTime(source: string): number | undefined {
  const known = learned.get(source);
  if (!known) return undefined;
  const elapsed = performance.now() - known.at;
  return elapsed < MAX_AGE_MS ? known.serviceMs + elapsed : undefined;
}
