/**
 * The conformance project's test runner (vitest.config.ts `runner`): vitest's own, holding each check's test before it
 * starts until its turn. vitest starts every test at once; here, before vitest counts it as started, a test waits for
 * the run's scheduler (schedule.ts `Scheduler`, with the `turn` suites/harness/vitest.ts puts in the test's meta): so
 * vitest's test timeout, the test's start and duration (the reporters', the Allure timeline's) and a crashed worker's
 * count of the checks under way all hold from when the check really starts. A cancelled run (Ctrl-C, --max-duration)
 * starts no waiting check: vitest skips it, and the matrix lists it as not run.
 *
 * Plain JavaScript importing nothing of the suite: the Allure reporter wraps this runner and loads it with Node's own
 * import, which runs no TypeScript. The scheduler comes from the conformance file's module (`SCHEDULER` on globalThis,
 * set by `describeChecks` as the file is collected, before any test runs).
 */
import { setMaxListeners } from 'node:events';
import { TestRunner } from 'vitest';

const SCHEDULER = Symbol.for('conformance.scheduler');

export default class CheckRunner extends TestRunner {
  #ends = new Map();
  #cancelled = new AbortController();

  constructor(...args) {
    super(...args);
    // Every check waiting for its turn listens to it: hundreds at once, not a leak.
    setMaxListeners(0, this.#cancelled.signal);
  }

  async onBeforeRunTask(test) {
    const scheduler = globalThis[SCHEDULER];
    if (scheduler && test.meta.turn && test.mode === 'run' && !this.#cancelled.signal.aborted) {
      try {
        this.#ends.set(test.id, await scheduler.turn(test.meta.turn, this.#cancelled.signal));
      } catch (e) {
        // Cancelled while it waited: vitest's runner skips it (below). Anything else is the scheduler's bug: the check
        // must not start without its turn.
        if (!this.#cancelled.signal.aborted) throw e;
      }
    }
    await super.onBeforeRunTask(test);
    if (test.mode !== 'run') this.#end(test);
  }

  /** The test's function has ended (passed, failed, skipped, timed out or cancelled): the next check may start. */
  onTaskFinished(test) {
    this.#end(test);
  }

  onAfterRunTask(test) {
    this.#end(test);
    return super.onAfterRunTask(test);
  }

  cancel(reason) {
    super.cancel(reason);
    this.#cancelled.abort(new Error('the run was cancelled'));
  }

  #end(test) {
    this.#ends.get(test.id)?.();
    this.#ends.delete(test.id);
  }
}
