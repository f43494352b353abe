/**
 * Set up in every conformance worker (vitest.config.ts `setupFiles`): what a check or hook logs (the cleanup report of
 * suites/orders/orders.test.ts, with the target's error codes in it) reaches the terminal and junit.xml redacted, with
 * the secrets this worker minted, and with the target's control characters escaped (terminal.ts).
 */
import { format } from 'node:util';
import { redact } from './redact.ts';
import { escapeControls } from './terminal.ts';

for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
  const original = console[method].bind(console);
  console[method] = (...args: unknown[]) => original(escapeControls(redact(format(...args))));
}
