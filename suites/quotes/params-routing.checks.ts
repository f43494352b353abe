/**
 * Quote parameters and their effects (area PARAM): the Routing parameters. Each check sends the parameter,
 * asserts that a well-formed value is accepted (never 400), and lets the shared invariant judge the effect on every
 * route (invariants.ts reads the request that produced each answer).
 */
import fc from 'fast-check';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { notABoolean } from '../shared/arbitraries.ts';
import { isObject } from '../shared/values.ts';
import { QUOTE_DEFAULTS } from './fixtures.ts';
import {
  Judge,
  discover,
  isPlainText,
  maxNumQuotes,
  namesField,
  quoteParams,
  quoteRuns,
  requestQuote,
  routesOf,
  stepsOf,
  type Discovery,
  type QuoteCall,
  type QuoteParams,
} from './quote-support.ts';
import { expectAccepted, learnRoutes, provokeMultiHop, quote } from './samples.ts';
import type { RuleId } from '../../generators/vocabulary.ts';

// ---------------------------------------------------------------- Routing parameters

/**
 * "Not every provider appears in every response", so how many providers could quote at the moment of one request
 * is never known from outside. The check therefore asks each numQuotes value several times, interleaved with
 * numQuotes at its published max, and fails only when no answer ever holds min(numQuotes, most providers seen)
 * routes: a target that drops more than the surplus does it every time, a provider that comes and goes does not.
 */
export const numQuotesCapsAndFillsTheRoutes = defineCheck({
  name: 'numquotes-caps-the-routes-and-drops-only-the-surplus',
  service: 'quotes',
  rules: ['Q-PARAM-005', 'Q-PARAM-006'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const max = maxNumQuotes(d);
    const countAt = async (n: number) => {
      const call = await quote(t, j, d, quoteParams({ numQuotes: n }));
      return { call, count: call.status === 200 ? routesOf(call.body).length : 0 };
    };
    let most = 0;
    for (let i = 0; i < 3; i++) most = Math.max(most, (await countAt(max)).count);
    if (most === 0) t.skip('the configured pair was not routed');
    const tries = 6;
    for (let n = 1; n <= Math.min(max, most + 1); n++) {
      let best = { count: -1, call: undefined as QuoteCall | undefined };
      for (let i = 0; i < tries && best.count < Math.min(n, most); i++) {
        const answer = await countAt(n);
        if (answer.count > best.count) best = answer;
        // Re-measure every other try only, so that the asked answers do not fall into a fixed rhythm of the target.
        if (i % 2 === 1) most = Math.max(most, (await countAt(max)).count);
      }
      t.expect('Q-PARAM-006', best.count >= Math.min(n, most), {
        documented: `with numQuotes=${n} and up to ${most} providers quoting, some answer among ${tries} holds ${Math.min(n, most)} routes (only the surplus is dropped)`,
        received: best.call ? routesOf(best.call.body).map(([p]) => p) : best.count,
        exchange: best.call?.ex,
      });
    }
  },
});

export const routesNeverExceedTheRequestedSlippage = defineCheck({
  name: 'routes-are-built-with-at-most-the-requested-slippagebps',
  service: 'quotes',
  rules: ['Q-PARAM-004'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const range = d.ranges.get('slippageBps') ?? { min: 0, max: 10000, default: 100 };
    // The default (omitted), the low end where a fixed tolerance shows, then values across the published range.
    for (const value of [undefined, range.min, range.min + 1, 50]) {
      const call = await quote(t, j, d, quoteParams({ slippageBps: value, numQuotes: maxNumQuotes(d) }));
      expectAccepted(t, 'Q-PARAM-004', call, `slippageBps=${value ?? '(omitted)'}`);
    }
    await t.property(
      'Q-PARAM-004',
      fc.integer({ min: range.min, max: range.max }),
      async (value) => {
        const call = await quote(t, j, d, quoteParams({ slippageBps: value, numQuotes: maxNumQuotes(d) }));
        expectAccepted(t, 'Q-PARAM-004', call, `slippageBps=${value}`);
      },
      quoteRuns(t, 10),
    );
  },
});

export const providersParameterRestrictsQuoting = defineCheck({
  name: 'providers-parameter-restricts-quotes-to-listed-providers',
  service: 'quotes',
  rules: ['Q-PARAM-007', 'Q-PROV-008'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const max = maxNumQuotes(d);
    if (d.providerIds.length === 0) t.skip('/api/v1/providers lists no provider');
    for (const id of d.providerIds) {
      const call = await quote(t, j, d, quoteParams({ providers: [id], numQuotes: max }));
      expectAccepted(t, 'Q-PROV-008', call, `providers=${id} (an id of /api/v1/providers)`);
    }
    await t.property(
      'Q-PARAM-007',
      fc.subarray(d.providerIds, { minLength: 1 }),
      async (ids) => {
        const call = await quote(t, j, d, quoteParams({ providers: ids, numQuotes: max }));
        expectAccepted(t, 'Q-PROV-008', call, `providers=${ids.join(',')}`);
      },
      quoteRuns(t, 6),
    );
  },
});

export const unknownProviderAndExcludedVenueAreObserved = defineCheck({
  name: 'unknown-providers-id-and-excludedexes-label-outcomes-are-reported',
  service: 'quotes',
  rules: ['Q-PARAM-008', 'Q-ERR-008'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const unknown = `no-such-provider-${t.env.seed}`;
    const byProvider = await quote(t, j, d, quoteParams({ providers: [unknown] }));
    t.note(
      `providers=${unknown} (unknown id) answered ${byProvider.status}${isObject(byProvider.body) ? ` code ${String(byProvider.body.code)}` : ''} (400 or 404 code -7 expected; not failed)`,
    );
    const byVenue = await quote(t, j, d, quoteParams({ excludeDexes: [`no-such-venue-${t.env.seed}`] }));
    t.note(`excludeDexes with an unknown label answered ${byVenue.status} (200 expected: it excludes nothing; not failed)`);
  },
});

/**
 * A venue-label list parameter (dexes, excludeDexes): every label of /api/v1/venues alone is accepted (Q-VEN-007),
 * then generated subsets of the labels the pair's routes use, on a larger amount, under `rule`.
 */
async function venueLabelsAccepted(t: CheckContext, rule: RuleId, param: 'dexes' | 'excludeDexes', effect: string): Promise<void> {
  const { d, j, labels: used } = await learnRoutes(t);
  for (const label of d.labels.filter((l) => !l.includes(','))) {
    const call = await quote(t, j, d, quoteParams({ [param]: [label], numQuotes: maxNumQuotes(d) }));
    expectAccepted(t, 'Q-VEN-007', call, `${param}=${label} (a label of /api/v1/venues)`);
  }
  if (used.length === 0) t.skip(`no route of the configured pair uses a venue (no steps); ${param} has nothing to ${effect}`);
  const amount = (BigInt(QUOTE_DEFAULTS.amount) * 100n).toString();
  await t.property(
    rule,
    fc.subarray(used, { minLength: 1 }),
    async (subset) => {
      const call = await quote(t, j, d, quoteParams({ [param]: subset, numQuotes: maxNumQuotes(d), amount }));
      expectAccepted(t, 'Q-VEN-007', call, `${param}=${subset.join(',')}`);
    },
    quoteRuns(t, 8),
  );
}

export const everyVenueLabelIsAcceptedInDexes = defineCheck({
  name: 'dexes-restricts-routes-to-the-listed-venues',
  service: 'quotes',
  rules: ['Q-PARAM-009', 'Q-VEN-007'],
  profile: 'readonly',
  run: (t: CheckContext) => venueLabelsAccepted(t, 'Q-PARAM-009', 'dexes', 'restrict'),
});

export const excludeDexesRemovesTheListedVenues = defineCheck({
  name: 'excludedexes-removes-the-listed-venues-from-routes',
  service: 'quotes',
  rules: ['Q-PARAM-011', 'Q-VEN-007'],
  profile: 'readonly',
  run: (t: CheckContext) => venueLabelsAccepted(t, 'Q-PARAM-011', 'excludeDexes', 'remove'),
});

function poolCheck(name: string, rule: 'Q-PARAM-012' | 'Q-PARAM-013', param: 'venueAllowlist' | 'venueBanlist') {
  return defineCheck({
    name,
    service: 'quotes',
    rules: [rule],
    profile: 'readonly',
    async run(t: CheckContext) {
      const { d, j, pools } = await learnRoutes(t);
      if (pools.length === 0) t.skip(`no route of the configured pair passes a pool (no steps); ${param} has nothing to act on`);
      await t.property(
        rule,
        fc.subarray(pools, { minLength: 1 }),
        async (subset) => {
          const call = await quote(t, j, d, quoteParams({ [param]: subset, numQuotes: maxNumQuotes(d) }));
          expectAccepted(t, rule, call, `${param} with ${subset.length} pool address(es) learned from routes`);
        },
        quoteRuns(t, 8),
      );
    },
  });
}

export const venueAllowlistRestrictsPools = poolCheck(
  'venueallowlist-restricts-routes-to-the-listed-pools',
  'Q-PARAM-012',
  'venueAllowlist',
);
export const venueBanlistExcludesPools = poolCheck('venuebanlist-keeps-the-listed-pools-out-of-routes', 'Q-PARAM-013', 'venueBanlist');

export const venueBanlistOverridesAllowlist = defineCheck({
  name: 'venuebanlist-overrides-venueallowlist',
  service: 'quotes',
  rules: ['Q-PARAM-014'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const { d, j, pools } = await learnRoutes(t);
    if (pools.length === 0) t.skip('no route of the configured pair passes a pool (no steps)');
    // Every pool allowed and banned at once: nothing is left to route through.
    const call = await quote(t, j, d, quoteParams({ venueAllowlist: pools, venueBanlist: pools, numQuotes: maxNumQuotes(d) }));
    const poolless = call.status === 200 && routesOf(call.body).every(([, r]) => stepsOf(r).length === 0);
    t.expect('Q-PARAM-014', (call.status === 404 && isObject(call.body) && call.body.code === -7) || poolless, {
      documented: 'with every allowed pool also banned, no pool may be used: 404 code -7 (or only direct fills without steps)',
      received: { status: call.status, body: call.body },
      exchange: call.ex,
    });
    await t.property(
      'Q-PARAM-014',
      fc.tuple(fc.subarray(pools, { minLength: 1 }), fc.subarray(pools, { minLength: 1 })),
      async ([allow, ban]) => {
        const answer = await quote(t, j, d, quoteParams({ venueAllowlist: allow, venueBanlist: ban, numQuotes: maxNumQuotes(d) }));
        expectAccepted(t, 'Q-PARAM-014', answer, 'venueAllowlist with venueBanlist');
      },
      quoteRuns(t, 8),
    );
  },
});

export const noVoteAccountsIsAccepted = defineCheck({
  name: 'novoteaccounts-true-and-false-are-accepted',
  service: 'quotes',
  rules: ['Q-PARAM-015'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    for (const value of [true, false]) {
      const call = await quote(t, j, d, quoteParams({ noVoteAccounts: value, numQuotes: maxNumQuotes(d) }));
      expectAccepted(t, 'Q-PARAM-015', call, `noVoteAccounts=${value}`);
    }
  },
});

export const onlyDirectRoutesGivesSingleHops = defineCheck({
  name: 'onlydirectroutes-gives-single-hop-routes',
  service: 'quotes',
  rules: ['Q-PARAM-016'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    for (const amount of [QUOTE_DEFAULTS.amount, (BigInt(QUOTE_DEFAULTS.amount) * 100n).toString()]) {
      const call = await quote(t, j, d, quoteParams({ onlyDirectRoutes: true, amount, numQuotes: maxNumQuotes(d) }));
      expectAccepted(t, 'Q-PARAM-016', call, 'onlyDirectRoutes=true');
    }
    // Where the default answer hops through another mint, onlyDirectRoutes=true must not.
    const hops = await provokeMultiHop(t, d, quoteParams({ numQuotes: maxNumQuotes(d) }), j);
    if (!hops)
      t.skip(
        'no multi-hop route could be provoked for the configured pair (by banning its direct pools), so onlyDirectRoutes has nothing to remove',
      );
    const call = await quote(t, j, d, { ...hops.params, onlyDirectRoutes: true });
    expectAccepted(t, 'Q-PARAM-016', call, 'onlyDirectRoutes=true where the default routes hop through another mint');
  },
});

/** The boolean parameters of GET /api/v1/quote/swap (the key path; the fee flag is distributor-only). */
const BOOLEAN_PARAMETERS = [
  'noVoteAccounts',
  'onlyDirectRoutes',
  'addSizeConstraint',
  'closeInputTokenAccount',
  'createOutputTokenAccount',
  'outputWsol',
  'simulate',
  'includeAltContents',
] as const;

export const malformedBooleansAreRejected = defineCheck({
  name: 'quote-booleans-other-than-true-or-false-give-400-naming-the-field',
  service: 'quotes',
  rules: ['Q-PARAM-017', 'Q-ERR-002'],
  profile: 'readonly',
  async run(t: CheckContext) {
    await t.property(
      'Q-PARAM-017',
      fc.tuple(fc.constantFrom(...BOOLEAN_PARAMETERS), notABoolean),
      async ([name, value]) => {
        const call = await requestQuote(t, quoteParams({ [name]: value }), { noRetry: true });
        t.expect('Q-PARAM-017', call.status === 400, {
          documented: `${name}=${JSON.stringify(value)} (booleans are true or false) answered 400`,
          received: call.status,
          exchange: call.ex,
        });
        t.expect('Q-ERR-002', isPlainText(call.ex) && namesField(call.ex, name), {
          documented: `the 400 for a malformed ${name} is plain text naming ${name}`,
          received: call.ex.response.body,
          exchange: call.ex,
        });
      },
      quoteRuns(t, 25),
    );
  },
});

/**
 * The documented default slippageBps is 100, and the value is a maximum: a route built with less is allowed. So the
 * default is observable only on a provider that builds with exactly the requested tolerance: asked for 100 it builds
 * with 100, so with the parameter omitted it must build with 100 too (a default of 50 is "at most 100" but not 100).
 */
export const omittedSlippageIsTheDefault = defineCheck({
  name: 'omitted-slippagebps-builds-routes-like-slippagebps-100',
  service: 'quotes',
  rules: ['Q-PARAM-047'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const exact = new Set<string>();
    const omitted = new Map<string, Set<unknown>>();
    let last: QuoteCall | undefined;
    for (let i = 0; i < 3; i++) {
      const explicit = await quote(t, j, d, quoteParams({ slippageBps: 100, numQuotes: maxNumQuotes(d) }));
      for (const [id, route] of routesOf(explicit.body)) if (route.slippageBps === 100) exact.add(id);
      last = await quote(t, j, d, quoteParams({ numQuotes: maxNumQuotes(d) }));
      for (const [id, route] of routesOf(last.body)) omitted.set(id, (omitted.get(id) ?? new Set()).add(route.slippageBps));
    }
    const decided = [...exact].filter((id) => omitted.has(id));
    if (decided.length === 0)
      t.skip(
        'no provider built a route with exactly slippageBps 100 when asked for 100 and also quoted without it: the default is not shown',
      );
    const seen = Object.fromEntries(decided.map((id) => [id, [...omitted.get(id)!]]));
    t.expect(
      'Q-PARAM-047',
      decided.every((id) => omitted.get(id)!.has(100)),
      {
        documented:
          'a provider that builds with slippageBps 100 when 100 is sent builds with 100 when slippageBps is omitted (default 100)',
        received: seen,
        exchange: last?.ex,
      },
    );
  },
});

/** Asks `params` up to `tries` times ("not every provider appears in every response"); the first answer `holds`, else the last. */
async function someAnswer(
  t: CheckContext,
  j: Judge,
  d: Discovery,
  params: QuoteParams,
  holds: (call: QuoteCall) => boolean,
  tries = 6,
): Promise<{ held: boolean; call: QuoteCall }> {
  let call = await quote(t, j, d, params);
  for (let i = 1; i < tries && !holds(call); i++) call = await quote(t, j, d, params);
  return { held: holds(call), call };
}

const quotesBy = (id: string) => (call: QuoteCall) => routesOf(call.body).some(([key]) => key === id);

/**
 * providers filters on the ids of /api/v1/providers (a target matching display names routes nothing for an id),
 * and a list applies every element (a target reading only the first ignores a provider named second).
 */
export const providersListsMatchEveryId = defineCheck({
  name: 'providers-names-ids-and-every-listed-provider-quotes',
  service: 'quotes',
  rules: ['Q-PARAM-046', 'Q-PARAM-045'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const max = maxNumQuotes(d);
    const quoting = new Set<string>();
    for (let i = 0; i < 3; i++) for (const [id] of routesOf((await quote(t, j, d, quoteParams({ numQuotes: max }))).body)) quoting.add(id);
    if (quoting.size === 0) t.skip('no provider quoted the configured pair');
    for (const id of quoting) {
      const alone = await someAnswer(t, j, d, quoteParams({ providers: [id], numQuotes: max }), quotesBy(id));
      t.expect('Q-PARAM-046', alone.held, {
        documented: `provider ${id}, seen quoting the pair, quotes it when providers=${id} (its id) is sent`,
        received: { status: alone.call.status, body: alone.call.body },
        exchange: alone.call.ex,
      });
      const other = d.providerIds.find((p) => p !== id);
      if (other === undefined) continue;
      const second = await someAnswer(t, j, d, quoteParams({ providers: [other, id], numQuotes: max }), quotesBy(id));
      t.expect('Q-PARAM-045', second.held, {
        documented: `provider ${id} quotes when it is named second in providers=${other},${id} (every element applies)`,
        received: { status: second.call.status, body: second.call.body },
        exchange: second.call.ex,
      });
    }
  },
});

/** dexes and excludeDexes apply every element: a venue named after an unknown label is still included or excluded. */
export const venueListsApplyEveryLabel = defineCheck({
  name: 'dexes-and-excludedexes-apply-every-listed-label',
  service: 'quotes',
  rules: ['Q-PARAM-045'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const { d, j, labels } = await learnRoutes(t);
    const unknown = `no-such-venue-${t.env.seed}`;
    const max = maxNumQuotes(d);
    const routed = (call: QuoteCall) => call.status === 200 && routesOf(call.body).length > 0;
    const usesLabel = (label: string) => (call: QuoteCall) =>
      routesOf(call.body).some(([, route]) => stepsOf(route).some((step) => step.label === label));
    let decided = false;
    for (const label of labels) {
      const alone = await someAnswer(t, j, d, quoteParams({ dexes: [label], numQuotes: max }), routed, 3);
      if (alone.held) {
        decided = true;
        const listed = await someAnswer(t, j, d, quoteParams({ dexes: [unknown, label], numQuotes: max }), routed);
        t.expect('Q-PARAM-045', listed.held, {
          documented: `dexes=${unknown},${label} routes like dexes=${label} (which routed): the unknown label restricts nothing away`,
          received: { status: listed.call.status, body: listed.call.body },
          exchange: listed.call.ex,
        });
      }
      const excluded = await quote(t, j, d, quoteParams({ excludeDexes: [unknown, label], numQuotes: max }));
      t.expect('Q-PARAM-045', !usesLabel(label)(excluded), {
        documented: `with excludeDexes=${unknown},${label} no step uses ${label} (every element excludes)`,
        received: routesOf(excluded.body).map(([id, route]) => [id, stepsOf(route).map((step) => step.label)]),
        exchange: excluded.ex,
      });
    }
    if (!decided) t.note('no venue label routed the pair alone in dexes: the dexes half of Q-PARAM-045 is not shown');
  },
});
