/** Run checks in-process against the reference server, faithful or with one mutant or variant. */
import { startReferenceServer, type ReferenceServerOptions, type RunningServer } from '../../fixtures/server/index.ts';
import type { Check } from '../../suites/harness/check.ts';
import { runCheck, type CheckResult } from '../../suites/harness/runner.ts';
import { segments } from '../../suites/harness/schedule.ts';
import { prepareTarget, type TargetConfig } from '../../suites/harness/target.ts';
import type { TargetEnv } from '../../suites/harness/types.ts';

export const SELF_TEST_SEED = Number(process.env.CONFORMANCE_SEED ?? 20261122);

/** What a self-test may change of the run's target config (profile, budget, timeout); the rest is fixed. */
export type RunOverrides = Partial<Pick<TargetConfig, 'profile' | 'maxRps' | 'maxConcurrency' | 'timeoutMs' | 'numRuns'>> & {
  /** Called with the server once the checks ran, before it closes (to read its transport counters). */
  inspect?: (server: RunningServer) => void;
  /** The hostile inputs the run sends (suites/shared/hostile.ts): every one by default, as against the embedded server. */
  hostileInputs?: TargetEnv['hostileInputs'];
  /** Run up to this many checks at once, as the CLI does (suites/harness/schedule.ts); default 1, one after another. */
  checksAtOnce?: number;
  /**
   * Start no further check once a result is accepted by this: the checks after it are not run, and not returned. With
   * one check at a time, the results that are returned are those of a whole run, up to the first one accepted.
   */
  stopAfter?: (result: CheckResult) => boolean;
};

export async function runAgainstReference(
  options: ReferenceServerOptions,
  checks: readonly Check[],
  { inspect, checksAtOnce = 1, stopAfter, hostileInputs, ...overrides }: RunOverrides = {},
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
    if (hostileInputs) env.hostileInputs = hostileInputs;
    const results = await runScheduled(checks, env, checksAtOnce, stopAfter);
    inspect?.(server);
    return results;
  } finally {
    await server.close();
  }
}

/**
 * The checks in order, `atOnce` at a time except those that run alone (schedule.ts), until a result `stopAfter` accepts;
 * the results of the checks that ran, in the checks' order.
 */
async function runScheduled(
  checks: readonly Check[],
  env: TargetEnv,
  atOnce: number,
  stopAfter: (result: CheckResult) => boolean = () => false,
): Promise<CheckResult[]> {
  const results = new Map<Check, CheckResult>();
  let stopped = false;
  for (const segment of segments(checks, env.capabilities)) {
    if (stopped) break;
    const queue = [...segment.checks];
    const lanes = segment.place === 'alone' ? 1 : Math.max(1, Math.min(atOnce, queue.length));
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        for (let check = queue.shift(); check && !stopped; check = queue.shift()) {
          const result = await runCheck(check, env);
          results.set(check, result);
          if (stopAfter(result)) stopped = true;
        }
      }),
    );
  }
  return checks.flatMap((check) => results.get(check) ?? []);
}

export function describeResults(results: CheckResult[]): string {
  return results
    .map((r) => `${r.verdict.padEnd(12)} ${r.check}${r.rule ? ` (${r.rule})` : ''}${r.verdict !== 'pass' ? `\n${r.message}` : ''}`)
    .join('\n');
}
