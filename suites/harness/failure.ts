import { createHash } from 'node:crypto';
import type { Exchange } from './exchange.ts';
import type { Unjudged } from './preconditions.ts';
import type { RuleId } from '../../generators/vocabulary.ts';
import { toCurl } from './curl.ts';
import { isPlaceholder, redact } from './redact.ts';

export interface FailureDetail {
  /** What the documents say, in one sentence. */
  documented: string;
  /** What the target did instead. */
  received?: unknown;
  /** The exchange that shows it; the reproduction is built from it. */
  exchange?: Exchange;
}

export interface PropertyRun {
  seed: number;
  path?: string;
  counterexample?: unknown;
  numRuns?: number;
  /** which property of the check it was, 1-based (a replay's --fc-path names it: fc-path.ts) */
  ordinal?: number;
}

/** A rule of the catalogue was violated by the target. Stable class: `code` is always CONFORMANCE_FAILURE. */
export class ConformanceFailure extends Error {
  readonly code = 'CONFORMANCE_FAILURE';
  constructor(
    readonly rule: RuleId,
    readonly detail: FailureDetail,
    readonly property?: PropertyRun,
  ) {
    super(`${rule}: ${detail.documented}`);
    this.name = 'ConformanceFailure';
  }
}

/** The target lacks a capability the check needs: verdict `unsupported`. */
export class Unsupported extends Error {
  readonly code = 'UNSUPPORTED';
  constructor(readonly capability: string) {
    super(`the target does not offer the "${capability}" capability`);
    this.name = 'Unsupported';
  }
}

/** The check decided not to run, with a reason: verdict `skipped`. */
export class Skipped extends Error {
  readonly code = 'SKIPPED';
  /** `exchange`: the answer that left nothing to judge, when one did (a broken precondition of the run may explain it). */
  constructor(
    readonly reason: string,
    readonly exchange?: Exchange,
  ) {
    super(reason);
    this.name = 'Skipped';
  }
}

/**
 * The check was stopped by a precondition of the run that it names (the run's deadline, met while a 429 asked the run
 * to wait): verdict `skipped`, not judged for `unjudged`, which makes a run with a gating check left so INCOMPLETE.
 */
export class NotJudged extends Skipped {
  constructor(
    reason: string,
    readonly unjudged: Unjudged,
  ) {
    super(reason);
    this.name = 'NotJudged';
  }
}

/** A precondition broke (control call, provisioning), not the rule under test: verdict `setup-failed`. */
export class SetupFailed extends Error {
  readonly code = 'SETUP_FAILED';
  constructor(
    readonly reason: string,
    readonly exchange?: Exchange,
  ) {
    super(reason);
    this.name = 'SetupFailed';
  }
}

/**
 * No whole answer within the run's --timeout: a limit of the run, not a rule of the documents (neither sets a response
 * time), so the check is not judged (precondition `timeout`, INCOMPLETE, "raise --timeout": preconditions.ts). A kind
 * of SetupFailed: a hostile-input sweep, whose rules ask for an answer in time ("never a hang"), fails its rule on it
 * as on any request left without an answer (suites/shared/hostile.ts sendHostile).
 */
export class LateAnswer extends SetupFailed {
  constructor(
    reason: string,
    readonly timeoutMs: number,
    exchange?: Exchange,
  ) {
    super(reason, exchange);
    this.name = 'LateAnswer';
  }
}

function show(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return `<${value.length} bytes>`;
  try {
    const text = JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v), 2);
    return text === undefined ? String(value) : text;
  } catch {
    return String(value);
  }
}

/**
 * `text` redacted, then cut to `max` characters: redaction comes first, so a cut never leaves a piece of a secret
 * too short to be recognised as one (redact.ts).
 */
function shorten(text: string, max = 2000): string {
  const shown = redact(text);
  return shown.length > max ? `${shown.slice(0, max)}… (${shown.length - max} more characters)` : shown;
}

/** The multi-line explanation of a failure: rule, documented, received, exchange, reproduction, seed. */
export function formatFailure(f: ConformanceFailure, checkName: string, ruleStatement?: string): string {
  const lines = [`FAIL ${f.rule} in check "${checkName}"`];
  if (ruleStatement) lines.push(`  rule:       ${ruleStatement}`);
  lines.push(`  documented: ${f.detail.documented}`);
  if (f.detail.received !== undefined) lines.push(`  received:   ${shorten(show(f.detail.received)).replace(/\n/g, '\n              ')}`);
  const ex = f.detail.exchange;
  if (ex) {
    lines.push(
      `  exchange:   ${ex.request.method} ${ex.request.url} -> ${ex.response.status}` +
        (ex.response.mediaType ? ` (${ex.response.mediaType})` : ''),
    );
    lines.push(`  reproduce:  ${toCurl(ex.request)}`);
  }
  if (f.property) {
    lines.push(`  seed:       ${f.property.seed}` + (f.property.path ? `  path: ${f.property.path}` : ''));
    if (f.property.counterexample !== undefined) lines.push(`  counterexample: ${shorten(show(f.property.counterexample), 600)}`);
  }
  return redact(lines.join('\n'));
}

/**
 * The answer a failure was judged on, to group failures by root cause (matrix/root-cause.ts), in two levels:
 * - `key` is the same exactly when the rule, the request (method, URL with its query, headers, body) and the answer's
 *   status, code and message are;
 * - `refusal`, only for an error refusal (a 4xx with an error code and a non-empty message), is the same when the
 *   service, method, path (query ignored), Accept header, status, code and message are, whatever the rule and the rest
 *   of the request: the same refusal to requests that differ is one defect. `queryParams` and `bodyLength` tell which of
 *   its requests is the simplest (the root's replay reproduces it with the least).
 * `line` shows it in one line. A failure without an exchange (a crash) has none and is never grouped.
 */
export interface FailingAnswer {
  key: string;
  /**
   * The same rule broken by the same answer (status, code, message) of the same operation (service, method, path),
   * whatever the query and headers: one violation of that rule, however many checks met it (an /api/v1/info body judged
   * wrong in JSON and in MessagePack, with one key and another). Absent for older matrices.
   */
  sameRule?: string;
  line: string;
  refusal?: { key: string; queryParams: number; bodyLength: number };
}

/** The error code and message of an answer's body, in either service's error layer (`{code, message}`, `{error: {…}}`). */
function codeAndMessage(body: unknown): { code?: unknown; message?: unknown } {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || Buffer.isBuffer(body)) return {};
  const b = body as Record<string, unknown>;
  const inner = typeof b.error === 'object' && b.error !== null ? (b.error as Record<string, unknown>) : b;
  return { code: inner.code ?? b.code, message: inner.message ?? b.message };
}

/**
 * The headers that tell two requests to one URL apart, as a failing answer's line shows them: the media type asked for,
 * and which credential was sent (its placeholder, `$QUOTES_API_KEY`; a value the run did not register is not shown).
 */
function headerHint(headers: Record<string, string>): string {
  const shown = Object.entries(headers).flatMap(([name, value]) => {
    const lower = name.toLowerCase();
    if (lower === 'accept') return [`${lower}: ${value}`];
    if (!['x-api-key', 'x-service-key', 'authorization'].includes(lower)) return [];
    const token = redact(value.replace(/^bearer\s+/i, ''));
    return [`${lower}: ${isPlaceholder(token) ? token : token === '' ? '(empty)' : '(another value)'}`];
  });
  return shown.length > 0 ? ` [${shown.join(', ')}]` : '';
}

function hash(identity: unknown[]): string {
  return createHash('sha256')
    .update(redact(JSON.stringify(identity)))
    .digest('hex')
    .slice(0, 16);
}

/** The refusal key of an answer that is an error refusal: a 4xx with an error code and a non-empty message. */
function refusal(ex: Exchange, code: unknown, message: unknown): FailingAnswer['refusal'] {
  const { status } = ex.response;
  if (status < 400 || status > 499 || code === undefined || code === null) return undefined;
  if (typeof message !== 'string' || message.trim() === '' || !URL.canParse(ex.request.url)) return undefined;
  const url = new URL(ex.request.url);
  const accept = Object.entries(ex.request.headers).find(([name]) => name.toLowerCase() === 'accept')?.[1] ?? null;
  return {
    key: hash([ex.service, ex.request.method, `${url.origin}${url.pathname}`, accept, status, code, message]),
    queryParams: [...url.searchParams.keys()].length,
    bodyLength: ex.request.body?.length ?? 0,
  };
}

export function failingAnswer(f: ConformanceFailure): FailingAnswer | undefined {
  const ex = f.detail.exchange;
  if (!ex) return undefined;
  const { code, message } = codeAndMessage(ex.response.body);
  const headers = Object.entries(ex.request.headers)
    .map(([name, value]) => `${name.toLowerCase()}: ${value}`)
    .sort();
  const said = [code === undefined ? '' : ` ${show(code)}`, message === undefined ? '' : ` ${JSON.stringify(show(message))}`].join('');
  const refused = refusal(ex, code, message);
  return {
    key: hash([
      f.rule,
      ex.request.method,
      ex.request.url,
      headers,
      ex.request.body ?? null,
      ex.response.status,
      code ?? null,
      message ?? null,
    ]),
    // The request is cut, not the answer: the same answer reads the same wherever it is shown.
    line: `${shorten(`${ex.request.method} ${ex.request.url}${headerHint(ex.request.headers)}`, 300)} -> ${shorten(`${ex.response.status}${said}`, 200)}`,
    ...(refused ? { refusal: refused } : {}),
    ...(URL.canParse(ex.request.url)
      ? {
          sameRule: hash([
            f.rule,
            ex.service,
            ex.request.method,
            new URL(ex.request.url).pathname,
            ex.response.status,
            code ?? null,
            message ?? null,
          ]),
        }
      : {}),
  };
}
