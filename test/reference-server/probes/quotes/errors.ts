import { SOL_TO_USDC } from '../../quote-support.ts';
import type { Probe } from '../probe.ts';
import { noRouteBody, UNKNOWN_DEX } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/quotes/errors.ts (Q-ERR): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

const UNUSABLE_WALLET = { ...SOL_TO_USDC, userPublicKey: '11111111111111111111111111111111' };

export const QUOTES_ERROR_PROBES: Record<string, Probe> = {
  'engine-400-without-code': async (t) => (await t.swap({ ...SOL_TO_USDC, slippageBps: 70000 })).contentType,
  'malformed-parameter-answered-json': async (t) => (await t.swap({ ...SOL_TO_USDC, amount: '1.5' })).contentType,
  'request-level-404-code-minus-1': async (t) => (await noRouteBody(t, UNUSABLE_WALLET)).code,
  'quote-id-without-tag': async (t) => (await t.swap(UNKNOWN_DEX)).body,
  'no-route-404-without-errors': async (t) => 'errors' in (await noRouteBody(t, UNKNOWN_DEX)).metadata,
  'request-level-404-with-empty-errors': async (t) => 'errors' in (await noRouteBody(t, UNUSABLE_WALLET)).metadata,
  'no-route-404-without-decimals': async (t) => Object.keys((await noRouteBody(t, UNKNOWN_DEX)).metadata).sort(),
};
