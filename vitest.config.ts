import { defineConfig } from 'vitest/config';

/**
 * Two projects:
 * - `self`: the project's own tests (`npm test`): unit tests, spec and rule lint, generator properties, the
 *   reference server, the CLI end to end and the mutation self-test.
 * - `conformance`: the suite against a target; run through `npm run conformance` / `npm start`, which prepares
 *   the target and passes it in CONFORMANCE_TARGET. Its files run one at a time: checks share the target's state
 *   (faults, clock), so they never overlap.
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'self',
          include: ['test/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'conformance',
          include: ['suites/**/*.test.ts'],
          globalSetup: ['suites/harness/global-setup.ts'],
          fileParallelism: false,
          testTimeout: 300_000,
        },
      },
    ],
  },
});
