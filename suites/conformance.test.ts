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

const services = inject('services') ?? ['orders', 'quotes'];
// vitest's module runner fetches a module's imports one after another, each transformed on demand: the check modules
// of the selected services (and, through them, the harness) are asked for all at once here, so that their transforms
// overlap (about half a second of a run's start, issue 17); the registries then find them loaded.
const checkModules = (import.meta as ImportMeta & { glob(patterns: string[]): Record<string, () => Promise<unknown>> }).glob([
  './orders/**/*.checks.ts',
  './quotes/**/*.checks.ts',
]);
const [{ checksSettled, describeChecks }, orders, quotes] = await Promise.all([
  import('./harness/vitest.ts'),
  services.includes('orders') ? import('./orders/registry.ts') : undefined,
  services.includes('quotes') ? import('./quotes/registry.ts') : undefined,
  ...Object.entries(checkModules)
    .filter(([path]) => services.some((service) => path.startsWith(`./${service}/`)))
    .map(([, load]) => load()),
]);
const groups: Array<[string, Check[]]> = [...Object.entries(orders?.orderGroups ?? {}), ...Object.entries(quotes?.quoteGroups ?? {})];
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
