import { SOL_TO_USDC } from '../../quote-support.ts';
import type { Probe } from '../probe.ts';

/**
 * Probes of the mutants of fixtures/mutants/quotes/hostile.ts (Q-HOST): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

export const QUOTES_HOSTILE_PROBES: Record<string, Probe> = {
  'quote-amount-beyond-u64-answers-500': async (t) => (await t.swap({ ...SOL_TO_USDC, amount: '9'.repeat(80) })).status,
  'quote-negative-amount-routed': async (t) => (await t.swap({ ...SOL_TO_USDC, amount: '-1' })).status,
  'quote-400-text-carries-a-stack-trace': async (t) => String((await t.swap({ ...SOL_TO_USDC, amount: '1.5' })).body).includes(' at '),
  'distributor-quote-amount-beyond-u64-answers-500': async (t) => {
    const query = new URLSearchParams({ ...SOL_TO_USDC, amount: '9'.repeat(80) });
    return (await t.gateway(`/api/v1/quote/swap?${query.toString()}`, { authorization: `Bearer ${(await t.quoteJwt()).jwt}` })).status;
  },
};
