import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, inject, test, type TestContext } from 'vitest';
import * as allure from 'allure-js-commons';
import type { Check } from './check.ts';
import { verdictLine } from './junit.ts';
import { loadCatalogue } from './rules.ts';
import { DEFAULT_MAX_CONCURRENCY } from './pacer.ts';
import { runCheck, type CheckResult } from './runner.ts';
import { checkSlots, ordersShareOneWallet, runOrder } from './schedule.ts';
import { applyEnvBounds, registerEnvSecrets } from './target.ts';
import type { TargetEnv } from './types.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    target: TargetEnv;
  }
  interface TaskMeta {
    conformance?: CheckResult;
  }
}

let secretsRegistered = false;

/** The checks under way in this worker: a cancelled run (Ctrl-C) may reach its afterAll hooks before they settle. */
const inFlight = new Set<Promise<unknown>>();

/** Settles once no check of this worker is running. */
export async function checksSettled(): Promise<void> {
  while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
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
 * Register each check of a conformance file (its areas: title and checks) as one vitest test. Checks run concurrently,
 * at most `--max-concurrency` at once (vitest's `maxConcurrency`, set by the CLI), except a check that runs alone
 * (schedule.ts): the file's checks that may overlap run first, then each one that runs alone by itself (`runOrder`).
 * Each block is a `describe` of its area's title: concurrent, or sequential for one that runs alone; vitest runs
 * consecutive concurrent blocks together and a sequential one by itself. With `--max-concurrency 1` every block is
 * sequential and in declaration order: one check at a time.
 *
 * The verdict travels in task meta to the matrix reporter (which writes the matrix and junit.xml); vitest sees pass, a
 * thrown failure for a gating `fail`, and a skip with the verdict and the first line of its reason for every other
 * verdict, so that no check that was not judged a pass looks like one.
 */
export function describeChecks(groups: ReadonlyArray<readonly [string, readonly Check[]]>): void {
  const env = inject('target');
  const sequential =
    checkSlots(env.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY) === 1 ||
    (groups[0]?.[1][0]?.service === 'orders' && ordersShareOneWallet(env));
  for (const block of runOrder(groups, sequential)) {
    (sequential || block.alone ? describe : describe.concurrent)(block.title, () => {
      for (const check of block.checks) test(testName(check), (ctx) => checkAsTest(check, ctx));
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
  const running = runCheck(check, env);
  inFlight.add(running);
  let result: CheckResult;
  try {
    result = await running;
  } finally {
    inFlight.delete(running);
  }
  ctx.task.meta.conformance = result;
  // A cancelled run (Ctrl-C) has already reported the checks running beside this one as skipped: vitest takes nothing
  // more of this test (no annotation), and the run ends "interrupted" with the verdicts reported before.
  if (ctx.task.result && ctx.task.result.state !== 'run') return;
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
