/**
 * Facts of every quote answer (Quote response, metadata, Route, Step, Instruction and the defaults of the
 * transaction parameters). Each check sends the same small sample (samples.ts) and asserts its own rules; the rest
 * of the shared invariant still runs on every answer and reports any other broken rule after the check's own.
 */
import { defineCheck, type Check, type CheckContext } from '../harness/check.ts';
import { at } from '../shared/values.ts';
import { EXERCISED, quote, sampleQuotes, type Sample } from './samples.ts';
import { Judge, discover, quoteParams, routesOf } from './quote-support.ts';
import type { RuleId } from '../../generators/vocabulary.ts';

interface Fact {
  name: string;
  rules: RuleId[];
  /** Why the sample did not exercise the fact (then the check skips instead of passing vacuously). */
  exercised?: (s: Sample) => string | undefined;
}

/** One row per fact; the rules are asserted by the shared invariant (invariants.ts) on every sampled answer. */
const FACTS: Fact[] = [
  {
    name: 'quote-response-carries-id-mints-amount-quotes-and-metadata',
    rules: ['Q-QUOTE-001', 'Q-QUOTE-002', 'Q-AUTH-006', 'Q-QUOTE-011'],
  },
  { name: 'quote-echoes-the-requested-mints', rules: ['Q-QUOTE-003'] },
  { name: 'quote-echoes-the-requested-amount-exactly', rules: ['Q-QUOTE-004'] },
  { name: 'quotes-is-a-map-keyed-by-provider-ids', rules: ['Q-QUOTE-005', 'Q-QUOTE-006', 'Q-QUOTE-008'] },
  { name: 'a-served-quote-has-at-least-one-route', rules: ['Q-QUOTE-007'] },
  { name: 'u64-fields-are-exact-unsigned-64-bit-integers', rules: ['Q-QUOTE-009'] },
  { name: 'alts-entries-are-tables-with-base58-addresses', rules: ['Q-QUOTE-010'], exercised: EXERCISED.alts },
  { name: 'routes-carry-amounts-slippage-steps-instructions-tables-and-slot', rules: ['Q-ROUTE-001', 'Q-ROUTE-015', 'Q-ROUTE-016'] },
  { name: 'route-compute-units-are-u64-when-present', rules: ['Q-ROUTE-002', 'Q-ROUTE-017'], exercised: EXERCISED.computeUnits },
  { name: 'steps-carry-pool-label-mints-amounts-and-allocation', rules: ['Q-ROUTE-004', 'Q-ROUTE-003'], exercised: EXERCISED.steps },
  { name: 'step-allocppb-lies-between-1-and-1e9', rules: ['Q-ROUTE-005'], exercised: EXERCISED.steps },
  { name: 'first-hop-allocppb-sums-to-the-full-order', rules: ['Q-ROUTE-006', 'Q-ROUTE-007'], exercised: EXERCISED.steps },
  { name: 'step-labels-are-venue-labels', rules: ['Q-ROUTE-008'], exercised: EXERCISED.steps },
  { name: 'steps-connect-the-input-mint-to-the-output-mint', rules: ['Q-ROUTE-009'], exercised: EXERCISED.steps },
  { name: 'optional-route-and-step-fields-have-their-types', rules: ['Q-ROUTE-010'] },
  { name: 'instructions-are-program-accounts-and-base64-data', rules: ['Q-ROUTE-011', 'Q-ROUTE-014'] },
  { name: 'lookup-table-keys-are-base58-addresses', rules: ['Q-ROUTE-012'] },
  { name: 'routes-are-built-for-the-user-as-signer', rules: ['Q-ROUTE-013'] },
  { name: 'metadata-carries-winner-decimals-and-prices', rules: ['Q-META-001', 'Q-META-006'] },
  { name: 'expected-winner-spellings-agree', rules: ['Q-META-002'] },
  { name: 'expected-winner-is-a-key-of-quotes', rules: ['Q-META-003', 'Q-META-004'] },
  { name: 'metadata-decimals-are-the-mints-decimals', rules: ['Q-META-005'] },
  { name: 'metadata-errors-is-absent-from-a-served-quote', rules: ['Q-META-008'] },
  { name: 'quotes-holds-at-most-numquotes-routes', rules: ['Q-PARAM-005'] },
  { name: 'routes-fit-the-default-size-constraint-as-v0-transactions', rules: ['Q-PARAM-018'] },
  { name: 'routes-stay-within-the-default-writable-account-limit', rules: ['Q-PARAM-022'] },
  { name: 'alts-appear-only-with-includealtcontents-and-cover-every-table', rules: ['Q-PARAM-042'] },
  { name: 'alts-contents-hold-accounts-of-the-routes-that-name-the-tables', rules: ['Q-PARAM-048'], exercised: EXERCISED.alts },
  { name: 'routes-create-the-output-token-account-idempotently-by-default', rules: ['Q-PARAM-026'] },
  { name: 'routes-pay-the-output-into-the-users-token-account-by-default', rules: ['Q-PARAM-027'], exercised: EXERCISED.nonNativeOutput },
  { name: 'routes-leave-the-input-token-account-open-by-default', rules: ['Q-PARAM-025'], exercised: EXERCISED.nonNativeInput },
];

/**
 * The facts smoke judges (README, Profiles): what a client reads to execute a quote. The sample and the whole shared
 * invariant are the same in smoke, so a broken rule of another fact still fails one of these (after its own rules).
 */
const SMOKE_FACTS = new Set([
  'quote-response-carries-id-mints-amount-quotes-and-metadata',
  'quotes-is-a-map-keyed-by-provider-ids',
  'routes-carry-amounts-slippage-steps-instructions-tables-and-slot',
  'metadata-carries-winner-decimals-and-prices',
  'expected-winner-is-a-key-of-quotes',
]);

export const quoteFacts: Check[] = FACTS.map(({ name, rules, exercised }) =>
  defineCheck({
    name,
    service: 'quotes',
    rules,
    profile: SMOKE_FACTS.has(name) ? 'smoke' : 'readonly',
    async run(t: CheckContext) {
      const sample = await sampleQuotes(t);
      const reason = exercised?.(sample);
      if (reason) t.skip(reason);
    },
  }),
);

/** Info: "An entry with min, max, default is the accepted range of the quote parameter with the same name". */
export const omittedParametersTakeThePublishedDefaults = defineCheck({
  name: 'omitted-numquotes-and-slippagebps-take-the-defaults-info-publishes',
  service: 'quotes',
  rules: ['Q-INFO-013'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const call = await quote(t, j, d, quoteParams());
    if (call.status !== 200) t.skip(`the default request answered ${call.status}; the defaults are judged on routes`);
    const numQuotes = d.ranges.get('numQuotes')?.default;
    const slippage = d.ranges.get('slippageBps')?.default;
    const routes = routesOf(call.body);
    if (numQuotes !== undefined) {
      t.expect('Q-INFO-013', routes.length <= numQuotes, {
        documented: `numQuotes omitted: at most the published default ${numQuotes} routes`,
        received: routes.map(([p]) => p),
        exchange: call.ex,
      });
    }
    if (slippage !== undefined) {
      for (const [provider, route] of routes) {
        t.expect('Q-INFO-013', typeof route.slippageBps === 'number' && route.slippageBps <= slippage, {
          documented: `slippageBps omitted: quotes.${provider} is built with at most the published default ${slippage}`,
          received: route.slippageBps,
          exchange: call.ex,
        });
      }
    }
    t.note(
      `info publishes numQuotes default ${String(numQuotes)}, slippageBps default ${String(slippage)}; ExpectedWinner ${String(at(call.body, 'metadata.ExpectedWinner'))}`,
    );
  },
});

/** Versioning 1: a major change is backward-incompatible; the run reports the version it met. */
export const protocolVersionIsReported = defineCheck({
  name: 'protocol-version-is-reported-with-the-run',
  service: 'quotes',
  rules: ['Q-VER-003', 'Q-INFO-012'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const v = at(d.info, 'protocolVersion');
    t.note(`protocolVersion ${JSON.stringify(v)}: the suite was written for major 1; a higher minor is additive`);
    t.note('intervalMs and concurrentStreams are streaming settings: read from info, never sent on the key path (Q-INFO-012)');
  },
});
