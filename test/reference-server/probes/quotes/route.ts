import { SOL_TO_USDC, WALLET } from '../../quote-support.ts';
import type { Probe } from '../probe.ts';
import { routes } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/quotes/route.ts (Q-ROUTE): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

export const ROUTE_PROBES: Record<string, Probe> = {
  'route-in-amount-as-float': async (t) => (await routes(t, SOL_TO_USDC)).map((r) => Number.isInteger(Number(r.inAmount))),
  'compute-units-safe-fractional': async (t) => (await routes(t, SOL_TO_USDC)).map((r) => Number.isInteger(r.computeUnitsSafe)),
  'step-without-amm-key': async (t) => (await routes(t, SOL_TO_USDC)).flatMap((r) => r.steps.map((step) => 'ammKey' in step)),
  'step-with-zero-allocation': async (t) => (await routes(t, SOL_TO_USDC)).flatMap((r) => r.steps.map((step) => step.allocPpb)),
  'alloc-ppb-short-by-one': async (t) => (await routes(t, SOL_TO_USDC)).map((r) => r.steps.reduce((sum, step) => sum + step.allocPpb, 0)),
  'step-label-not-a-venue-label': async (t) => (await routes(t, SOL_TO_USDC)).flatMap((r) => r.steps.map((step) => step.label)),
  'steps-with-mints-reversed': async (t) => (await routes(t, SOL_TO_USDC)).map((r) => r.steps[0]?.inputMint),
  'fee-amount-not-digits': async (t) =>
    (await routes(t, SOL_TO_USDC)).flatMap((r) => r.steps.map((step) => (step as { feeAmount?: unknown }).feeAmount)),
  'account-meta-signer-as-string': async (t) =>
    (await routes(t, SOL_TO_USDC)).flatMap((r) => r.instructions.flatMap((ix) => ix.a.map((m) => typeof m.s))),
  'lookup-table-key-in-hex': async (t) => (await routes(t, SOL_TO_USDC)).map((r) => r.addressLookupTables),
  'user-not-a-signer': async (t) =>
    (await routes(t, SOL_TO_USDC)).map((r) => r.instructions.some((ix) => ix.a.some((m) => m.p === WALLET && m.s))),
  'expiry-as-iso-timestamp': async (t) => (await routes(t, { ...SOL_TO_USDC, providers: 'dflow' })).map((r) => typeof r.expiresAtMs),
};
