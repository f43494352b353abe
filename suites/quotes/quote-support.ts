/**
 * What every quote check shares: building quote requests, reading the target's own discovery answers (bounds,
 * providers, venue labels), and the Judge that lets one shared invariant be applied to every answer.
 */
import type { CheckContext } from '../harness/check.ts';
import { normalizeMsgpack, type ServiceClient } from '../harness/client.ts';
import type { Exchange } from '../harness/exchange.ts';
import type { FailureDetail } from '../harness/failure.ts';
import { at, isObject, type Json } from '../shared/values.ts';
import { QUOTE_DEFAULTS } from './fixtures.ts';
import { pubkeysAsBase58 } from './msgpack-keys.ts';
import type { RuleId } from '../../generators/vocabulary.ts';

export const QUOTE_PATH = '/api/v1/quote/swap';
export const JSON_TYPE = 'application/json';
export const MSGPACK_TYPE = 'application/vnd.msgpack';
export const FULL_ORDER_PPB = 1_000_000_000n;
export const U64_MAX = 18446744073709551615n;

/** The answer's HTTP status is `status`, asserted under `rule` (a failure shows the status and the body). */
export function expectStatus(t: CheckContext, rule: RuleId, ex: Exchange, status: number, documented: string): void {
  t.expect(rule, ex.response.status === status, {
    documented,
    received: { status: ex.response.status, body: ex.response.body },
    exchange: ex,
  });
}

/** A quote call answered `status`, asserted under `rule` (a failure shows the status and the body). */
export function expectCallStatus(t: CheckContext, rule: RuleId, call: QuoteCall, status: number, documented: string): void {
  t.expect(rule, call.status === status, { documented, received: { status: call.status, body: call.body }, exchange: call.ex });
}

/** Query parameters of a quote request; a list is sent comma-separated ("Lists are comma-separated"). */
export type QuoteParams = Record<string, string | number | boolean | readonly string[] | undefined>;

/** The documented defaults the checks fall back on when a parameter is omitted (parameter tables). */
export const DOCUMENTED_DEFAULTS = {
  slippageBps: 100,
  numQuotes: 1,
  sizeConstraint: 1168,
  accountsLimitWritable: 64,
  maxPriceDeviationBps: 1000,
} as const;

/**
 * The raw query string. Each value is percent-encoded on its own and list items are joined with a literal comma,
 * as in the document's `?dexes=a,b` (venue labels may contain spaces, sent as %20, never as +).
 */
export function queryString(params: QuoteParams): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    const value = Array.isArray(v) ? v.map((item) => encodeURIComponent(item)).join(',') : encodeURIComponent(String(v));
    parts.push(`${encodeURIComponent(k)}=${value}`);
  }
  return parts.join('&');
}

/** The default request of the run (fixtures.ts), with changes; `undefined` removes a parameter. */
export function quoteParams(changes: QuoteParams = {}): QuoteParams {
  return { ...QUOTE_DEFAULTS, ...changes };
}

/**
 * The decoded body in its JSON shape: in MessagePack, binary public keys as their base58 strings (msgpack-keys.ts),
 * other binaries (instruction `d`) as base64, 64-bit integers as numbers or digit strings.
 */
export function bodyOf(ex: Exchange): unknown {
  return ex.response.mediaType === MSGPACK_TYPE ? normalizeMsgpack(pubkeysAsBase58(ex.response.body)) : ex.response.body;
}

export interface QuoteCall {
  params: QuoteParams;
  ex: Exchange;
  status: number;
  /** JSON shape of the body (see bodyOf). */
  body: unknown;
}

export interface RequestOptions {
  /** Default: the key path (t.quotes). */
  client?: ServiceClient;
  /** An Accept value, or null to send none (MessagePack on the key path). Default: the client's default. */
  accept?: string | null;
  headers?: Record<string, string | undefined>;
  /** Observe 429/5xx as they come (default false: the harness's documented retries apply). */
  noRetry?: boolean;
}

export async function requestQuote(t: CheckContext, params: QuoteParams, options: RequestOptions = {}): Promise<QuoteCall> {
  const client = options.client ?? t.quotes;
  const headers: Record<string, string | undefined> = { ...options.headers };
  if (options.accept !== undefined) headers.accept = options.accept ?? undefined;
  const ex = await client.request({ path: QUOTE_PATH, query: queryString(params), headers, retry: options.noRetry ? false : undefined });
  return { params, ex, status: ex.response.status, body: bodyOf(ex) };
}

export interface Range {
  min: number;
  max: number;
  default: number;
}

/** What the target publishes about itself: the bounds of its ranged parameters, its providers and venue labels. */
export interface Discovery {
  info: Json;
  providerIds: string[];
  labels: string[];
  /** {min, max, default} entries of info by parameter name (streaming settings excluded). */
  ranges: Map<string, Range>;
}

/** Streaming settings: published by info, never sent on the key path (Q-INFO-012). */
export const STREAMING_SETTINGS = new Set(['intervalMs', 'concurrentStreams']);

function rangesOf(value: unknown, out = new Map<string, Range>(), name = ''): Map<string, Range> {
  if (!isObject(value)) return out;
  const { min, max, default: def } = value;
  if ([min, max, def].every((n) => typeof n === 'number' && Number.isSafeInteger(n))) {
    if (name && !STREAMING_SETTINGS.has(name)) out.set(name, { min: min as number, max: max as number, default: def as number });
    return out;
  }
  for (const [k, v] of Object.entries(value)) rangesOf(v, out, k);
  return out;
}

/**
 * The target a check talks to through `client`, as a cache key: base URL and credential. A fresh key is provisioned
 * for every prepared target, so two servers that happen to reuse a port never share an entry.
 */
export function targetKey(t: CheckContext, client: ServiceClient): string {
  const credential = client === t.gateway ? t.env.credentials.quotesJwt : t.env.credentials.quotesApiKey;
  return `${client.baseUrl}|${credential ?? ''}`;
}

/** One read per target even when checks ask at the same time (schedule.ts); a read that failed is tried again. */
const discoveries = new Map<string, Promise<Discovery>>();

/**
 * GET /api/v1/info, /providers and /venues of one access path, decoded; read once per target and run (the
 * discovery checks judge these endpoints themselves; here they only feed bounds, provider ids and labels). A
 * discovery endpoint that does not answer 200 skips the calling check: quote rules cannot be judged without it.
 */
export async function discover(t: CheckContext, client: ServiceClient = t.quotes): Promise<Discovery> {
  const key = targetKey(t, client);
  let found = discoveries.get(key);
  if (!found) {
    found = readDiscovery(t, client);
    discoveries.set(key, found);
    found.catch(() => discoveries.delete(key));
  }
  return await found;
}

async function readDiscovery(t: CheckContext, client: ServiceClient): Promise<Discovery> {
  const get = async (path: string) => {
    const ex = await client.request({ path });
    if (ex.response.status !== 200)
      t.skip(`GET ${path} answered ${ex.response.status}; the quote checks read bounds, providers and venues from it`, ex);
    return bodyOf(ex);
  };
  const info = await get('/api/v1/info');
  const providers = await get('/api/v1/providers');
  const venues = await get('/api/v1/venues');
  if (!isObject(info) || !Array.isArray(providers) || !isObject(venues) || !Array.isArray(venues.labels)) {
    t.skip('the discovery answers do not have their documented shape (the discovery checks report it)');
  }
  return {
    info,
    providerIds: providers.map((p) => (isObject(p) ? p.id : undefined)).filter((id): id is string => typeof id === 'string'),
    labels: venues.labels.filter((l): l is string => typeof l === 'string'),
    ranges: rangesOf(at(info, 'settings')),
  };
}

/** Largest numQuotes the target accepts (its published max), so a response can hold every provider's route. */
export function maxNumQuotes(d: Discovery): number {
  return d.ranges.get('numQuotes')?.max ?? 10;
}

/**
 * The Judge lets one shared invariant run inside any check. For a rule the check cites, a broken fact fails the
 * check at once (t.expect). For any other rule it is recorded like the harness's schema violations (reported after
 * the check's own assertions, first one wins), so the invariant can look at every answer without every check
 * citing all of its rules. Only `must` rules go through `must`; info observations go through `note`.
 */
export class Judge {
  private readonly recorded = new Set<string>();

  constructor(readonly t: CheckContext) {}

  must(rule: RuleId, condition: unknown, detail: FailureDetail): boolean {
    if (this.t.check.rules.includes(rule)) {
      this.t.expect(rule, condition, detail);
      return true;
    }
    if (!condition && !this.recorded.has(rule)) {
      this.recorded.add(rule);
      this.t.violations.push({ rule, detail });
    }
    return Boolean(condition);
  }

  note(text: string): void {
    if (!this.t.notes.includes(text)) this.t.note(text);
  }
}

/** An exact integer from a u64 field (a JSON integer or a digit string), else undefined. */
export function u64(value: unknown): bigint | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'bigint' && value >= 0n) return value;
  if (typeof value === 'string' && /^(0|[1-9][0-9]*)$/.test(value)) return BigInt(value);
  return undefined;
}

/** A decimal number from a number or a decimal string (USD prices: the type is not given), else undefined. */
export function decimal(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(value)) return Number(value);
  return undefined;
}

export function routesOf(body: unknown): Array<[string, Json]> {
  const quotes = at(body, 'quotes');
  if (!isObject(quotes)) return [];
  return Object.entries(quotes).filter((e): e is [string, Json] => isObject(e[1]));
}

export function stepsOf(route: Json): Json[] {
  return Array.isArray(route.steps) ? route.steps.filter(isObject) : [];
}

export function winnerRoute(body: unknown): Json | undefined {
  const winner = at(body, 'metadata.ExpectedWinner');
  const route = typeof winner === 'string' ? at(body, 'quotes') : undefined;
  return isObject(route) && typeof winner === 'string' && isObject(route[winner]) ? (route[winner] as Json) : routesOf(body)[0]?.[1];
}

/** Plain text naming the field: a text (not a JSON/MessagePack) body that mentions the parameter, spelled any way. */
export function namesField(ex: Exchange, field: string): boolean {
  const body = ex.response.body;
  if (typeof body !== 'string') return false;
  const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  return squash(body).includes(squash(field));
}

export function isPlainText(ex: Exchange): boolean {
  return typeof ex.response.body === 'string' && ex.response.mediaType !== JSON_TYPE && ex.response.mediaType !== MSGPACK_TYPE;
}

/** Engine bounds body {code: integer, message: string}. */
export function isCodeMessage(body: unknown): body is { code: number; message: string } {
  return isObject(body) && typeof body.code === 'number' && Number.isInteger(body.code) && typeof body.message === 'string';
}

/** Number of quote-issuing runs of a property: the run's numRuns, bounded so the quote suite stays fast. */
export function quoteRuns(t: CheckContext, cap = 20): number {
  return Math.max(1, Math.min(t.env.numRuns, cap));
}

export function preview(call: QuoteCall): unknown {
  return { status: call.status, body: call.body };
}
