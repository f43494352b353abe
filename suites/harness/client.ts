import { request as undiciRequest, errors as undiciErrors } from 'undici';
import { decode as decodeMsgpack } from '@msgpack/msgpack';
import { findOperation, getOperation, validateResponse, type Service } from '../../generators/index.ts';
import type { Exchange, RecordedResponse } from './exchange.ts';
import { ConformanceFailure, SetupFailed, type FailureDetail } from './failure.ts';
import { parseJsonExact } from './json-exact.ts';
import type { ConcurrencyLimit, Pacer } from './pacer.ts';

export type QueryValue = string | number | boolean | undefined;

export interface RequestSpec {
  method?: string;
  /** Path relative to the service base URL, e.g. `/api/v1/info`. */
  path: string;
  /** Query parameters, or a raw query string (to send duplicates or odd encodings). */
  query?: Record<string, QueryValue> | string;
  /** Extra headers; `undefined` removes a default header (e.g. the credential). */
  headers?: Record<string, string | undefined>;
  /** A JSON body (sets content-type application/json unless given). */
  json?: unknown;
  /** A raw body. */
  body?: string | Buffer;
  /** The operation in the spec; found from method and path when omitted. */
  operationId?: string;
  /** Validate the response against the spec (default true). */
  validate?: boolean;
  /**
   * Retry as the documents' handling rules say (default true). Checks that observe 409/429/5xx turn it off. Even
   * then a GET or HEAD is retried on a dropped connection, and on the order service on a 5xx (handling rule 3: "5xx
   * and 503 are retryable"; a safe method changes nothing): a passing outage is not judged, a lasting 5xx comes back
   * on every attempt and is returned as it is. A 429 with a usable retry-after holds the run's later requests either
   * way (Pacer.holdFor).
   */
  retry?: boolean;
  timeoutMs?: number;
}

/** A schema or status violation found by the harness; surfaced after the check's own assertions. */
export interface Violation {
  rule: string;
  detail: FailureDetail;
}

export interface ClientOptions {
  service: Service;
  baseUrl: string;
  timeoutMs: number;
  defaultHeaders: Record<string, string>;
  record(exchange: Exchange): void;
  violation(v: Violation): void;
  /**
   * `status-only`: error answers are checked for a documented status but not for a body shape (the distributor
   * path: its error bodies are not given, UNKNOWNS part B).
   */
  errorBodies?: 'validate' | 'status-only';
  /** The request budget every attempt waits for (--max-rps), and the hold a 429's retry-after puts on it. */
  pacer?: Pacer;
  /** The cap on requests in flight at once, shared by every client of the run (--max-concurrency). */
  limit?: ConcurrencyLimit;
  /** Pause between retries; replaced in unit tests. */
  sleep?: (ms: number) => Promise<void>;
}

const MAX_RETRIES = 2;
const MAX_RETRY_AFTER_S = 30;

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * A decoded MessagePack value in the shape of its JSON twin: raw bytes become base64 (instruction `d`), 64-bit
 * integers become numbers when they are safe and digit strings otherwise (u64 travels as either in JSON).
 */
export function normalizeMsgpack(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Array.isArray(value)) return value.map(normalizeMsgpack);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalizeMsgpack(v)]));
  }
  return value;
}

function decodeBody(raw: Buffer, mediaType: string | undefined): Pick<RecordedResponse, 'body' | 'decodeError'> {
  if (raw.length === 0) return { body: undefined };
  try {
    if (mediaType === 'application/json' || mediaType?.endsWith('+json')) return { body: parseJsonExact(raw.toString('utf8')) };
    if (mediaType === 'application/vnd.msgpack' || mediaType === 'application/msgpack' || mediaType === 'application/x-msgpack') {
      return { body: decodeMsgpack(raw, { useBigInt64: true }) };
    }
    return { body: raw.toString('utf8') };
  } catch (e) {
    return { body: raw.toString('utf8'), decodeError: `${mediaType} body does not decode: ${(e as Error).message}` };
  }
}

function flatHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function buildQuery(query: RequestSpec['query']): string {
  if (query === undefined) return '';
  if (typeof query === 'string') return query ? `?${query.replace(/^\?/, '')}` : '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

/**
 * The wait a `retry-after` header asks for, in ms: delay-seconds (what the quote document names) or an HTTP-date
 * (RFC 9110). Undefined when absent, malformed, or longer than the suite waits (30 s): then the 429 is returned.
 */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(text)) ms = Number(text) * 1000;
  else {
    const at = Date.parse(text);
    if (!Number.isFinite(at) || !/[a-z]/i.test(text)) return undefined;
    ms = Math.max(0, at - now);
  }
  return ms <= MAX_RETRY_AFTER_S * 1000 ? ms : undefined;
}

/** The quote platform's `allowance_exhausted` 429: "Retrying does not help" (quote document, platform codes). */
export function allowanceExhausted(status: number, body: unknown): boolean {
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  return status === 429 && typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'allowance_exhausted';
}

/**
 * Should this answer be retried under the documents' handling rules? Returns the wait in ms, or undefined. Only the
 * order service's handling rules make a 5xx retryable; the quote document gives no such rule, and the control API is
 * the suite's own.
 */
export function retryDelay(service: Service, method: string, headers: Record<string, string>, status: number,
  responseHeaders: Record<string, string>, attempt: number, body?: unknown, now = Date.now()): number | undefined {
  if (attempt > MAX_RETRIES) return undefined;
  // Orders, handling rule 3: retried submit-style POSTs carry an X-Idempotency-Key; never retry a POST without one.
  const safe = method === 'GET' || method === 'HEAD' || Object.keys(headers).some((h) => h.toLowerCase() === 'x-idempotency-key');
  if (status === 429) {
    // Quotes, platform codes: allowance_exhausted is not retried ("retrying does not help"); rate_limited waits the
    // number of seconds in retry-after (a 429 was not served, so any method).
    if (allowanceExhausted(status, body)) return undefined;
    return retryAfterMs(responseHeaders['retry-after'], now);
  }
  if (!safe || service !== 'orders') return undefined;
  if (status === 409) return 1000 * attempt; // Orders, handling rule 2: back off and retry.
  if (status >= 500) return 250 * attempt; // Orders, handling rule 3: 5xx and 503 are retryable.
  return undefined;
}

/**
 * The retries a check cannot turn off (`retry: false`): a GET or HEAD to the order service answered 5xx. Handling
 * rule 3 makes every 5xx retryable and a safe method changes nothing, so a passing outage (a 503 RPC_UNAVAILABLE
 * from a flaky deployment) is never judged; a lasting one (`500 RPC_ERROR` while the chain is down) comes back on
 * every attempt and the check sees it.
 */
export function transientRetryDelay(service: Service, method: string, status: number, attempt: number): number | undefined {
  if (attempt > MAX_RETRIES || service !== 'orders' || (method !== 'GET' && method !== 'HEAD')) return undefined;
  return status >= 500 ? 250 * attempt : undefined;
}

function isConnectionError(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? '';
  return ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CLOSED'].includes(code);
}

/** An HTTP client for one service of the target. Every response is recorded and checked against the spec. */
export class ServiceClient {
  constructor(private readonly opts: ClientOptions) {}

  get baseUrl(): string {
    return this.opts.baseUrl;
  }

  async request(spec: RequestSpec): Promise<Exchange> {
    const method = (spec.method ?? 'GET').toUpperCase();
    const url = this.opts.baseUrl.replace(/\/$/, '') + spec.path + buildQuery(spec.query);
    const headers: Record<string, string> = { ...this.opts.defaultHeaders };
    for (const [k, v] of Object.entries(spec.headers ?? {})) {
      for (const existing of Object.keys(headers)) if (existing.toLowerCase() === k.toLowerCase()) delete headers[existing];
      if (v !== undefined) headers[k] = v;
    }
    let body: string | Buffer | undefined = spec.body;
    if (spec.json !== undefined) {
      body = JSON.stringify(spec.json);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
    const operationId = spec.operationId ?? findOperation(this.opts.service, method, spec.path)?.operationId;
    const timeoutMs = spec.timeoutMs ?? this.opts.timeoutMs;
    const sleep = this.opts.sleep ?? defaultSleep;

    const started = Date.now();
    let attempt = 0;
    for (;;) {
      attempt++;
      let status: number;
      let responseHeaders: Record<string, string>;
      let raw: Buffer;
      // One place among the requests in flight (--max-concurrency), then the rate budget (--max-rps): the place is
      // held for this attempt only, never across a retry pause.
      const release = (await this.opts.limit?.acquire()) ?? (() => {});
      try {
        await this.opts.pacer?.slot();
        // The whole exchange, body included, within timeoutMs (undici's own timers tick coarsely).
        const signal = AbortSignal.timeout(timeoutMs);
        const res = await undiciRequest(url, { method, headers, body, signal, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
        status = res.statusCode;
        responseHeaders = flatHeaders(res.headers);
        raw = Buffer.from(await res.body.arrayBuffer());
        release();
      } catch (e) {
        release();
        if (e instanceof undiciErrors.HeadersTimeoutError || e instanceof undiciErrors.BodyTimeoutError || (e as Error).name === 'TimeoutError') {
          const rule = operationId ? getOperation(this.opts.service, operationId).rule : defaultRule(this.opts.service);
          throw new ConformanceFailure(rule, {
            documented: `an answer to ${method} ${spec.path} (the suite waits ${timeoutMs} ms)`,
            received: `no complete answer within ${timeoutMs} ms`,
          });
        }
        if (isConnectionError(e) && (method === 'GET' || method === 'HEAD') && attempt <= MAX_RETRIES) {
          await sleep(250 * attempt);
          continue;
        }
        throw new SetupFailed(`${method} ${url} could not be sent: ${(e as Error).message}`);
      }
      const mediaType = responseHeaders['content-type']?.split(';')[0]?.trim().toLowerCase() || undefined;
      const exchange: Exchange = {
        service: this.opts.service,
        operationId,
        request: { method, url, headers, body: body === undefined ? undefined : Buffer.isBuffer(body) ? `<${body.length} bytes>` : body },
        response: { status, headers: responseHeaders, mediaType, raw, ...decodeBody(raw, mediaType) },
        durationMs: Date.now() - started,
        attempts: attempt,
      };
      // A 429's retry-after holds every later request of the run, whether or not this one is repeated.
      const hold = status === 429 ? retryAfterMs(responseHeaders['retry-after']) : undefined;
      if (hold !== undefined) this.opts.pacer?.holdFor(hold);
      const wait = spec.retry === false
        ? transientRetryDelay(this.opts.service, method, status, attempt)
        : retryDelay(this.opts.service, method, headers, status, responseHeaders, attempt, exchange.response.body);
      if (wait !== undefined) {
        this.opts.record(exchange);
        await sleep(wait);
        continue;
      }
      this.opts.record(exchange);
      if (spec.validate !== false && operationId) this.validate(operationId, exchange);
      return exchange;
    }
  }

  /** Check status, media type and body against the spec; violations are reported, not thrown. */
  private validate(operationId: string, exchange: Exchange): void {
    const { status, mediaType, body, decodeError } = exchange.response;
    const op = getOperation(this.opts.service, operationId);
    if (decodeError) {
      this.opts.violation({ rule: op.rule, detail: { documented: `a ${mediaType} body that decodes`, received: decodeError, exchange } });
      return;
    }
    const value = mediaType === 'application/vnd.msgpack' ? normalizeMsgpack(body) : body;
    const result = validateResponse(this.opts.service, operationId, status, mediaType, value);
    if (!result.documentedStatus) {
      this.opts.violation({
        rule: op.rule,
        detail: { documented: `a status documented for ${operationId}: ${Object.keys(op.responses).join(', ')}`, received: `${status} ${preview(body)}`, exchange },
      });
      return;
    }
    if (status >= 400 && this.opts.errorBodies === 'status-only') return;
    if (!result.documentedMediaType) {
      const documented = Object.keys(op.responses[String(status)]?.mediaTypes ?? {}).join(' or ') || 'a documented media type';
      this.opts.violation({ rule: op.rule, detail: { documented: `${status} answered as ${documented}`, received: mediaType ?? 'no content-type', exchange } });
      return;
    }
    const byRule = new Map<string, string[]>();
    for (const err of result.errors) {
      const list = byRule.get(err.rule) ?? [];
      list.push(`${err.instancePath || '(body)'} ${err.message}`);
      byRule.set(err.rule, list);
    }
    for (const [rule, messages] of byRule) {
      this.opts.violation({
        rule,
        detail: { documented: `the ${status} body of ${operationId} matches the spec`, received: { violations: messages, body: value }, exchange },
      });
    }
  }
}

function preview(body: unknown): string {
  const text = typeof body === 'string' ? body : JSON.stringify(normalizeMsgpack(body)) ?? '';
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

export function defaultRule(service: Service): string {
  return service === 'orders' ? 'OA-SHAPE-001' : service === 'quotes' ? 'Q-SHAPE-001' : 'CTL-SHAPE-001';
}
