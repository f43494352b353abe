/**
 * A small, fixed sample of quote requests that together exercise the route invariants: the default request, every
 * provider with lookup table contents, the reverse pair, a larger amount (more likely to split), and a route forced
 * to hop through another mint by banning the direct pools.
 */
import { createHash } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import type fc from 'fast-check';
import type { CheckContext } from '../harness/check.ts';
import { isObject } from '../shared/values.ts';
import { checkAnswer } from './invariants.ts';
import {
  Judge,
  discover,
  expectCallStatus,
  maxNumQuotes,
  quoteParams,
  requestQuote,
  routesOf,
  stepsOf,
  targetKey,
  u64,
  winnerRoute,
  type Discovery,
  type QuoteCall,
  type QuoteParams,
  type RequestOptions,
} from './quote-support.ts';
import { QUOTE_DEFAULTS, WSOL_MINT } from './fixtures.ts';
import type { RuleId } from '../../generators/vocabulary.ts';

export interface Sample {
  d: Discovery;
  j: Judge;
  /** Every answer, in request order: default, all providers with alts, reverse pair, larger amount, multi-hop. */
  calls: QuoteCall[];
  /** The 200 answers among them. */
  served: QuoteCall[];
}

/** Send one quote request and apply the shared invariant to its answer. */
export async function quote(
  t: CheckContext,
  j: Judge,
  d: Discovery,
  params: QuoteParams,
  options: RequestOptions = {},
): Promise<QuoteCall> {
  const call = await requestQuote(t, params, options);
  checkAnswer(j, call, d, options.client && options.client !== t.quotes ? 'distributor' : 'key');
  return call;
}

/**
 * A property of the rule `rule`: each generated value, sent as the query changes `changes(value)`, is answered 400
 * (`documented(value)` says so in the failure); every answer also goes through the shared invariant.
 */
export async function rejectedEach<T>(
  t: CheckContext,
  rule: RuleId,
  values: fc.Arbitrary<T>,
  changes: (value: T) => QuoteParams,
  documented: (value: T) => string,
  runs: number,
): Promise<void> {
  const d = await discover(t);
  const j = new Judge(t);
  await t.property(
    rule,
    values,
    async (value) =>
      expectCallStatus(t, rule, await quote(t, j, d, quoteParams(changes(value)), { noRetry: true }), 400, documented(value)),
    runs,
  );
}

/**
 * The request selling the output of `from`'s recommended route back (its outAmount, in the output mint's units),
 * or undefined when `from` has no usable route.
 */
export function reverseParams(from: QuoteCall, changes: QuoteParams = {}): QuoteParams | undefined {
  const route = winnerRoute(from.body);
  const out = route ? u64(route.outAmount) : undefined;
  if (from.status !== 200 || out === undefined || out === 0n) return undefined;
  return quoteParams({ inputMint: QUOTE_DEFAULTS.outputMint, outputMint: QUOTE_DEFAULTS.inputMint, amount: out.toString(), ...changes });
}

/** A 200 of a well-formed request, or a documented no-route 404: anything else means the quote was not served. */
export function expectServed(j: Judge, call: QuoteCall): void {
  j.must('Q-AUTH-006', call.status === 200 || call.status === 404, {
    documented:
      'a well-formed quote request carrying only x-api-key is served (200, or 404 code -7 when no route exists); no signature is asked for',
    received: { status: call.status, body: call.body },
    exchange: call.ex,
  });
}

/** One sample per target even when checks ask at the same time (schedule.ts); a sample that failed is tried again. */
const samples = new Map<string, Promise<QuoteCall[]>>();

/**
 * The sample, requested once per target and run (every fact check of quote.checks.ts judges the same answers, each
 * asserting its own rules, so the facts cost one sample rather than one per fact), then judged in this check.
 */
export async function sampleQuotes(t: CheckContext): Promise<Sample> {
  const d = await discover(t);
  const j = new Judge(t);
  const key = targetKey(t, t.quotes);
  let requested = samples.get(key);
  if (!requested) {
    requested = requestSample(t, d);
    samples.set(key, requested);
    requested.catch(() => samples.delete(key));
  }
  const calls = await requested;
  expectServed(j, calls[0]!);
  for (const call of calls) checkAnswer(j, call, d);
  const served = calls.filter((c) => c.status === 200);
  if (served.length === 0) {
    t.skip(
      `no sample request was routed (statuses ${calls.map((c) => c.status).join(', ')}); configure a routable pair with CONFORMANCE_QUOTE_*`,
    );
  }
  return { d, j, calls, served };
}

async function requestSample(t: CheckContext, d: Discovery): Promise<QuoteCall[]> {
  const max = maxNumQuotes(d);
  const calls: QuoteCall[] = [];
  calls.push(await requestQuote(t, quoteParams()));
  const wide = await requestQuote(t, quoteParams({ numQuotes: max, includeAltContents: true }));
  calls.push(wide);
  const reverse = reverseParams(wide.status === 200 ? wide : calls[0]!, { numQuotes: max, includeAltContents: true });
  if (reverse) calls.push(await requestQuote(t, reverse));
  const larger = (BigInt(QUOTE_DEFAULTS.amount) * 100n).toString();
  calls.push(await requestQuote(t, quoteParams({ amount: larger, numQuotes: max, includeAltContents: true })));
  // Judged later, with the rest of the sample, by each check that asks for it.
  const hops = await provokeMultiHop(t, d, quoteParams({ numQuotes: max, includeAltContents: true }));
  if (hops) calls.push(hops);
  return calls;
}

/**
 * A request whose routes hop through another mint, provoked with documented parameters only: the pools the routes
 * use to trade the pair directly are banned (venueBanlist), round after round, until some route takes two hops or
 * nothing is left. Returns undefined when no multi-hop route appeared within `rounds` requests. With a Judge every
 * answer on the way is judged at once; without, the caller judges the one returned.
 */
export async function provokeMultiHop(
  t: CheckContext,
  d: Discovery,
  base: QuoteParams,
  j?: Judge,
  rounds = 8,
): Promise<QuoteCall | undefined> {
  const banned = new Set<string>();
  for (let round = 0; round < rounds; round++) {
    const params = { ...base, venueBanlist: banned.size ? [...banned] : undefined };
    const call = j ? await quote(t, j, d, params) : await requestQuote(t, params);
    if (call.status !== 200) return undefined;
    const routes = routesOf(call.body);
    if (routes.some(([, r]) => stepsOf(r).some((s) => s.inputMint !== base.inputMint || s.outputMint !== base.outputMint))) return call;
    const direct = routes
      .flatMap(([, r]) => stepsOf(r))
      .map((s) => s.ammKey)
      .filter((p): p is string => typeof p === 'string' && !banned.has(p));
    if (direct.length === 0) return undefined;
    for (const pool of direct) banned.add(pool);
  }
  return undefined;
}

/** Skip reasons for facts that a sample may not exercise (a vacuous pass must not look like a pass). */
export const EXERCISED = {
  steps: (s: Sample) =>
    s.served.some((c) => routesOf(c.body).some(([, r]) => stepsOf(r).length > 0)) ? undefined : 'no sampled route has steps',
  computeUnits: (s: Sample) =>
    s.served.some((c) => routesOf(c.body).some(([, r]) => r.computeUnits != null || r.computeUnitsSafe != null))
      ? undefined
      : 'no sampled route carries computeUnits or computeUnitsSafe (absent is allowed, Q-ROUTE-017)',
  alts: (s: Sample) =>
    s.served.some((c) => Array.isArray((c.body as { alts?: unknown }).alts) && (c.body as { alts: unknown[] }).alts.length > 0)
      ? undefined
      : 'no sampled answer carries lookup table contents (no route uses a table)',
  nonNativeInput: (s: Sample) =>
    s.served.some((c) => c.params.inputMint !== WSOL_MINT)
      ? undefined
      : 'every routed sample sells the wrapped native token, whose account a route may close to unwrap',
  nonNativeOutput: (s: Sample) =>
    s.served.some((c) => c.params.outputMint !== WSOL_MINT)
      ? undefined
      : 'every routed sample buys the wrapped native token, which a route may unwrap through other accounts',
} as const;

/** A wallet of its own for each purpose, the same for the same seed (on the curve, so it could sign). */
export function wallet(t: CheckContext, purpose: string): string {
  const seed = createHash('sha256').update(`${t.env.seed}:${purpose}`).digest();
  return Keypair.fromSeed(seed).publicKey.toBase58();
}

/** A well-formed value of a parameter is accepted: a route, or a documented no-route 404, never a 400. */
export function expectAccepted(t: CheckContext, rule: RuleId, call: QuoteCall, what: string): void {
  t.expect(rule, call.status === 200 || (call.status === 404 && isObject(call.body) && call.body.code === -7), {
    documented: `${what} is accepted: 200, or 404 code -7 when no route satisfies it (never 400)`,
    received: { status: call.status, body: call.body },
    exchange: call.ex,
  });
}

export interface Learned {
  d: Discovery;
  j: Judge;
  /** Pools (step ammKeys) and venue labels the target's routes use for the configured pair. */
  pools: string[];
  labels: string[];
  routed: QuoteCall[];
}

/**
 * A quote of the configured pair asking for every provider's route: numQuotes at its published max. A target that
 * refuses that max with a 400 while it routes the pair without numQuotes has a ranged-parameter defect (Q-INFO-013,
 * judged by bounds.checks.ts), not a pair that does not route: the quote without numQuotes is used, with a note, and
 * `numQuotes` (undefined then) is what later quotes of the check should ask for.
 */
export async function widestQuote(
  t: CheckContext,
  j: Judge,
  d: Discovery,
  changes: QuoteParams = {},
): Promise<{ call: QuoteCall; numQuotes: number | undefined }> {
  const numQuotes = maxNumQuotes(d);
  const call = await quote(t, j, d, quoteParams({ numQuotes, ...changes }));
  if (call.status !== 400 || changes.numQuotes !== undefined) return { call, numQuotes };
  const without = await quote(t, j, d, quoteParams(changes));
  if (without.status !== 200) return { call, numQuotes };
  t.note(
    `numQuotes=${numQuotes}, the published max, was refused (400) while the pair routes without it (Q-INFO-013 judges the range): the default numQuotes is used`,
  );
  return { call: without, numQuotes: undefined };
}

/** Routes of every provider, for the configured amount and a larger one, to learn which pools and venues they use. */
export async function learnRoutes(t: CheckContext, changes: QuoteParams = {}): Promise<Learned> {
  const d = await discover(t);
  const j = new Judge(t);
  const first = await widestQuote(t, j, d, changes);
  const larger = { amount: (BigInt(QUOTE_DEFAULTS.amount) * 100n).toString(), ...changes };
  const calls = [first.call, await quote(t, j, d, quoteParams({ numQuotes: first.numQuotes, ...larger }))];
  const routed = calls.filter((c) => c.status === 200);
  if (routed.length === 0)
    t.skip(`the configured pair was not routed (${calls.map((c) => c.status).join(', ')}); configure CONFORMANCE_QUOTE_*`);
  const steps = routed.flatMap((c) => routesOf(c.body).flatMap(([, r]) => stepsOf(r)));
  const pools = [...new Set(steps.map((s) => s.ammKey).filter((p): p is string => typeof p === 'string'))];
  const labels = [...new Set(steps.map((s) => s.label).filter((l): l is string => typeof l === 'string'))];
  return { d, j, pools, labels, routed };
}
