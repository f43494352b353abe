import { defineConfig } from 'vitest/config';

/**
 * Two projects:
 * - `self`: the project's own tests (`npm test`): unit tests, spec and rule lint, generator properties, the
 *   reference server, the CLI end to end and the mutation self-test.
 * - `conformance`: the suite against a target; run through `npm run conformance` / `npm start`, which prepares
 *   the target and provides it to the workers (bin/conformance.ts). Its files run one at a time, each in a process of
 *   its own (the request budget of suites/harness/pacer.ts is per process); inside a file, checks run concurrently up
 *   to `maxConcurrency` (--max-concurrency, set by the CLI), except those that share the target's state, which run
 *   alone (suites/harness/schedule.ts). What a worker logs is redacted and escaped (suites/harness/worker-setup.ts).
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'self',
          include: ['test/**/*.test.ts'],
          // Two workers even on two cores (vitest's default is one fewer than the cores): the long files (the
          // mutation and variant shards of test/self-test/mutation.ts) are CPU-bound in their worker, and the main
          // process only collects results.
          maxWorkers: 2,
          // A ceiling that bounds a hang, not a measure of speed: a whole run against the reference server takes
          // 20-40 s on an idle machine and several times that on a busy one.
          testTimeout: 600_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'conformance',
          include: ['suites/**/*.test.ts'],
          globalSetup: ['suites/harness/global-setup.ts'],
          setupFiles: ['suites/harness/worker-setup.ts'],
          fileParallelism: false,
          maxConcurrency: Number(process.env.CONFORMANCE_CHECK_SLOTS) || 1,
          testTimeout: 300_000,
        },
      },
    ],
  },
});
