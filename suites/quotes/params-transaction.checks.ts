/**
 * Quote parameters and their effects (area PARAM): the Transaction and Performance parameters. Each check sends
 * the parameter, asserts that a well-formed value is accepted (never 400), and lets the shared invariant judge the
 * effect on every route (invariants.ts reads the request that produced each answer).
 */
import fc from 'fast-check';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { isObject } from '../shared/values.ts';
import { QUOTE_DEFAULTS, WSOL_MINT } from './fixtures.ts';
import { valueRatio } from './route-params-invariants.ts';
import {
  discover,
  type Discovery,
  expectCallStatus,
  Judge,
  maxNumQuotes,
  type QuoteParams,
  quoteParams,
  quoteRuns,
  routesOf,
} from './quote-support.ts';
import { expectAccepted, quote, rejectedEach, reverseParams, wallet } from './samples.ts';
import { associatedTokenAccounts, instructionsOf } from './solana.ts';

// ---------------------------------------------------------------- Transaction parameters

/** The default pair, or its reverse, chosen so that `keep(outputMint)` holds. */
async function pairWhere(
  t: CheckContext,
  j: Judge,
  d: Discovery,
  keep: (params: QuoteParams) => boolean,
  changes: QuoteParams,
): Promise<QuoteParams | undefined> {
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
  profile: 'readonly',
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
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const params = await pairWhere(t, j, d, (p) => p.outputMint !== WSOL_MINT, {
      createOutputTokenAccount: false,
      numQuotes: maxNumQuotes(d),
    });
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
  profile: 'readonly',
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
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const native = await pairWhere(t, j, d, (p) => p.outputMint === WSOL_MINT, { outputWsol: true, numQuotes: maxNumQuotes(d) });
    const other = await pairWhere(t, j, d, (p) => p.outputMint !== WSOL_MINT, { outputWsol: true });
    if (other)
      expectAccepted(
        t,
        'Q-PARAM-028',
        await quote(t, j, d, other),
        'outputWsol=true with an outputMint other than the wrapped native token (no effect)',
      );
    if (!native) t.skip('neither direction of the configured pair buys the wrapped native token');
    const call = await quote(t, j, d, native);
    expectAccepted(t, 'Q-PARAM-028', call, 'outputWsol=true buying the wrapped native token');
  },
});

export const payerSignsTheRoute = defineCheck({
  name: 'payer-is-a-signer-of-routes-that-pay-rent',
  service: 'quotes',
  rules: ['Q-PARAM-029'],
  profile: 'readonly',
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
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const receiver = associatedTokenAccounts(wallet(t, 'surplus'), QUOTE_DEFAULTS.outputMint)[0]!;
    const call = await quote(t, j, d, quoteParams({ positiveSlippageFeeReceiver: receiver, numQuotes: maxNumQuotes(d) }));
    expectAccepted(t, 'Q-PARAM-030', call, `positiveSlippageFeeReceiver=${receiver}`);
  },
});

const invalidFormatOrVersion: fc.Arbitrary<[string, string]> = fc.oneof(
  fc
    .oneof(fc.integer({ min: 2, max: 300 }), fc.integer({ min: -300, max: -1 }))
    .map((n): [string, string] => ['transactionFormat', String(n)]),
  fc
    .oneof(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 4, max: 300 }), fc.integer({ min: -300, max: -1 }))
    .map((n): [string, string] => ['serviceSwapVersion', String(n)]),
  fc.tuple(fc.constantFrom('transactionFormat', 'serviceSwapVersion'), fc.constantFrom('v0', 'legacy', 'three', '1.5', 'true')),
);

export const formatAndSwapVersionAcceptOnlyDocumentedValues = defineCheck({
  name: 'transactionformat-and-serviceswapversion-outside-their-values-give-400',
  service: 'quotes',
  rules: ['Q-PARAM-031'],
  profile: 'readonly',
  async run(t: CheckContext) {
    await rejectedEach(
      t,
      'Q-PARAM-031',
      invalidFormatOrVersion,
      ([name, value]) => ({ [name]: value }),
      ([name, value]) => `${name}=${value} (${name === 'transactionFormat' ? '0 or 1' : '2 or 3'} only) answered 400`,
      quoteRuns(t, 15),
    );
  },
});

export const format1RoutesUseNoLookupTables = defineCheck({
  name: 'format-1-routes-use-no-lookup-tables',
  service: 'quotes',
  rules: ['Q-PARAM-032'],
  profile: 'readonly',
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
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const call = await quote(t, new Judge(t), d, quoteParams({ transactionFormat: 1, serviceSwapVersion: 2 }), { noRetry: true });
    expectCallStatus(t, 'Q-PARAM-033', call, 400, 'transactionFormat=1 with serviceSwapVersion=2 is rejected with 400');
  },
});

export const version3ParametersWorkWithoutSwapVersion = defineCheck({
  name: 'version-3-parameters-are-accepted-without-serviceswapversion',
  service: 'quotes',
  rules: ['Q-PARAM-034', 'Q-PARAM-035'],
  profile: 'readonly',
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
      expectAccepted(
        t,
        'Q-PARAM-034',
        call,
        `${Object.keys(changes)[0]}=${String(Object.values(changes)[0])} without serviceSwapVersion (it resolves to 3)`,
      );
    }
    // Versioning 2: "2 selects the previous swap program". Which top-level programs each version uses is reported.
    for (const version of [undefined, 3, 2]) {
      const call = await quote(t, j, d, quoteParams({ serviceSwapVersion: version }));
      const programs = routesOf(call.body).map(
        ([p, r]) =>
          `${p}: ${[...new Set((Array.isArray(r.instructions) ? r.instructions : []).map((ix) => (isObject(ix) ? String(ix.p) : '?')))].join(' ')}`,
      );
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
  profile: 'readonly',
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
        if (routesOf(call.body).every(([, r]) => valueRatio(r, meta) === undefined))
          t.skip('the metadata carries no reference prices for the pair; the price check cannot be judged');
      }
    }
    await t.property(
      'Q-PARAM-037',
      fc.integer({ min: 0, max: 9999 }),
      async (deviation) => {
        const call = await quote(t, j, d, quoteParams({ simulate: false, maxPriceDeviationBps: deviation, numQuotes: maxNumQuotes(d) }));
        expectAccepted(t, 'Q-PARAM-037', call, `simulate=false with maxPriceDeviationBps=${deviation}`);
      },
      quoteRuns(t, 10),
    );
  },
});

export const tinyAmountIsRoutedOrNoRoute = defineCheck({
  name: 'an-amount-too-small-to-route-gives-a-route-or-404-code-minus-7',
  service: 'quotes',
  rules: ['Q-PARAM-044'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    for (const amount of ['1', '2', '10']) {
      const call = await quote(t, j, d, quoteParams({ amount }));
      t.expect('Q-PARAM-044', call.status === 200 || (call.status === 404 && isObject(call.body) && call.body.code === -7), {
        documented: `amount=${amount} (well-formed, possibly too small to route) gives a route or 404 code -7`,
        received: { status: call.status, body: call.body },
        exchange: call.ex,
      });
      t.note(`amount=${amount} answered ${call.status}`);
    }
  },
});

/** The program ids each provider's route calls, by provider. */
function programsByProvider(call: { body: unknown }): Map<string, string> {
  return new Map(
    routesOf(call.body).map(([id, route]) => [id, [...new Set((instructionsOf(route) ?? []).map((ix) => ix.p))].sort().join(',')]),
  );
}

/** "2 selects the previous swap program": the same provider's instructions call other programs under version 2 than 3. */
export const swapVersionSelectsTheSwapProgram = defineCheck({
  name: 'serviceswapversion-2-and-3-call-different-swap-programs',
  service: 'quotes',
  rules: ['Q-PARAM-049'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const undecided = new Map<string, { v2: string; v3: string }>();
    const differed = new Set<string>();
    let last: Awaited<ReturnType<typeof quote>> | undefined;
    for (let round = 0; round < 3 && (round === 0 || undecided.size > 0); round++) {
      const v2 = programsByProvider(await quote(t, j, d, quoteParams({ serviceSwapVersion: 2, numQuotes: maxNumQuotes(d) })));
      last = await quote(t, j, d, quoteParams({ serviceSwapVersion: 3, numQuotes: maxNumQuotes(d) }));
      for (const [id, programs] of programsByProvider(last)) {
        const old = v2.get(id);
        if (old === undefined || differed.has(id)) continue;
        if (old !== programs) {
          undecided.delete(id);
          differed.add(id);
        } else undecided.set(id, { v2: old, v3: programs });
      }
    }
    if (differed.size === 0 && undecided.size === 0) t.skip('no provider quoted the pair under both serviceSwapVersion=2 and 3');
    t.expect('Q-PARAM-049', undecided.size === 0, {
      documented: 'a provider quoting under both versions calls other program ids with serviceSwapVersion=2 than with 3',
      received: Object.fromEntries(undecided),
      exchange: last?.ex,
    });
  },
});

/** Format 0's limit ("Clamped to 1232 for format 0"), which format 1 ("up to 4096 bytes") is not clamped to. */
const FORMAT_0_LIMIT = 1232;
/** Routes judged under format 1's 4096 bytes only with this much room: half is left for a layout not shown. */
const FORMAT_1_ROOM = 2048;

/**
 * Bytes no layout of the route's transaction goes below: its unique accounts (fee payer and programs included) at
 * 32 bytes each, one 64-byte signature per signer (the user at least), and its instruction data.
 */
function leastBytes(route: unknown, user: string): number | undefined {
  const ixs = instructionsOf(route);
  if (!ixs) return undefined;
  const keys = new Set([user, ...ixs.flatMap((ix) => [ix.p, ...ix.a.map((m) => m.p)])]);
  const signers = new Set([user, ...ixs.flatMap((ix) => ix.a.filter((m) => m.s).map((m) => m.p))]);
  return 32 * keys.size + 64 * signers.size + ixs.reduce((n, ix) => n + Buffer.from(ix.d, 'base64').length, 0);
}

/** The least bytes of each route of an answer that takes more than format 0's limit and fits format 1's with room. */
function overFormat0(call: { body: unknown }): number[] {
  return routesOf(call.body)
    .map(([, route]) => leastBytes(route, QUOTE_DEFAULTS.userPublicKey))
    .filter((n): n is number => n !== undefined && n > FORMAT_0_LIMIT && n <= FORMAT_1_ROOM);
}

/**
 * "Clamped to 1232 for format 0 and 4096 for format 1": a format-1 route that no layout fits in 1232 bytes, served
 * without the size filter, is still served with sizeConstraint=4096. The pair is tried at growing amounts until the
 * target shows such a route (it need not have one); routes move between calls, so up to three pairs are compared.
 */
export const format1SizeConstraintIsNotClampedTo1232 = defineCheck({
  name: 'format-1-sizeconstraint-4096-keeps-routes-over-1232-bytes',
  service: 'quotes',
  rules: ['Q-PARAM-050'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const format1 = (changes: QuoteParams) => quoteParams({ transactionFormat: 1, numQuotes: maxNumQuotes(d), ...changes });
    const amounts = [1n, 100n, 10_000n, 1_000_000n].map((k) => (BigInt(QUOTE_DEFAULTS.amount) * k).toString());
    let amount: string | undefined;
    let unfiltered: number[] = [];
    for (const a of amounts) {
      unfiltered = overFormat0(await quote(t, j, d, format1({ amount: a, addSizeConstraint: false })));
      if (unfiltered.length > 0) {
        amount = a;
        break;
      }
    }
    if (amount === undefined)
      t.skip(
        `no format-1 route of the pair at amounts ${amounts.join(', ')} needs more than ${FORMAT_0_LIMIT} bytes (and at most ${FORMAT_1_ROOM}); the document requires none`,
      );
    const seen: { unfiltered: number[]; withSizeConstraint4096: number[] | string }[] = [];
    let last: Awaited<ReturnType<typeof quote>> | undefined;
    for (let round = 0; round < 3; round++) {
      if (round > 0) unfiltered = overFormat0(await quote(t, j, d, format1({ amount, addSizeConstraint: false })));
      if (unfiltered.length === 0) continue; // the big route is gone for now: nothing to compare this round
      last = await quote(t, j, d, format1({ amount, sizeConstraint: 4096 }));
      expectAccepted(t, 'Q-PARAM-050', last, `sizeConstraint=4096 with transactionFormat=1, amount ${amount}`);
      const kept = overFormat0(last);
      if (kept.length > 0) return;
      seen.push({ unfiltered, withSizeConstraint4096: last.status === 200 ? kept : `status ${last.status}` });
    }
    t.expect('Q-PARAM-050', false, {
      documented: `with transactionFormat=1 sizeConstraint is clamped to 4096, not ${FORMAT_0_LIMIT}: a route that takes more than ${FORMAT_0_LIMIT} bytes (accounts at 32, signatures at 64, instruction data) and is served without the size filter is still served with sizeConstraint=4096`,
      received: { amount, leastBytesOfRoutesOver1232: seen },
      exchange: last?.ex,
    });
  },
});
