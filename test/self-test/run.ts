/** Run checks in-process against the reference server, faithful or with one mutant or variant. */
import { startReferenceServer, type ReferenceServerOptions, type RunningServer } from '../../fixtures/server/index.ts';
import type { Check } from '../../suites/harness/check.ts';
import { runCheck, type CheckResult } from '../../suites/harness/runner.ts';
import { prepareTarget, type TargetConfig } from '../../suites/harness/target.ts';

export const SELF_TEST_SEED = Number(process.env.CONFORMANCE_SEED ?? 20261122);

/** What a self-test may change of the run's target config (profile, budget, timeout); the rest is fixed. */
export type RunOverrides = Partial<Pick<TargetConfig, 'profile' | 'maxRps' | 'maxConcurrency' | 'timeoutMs' | 'numRuns'>> & {
  /** Called with the server once the checks ran, before it closes (to read its transport counters). */
  inspect?: (server: RunningServer) => void;
};

export async function runAgainstReference(
  options: ReferenceServerOptions,
  checks: readonly Check[],
  { inspect, ...overrides }: RunOverrides = {},
): Promise<CheckResult[]> {
  const server = await startReferenceServer({ port: 0, ...options });
  try {
    const env = await prepareTarget({
      ordersUrl: server.ordersUrl,
      quotesUrl: server.quotesUrl,
      controlUrl: server.controlUrl,
      profile: 'full',
      seed: SELF_TEST_SEED,
      strict: false,
      numRuns: process.env.CI ? 20 : 50,
      timeoutMs: 10_000,
      maxRps: 0,
      expectedProviders: 2,
      credentials: {},
      ...overrides,
    });
    const results: CheckResult[] = [];
    for (const check of checks) results.push(await runCheck(check, env));
    inspect?.(server);
    return results;
  } finally {
    await server.close();
  }
}

export function describeResults(results: CheckResult[]): string {
  return results
    .map((r) => `${r.verdict.padEnd(12)} ${r.check}${r.rule ? ` (${r.rule})` : ''}${r.verdict !== 'pass' ? `\n${r.message}` : ''}`)
    .join('\n');
}
