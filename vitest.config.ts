import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest files of the `self` project, longest first (seconds of a whole `npm test` in CI on 2 cores, issue 17:
 * each variants shard 135-165, cli ~125, resilience ~105, cli-failing and shard ~70, hostile-bounded ~65, the next
 * ones 35-60, each mutants shard ~30, then 10-20). They start first so that the two workers end together, the short files
 * filling in at the end: vitest's own order is by the durations in its local cache, and in a fresh clone (CI) by file
 * size, which put the three-line shard files of test/self-test/mutation.ts last. A file not listed runs after these,
 * in vitest's order. Keep it in step when a file is renamed or its duration changes much.
 */
const LONGEST_FIRST = [
  'test/self-test/variants-2.test.ts',
  'test/self-test/variants-1.test.ts',
  'test/cli/cli.test.ts',
  'test/self-test/resilience.test.ts',
  'test/cli/cli-failing.test.ts',
  'test/cli/shard.test.ts',
  'test/self-test/hostile-bounded.test.ts',
  'test/cli/package.test.ts',
  'test/self-test/assumption-gating.test.ts',
  'test/cli/cli-partner.test.ts',
  'test/cli/verdicts.test.ts',
  'test/cli/config.test.ts',
  'test/cli/replay.test.ts',
  'test/self-test/mutants-1.test.ts',
  'test/self-test/mutants-2.test.ts',
  'test/self-test/mutants-3.test.ts',
  'test/self-test/partner-mode.test.ts',
  'test/cli/usage.test.ts',
  'test/cli/concurrency.test.ts',
  'test/cli/interrupt.test.ts',
  'test/cli/root-cause.test.ts',
  'test/generators/real-specs.test.ts',
  'test/cli/api-twice.test.ts',
  'test/self-test/readonly-sends-only-safe-requests.test.ts',
  'test/cli/report-html.test.ts',
  'test/reference-server/serve-cli.test.ts',
  'test/generators/generate.test.ts',
  'test/self-test/hostile-leaks.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const i = LONGEST_FIRST.findIndex((path) => file.moduleId.endsWith(`/${path}`));
      return i === -1 ? LONGEST_FIRST.length : i;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

/**
 * Two projects:
 * - `self`: the project's own tests (`npm test`): unit tests, spec and rule lint, generator properties, the
 *   reference server, the CLI end to end and the mutation self-test.
 * - `conformance`: the suite against a target; run through `npm run conformance` / `npm start`, which prepares
 *   the target and provides it to the workers (bin/conformance.ts). One file, suites/conformance.test.ts, holds both
 *   services' checks, in one process with one request budget for the target (suites/harness/pacer.ts): every check's
 *   test starts at once and the project's test runner holds it until its check's turn (suites/harness/check-runner.mjs):
 *   at most --max-concurrency under way, those that share the target's state alone (suites/harness/schedule.ts). What
 *   a worker logs is redacted and escaped (suites/harness/worker-setup.ts).
 */
export default defineConfig({
  test: {
    sequence: { sequencer: LongestFirst },
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
          // The generated validators (1.5 MB of plain JavaScript) load with Node's own import, once per worker.
          server: { deps: { external: [/\/generators\/out\/validators\.js$/] } },
        },
      },
      {
        test: {
          name: 'conformance',
          include: ['suites/**/*.test.ts'],
          // The transformed modules are cached on disk between runs where the CLI can write (bin/conformance.ts
          // moduleCacheDir, given to startVitest: vitest's experimental fsModuleCache, keyed by each file's content).
          globalSetup: ['suites/harness/global-setup.ts'],
          setupFiles: ['suites/harness/worker-setup.ts'],
          fileParallelism: false,
          // The runner decides when a check starts (--max-concurrency, checks that run alone): vitest starts them all.
          runner: './suites/harness/check-runner.mjs',
          // The generated validators (1.5 MB of plain JavaScript) load with Node's own import: through vite's transform
          // they took about a second of a run's start (issue 17).
          server: { deps: { external: [/\/generators\/out\/validators\.js$/] } },
          maxConcurrency: 100_000,
          // From the check's start, not from when it began to wait for its turn (check-runner.mjs).
          testTimeout: 300_000,
        },
      },
    ],
  },
});
