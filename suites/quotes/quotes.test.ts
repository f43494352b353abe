// This service's checks only (its registry): the other service's are not loaded in this file's worker.
import { quoteGroups as checkGroups } from './registry.ts';
import { describeChecks } from '../harness/vitest.ts';

describeChecks(Object.entries(checkGroups).filter(([group]) => group.startsWith('quotes/')));
