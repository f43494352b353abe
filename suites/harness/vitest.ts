import { describe, inject, test } from 'vitest';
import * as allure from 'allure-js-commons';
import type { Check } from './check.ts';
import { loadCatalogue } from './rules.ts';
import { runCheck, type CheckResult } from './runner.ts';
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

/** The check under way, if any: a cancelled run (Ctrl-C) may reach its afterAll hooks before it settles. */
let inFlight: Promise<unknown> = Promise.resolve();

/** Settles once no check of this worker is running. */
export function checksSettled(): Promise<unknown> {
  return inFlight.catch(() => undefined);
}

// A Ctrl-C in the terminal reaches this worker too: the CLI cancels the run instead (bin/conformance.ts), so the
// worker lives on to finish the check under way and to clean up what the run created (suites/orders/cleanup.ts).
process.on('SIGINT', () => {});

/** The vitest test name of a check: the fact, then the rule ids it cites (so --grep matches either). */
export function testName(check: Check): string {
  return `${check.name} [${check.rules.join(' ')}]`;
}

/**
 * Register each check as one vitest test. The verdict travels in task meta to the matrix reporter; vitest sees
 * pass, a thrown failure for a gating `fail`, and a skip with the reason for every other verdict, so that a
 * skipped check never looks like a pass.
 */
export function describeChecks(title: string, checks: readonly Check[]): void {
  describe(title, () => {
    for (const check of checks) {
      test(testName(check), async (ctx) => {
        const env = inject('target');
        if (!secretsRegistered) {
          registerEnvSecrets(env);
          applyEnvBounds(env);
          secretsRegistered = true;
        }
        const running = runCheck(check, env);
        inFlight = running;
        const result = await running;
        ctx.task.meta.conformance = result;
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
            if (result.gating) throw new Error(result.message);
            ctx.skip(`NOT GATING (${result.level}, ${result.basis}) — ${result.message}`);
            return;
          default:
            ctx.skip(`${result.verdict.toUpperCase()}: ${result.message}`);
        }
      });
    }
  });
}
