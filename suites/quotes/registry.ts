/**
 * The Swap Quote Service's checks by group (area), in order: loaded by suites/conformance.test.ts only
 * when the run selected a quote check (issue 17). suites/index.ts joins both.
 */
import { checksOf } from '../harness/checks-of.ts';
import type { Check } from '../harness/check.ts';
import * as quoteAuth from './auth.checks.ts';
import * as quoteDebug from './debug.checks.ts';
import * as quoteEdge from './edge.checks.ts';
import * as quoteEncoding from './encoding.checks.ts';
import * as quoteInfo from './info.checks.ts';
import * as quoteProviders from './providers.checks.ts';
import * as quoteShape from './shape.checks.ts';
import * as quoteVenues from './venues.checks.ts';
import * as quoteQuote from './quote.checks.ts';
import * as quoteQuoteEncoding from './quote-encoding.checks.ts';
import * as quoteParamsRouting from './params-routing.checks.ts';
import * as quoteParamsSizing from './params-sizing.checks.ts';
import * as quoteParamsTransaction from './params-transaction.checks.ts';
import * as quoteBounds from './bounds.checks.ts';
import * as quoteErrors from './errors.checks.ts';
import * as quotePrices from './prices.checks.ts';
import * as quoteOutages from './outages.checks.ts';
import * as quoteRate from './rate.checks.ts';
import * as quoteBlackboxRate from './blackbox-rate.checks.ts';
import * as quoteDistributor from './distributor.checks.ts';
import * as quoteHostile from './hostile-input.checks.ts';
import * as quoteSwapApiKey from './swap-api-key.checks.ts';

export const quoteGroups: Record<string, Check[]> = {
  'quotes/auth': checksOf(quoteAuth),
  'quotes/edge': checksOf(quoteEdge),
  'quotes/debug': checksOf(quoteDebug),
  'quotes/encoding': checksOf(quoteEncoding),
  'quotes/info': checksOf(quoteInfo),
  'quotes/venues': checksOf(quoteVenues),
  'quotes/providers': checksOf(quoteProviders),
  'quotes/shape': checksOf(quoteShape),
  'quotes/quote': checksOf(quoteQuote),
  'quotes/quote-encoding': checksOf(quoteQuoteEncoding),
  'quotes/params-routing': checksOf(quoteParamsRouting),
  'quotes/params-sizing': checksOf(quoteParamsSizing),
  'quotes/params-transaction': checksOf(quoteParamsTransaction),
  'quotes/bounds': checksOf(quoteBounds),
  'quotes/errors': checksOf(quoteErrors),
  'quotes/prices': checksOf(quotePrices),
  'quotes/outages': checksOf(quoteOutages),
  'quotes/rate': checksOf(quoteRate),
  'quotes/blackbox-rate': checksOf(quoteBlackboxRate),
  'quotes/distributor': checksOf(quoteDistributor),
  'quotes/hostile-input': checksOf(quoteHostile),
  'quotes/swap-api-key': checksOf(quoteSwapApiKey),
};
