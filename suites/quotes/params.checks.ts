/**
 * Quote parameters and their effects (Routing, Transaction sizing, Transaction and Performance parameters). Each
 * check sends the parameter, asserts that a well-formed value is accepted (never 400), and lets the shared invariant
 * judge the effect on every route (invariants.ts reads the request that produced each answer).
 */
import fc from 'fast-check';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { notABoolean } from '../shared/arbitraries.ts';
import { isObject, type Json } from '../shared/values.ts';
import { QUOTE_DEFAULTS, WSOL_MINT } from './fixtures.ts';
import { valueRatio } from './invariants.ts';
import {
  Judge, discover, isPlainText, maxNumQuotes, namesField, quoteParams, quoteRuns, requestQuote, routesOf, stepsOf,
  type Discovery, type QuoteCall, type QuoteParams,
} from './quote-support.ts';
import { expectAccepted, learnRoutes, provokeMultiHop, quote, reverseParams, wallet } from './samples.ts';
import { associatedTokenAccounts, compileRoute, instructionsOf, uniqueAccounts } from './solana.ts';

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
  profile: 'smoke',
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
        received: best.call ? routesOf(best.call.body).map(([p]) => p) : best.count, exchange: best.call?.ex,
      });
    }
  },
});

export const routesNeverExceedTheRequestedSlippage = defineCheck({
  name: 'routes-are-built-with-at-most-the-requested-slippagebps',
  service: 'quotes',
  rules: ['Q-PARAM-004'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const range = d.ranges.get('slippageBps') ?? { min: 0, max: 10000, default: 100 };
    // The default (omitted), the low end where a fixed tolerance shows, then values across the published range.
    for (const value of [undefined, range.min, range.min + 1, 50]) {
      const call = await quote(t, j, d, quoteParams({ slippageBps: value, numQuotes: maxNumQuotes(d) }));
      expectAccepted(t, 'Q-PARAM-004', call, `slippageBps=${value ?? '(omitted)'}`);
    }
    await t.property('Q-PARAM-004', fc.integer({ min: range.min, max: range.max }), async (value) => {
      const call = await quote(t, j, d, quoteParams({ slippageBps: value, numQuotes: maxNumQuotes(d) }));
      expectAccepted(t, 'Q-PARAM-004', call, `slippageBps=${value}`);
    }, quoteRuns(t, 10));
  },
});

export const providersParameterRestrictsQuoting = defineCheck({
  name: 'providers-parameter-restricts-quotes-to-listed-providers',
  service: 'quotes',
  rules: ['Q-PARAM-007', 'Q-PROV-008'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const max = maxNumQuotes(d);
    if (d.providerIds.length === 0) t.skip('/api/v1/providers lists no provider');
    for (const id of d.providerIds) {
      const call = await quote(t, j, d, quoteParams({ providers: [id], numQuotes: max }));
      expectAccepted(t, 'Q-PROV-008', call, `providers=${id} (an id of /api/v1/providers)`);
    }
    await t.property('Q-PARAM-007', fc.subarray(d.providerIds, { minLength: 1 }), async (ids) => {
      const call = await quote(t, j, d, quoteParams({ providers: ids, numQuotes: max }));
      expectAccepted(t, 'Q-PROV-008', call, `providers=${ids.join(',')}`);
    }, quoteRuns(t, 6));
  },
});

export const unknownProviderAndExcludedVenueAreObserved = defineCheck({
  name: 'unknown-providers-id-and-excludedexes-label-outcomes-are-reported',
  service: 'quotes',
  rules: ['Q-PARAM-008', 'Q-ERR-008'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const unknown = `no-such-provider-${t.env.seed}`;
    const byProvider = await quote(t, j, d, quoteParams({ providers: [unknown] }));
    t.note(`providers=${unknown} (unknown id) answered ${byProvider.status}${isObject(byProvider.body) ? ` code ${String(byProvider.body.code)}` : ''} (400 or 404 code -7 expected; not failed)`);
    const byVenue = await quote(t, j, d, quoteParams({ excludeDexes: [`no-such-venue-${t.env.seed}`] }));
    t.note(`excludeDexes with an unknown label answered ${byVenue.status} (200 expected: it excludes nothing; not failed)`);
  },
});

export const everyVenueLabelIsAcceptedInDexes = defineCheck({
  name: 'dexes-restricts-routes-to-the-listed-venues',
  service: 'quotes',
  rules: ['Q-PARAM-009', 'Q-VEN-007'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const { d, j, labels: used } = await learnRoutes(t);
    const labels = d.labels.filter((l) => !l.includes(','));
    for (const label of labels) {
      const call = await quote(t, j, d, quoteParams({ dexes: [label], numQuotes: maxNumQuotes(d) }));
      expectAccepted(t, 'Q-VEN-007', call, `dexes=${label} (a label of /api/v1/venues)`);
    }
    if (used.length === 0) t.skip('no route of the configured pair uses a venue (no steps); dexes has nothing to restrict');
    await t.property('Q-PARAM-009', fc.subarray(used, { minLength: 1 }), async (subset) => {
      const call = await quote(t, j, d, quoteParams({ dexes: subset, numQuotes: maxNumQuotes(d), amount: (BigInt(QUOTE_DEFAULTS.amount) * 100n).toString() }));
      expectAccepted(t, 'Q-VEN-007', call, `dexes=${subset.join(',')}`);
    }, quoteRuns(t, 8));
  },
});

export const excludeDexesRemovesTheListedVenues = defineCheck({
  name: 'excludedexes-removes-the-listed-venues-from-routes',
  service: 'quotes',
  rules: ['Q-PARAM-011', 'Q-VEN-007'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const { d, j, labels: used } = await learnRoutes(t);
    for (const label of d.labels.filter((l) => !l.includes(','))) {
      const call = await quote(t, j, d, quoteParams({ excludeDexes: [label], numQuotes: maxNumQuotes(d) }));
      expectAccepted(t, 'Q-VEN-007', call, `excludeDexes=${label} (a label of /api/v1/venues)`);
    }
    if (used.length === 0) t.skip('no route of the configured pair uses a venue (no steps); excludeDexes has nothing to remove');
    await t.property('Q-PARAM-011', fc.subarray(used, { minLength: 1 }), async (subset) => {
      const call = await quote(t, j, d, quoteParams({ excludeDexes: subset, numQuotes: maxNumQuotes(d), amount: (BigInt(QUOTE_DEFAULTS.amount) * 100n).toString() }));
      expectAccepted(t, 'Q-VEN-007', call, `excludeDexes=${subset.join(',')}`);
    }, quoteRuns(t, 8));
  },
});

function poolCheck(name: string, rule: 'Q-PARAM-012' | 'Q-PARAM-013', param: 'venueAllowlist' | 'venueBanlist') {
  return defineCheck({
    name,
    service: 'quotes',
    rules: [rule],
    profile: 'smoke',
    async run(t: CheckContext) {
      const { d, j, pools } = await learnRoutes(t);
      if (pools.length === 0) t.skip(`no route of the configured pair passes a pool (no steps); ${param} has nothing to act on`);
      await t.property(rule, fc.subarray(pools, { minLength: 1 }), async (subset) => {
        const call = await quote(t, j, d, quoteParams({ [param]: subset, numQuotes: maxNumQuotes(d) }));
        expectAccepted(t, rule, call, `${param} with ${subset.length} pool address(es) learned from routes`);
      }, quoteRuns(t, 8));
    },
  });
}

export const venueAllowlistRestrictsPools = poolCheck('venueallowlist-restricts-routes-to-the-listed-pools', 'Q-PARAM-012', 'venueAllowlist');
export const venueBanlistExcludesPools = poolCheck('venuebanlist-keeps-the-listed-pools-out-of-routes', 'Q-PARAM-013', 'venueBanlist');

export const venueBanlistOverridesAllowlist = defineCheck({
  name: 'venuebanlist-overrides-venueallowlist',
  service: 'quotes',
  rules: ['Q-PARAM-014'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const { d, j, pools } = await learnRoutes(t);
    if (pools.length === 0) t.skip('no route of the configured pair passes a pool (no steps)');
    // Every pool allowed and banned at once: nothing is left to route through.
    const call = await quote(t, j, d, quoteParams({ venueAllowlist: pools, venueBanlist: pools, numQuotes: maxNumQuotes(d) }));
    const poolless = call.status === 200 && routesOf(call.body).every(([, r]) => stepsOf(r).length === 0);
    t.expect('Q-PARAM-014', (call.status === 404 && isObject(call.body) && call.body.code === -7) || poolless, {
      documented: 'with every allowed pool also banned, no pool may be used: 404 code -7 (or only direct fills without steps)',
      received: { status: call.status, body: call.body }, exchange: call.ex,
    });
    await t.property('Q-PARAM-014', fc.tuple(fc.subarray(pools, { minLength: 1 }), fc.subarray(pools, { minLength: 1 })), async ([allow, ban]) => {
      const answer = await quote(t, j, d, quoteParams({ venueAllowlist: allow, venueBanlist: ban, numQuotes: maxNumQuotes(d) }));
      expectAccepted(t, 'Q-PARAM-014', answer, 'venueAllowlist with venueBanlist');
    }, quoteRuns(t, 8));
  },
});

export const noVoteAccountsIsAccepted = defineCheck({
  name: 'novoteaccounts-true-and-false-are-accepted',
  service: 'quotes',
  rules: ['Q-PARAM-015'],
  profile: 'smoke',
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
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    for (const amount of [QUOTE_DEFAULTS.amount, (BigInt(QUOTE_DEFAULTS.amount) * 100n).toString()]) {
      const call = await quote(t, j, d, quoteParams({ onlyDirectRoutes: true, amount, numQuotes: maxNumQuotes(d) }));
      expectAccepted(t, 'Q-PARAM-016', call, 'onlyDirectRoutes=true');
    }
    // Where the default answer hops through another mint, onlyDirectRoutes=true must not.
    const hops = await provokeMultiHop(t, d, quoteParams({ numQuotes: maxNumQuotes(d) }), j);
    if (!hops) t.skip('no multi-hop route could be provoked for the configured pair (by banning its direct pools), so onlyDirectRoutes has nothing to remove');
    const call = await quote(t, j, d, { ...hops.params, onlyDirectRoutes: true });
    expectAccepted(t, 'Q-PARAM-016', call, 'onlyDirectRoutes=true where the default routes hop through another mint');
  },
});

/** The boolean parameters of GET /api/v1/quote/swap (the key path; the fee flag is distributor-only). */
export const BOOLEAN_PARAMETERS = [
  'noVoteAccounts', 'onlyDirectRoutes', 'addSizeConstraint', 'closeInputTokenAccount', 'createOutputTokenAccount',
  'outputWsol', 'simulate', 'includeAltContents',
] as const;

export const malformedBooleansAreRejected = defineCheck({
  name: 'quote-booleans-other-than-true-or-false-give-400-naming-the-field',
  service: 'quotes',
  rules: ['Q-PARAM-017', 'Q-ERR-002'],
  profile: 'smoke',
  async run(t: CheckContext) {
    await t.property('Q-PARAM-017', fc.tuple(fc.constantFrom(...BOOLEAN_PARAMETERS), notABoolean), async ([name, value]) => {
      const call = await requestQuote(t, quoteParams({ [name]: value }), { noRetry: true });
      t.expect('Q-PARAM-017', call.status === 400, { documented: `${name}=${JSON.stringify(value)} (booleans are true or false) answered 400`, received: call.status, exchange: call.ex });
      t.expect('Q-ERR-002', isPlainText(call.ex) && namesField(call.ex, name), {
        documented: `the 400 for a malformed ${name} is plain text naming ${name}`, received: call.ex.response.body, exchange: call.ex,
      });
    }, quoteRuns(t, 25));
  },
});

// ---------------------------------------------------------------- Transaction sizing parameters

/**
 * sizeConstraint is judged where it bites: the sizes of the target's own routes (compiled as the invariant does)
 * give a value just below the smallest route, one between, and one at the largest; a property adds values from a
 * few hundred bytes up to the format 0 limit.
 */
export const sizeConstraintBoundsTheRoutes = defineCheck({
  name: 'sizeconstraint-bounds-the-assembled-route-size',
  service: 'quotes',
  rules: ['Q-PARAM-018'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const { d, j, routed } = await learnRoutes(t, { includeAltContents: true });
    const sizes = routed.flatMap((call) => {
      const tables = new Map<string, string[]>();
      for (const alt of Array.isArray((call.body as Json).alts) ? (call.body as { alts: unknown[] }).alts : []) {
        if (isObject(alt) && typeof alt.p === 'string' && Array.isArray(alt.a)) tables.set(alt.p, alt.a as string[]);
      }
      return routesOf(call.body).flatMap(([, r]) => {
        const ixs = instructionsOf(r);
        const compiled = ixs ? compileRoute(ixs, QUOTE_DEFAULTS.userPublicKey, tables, (r.addressLookupTables as string[] | undefined) ?? []) : undefined;
        return compiled ? [compiled.size] : [];
      });
    });
    const rows = sizes.length ? [Math.min(...sizes) - 1, Math.round((Math.min(...sizes) + Math.max(...sizes)) / 2), Math.max(...sizes)] : [];
    for (const size of rows.filter((n) => n > 0 && n <= 1232)) {
      const call = await quote(t, j, d, quoteParams({ sizeConstraint: size, includeAltContents: true, numQuotes: maxNumQuotes(d) }));
      expectAccepted(t, 'Q-PARAM-018', call, `sizeConstraint=${size} (routes of this pair take ${Math.min(...sizes)} to ${Math.max(...sizes)} bytes)`);
    }
    await t.property('Q-PARAM-018', fc.integer({ min: 200, max: 1232 }), async (size) => {
      const call = await quote(t, j, d, quoteParams({ sizeConstraint: size, includeAltContents: true, numQuotes: maxNumQuotes(d) }));
      expectAccepted(t, 'Q-PARAM-018', call, `sizeConstraint=${size}`);
    }, quoteRuns(t, 10));
  },
});

export const sizeConstraintAboveTheLimitIsClamped = defineCheck({
  name: 'sizeconstraint-above-the-format-limit-is-clamped-not-rejected',
  service: 'quotes',
  rules: ['Q-PARAM-019'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    await t.property('Q-PARAM-019', fc.tuple(fc.integer({ min: 1233, max: 4294967295 }), fc.constantFrom(0, 1)), async ([size, format]) => {
      const value = format === 1 ? Math.max(size, 4097) : size;
      const call = await quote(t, j, d, quoteParams({ sizeConstraint: value, transactionFormat: format, includeAltContents: true }));
      expectAccepted(t, 'Q-PARAM-019', call, `sizeConstraint=${value} with transactionFormat=${format} (clamped to ${format === 1 ? 4096 : 1232})`);
    }, quoteRuns(t, 8));
  },
});

export const accountsLimitTotalBoundsRoutes = defineCheck({
  name: 'accountslimittotal-bounds-the-accounts-of-every-route',
  service: 'quotes',
  rules: ['Q-PARAM-020'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const { d, j, routed } = await learnRoutes(t, { includeAltContents: true });
    // Where it bites: just below the fewest accounts a route of this pair passes, and at the most.
    const counts = routed.flatMap((call) => routesOf(call.body).map(([, r]) => uniqueAccounts(instructionsOf(r) ?? []).size)).filter((n) => n > 0);
    const rows = counts.length ? [Math.min(...counts) - 1, Math.max(...counts)] : [];
    for (const limit of rows.filter((n) => n > 0)) {
      const call = await quote(t, j, d, quoteParams({ accountsLimitTotal: limit, includeAltContents: true, numQuotes: maxNumQuotes(d) }));
      expectAccepted(t, 'Q-PARAM-020', call, `accountsLimitTotal=${limit} (routes of this pair pass ${Math.min(...counts)} to ${Math.max(...counts)} accounts)`);
    }
    await t.property('Q-PARAM-020', fc.integer({ min: 8, max: 64 }), async (limit) => {
      const call = await quote(t, j, d, quoteParams({ accountsLimitTotal: limit, includeAltContents: true, numQuotes: maxNumQuotes(d) }));
      expectAccepted(t, 'Q-PARAM-020', call, `accountsLimitTotal=${limit}`);
    }, quoteRuns(t, 8));
  },
});

export const accountsLimitTotalIsClampedOnFormat1 = defineCheck({
  name: 'accountslimittotal-above-64-is-clamped-on-format-1',
  service: 'quotes',
  rules: ['Q-PARAM-021'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    await t.property('Q-PARAM-021', fc.integer({ min: 65, max: 65535 }), async (limit) => {
      const call = await quote(t, j, d, quoteParams({ accountsLimitTotal: limit, transactionFormat: 1, numQuotes: maxNumQuotes(d) }));
      expectAccepted(t, 'Q-PARAM-021', call, `accountsLimitTotal=${limit} with transactionFormat=1 (clamped to 64)`);
    }, quoteRuns(t, 5));
  },
});

export const accountsLimitWritableBoundsRoutes = defineCheck({
  name: 'accountslimitwritable-bounds-the-writable-accounts-of-every-route',
  service: 'quotes',
  rules: ['Q-PARAM-022'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    await t.property('Q-PARAM-022', fc.integer({ min: 4, max: 64 }), async (limit) => {
      const call = await quote(t, j, d, quoteParams({ accountsLimitWritable: limit, numQuotes: maxNumQuotes(d) }));
      expectAccepted(t, 'Q-PARAM-022', call, `accountsLimitWritable=${limit}`);
    }, quoteRuns(t, 8));
  },
});

/** A template object encoded as MessagePack, then base64: the empty map (the template's fields are not shown). */
const EMPTY_TEMPLATE = Buffer.from([0x80]).toString('base64');

export const transactionTemplateExcludesSizingParameters = defineCheck({
  name: 'transactiontemplate-with-a-sizing-parameter-gives-400',
  service: 'quotes',
  rules: ['Q-PARAM-023'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const alone = await quote(t, j, d, quoteParams({ transactionTemplate: EMPTY_TEMPLATE }), { noRetry: true });
    if (alone.status === 400) t.skip('the target rejects an empty template object on its own (its fields are not shown), so the incompatibility cannot be isolated');
    for (const [name, value] of [['accountsLimitTotal', 40], ['accountsLimitWritable', 40], ['sizeConstraint', 1100]] as const) {
      const call = await quote(t, j, d, quoteParams({ transactionTemplate: EMPTY_TEMPLATE, [name]: value }), { noRetry: true });
      t.expect('Q-PARAM-023', call.status === 400, {
        documented: `transactionTemplate together with ${name} is rejected with 400 (they are incompatible)`, received: { status: call.status, body: call.body }, exchange: call.ex,
      });
    }
  },
});

/** Not base64, or base64 of bytes that are no MessagePack value (0xc1 is never used; a fixarray missing its items). */
const notATemplate: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^[!*@#$%^&(){}~]{1,8}[A-Za-z0-9]{0,8}$/),
  fc.uint8Array({ maxLength: 12 }).map((rest) => Buffer.from([0xc1, ...rest]).toString('base64')),
  fc.integer({ min: 1, max: 15 }).map((n) => Buffer.from([0x90 | n]).toString('base64')),
);

export const malformedTransactionTemplateIsRejected = defineCheck({
  name: 'transactiontemplate-that-is-not-base64-messagepack-gives-400',
  service: 'quotes',
  rules: ['Q-PARAM-024'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    await t.property('Q-PARAM-024', notATemplate, async (template) => {
      const call = await quote(t, j, d, quoteParams({ transactionTemplate: template }), { noRetry: true });
      t.expect('Q-PARAM-024', call.status === 400, {
        documented: `transactionTemplate=${JSON.stringify(template)} (not base64 of a MessagePack value) answered 400`, received: { status: call.status, body: call.body }, exchange: call.ex,
      });
    }, quoteRuns(t, 12));
  },
});

// ---------------------------------------------------------------- Transaction parameters

/** The default pair, or its reverse, chosen so that `keep(outputMint)` holds. */
async function pairWhere(t: CheckContext, j: Judge, d: Discovery, keep: (params: QuoteParams) => boolean, changes: QuoteParams): Promise<QuoteParams | undefined> {
  const forward = quoteParams(changes);
  if (keep(forward)) return forward;
  const first = await quote(t, j, d, quoteParams());
  const reverse = reverseParams(first, changes);
  return reverse && keep(reverse) ? reverse : undefined;
}

export const closeInputTokenAccountClosesIt = defineCheck({
  name: 'closeinputtokenaccount-true-closes-the-input-token-account',
  service: 'quotes',
  rules: ['Q-PARAM-025'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const forward = await quote(t, j, d, quoteParams({ closeInputTokenAccount: true, numQuotes: maxNumQuotes(d) }));
    expectAccepted(t, 'Q-PARAM-025', forward, 'closeInputTokenAccount=true');
    const reverse = reverseParams(await quote(t, j, d, quoteParams()), { closeInputTokenAccount: true, numQuotes: maxNumQuotes(d) });
    if (reverse) expectAccepted(t, 'Q-PARAM-025', await quote(t, j, d, reverse), 'closeInputTokenAccount=true on the reverse pair');
    if (forward.status !== 200) t.skip('the configured pair was not routed');
  },
});

export const createOutputTokenAccountFalseOmitsIt = defineCheck({
  name: 'createoutputtokenaccount-false-omits-the-create-instruction',
  service: 'quotes',
  rules: ['Q-PARAM-026'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const params = await pairWhere(t, j, d, (p) => p.outputMint !== WSOL_MINT, { createOutputTokenAccount: false, numQuotes: maxNumQuotes(d) });
    if (!params) t.skip('both directions of the configured pair buy the wrapped native token');
    const call = await quote(t, j, d, params);
    expectAccepted(t, 'Q-PARAM-026', call, 'createOutputTokenAccount=false');
    if (call.status !== 200) t.skip('the pair was not routed');
  },
});

export const outputAccountReceivesTheOutput = defineCheck({
  name: 'outputaccount-is-a-writable-account-of-every-route',
  service: 'quotes',
  rules: ['Q-PARAM-027'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const outputAccount = associatedTokenAccounts(wallet(t, 'output-account'), QUOTE_DEFAULTS.outputMint)[0]!;
    const call = await quote(t, j, d, quoteParams({ outputAccount, numQuotes: maxNumQuotes(d) }));
    expectAccepted(t, 'Q-PARAM-027', call, `outputAccount=${outputAccount}`);
    if (call.status !== 200) t.skip('the pair was not routed with outputAccount');
  },
});

export const outputWsolLeavesTheOutputWrapped = defineCheck({
  name: 'outputwsol-leaves-wrapped-native-output-wrapped',
  service: 'quotes',
  rules: ['Q-PARAM-028'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const native = await pairWhere(t, j, d, (p) => p.outputMint === WSOL_MINT, { outputWsol: true, numQuotes: maxNumQuotes(d) });
    const other = await pairWhere(t, j, d, (p) => p.outputMint !== WSOL_MINT, { outputWsol: true });
    if (other) expectAccepted(t, 'Q-PARAM-028', await quote(t, j, d, other), 'outputWsol=true with an outputMint other than the wrapped native token (no effect)');
    if (!native) t.skip('neither direction of the configured pair buys the wrapped native token');
    const call = await quote(t, j, d, native);
    expectAccepted(t, 'Q-PARAM-028', call, 'outputWsol=true buying the wrapped native token');
  },
});

export const payerSignsTheRoute = defineCheck({
  name: 'payer-is-a-signer-of-routes-that-pay-rent',
  service: 'quotes',
  rules: ['Q-PARAM-029'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const payer = wallet(t, 'payer');
    const call = await quote(t, j, d, quoteParams({ payer, numQuotes: maxNumQuotes(d) }));
    expectAccepted(t, 'Q-PARAM-029', call, `payer=${payer}`);
  },
});

export const positiveSlippageFeeReceiverIsWritable = defineCheck({
  name: 'positiveslippagefeereceiver-is-a-writable-account-of-every-route',
  service: 'quotes',
  rules: ['Q-PARAM-030'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const receiver = associatedTokenAccounts(wallet(t, 'surplus'), QUOTE_DEFAULTS.outputMint)[0]!;
    const call = await quote(t, j, d, quoteParams({ positiveSlippageFeeReceiver: receiver, numQuotes: maxNumQuotes(d) }));
    expectAccepted(t, 'Q-PARAM-030', call, `positiveSlippageFeeReceiver=${receiver}`);
  },
});

const invalidFormatOrVersion: fc.Arbitrary<[string, string]> = fc.oneof(
  fc.oneof(fc.integer({ min: 2, max: 300 }), fc.integer({ min: -300, max: -1 })).map((n): [string, string] => ['transactionFormat', String(n)]),
  fc.oneof(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 4, max: 300 }), fc.integer({ min: -300, max: -1 })).map((n): [string, string] => ['serviceSwapVersion', String(n)]),
  fc.tuple(fc.constantFrom('transactionFormat', 'serviceSwapVersion'), fc.constantFrom('v0', 'legacy', 'three', '1.5', 'true')),
);

export const formatAndSwapVersionAcceptOnlyDocumentedValues = defineCheck({
  name: 'transactionformat-and-serviceswapversion-outside-their-values-give-400',
  service: 'quotes',
  rules: ['Q-PARAM-031'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    await t.property('Q-PARAM-031', invalidFormatOrVersion, async ([name, value]) => {
      const call = await quote(t, j, d, quoteParams({ [name]: value }), { noRetry: true });
      t.expect('Q-PARAM-031', call.status === 400, {
        documented: `${name}=${value} (${name === 'transactionFormat' ? '0 or 1' : '2 or 3'} only) answered 400`, received: { status: call.status, body: call.body }, exchange: call.ex,
      });
    }, quoteRuns(t, 15));
  },
});

export const format1RoutesUseNoLookupTables = defineCheck({
  name: 'format-1-routes-use-no-lookup-tables',
  service: 'quotes',
  rules: ['Q-PARAM-032'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    for (const amount of [QUOTE_DEFAULTS.amount, (BigInt(QUOTE_DEFAULTS.amount) * 100n).toString()]) {
      const call = await quote(t, j, d, quoteParams({ transactionFormat: 1, amount, numQuotes: maxNumQuotes(d) }));
      expectAccepted(t, 'Q-PARAM-032', call, 'transactionFormat=1');
    }
  },
});

export const format1WithSwapVersion2IsRejected = defineCheck({
  name: 'format-1-with-swap-version-2-gives-400',
  service: 'quotes',
  rules: ['Q-PARAM-033'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const call = await quote(t, new Judge(t), d, quoteParams({ transactionFormat: 1, serviceSwapVersion: 2 }), { noRetry: true });
    t.expect('Q-PARAM-033', call.status === 400, {
      documented: 'transactionFormat=1 with serviceSwapVersion=2 is rejected with 400', received: { status: call.status, body: call.body }, exchange: call.ex,
    });
  },
});

export const version3ParametersWorkWithoutSwapVersion = defineCheck({
  name: 'version-3-parameters-are-accepted-without-serviceswapversion',
  service: 'quotes',
  rules: ['Q-PARAM-034', 'Q-PARAM-035'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const v3Only: QuoteParams[] = [
      { outputWsol: true },
      { payer: wallet(t, 'payer') },
      { positiveSlippageFeeReceiver: associatedTokenAccounts(wallet(t, 'surplus'), QUOTE_DEFAULTS.outputMint)[0]! },
      { transactionFormat: 1 },
    ];
    for (const changes of [...v3Only, { serviceSwapVersion: 2 }, { serviceSwapVersion: 3 }]) {
      const call = await quote(t, j, d, quoteParams(changes));
      expectAccepted(t, 'Q-PARAM-034', call, `${Object.keys(changes)[0]}=${String(Object.values(changes)[0])} without serviceSwapVersion (it resolves to 3)`);
    }
    // Versioning 2: "2 selects the previous swap program". Which top-level programs each version uses is reported.
    for (const version of [undefined, 3, 2]) {
      const call = await quote(t, j, d, quoteParams({ serviceSwapVersion: version }));
      const programs = routesOf(call.body).map(([p, r]) => `${p}: ${[...new Set((Array.isArray(r.instructions) ? r.instructions : []).map((ix) => (isObject(ix) ? String(ix.p) : '?')))].join(' ')}`);
      t.note(`serviceSwapVersion ${version ?? 'omitted'}: top-level programs ${programs.join('; ') || `(status ${call.status})`}`);
    }
    // Q-PARAM-035 (info): version-3-only parameters with swap version 2 may be rejected, ignored or honoured.
    for (const changes of v3Only.slice(0, 3)) {
      const call = await quote(t, j, d, quoteParams({ ...changes, serviceSwapVersion: 2 }), { noRetry: true });
      t.note(`${Object.keys(changes)[0]} with serviceSwapVersion=2 answered ${call.status} (not failed: the document does not say)`);
    }
  },
});

// ---------------------------------------------------------------- Performance parameters

export const unsimulatedQuotesMeetTheReferencePrice = defineCheck({
  name: 'unsimulated-quotes-are-worth-the-reference-value-less-the-deviation',
  service: 'quotes',
  rules: ['Q-PARAM-037', 'Q-PARAM-036', 'Q-PARAM-041'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    for (const simulate of [true, false]) {
      const call = await quote(t, j, d, quoteParams({ simulate, numQuotes: maxNumQuotes(d) }));
      expectAccepted(t, 'Q-PARAM-036', call, `simulate=${simulate}`);
      if (simulate && call.status === 200) {
        const meta = isObject(call.body) && isObject(call.body.metadata) ? call.body.metadata : undefined;
        const ratios = routesOf(call.body).map(([p, r]) => `${p} ${valueRatio(r, meta)?.toFixed(4) ?? 'n/a'}`);
        t.note(`Q-PARAM-041: with simulate=true, output/input reference value per route: ${ratios.join(', ')} (observed, not failed)`);
      }
      if (!simulate && call.status === 200) {
        const meta = isObject(call.body) && isObject(call.body.metadata) ? call.body.metadata : undefined;
        if (routesOf(call.body).every(([, r]) => valueRatio(r, meta) === undefined)) t.skip('the metadata carries no reference prices for the pair; the price check cannot be judged');
      }
    }
    await t.property('Q-PARAM-037', fc.integer({ min: 0, max: 9999 }), async (deviation) => {
      const call = await quote(t, j, d, quoteParams({ simulate: false, maxPriceDeviationBps: deviation, numQuotes: maxNumQuotes(d) }));
      expectAccepted(t, 'Q-PARAM-037', call, `simulate=false with maxPriceDeviationBps=${deviation}`);
    }, quoteRuns(t, 10));
  },
});

export const tinyAmountIsRoutedOrNoRoute = defineCheck({
  name: 'an-amount-too-small-to-route-gives-a-route-or-404-code-minus-7',
  service: 'quotes',
  rules: ['Q-PARAM-044'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    for (const amount of ['1', '2', '10']) {
      const call = await quote(t, j, d, quoteParams({ amount }));
      t.expect('Q-PARAM-044', call.status === 200 || (call.status === 404 && isObject(call.body) && call.body.code === -7), {
        documented: `amount=${amount} (well-formed, possibly too small to route) gives a route or 404 code -7`, received: { status: call.status, body: call.body }, exchange: call.ex,
      });
      t.note(`amount=${amount} answered ${call.status}`);
    }
  },
});
