import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, inject, test, type TestContext } from 'vitest';
import * as allure from 'allure-js-commons';
import type { Check } from './check.ts';
import { verdictLine } from './junit.ts';
import { loadCatalogue } from './rules.ts';
import { DEFAULT_MAX_CONCURRENCY } from './pacer.ts';
import { runCheck, type CheckResult } from './runner.ts';
import { CheckQueue, checkSlots, ordersShareOneWallet, placeOf, runOrder, Scheduler, type Turn } from './schedule.ts';
import { applyEnvBounds, registerEnvSecrets } from './target.ts';
import { beforeCheck, userPoolSettled } from '../orders/user-pool.ts';
import type { TargetEnv } from './types.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    target: TargetEnv;
    /** the services whose checks the run selected (bin/conformance.ts): suites/conformance.test.ts loads only theirs */
    services?: Array<Check['service']>;
  }
  interface TaskMeta {
    conformance?: CheckResult;
    /** when the check may start (suites/harness/check-runner.mjs) */
    turn?: Turn;
  }
}

let secretsRegistered = false;

/** The checks under way in this worker: a cancelled run (Ctrl-C) may reach its afterAll hooks before they settle. */
const inFlight = new Set<Promise<unknown>>();

/** Settles once no check of this worker is running. */
export async function checksSettled(): Promise<void> {
  while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  await userPoolSettled();
}

// A Ctrl-C in the terminal reaches this worker too: the CLI cancels the run instead (bin/conformance.ts), so the
// worker lives on to finish the check under way and to clean up what the run created (suites/orders/cleanup.ts).
process.on('SIGINT', () => {});

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The error vitest reports for a gating failure: the failure block, its stack one frame at the check's own line (not
 * this harness), so that vitest's code frame shows the check.
 */
function gatingError(check: Check, result: CheckResult): Error {
  const error = new Error(result.message);
  const site = /^(.*):(\d+)$/.exec(result.failedAt ?? '');
  error.stack = `Error: ${result.message}${site ? `\n    at ${check.name} (${join(ROOT, site[1]!)}:${site[2]}:1)` : ''}`;
  return error;
}

/** The vitest test name of a check: the fact, then the rule ids it cites (so --grep matches either). */
export function testName(check: Check): string {
  return `${check.name} [${check.rules.join(' ')}]`;
}

/**
 * Register each check of the run (its areas: title and checks, both services' in one file) as one vitest test, one
 * `describe` per area. vitest starts every test at once and the test runner holds each until its check's turn
 * (check-runner.mjs, schedule.ts, from the `turn` in the test's meta): at most `--max-concurrency` checks under way, one
 * that runs alone with nothing else of the target under way, the company's beside each other only, the checks that may
 * overlap first, then the company's, then those that run alone (`runOrder`), a full
 * run's order checks on one shared wallet one at a time (a lane of their own, the quote checks beside them). With
 * `--max-concurrency 1` every block is sequential and in declaration order: one check at a time.
 *
 * The verdict travels in task meta to the matrix reporter (which writes the matrix and junit.xml); vitest sees pass, a
 * thrown failure for a gating `fail`, and a skip with the verdict and the first line of its reason for every other
 * verdict, so that no check that was not judged a pass looks like one.
 */
export function describeChecks(groups: ReadonlyArray<readonly [string, readonly Check[]]>): void {
  const env = inject('target');
  const slots = checkSlots(env.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY);
  const sequential = slots === 1;
  // The run's scheduler, for the test runner (check-runner.mjs: it cannot import this module).
  (globalThis as Record<symbol, unknown>)[Symbol.for('conformance.scheduler')] = new Scheduler(new CheckQueue(slots));
  const place = (check: Check) => placeOf(check, env.capabilities);
  const laneOf = (check: Check) => (check.service === 'orders' && ordersShareOneWallet(env) ? 'orders' : undefined);
  const rank = new Map(runOrder(groups, sequential, place, laneOf).map((check, i) => [check, i]));
  for (const [title, checks] of groups) {
    (sequential ? describe : describe.concurrent)(title, () => {
      for (const check of checks) {
        const lane = laneOf(check);
        const turn: Turn = {
          check: check.name,
          rank: rank.get(check)!,
          alone: place(check) === 'alone',
          ...(place(check) === 'company' ? { company: true as const } : {}),
          ...(lane ? { lane } : {}),
        };
        test(testName(check), { meta: { turn } }, (ctx) => checkAsTest(check, ctx));
      }
    });
  }
}

async function checkAsTest(check: Check, ctx: TestContext): Promise<void> {
  const env = inject('target');
  if (!secretsRegistered) {
    registerEnvSecrets(env);
    applyEnvBounds(env);
    secretsRegistered = true;
  }
  // The users made ahead for the checks that run alone (suites/orders/user-pool.ts): none is under way once one starts.
  await beforeCheck(check, env, ctx);
  const running = runCheck(check, env);
  inFlight.add(running);
  let result: CheckResult;
  try {
    result = await running;
  } finally {
    inFlight.delete(running);
  }
  ctx.task.meta.conformance = result;
  // A cancelled run (Ctrl-C, --max-duration) has already reported the checks running beside this one as skipped: vitest
  // takes nothing more of this test (no annotation), and the run ends "interrupted" with the verdicts reported before.
  // It may be cancelled while the labels below are written, too: then too the test ends as it was reported.
  const cancelled = () => ctx.task.result !== undefined && ctx.task.result.state !== 'run';
  if (cancelled()) return;
  try {
    await labelAndAnnotate(check, result, ctx);
  } catch (e) {
    if (cancelled()) return;
    throw e;
  }
  if (cancelled()) return;
  switch (result.verdict) {
    case 'pass':
      return;
    case 'fail':
      if (result.gating) throw gatingError(check, result);
      ctx.skip(verdictLine(result));
      return;
    default:
      ctx.skip(verdictLine(result));
  }
}

/** The check's Allure labels and attachment, and its notes as vitest annotations. */
async function labelAndAnnotate(check: Check, result: CheckResult, ctx: TestContext): Promise<void> {
  const catalogue = loadCatalogue();
  await allure.epic(check.service === 'orders' ? 'Order Automation Service' : 'Swap Quote Service');
  for (const id of check.rules) {
    await allure.label('rule', id);
    const area = catalogue.rules.get(id)?.area;
    if (area) await allure.feature(area);
  }
  await allure.label('verdict', result.verdict);
  if (result.reproductions?.length) await allure.attachment('exchanges (redacted)', result.reproductions.join('\n\n'), 'text/plain');
  for (const note of result.notes) await ctx.annotate(note, 'notice');
}
