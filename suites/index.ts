/**
 * Every check of the suite, in one list: the CLI, the matrix and the self-test read it. The checks are registered by
 * service, in suites/quotes/registry.ts and suites/orders/registry.ts, so that each service's vitest file loads only
 * its own checks (issue 17).
 */
import type { Check } from './harness/check.ts';
import { orderGroups } from './orders/registry.ts';
import { quoteGroups } from './quotes/registry.ts';

export const checkGroups: Record<string, Check[]> = { ...quoteGroups, ...orderGroups };

export const allChecks: Check[] = Object.values(checkGroups).flat();
