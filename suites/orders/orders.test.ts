import { checkGroups } from '../index.ts';
import { describeChecks } from '../harness/vitest.ts';

for (const [group, checks] of Object.entries(checkGroups)) if (group.startsWith('orders/')) describeChecks(group, checks);
