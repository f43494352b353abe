import { writeFileSync } from 'node:fs';
import { afterAll, inject } from 'vitest';
// This service's checks only (its registry): the other service's are not loaded in this file's worker.
import { orderGroups as checkGroups } from './registry.ts';
import { redact } from '../harness/redact.ts';
import { escapeControlsInJson } from '../harness/terminal.ts';
import { checksSettled, describeChecks } from '../harness/vitest.ts';
import { cleanUpCreatedOrders, describeCleanup } from './cleanup.ts';

describeChecks(Object.entries(checkGroups).filter(([group]) => group.startsWith('orders/')));

// The end of a full run: what the run created is cancelled and withdrawn, after failures too (cleanup.ts).
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
