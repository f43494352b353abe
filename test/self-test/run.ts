/** Run checks in-process against the reference server, faithful or with one mutant or variant. */
import { startReferenceServer, type ReferenceServerOptions } from '../../fixtures/server/index.ts';
import type { Check } from '../../suites/harness/check.ts';
import { runCheck, type CheckResult } from '../../suites/harness/runner.ts';
import { prepareTarget } from '../../suites/harness/target.ts';

export const SELF_TEST_SEED = Number(process.env.CONFORMANCE_SEED ?? 20261122);

export async function runAgainstReference(options: ReferenceServerOptions, checks: readonly Check[]): Promise<CheckResult[]> {
  const server = await startReferenceServer({ port: 0, ...options });
  try {
    const env = await prepareTarget({
      ordersUrl: server.ordersUrl, quotesUrl: server.quotesUrl, controlUrl: server.controlUrl,
      profile: 'full', seed: SELF_TEST_SEED, strict: false, numRuns: process.env.CI ? 20 : 50, timeoutMs: 10_000, maxRps: 0,
      expectedProviders: 2, credentials: {},
    });
    const results: CheckResult[] = [];
    for (const check of checks) results.push(await runCheck(check, env));
    return results;
  } finally {
    await server.close();
  }
}

export function describeResults(results: CheckResult[]): string {
  return results.map((r) => `${r.verdict.padEnd(12)} ${r.check}${r.rule ? ` (${r.rule})` : ''}${r.verdict !== 'pass' ? `\n${r.message}` : ''}`).join('\n');
}
