import { MINTS, SOL_TO_USDC } from '../../quote-support.ts';
import type { Probe } from '../probe.ts';
import { noRouteBody, quote, routes, UNKNOWN_DEX, USDC_TO_JUP, withPrice } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/quotes/quote.ts (Q-QUOTE, Q-META): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

export const QUOTE_PROBES: Record<string, Probe> = {
  // ---- Q-QUOTE: Quote response of GET /api/v1/quote/swap (fields, echo of the request, id) ----
  'quote-id-missing': async (t) => 'id' in (await quote(t)),
  'quote-id-empty': async (t) => (await quote(t)).id === '',
  'quote-mints-echoed-swapped': async (t) => {
    const b = await quote(t);
    return [b.inputMint, b.outputMint];
  },
  'quote-amount-echoed-in-whole-tokens': async (t) => (await quote(t)).amount,
  'quotes-as-array': async (t) => Array.isArray((await quote(t)).quotes),
  'quotes-keyed-by-provider-name': async (t) => Object.keys((await quote(t, { ...SOL_TO_USDC, numQuotes: 2 })).quotes).sort(),
  'quote-200-with-empty-quotes': async (t) => Object.keys((await quote(t)).quotes).length,
  'compute-units-as-float-string': async (t) => (await routes(t, SOL_TO_USDC)).map((r) => typeof r.computeUnits),
  'alts-element-without-addresses': async (t) =>
    (await quote(t, { ...SOL_TO_USDC, includeAltContents: true })).alts?.map((alt) => 'a' in alt),

  // ---- Q-META: Quote metadata: recommended route, prices, decimals, errors ----
  'metadata-decimals-as-strings': async (t) => {
    const m = (await quote(t)).metadata;
    return [typeof m.inputMintDecimals, typeof m.outputMintDecimals];
  },
  'expected-winner-spellings-differ': async (t) => {
    const b = await quote(t);
    return b.metadata.ExpectedWinner === b.metadata.expectedWinner;
  },
  'expected-winner-not-a-quote-key': async (t) => {
    const b = await quote(t);
    return Object.keys(b.quotes).includes(String(b.metadata.ExpectedWinner));
  },
  'metadata-decimals-swapped': async (t) => {
    const m = (await quote(t)).metadata;
    return [m.inputMintDecimals, m.outputMintDecimals];
  },
  'metadata-negative-price': async (t) => (await quote(t)).metadata.inputPriceUSD,
  'metadata-prices-ignore-the-oracle': (t) =>
    withPrice(t, [MINTS.JUP, '0.42', '0.5'], async () => (await quote(t, USDC_TO_JUP)).metadata.outputPriceUSD),
  'metadata-errors-on-success': async (t) => 'errors' in (await quote(t)).metadata,
  'metadata-errors-empty-reason': async (t) => (await noRouteBody(t, UNKNOWN_DEX)).metadata.errors,
};
