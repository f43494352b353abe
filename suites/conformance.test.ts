/**
 * The conformance run: the checks of both services in one file, so in one process with one request budget for the
 * target (suites/harness/pacer.ts) and one scheduler (suites/harness/schedule.ts): the quote checks run beside the order
 * checks, and a check that runs alone has the whole target to itself. Only the registries of the services the run
 * selected are loaded (bin/conformance.ts provides them): a quotes-only run loads no order check.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, inject } from 'vitest';
import type { Check } from './harness/check.ts';
import { redact } from './harness/redact.ts';
import { escapeControlsInJson } from './harness/terminal.ts';
import { checksSettled, describeChecks } from './harness/vitest.ts';

const services = inject('services') ?? ['orders', 'quotes'];
const groups: Array<[string, Check[]]> = [];
if (services.includes('orders')) groups.push(...Object.entries((await import('./orders/registry.ts')).orderGroups));
if (services.includes('quotes')) groups.push(...Object.entries((await import('./quotes/registry.ts')).quoteGroups));
describeChecks(groups);

// The end of a full run: what the order checks created is cancelled and withdrawn, after failures too, once every check
// has settled (suites/orders/cleanup.ts).
if (services.includes('orders')) {
  const { cleanUpCreatedOrders, describeCleanup } = await import('./orders/cleanup.ts');
  afterAll(async () => {
    const env = inject('target');
    if (env.profile !== 'full') return;
    await checksSettled();
    const report = await cleanUpCreatedOrders(env);
    // The CLI prints it once, after the summary, from the file; run without the CLI, it is printed here.
    if (!process.env.CONFORMANCE_CLEANUP_FILE) console.log(describeCleanup(report));
    if (process.env.CONFORMANCE_CLEANUP_FILE)
      writeFileSync(process.env.CONFORMANCE_CLEANUP_FILE, `${escapeControlsInJson(redact(JSON.stringify(report, null, 2)))}\n`);
  }, 600_000);
}
