/**
 * What the `smoke` and `readonly` profiles may send (README, Profiles): requests that change nothing on any target,
 * conforming or not. That is the safe methods only: a request the documents say is rejected (no key, a throwaway
 * wallet's bad SIWS, a random order id) still creates a record on a target whose auth or validation is broken.
 *
 * One exception, the Swap Quote Service (key path and distributor path): its document gives it no state a request
 * can change (four read endpoints; "all endpoints are GET; a POST gives 403"), and the only per-key state it keeps,
 * the rate window and the monthly allowance, is spent by a GET just the same. So the method probes of Q-EDGE-001
 * ("a POST gives 403") run in readonly; the same request to the order service runs in `full` only.
 *
 * The control API (the host adapter) is outside the guard: a production target has none, and the self-test
 * (test/self-test/readonly-sends-only-safe-requests.test.ts) shows that readonly checks only read it.
 */
import type { RequestSpec, ServiceClient } from './client.ts';
import type { Profile } from './types.ts';

export const SAFE_METHODS: readonly string[] = ['GET', 'HEAD', 'OPTIONS'];

export function isSafeMethod(method: string | undefined): boolean {
  return SAFE_METHODS.includes((method ?? 'GET').toUpperCase());
}

/** Only `full` sends requests that may change the target's state (creating, signing, acting, rejected or not). */
export function sendsUnsafeRequests(profile: Profile): boolean {
  return profile === 'full';
}

/**
 * The order-service client of a check, refusing in `smoke` and `readonly` any method but the safe ones before it is
 * sent: a check that slips gets a suite error naming it (verdict setup-failed), and the target gets nothing.
 */
export function safeMethodsOnly(client: ServiceClient, check: string, profile: Profile): ServiceClient {
  if (sendsUnsafeRequests(profile)) return client;
  const send = client.request.bind(client);
  client.request = async (spec: RequestSpec) => {
    if (!isSafeMethod(spec.method)) {
      throw new Error(
        `check "${check}" tried ${spec.method!.toUpperCase()} ${spec.path} in the ${profile} profile, which sends the order ` +
          `service only ${SAFE_METHODS.join(', ')}: the request was not sent (give the check profile full, or send it only when ` +
          't.env.profile is full; suites/harness/safe-methods.ts)',
      );
    }
    return await send(spec);
  };
  return client;
}
