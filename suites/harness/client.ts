import { Agent, getGlobalDispatcher, request as undiciRequest, errors as undiciErrors, type Dispatcher } from 'undici';
import { decode as decodeMsgpack } from '@msgpack/msgpack';
import { findOperation, getOperation, validateResponse, type Service } from '../../generators/index.ts';
import type { Exchange, RecordedResponse } from './exchange.ts';
import { ConformanceFailure, LateAnswer, NotJudged, SetupFailed, Skipped, type FailureDetail } from './failure.ts';
import { deadlineUnjudged, lateAnswerReason } from './preconditions.ts';
import { httpDateMs } from './http-date.ts';
import { MAX_NESTING, nestsDeeperThan, parseJsonExact } from './json-exact.ts';
import { retryAfterBudget, runBounds, type ConcurrencyLimit, type Pacer, type RetryAfterBudget } from './pacer.ts';
import { noteRoundTrip } from './round-trips.ts';
import { escapeControls } from './terminal.ts';
import { pubkeysAsBase58 } from '../quotes/msgpack-keys.ts';
import { specRule, type RuleId } from '../../generators/vocabulary.ts';

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
   * Retry as the documents' handling rules say (default true): a 429 whose retry-after the run can wait out is
   * repeated after it; one it cannot wait out (too long, the run's retry-after budget spent, allowance exhausted)
   * ends the check `skipped` (a documented 429 is never a violation of another rule). Checks that observe
   * 409/429/5xx turn it off and get every answer as it comes, but for the quote platform's own 429s to the run's own
   * key, which are handled as above either way (a check that observes rate limits does so on keys of its own). Even
   * then a GET or HEAD is retried on a dropped connection, and on the order service on a 5xx (handling rule 3: "5xx
   * and 503 are retryable"; a safe method changes nothing): a passing outage is not judged, a lasting 5xx comes back
   * on every attempt and is returned as it is. A 429 with a retry-after the run waits out holds the run's later
   * requests either way (Pacer.holdFor).
   */
  retry?: boolean;
  /**
   * The lasting answer a check that made an outage itself waits for (the chain or the database down through the control
   * API): an answer it accepts is returned at once, never retried (retrying would bring it back, after waits of 250 and
   * 500 ms); any other answer is retried as `retry` says.
   */
  settled?: (exchange: Exchange) => boolean;
  timeoutMs?: number;
}

/** A schema or status violation found by the harness; surfaced after the check's own assertions. */
export interface Violation {
  rule: RuleId;
  detail: FailureDetail;
}

export interface ClientOptions {
  service: Service;
  /** absent: the service is outside the run (a run given the other service's URL alone); a request to it is a skip */
  baseUrl?: string;
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
  /** The largest body read (--max-body-bytes); the run's bound (pacer.ts runBounds) when absent. */
  maxBodyBytes?: number;
  /** The run's retry-after waits (--max-retry-after, --max-retry-wait, --max-duration); the process's when absent. */
  retryAfter?: RetryAfterBudget;
  /** One line for the terminal while the run waits (stderr when absent). */
  announce?: (line: string) => void;
  /** Pause between retries; replaced in unit tests. */
  sleep?: (ms: number) => Promise<void>;
}

const MAX_RETRIES = 2;

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const defaultAnnounce = (line: string) => void process.stderr.write(`conformance: ${line}\n`);

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

/**
 * The body as a value. JSON and MessagePack nesting deeper than MAX_NESTING levels does not decode: no document
 * nests that deep, and a value that does would overflow the stack of whatever walks it (validators, reports).
 */
function decodeBody(raw: Buffer, mediaType: string | undefined): Pick<RecordedResponse, 'body' | 'decodeError'> {
  if (raw.length === 0) return { body: undefined };
  try {
    if (mediaType === 'application/json' || mediaType?.endsWith('+json')) return { body: parseJsonExact(raw.toString('utf8')) };
    if (mediaType === 'application/vnd.msgpack' || mediaType === 'application/msgpack' || mediaType === 'application/x-msgpack') {
      const body = decodeMsgpack(raw, { useBigInt64: true });
      if (nestsDeeperThan(body, MAX_NESTING)) throw new Error(`it nests deeper than ${MAX_NESTING} levels`);
      return { body };
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
 * (RFC 9110). Undefined when absent or malformed. Whether the run waits that long is RetryAfterBudget's decision.
 */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const at = httpDateMs(text, now);
  return at === undefined ? undefined : Math.max(0, at - now);
}

/** The quote platform's error code of a 429 (`rate_limited`, `allowance_exhausted`), when its body carries one. */
function platformCode(body: unknown): string | undefined {
  const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === 'rate_limited' || code === 'allowance_exhausted' ? code : undefined;
}

/**
 * Should this answer (not a 429: ServiceClient.rateLimited decides those) be retried under the documents' handling
 * rules? Returns the wait in ms, or undefined. Only the order service's handling rules make a 5xx retryable; the
 * quote document gives no such rule, and the control API is the suite's own.
 */
export function retryDelay(
  service: Service,
  method: string,
  headers: Record<string, string>,
  status: number,
  attempt: number,
): number | undefined {
  if (attempt > MAX_RETRIES) return undefined;
  // Orders, handling rule 3: retried submit-style POSTs carry an X-Idempotency-Key; never retry a POST without one.
  const safe = resendable(method, headers);
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

/** The status line and headers of an answer, once they arrived. */
export interface AnswerHead {
  status: number;
  headers: Record<string, string>;
}

/**
 * Why no whole answer was read: `timeout` (nothing, or not the whole body, within the deadline), `too-large` (a body
 * over the cap), `dropped` (the connection closed or reset), `not-http` (bytes that are not an HTTP answer),
 * `unreachable` (no connection at all), `unsent` (the request could not be sent). `head`: what had arrived.
 */
export class TransportError extends Error {
  constructor(
    readonly kind: 'timeout' | 'too-large' | 'dropped' | 'not-http' | 'unreachable' | 'unsent',
    message: string,
    readonly head?: AnswerHead,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

const UNREACHABLE = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT'];
const DROPPED = ['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH'];

/**
 * The connections requests go out on. A keep-alive connection the target has closed while idle may still look alive
 * when a request is written on it (the close is on its way, or a busy event loop has not read it yet); the request
 * then fails before any answer byte, through no fault of the target. Only a request that may be sent twice reuses
 * connections (`pooled`): a GET or HEAD, or a POST with an X-Idempotency-Key (orders, handling rule 3: the key makes
 * a repeat harmless); when it is dropped before any answer byte it is sent once more on a new connection. An idle
 * connection is dropped after 1 s, or the target's own Keep-Alive timeout less 2 s, at most 5 s: well before a load
 * balancer's idle timeout, so a stale one is rare. Any other request (a POST without a key, PUT, PATCH, DELETE) is
 * never resent, since a connection reset after the target read it may have applied it: it goes out on a new
 * connection of its own (`fresh`, `connection: close`), which no idle timeout can have closed, so a drop there is the
 * target's doing. A dispatcher installed in the process instead of undici's own (setGlobalDispatcher: a proxy of an
 * embedding program, a test's recorder) carries every request as it is.
 */
const pooled = new Agent({ keepAliveTimeout: 1_000, keepAliveMaxTimeout: 5_000, keepAliveTimeoutThreshold: 2_000 });
const fresh = new Agent({ pipelining: 0 });
const undiciDefault = getGlobalDispatcher();

function dispatcher(reuse: boolean): Dispatcher {
  const installed = getGlobalDispatcher();
  return installed !== undiciDefault ? installed : reuse ? pooled : fresh;
}

/** May this request be sent twice (see `pooled`)? */
export function resendable(method: string, headers: Record<string, string> = {}): boolean {
  return method === 'GET' || method === 'HEAD' || Object.keys(headers).some((h) => h.toLowerCase() === 'x-idempotency-key');
}

function classify(
  e: unknown,
  timeoutMs: number,
  head: AnswerHead | undefined,
  bytes: number,
  connection = 'a new connection of its own',
): TransportError {
  const raw = (e as { code?: unknown }).code;
  const code = typeof raw === 'string' ? raw : undefined; // a DOMException's code is a number
  const name = (e as Error)?.name;
  const why = `${code ?? name}: ${(e as Error)?.message ?? String(e)}`;
  const began = head && `an answer began (status ${head.status} and its headers, then ${bytes} bytes of the body)`;
  if (
    e instanceof undiciErrors.HeadersTimeoutError ||
    e instanceof undiciErrors.BodyTimeoutError ||
    name === 'TimeoutError' ||
    name === 'AbortError'
  ) {
    return new TransportError(
      'timeout',
      began ? `the body did not arrive within ${timeoutMs} ms: ${began}` : `no answer within ${timeoutMs} ms`,
      head,
    );
  }
  if (name === 'HTTPParserError') {
    return new TransportError('not-http', `${began ?? 'an answer began'} but is not HTTP (${why})`, head);
  }
  if (!head && code && UNREACHABLE.includes(code)) return new TransportError('unreachable', `could not connect (${why})`);
  if (head || (code && DROPPED.includes(code))) {
    return new TransportError(
      'dropped',
      began
        ? `${began} but the connection was dropped before the body was complete (${why})`
        : `the target dropped the connection; no answer was received (${why}) on ${connection}`,
      head,
    );
  }
  return new TransportError('unsent', why);
}

/**
 * One HTTP exchange, bounded whatever the target does: the whole answer, body included, within `timeoutMs` (undici's
 * own timers tick coarsely, and a body that drips a byte at a time never trips them), and at most `maxBodyBytes` of
 * body: past it reading stops and the connection is closed, so a huge body costs neither memory nor time. A request
 * that may be sent twice (`resendable`, by default a GET or HEAD) and is dropped before any answer byte is sent once
 * more on a new connection (see `pooled`), within the same deadline. Throws TransportError.
 */
export async function boundedRequest(
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: string | Buffer },
  timeoutMs: number,
  maxBodyBytes: number,
  twice = resendable(init.method, init.headers),
): Promise<AnswerHead & { raw: Buffer }> {
  const signal = AbortSignal.timeout(timeoutMs);
  const send = (reuse: boolean) =>
    undiciRequest(url, { ...init, dispatcher: dispatcher(reuse), signal, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  let res: Awaited<ReturnType<typeof undiciRequest>>;
  try {
    res = await send(twice);
  } catch (e) {
    const error = classify(e, timeoutMs, undefined, 0);
    if (!twice || error.kind !== 'dropped') throw error;
    try {
      res = await send(false);
    } catch (again) {
      throw classify(again, timeoutMs, undefined, 0, 'a new connection, sent again after a first try was dropped too');
    }
  }
  const head: AnswerHead = { status: res.statusCode, headers: flatHeaders(res.headers) };
  const tooLarge = (what: string) =>
    new TransportError('too-large', `the body exceeded ${maxBodyBytes} bytes (--max-body-bytes): ${what}; the rest was not read`, head);
  const declared = Number(head.headers['content-length']);
  if (declared > maxBodyBytes) {
    res.body.destroy();
    throw tooLarge(`content-length ${declared}`);
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > maxBodyBytes) throw tooLarge(`${bytes} bytes had arrived`);
      chunks.push(chunk);
    }
  } catch (e) {
    res.body.destroy();
    throw e instanceof TransportError ? e : classify(e, timeoutMs, head, bytes);
  }
  return { ...head, raw: Buffer.concat(chunks, bytes) };
}

/** Headers that carry a credential: a rate limit is the limit of the key that met it. */
const CREDENTIAL_HEADERS = ['x-api-key', 'x-service-key', 'authorization'];

const SERVICE_NAME: Record<Service, string> = { orders: 'the order service', quotes: 'the quote service', control: 'the control API' };

/** An HTTP client for one service of the target. Every response is recorded and checked against the spec. */
export class ServiceClient {
  constructor(private readonly opts: ClientOptions) {}

  get baseUrl(): string {
    if (this.opts.baseUrl === undefined) {
      // The check needs a service the run was not given: not judged, outside the run (preconditions.ts skipCause).
      throw new Skipped(`needs ${SERVICE_NAME[this.opts.service]}, outside the run: no --${this.opts.service}-url given`);
    }
    return this.opts.baseUrl;
  }

  async request(spec: RequestSpec): Promise<Exchange> {
    const method = (spec.method ?? 'GET').toUpperCase();
    const url = this.baseUrl.replace(/\/$/, '') + spec.path + buildQuery(spec.query);
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

    const maxBodyBytes = this.opts.maxBodyBytes ?? runBounds().maxBodyBytes;
    const sent = { method, url, headers, body: body === undefined ? undefined : Buffer.isBuffer(body) ? `<${body.length} bytes>` : body };
    const safe = method === 'GET' || method === 'HEAD';

    const started = Date.now();
    let attempt = 0;
    for (;;) {
      attempt++;
      let answer: AnswerHead & { raw: Buffer };
      // One place among the requests in flight (--max-concurrency), then the rate budget (--max-rps): the place is
      // held for this attempt only, never across a retry pause.
      const release = (await this.opts.limit?.acquire()) ?? (() => {});
      try {
        await this.opts.pacer?.slot();
        const sentAt = performance.now();
        answer = await boundedRequest(url, { method, headers, body }, timeoutMs, maxBodyBytes);
        noteRoundTrip(performance.now() - sentAt);
      } catch (e) {
        if (!(e instanceof TransportError)) throw e;
        if ((e.kind === 'dropped' || e.kind === 'unreachable') && safe && attempt <= MAX_RETRIES) {
          await sleep(250 * attempt);
          continue;
        }
        throw this.transportFailure(e, spec.path, operationId, sent, started, attempt, timeoutMs, maxBodyBytes);
      } finally {
        release();
      }
      const { status, headers: responseHeaders, raw } = answer;
      const mediaType = responseHeaders['content-type']?.split(';')[0]?.trim().toLowerCase() || undefined;
      const exchange: Exchange = {
        service: this.opts.service,
        operationId,
        request: sent,
        response: { status, headers: responseHeaders, mediaType, raw, ...decodeBody(raw, mediaType) },
        durationMs: Date.now() - started,
        attempts: attempt,
      };
      const wait =
        status === 429
          ? await this.rateLimited(exchange, spec.retry !== false, attempt, this.sendsOwnCredential(headers))
          : spec.settled?.(exchange)
            ? undefined
            : spec.retry === false
              ? transientRetryDelay(this.opts.service, method, status, attempt)
              : retryDelay(this.opts.service, method, headers, status, attempt);
      this.opts.record(exchange);
      if (wait !== undefined) {
        await sleep(wait);
        continue;
      }
      if (spec.validate !== false && operationId) this.validate(operationId, exchange);
      return exchange;
    }
  }

  /** Does the request carry the client's own credential (not another key a check minted or made up)? */
  private sendsOwnCredential(headers: Record<string, string>): boolean {
    const credentials = (h: Record<string, string>) =>
      Object.entries(h)
        .filter(([k]) => CREDENTIAL_HEADERS.includes(k.toLowerCase()))
        .map(([k, v]) => `${k.toLowerCase()}=${v}`)
        .sort()
        .join('\n');
    return credentials(headers) === credentials(this.opts.defaultHeaders);
  }

  /**
   * A 429. A retry-after the run can wait out (RetryAfterBudget: at most --max-retry-after, within --max-retry-wait
   * and the deadline) is said on the terminal and, when it limits the run's own credential (`own`), holds every later
   * request of the run, whether or not this one is repeated; the limit of another key (a check's own small plan)
   * holds nobody else. With `retry` (RequestSpec.retry), the wait in ms before the request is sent again; a 429 that
   * cannot be waited out is a limit, not an answer to judge: the check is skipped, saying why (allowance_exhausted:
   * "retrying does not help"). Without it (a check that observes 429s), the 429 is returned to it. A wait that would
   * end past the run's deadline (--max-duration) is the deadline met: the run waits until it and no longer (the
   * requests of the run's own credential with it), and the check is not judged for the deadline, as the checks the
   * deadline leaves unrun are.
   */
  private async rateLimited(exchange: Exchange, retry: boolean, attempt: number, own: boolean): Promise<number | undefined> {
    const { headers, body } = exchange.response;
    const code = platformCode(body);
    // The platform's 429 to the run's own key is a limit of the run, whatever the check asked: never its answer.
    const repeat = retry || (own && code !== undefined);
    const asked = `429${code ? ` ${code}` : ''}${headers['retry-after'] === undefined ? '' : ` retry-after: ${headers['retry-after'].slice(0, 40)}`}`;
    const who = SERVICE_NAME[this.opts.service];
    const cannotJudge = (why: string) => {
      const reason = `${who} answered ${asked}; ${why}; the check cannot be judged (a 429 is a limit of the run, not an answer to the rule)`;
      return this.opts.service === 'control' ? new SetupFailed(reason, exchange) : new Skipped(reason);
    };
    const ms = code === 'allowance_exhausted' ? undefined : retryAfterMs(headers['retry-after']);
    if (ms === undefined) {
      if (!repeat || code === undefined) return undefined; // not a limit the suite recognises: judged as any answer
      this.opts.record(exchange);
      throw cannotJudge(
        code === 'allowance_exhausted'
          ? "the key's monthly allowance is spent and retrying does not help"
          : 'it gives no usable retry-after',
      );
    }
    if (!repeat && !own) return undefined; // observed, and nobody else waits for another key's limit
    const budget = this.opts.retryAfter ?? retryAfterBudget();
    const grant = budget.grant(ms);
    if (!grant.granted && grant.untilDeadlineMs !== undefined) {
      if (own) this.opts.pacer?.holdFor(grant.untilDeadlineMs);
      if (!repeat) return undefined;
      this.opts.record(exchange);
      const seconds = Math.ceil(grant.untilDeadlineMs / 1000);
      if (seconds > 0) {
        (this.opts.announce ?? defaultAnnounce)(
          `waiting ${seconds} s for the run's deadline: ${who} asked for ${Math.ceil(ms / 1000)} s (${escapeControls(asked)}), past it`,
        );
      }
      await (this.opts.sleep ?? defaultSleep)(grant.untilDeadlineMs);
      const deadline = deadlineUnjudged(budget.maxDurationS);
      throw new NotJudged(`${who} answered ${asked}; ${grant.reason}: ${deadline.problem}`, deadline);
    }
    if (grant.granted) {
      if (own) this.opts.pacer?.holdFor(ms);
      // Requests in flight together meet the same limit: only a wait that adds a second or more is said.
      if (grant.extraMs >= 1000) {
        (this.opts.announce ?? defaultAnnounce)(`waiting ${Math.ceil(ms / 1000)} s: ${who} asked for it (${escapeControls(asked)})`);
      }
    }
    if (!repeat) return undefined;
    if (grant.granted && attempt <= MAX_RETRIES) return ms;
    this.opts.record(exchange);
    throw cannotJudge(grant.granted ? `still limited after ${attempt} attempts` : `not waited out: ${grant.reason}`);
  }

  /**
   * No whole answer: a failure of the rule the request checks (its operation's), saying whether an answer began, when
   * the connection was dropped, the bytes were not HTTP or the body was over --max-body-bytes; a precondition of the
   * run when no connection could be made, and for the control API (the suite's own). An answer not whole within
   * --timeout is a LateAnswer (a precondition, `timeout`): neither document sets a response time, so a slow target
   * is not failed for the run's own limit; the rules that ask for an answer in time (hostile inputs) fail on it.
   */
  private transportFailure(
    e: TransportError,
    path: string,
    operationId: string | undefined,
    sent: Exchange['request'],
    started: number,
    attempt: number,
    timeoutMs: number,
    maxBodyBytes: number,
  ): Error {
    if (e.kind === 'unreachable' || e.kind === 'unsent')
      return new SetupFailed(`${sent.method} ${sent.url} could not be sent: ${e.message}`);
    let exchange: Exchange | undefined;
    if (e.head) {
      const mediaType = e.head.headers['content-type']?.split(';')[0]?.trim().toLowerCase() || undefined;
      exchange = {
        service: this.opts.service,
        operationId,
        request: sent,
        durationMs: Date.now() - started,
        attempts: attempt,
        response: { ...e.head, mediaType, raw: Buffer.alloc(0), body: undefined, decodeError: e.message },
      };
      this.opts.record(exchange);
    }
    const what = `${this.opts.service === 'control' ? 'control ' : ''}${sent.method} ${path}`;
    if (e.kind === 'timeout') return new LateAnswer(lateAnswerReason(what, timeoutMs, e.message), timeoutMs, exchange);
    if (this.opts.service === 'control') return new SetupFailed(`${what}: ${e.message}`, exchange);
    const documented =
      e.kind === 'too-large'
        ? `an answer to ${what} whose body fits in ${maxBodyBytes} bytes (--max-body-bytes)`
        : `an HTTP answer to ${what}`;
    const rule = operationId ? getOperation(this.opts.service, operationId).rule : defaultRule(this.opts.service);
    return new ConformanceFailure(specRule(rule), { documented, received: e.message, exchange });
  }

  /** Check status, media type and body against the spec; violations are reported, not thrown. */
  private validate(operationId: string, exchange: Exchange): void {
    const { status, mediaType, body, decodeError } = exchange.response;
    const op = getOperation(this.opts.service, operationId);
    if (decodeError) {
      this.opts.violation({
        rule: specRule(op.rule),
        detail: { documented: `a ${mediaType} body that decodes`, received: decodeError, exchange },
      });
      return;
    }
    // Quote service: a MessagePack public key may be 32 raw bytes, read as its base58 string (Q-ENC-009).
    const value =
      mediaType === 'application/vnd.msgpack' ? normalizeMsgpack(this.opts.service === 'quotes' ? pubkeysAsBase58(body) : body) : body;
    const result = validateResponse(this.opts.service, operationId, status, mediaType, value);
    if (!result.documentedStatus) {
      this.opts.violation({
        rule: specRule(op.rule),
        detail: {
          documented: `a status documented for ${operationId}: ${Object.keys(op.responses).join(', ')}`,
          received: `${status} ${preview(body)}`,
          exchange,
        },
      });
      return;
    }
    if (status >= 400 && this.opts.errorBodies === 'status-only') return;
    if (!result.documentedMediaType) {
      const documented = Object.keys(op.responses[String(status)]?.mediaTypes ?? {}).join(' or ') || 'a documented media type';
      this.opts.violation({
        rule: specRule(op.rule),
        detail: { documented: `${status} answered as ${documented}`, received: mediaType ?? 'no content-type', exchange },
      });
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
        rule: specRule(rule),
        detail: {
          documented: `the ${status} body of ${operationId} matches the spec`,
          received: { violations: messages, body: value },
          exchange,
        },
      });
    }
  }
}

function preview(body: unknown): string {
  const text = typeof body === 'string' ? body : (JSON.stringify(normalizeMsgpack(body)) ?? '');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

export function defaultRule(service: Service): string {
  return service === 'orders' ? 'OA-SHAPE-001' : service === 'quotes' ? 'Q-SHAPE-001' : 'CTL-SHAPE-001';
}
