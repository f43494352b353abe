import fc from 'fast-check';
import { requestArbitraries, type InvalidRequestSample } from '../../generators/arbitraries.ts';
import type { OperationInfo } from '../../generators/index.ts';
import type { CheckContext } from '../harness/check.ts';
import type { RequestSpec, ServiceClient } from '../harness/client.ts';
import type { Exchange } from '../harness/exchange.ts';
import { ConformanceFailure, SetupFailed } from '../harness/failure.ts';
import type { RuleId } from '../../generators/vocabulary.ts';
import type { TargetEnv } from '../harness/types.ts';

/**
 * Hostile input shared by both services' checks (suites/orders/hostile-input.checks.ts,
 * suites/quotes/hostile-input.checks.ts): the strings a careless parser chokes on, the signs of internals leaking into
 * an error, and the fuzzed requests the specs' own arbitraries make invalid.
 */

/** Strings that look like injections, traversal, markup, control characters and unusual unicode. */
export const HOSTILE_STRINGS: readonly string[] = [
  "' OR '1'='1' --",
  '"; DROP TABLE orders; --',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '${jndi:ldap://127.0.0.1/a}',
  '{{7*7}}',
  '\u0000\u0001\u001b[31m\u007f',
  '\u202e\u200b\ufeffÿ😀',
  '%00%0d%0a',
  '9'.repeat(80),
  '',
  'x'.repeat(4096),
];

/**
 * How a malformed amount reads: `invalid` in every reading of the documents (a fraction, a sign, a word, a JSON value
 * that is no string); `readable` by a conforming parser that is lenient (leading zeros, a plus sign, surrounding
 * whitespace, an exponent: "007" may be read as 7); `absent` may be taken for an omitted value (empty, null);
 * `beyond-u64` is no token amount (the chain counts amounts in a u64) but a well-formed integer, so a valid price
 * (prices are fixed-point integer strings with no documented bound).
 */
export type AmountReading = 'invalid' | 'readable' | 'absent' | 'beyond-u64';

export interface MalformedAmount {
  value: unknown;
  reading: AmountReading;
}

/** Malformed amounts: decimals, signs, leading zeros, exponent, whitespace, 80 digits, 2^64, empty, JSON non-strings. */
export const MALFORMED_AMOUNTS: readonly MalformedAmount[] = [
  { value: '1.5', reading: 'invalid' },
  { value: '-1', reading: 'invalid' },
  { value: '+1', reading: 'readable' },
  { value: '007', reading: 'readable' },
  { value: '1e6', reading: 'readable' },
  { value: ' 1', reading: 'readable' },
  { value: '1 ', reading: 'readable' },
  { value: '9'.repeat(80), reading: 'beyond-u64' },
  { value: '18446744073709551616', reading: 'beyond-u64' },
  { value: '', reading: 'absent' },
  { value: 'ten', reading: 'invalid' },
  { value: 1, reading: 'invalid' },
  { value: -1, reading: 'invalid' },
  { value: 1.5, reading: 'invalid' },
  { value: null, reading: 'absent' },
  { value: true, reading: 'invalid' },
];

/** What a field of this kind makes of a malformed value: may a conforming server serve it (answer 2xx)? */
export function mayServeAmount(reading: AmountReading, field: { price?: boolean; optional?: boolean } = {}): boolean {
  switch (reading) {
    case 'readable':
      return true;
    case 'absent':
      return field.optional === true;
    case 'beyond-u64':
      return field.price === true;
    case 'invalid':
      return false;
  }
}

/** Keys that are not base58 public keys (0, O, I and l are outside the alphabet; too short; too long; empty). */
export const MALFORMED_KEYS: readonly unknown[] = ['0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl', 'not a key', 'abc', '1'.repeat(60), '', 42, null];

/** Path segments that are no UUID (encoded as they would travel). */
export const MALFORMED_PATH_IDS: readonly string[] = [
  'not-a-uuid',
  '0',
  '9'.repeat(80),
  'x'.repeat(512),
  ...HOSTILE_STRINGS.filter((s) => s !== '')
    .slice(0, 9)
    .map(encodeURIComponent),
];

/**
 * The validation branch a malformed value reaches in a server that validates it: its JSON type (a number: negative,
 * fractional or whole), then for a string whether it is empty, very long, a path traversal, has control characters or
 * other unicode, is digits (within or beyond u64), negative, with a plus sign, a fraction, an exponent, padded with
 * whitespace, or other text (the injection-looking strings are all "text that is not the format": one branch).
 */
export function branchOf(value: unknown): string {
  if (typeof value === 'number') return value < 0 ? 'negative-number' : Number.isInteger(value) ? 'number' : 'fractional-number';
  if (typeof value !== 'string') return value === null ? 'null' : typeof value;
  if (value === '') return 'empty';
  if (value.length >= 256) return 'long';
  if (value.includes('../')) return 'traversal';
  if (/[\u0000-\u001f\u007f]/.test(value)) return 'control';
  if (/[^\u0020-\u007e]/.test(value)) return 'unicode';
  if (/^[0-9]+$/.test(value)) return value.length > 19 ? 'digits-beyond-u64' : 'digits';
  if (/^-[0-9]/.test(value)) return 'negative';
  if (/^\+[0-9]/.test(value)) return 'plus-sign';
  if (/^[0-9]+\.[0-9]+$/.test(value)) return 'fraction';
  if (/^[0-9]+e[0-9]+$/i.test(value)) return 'exponent';
  if (value.trim() !== value) return 'padded';
  return 'text';
}

/** A key's branch: its JSON type, empty, a length no 32-byte key has in base58, or a character outside the alphabet. */
export const keyBranch = (key: unknown): string =>
  typeof key !== 'string' || key === '' ? branchOf(key) : key.length < 32 || key.length > 44 ? 'length' : 'alphabet';

/** An amount's branch: how a conforming server may read it, and the branch of its value. */
export const amountBranch = (m: MalformedAmount): string => `${m.reading}:${branchOf(m.value)}`;

/** A path id's branch, as the server sees it once decoded. */
export const pathIdBranch = (id: string): string => branchOf(decodeURIComponent(id));

/** The malformed values a check sends: every one, or the first of each validation branch (`TargetEnv.hostileInputs`). */
export interface HostileValues {
  strings: readonly string[];
  amounts: readonly MalformedAmount[];
  keys: readonly unknown[];
  pathIds: readonly string[];
}

/** A predicate true for the first value of each branch it is asked about, false for the later ones. */
function firstOfBranch(): (branch: string) => boolean {
  const seen = new Set<string>();
  return (branch) => {
    if (seen.has(branch)) return false;
    seen.add(branch);
    return true;
  };
}

/** The first value of each branch, in the list's order. */
export function perBranch<T>(values: readonly T[], branch: (value: T) => string): T[] {
  const first = firstOfBranch();
  return values.filter((v) => first(branch(v)));
}

/**
 * The malformed values of this run: all of them against the embedded server (cheap there, and what the mutants are
 * proven with), one per validation branch on a given target, where each costs a round trip and equivalent inputs
 * judge nothing more.
 */
export function hostileValues(env: TargetEnv): HostileValues {
  if (env.hostileInputs !== 'per-branch')
    return { strings: HOSTILE_STRINGS, amounts: MALFORMED_AMOUNTS, keys: MALFORMED_KEYS, pathIds: MALFORMED_PATH_IDS };
  return {
    strings: perBranch(HOSTILE_STRINGS, branchOf),
    amounts: perBranch(MALFORMED_AMOUNTS, amountBranch),
    keys: perBranch(MALFORMED_KEYS, keyBranch),
    pathIds: perBranch(MALFORMED_PATH_IDS, pathIdBranch),
  };
}

/**
 * Whether to send a generated invalid request: always when the run sends every input, else the first of each branch
 * (what the sample makes invalid, and how) per operation; the others pass unsent.
 */
export function generatedSampler(env: TargetEnv): (operation: string, sample: InvalidRequestSample) => boolean {
  if (env.hostileInputs !== 'per-branch') return () => true;
  const first = firstOfBranch();
  return (operation, sample) => first(`${operation} ${sample.target} ${sample.violation.keyword}`);
}

/**
 * Signs of internals in a message meant for people: a stack frame, a source file, a module folder, another runtime's
 * traceback. Returns the fragment found, or undefined. Text the request itself carried is removed first, so an echo of
 * the input is never mistaken for a leak.
 */
export function leakedInternals(text: string, sent: readonly string[] = []): string | undefined {
  let rest = text;
  for (const s of sent) if (s.length >= 4) rest = rest.split(s).join(' ');
  const patterns = [
    /\n\s*at\s+\S+/, // V8 stack frame on its own line
    /\bat\s+[\w$.<>[\]]+\s+\(?(?:file:\/\/)?[^\s()]+:\d+:\d+\)?/, // a frame with file:line:column
    /(?:^|[\s("'/\\])[\w./\\-]*[\w-]\.(?:ts|js|mjs|cjs|py|go|rs|java|rb|php|cs|kt)(?::\d+)+/, // a source file with a line
    /node_modules|Traceback \(most recent call last\)|Exception in thread|goroutine \d+ \[|panicked at/,
  ];
  for (const p of patterns) {
    const m = p.exec(rest);
    if (m) return m[0].trim();
  }
  return undefined;
}

/** A path with each `{name}` replaced by `value(name)`. */
export function fillPath(template: string, value: (name: string) => string): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => value(name));
}

/** A raw query string from a generated sample (arrays repeat their key). */
export function rawQuery(query: Record<string, string | string[]>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
  return params.toString();
}

/**
 * A generated invalid request as a RequestSpec. Path ids come from `pathValue` (a real order's id, so that the body
 * reaches validation), except the one the sample makes invalid.
 */
export function sampleRequest(op: OperationInfo, sample: InvalidRequestSample, pathValue: (name: string) => string): RequestSpec {
  const path = fillPath(op.path, (name) =>
    encodeURIComponent(sample.target === `path:${name}` ? (sample.path[name] ?? pathValue(name)) : pathValue(name)),
  );
  const spec: RequestSpec = {
    method: op.method,
    path,
    query: rawQuery(sample.query),
    headers: { ...sample.headers },
    operationId: op.operationId,
  };
  if (sample.body !== undefined) {
    spec.body = JSON.stringify(sample.body);
    spec.headers = { ...spec.headers, 'content-type': sample.mediaType ?? 'application/json' };
  }
  return spec;
}

/** The spec's invalid-request arbitrary of an operation, or undefined when nothing of it can be made invalid. */
export function invalidRequests(service: 'orders' | 'quotes', op: OperationInfo): fc.Arbitrary<InvalidRequestSample> | undefined {
  try {
    return requestArbitraries(service, op.operationId).invalid ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * A generated invalid request no reading of the documents lets through: a body of the wrong JSON type, without a
 * required field or with a value outside an enumeration, outside any part the suite assumes.
 */
export function generatedMustBeRejected(sample: InvalidRequestSample): boolean {
  return sample.target === 'body' && !sample.violation.assumed && ['type', 'required', 'enum'].includes(sample.violation.keyword);
}

/** fast-check runs per operation: a fifth of the run's budget, at least 3. */
export const runsPerOperation = (t: CheckContext) => Math.max(3, Math.ceil(t.env.numRuns / 5));

/**
 * Send one hostile request without retries or spec validation (the hostile checks judge the answer themselves). No
 * answer in time is a failure of `rule`, and so is a dropped connection: a keep-alive connection the target closed
 * while this worker was busy is not one (the client sends a request that may be sent twice once more on a new
 * connection, and any other on a connection of its own: suites/harness/client.ts).
 */
export async function sendHostile(t: CheckContext, client: ServiceClient, rule: RuleId, spec: RequestSpec): Promise<Exchange> {
  const request = { ...spec, retry: false, validate: false };
  const what = `${request.method ?? 'GET'} ${request.path}`;
  try {
    return await client.request(request);
  } catch (e) {
    if (e instanceof ConformanceFailure) {
      t.fail(rule, {
        documented: `${what} with a malformed request is answered within the suite's timeout`,
        received: e.detail.received,
      });
    }
    if (e instanceof SetupFailed) {
      t.fail(rule, { documented: `${what} with a malformed request is answered (a client error), not dropped`, received: e.reason });
    }
    throw e;
  }
}

/**
 * One sweep of bad inputs over a service: it counts what it sends per operation, and goes on after a bad answer so
 * that every input is tried and counted; the first failure is thrown at the end (`finish`). An input left without an
 * answer (a hang, a dropped connection) ends the sweep at once: the next ones would only wait as long.
 */
export class Sweep {
  readonly tally: Record<string, number> = {};
  private first?: ConformanceFailure;
  private failures = 0;
  private unanswered?: ConformanceFailure;

  /** Send one bad input (sendHostile) and count it under `operation`; after an unanswered one, nothing more is sent. */
  async send(t: CheckContext, client: ServiceClient, rule: RuleId, operation: string, spec: RequestSpec): Promise<Exchange> {
    if (this.unanswered) throw this.unanswered;
    try {
      return await sendHostile(t, client, rule, spec);
    } catch (e) {
      if (e instanceof ConformanceFailure) this.unanswered = e;
      throw e;
    } finally {
      this.tally[operation] = (this.tally[operation] ?? 0) + 1;
    }
  }

  /** Run `judge` (or a property of sends and judgements); a conformance failure is kept and the sweep goes on. */
  async attempt(judge: () => void | Promise<void>): Promise<void> {
    try {
      await judge();
    } catch (e) {
      if (!(e instanceof ConformanceFailure) || this.unanswered) throw e;
      this.failures++;
      this.first ??= e;
    }
  }

  get total(): number {
    return Object.values(this.tally).reduce((a, b) => a + b, 0);
  }

  /** The tally as a line for the notes. */
  toString(): string {
    return (
      `${this.total} bad inputs tried${this.failures > 0 ? `, ${this.failures} answered wrongly (the first is reported)` : ''}: ` +
      Object.entries(this.tally)
        .map(([k, n]) => `${k} ${n}`)
        .join('; ')
    );
  }

  /** Throw the first failure kept, if any. */
  finish(): void {
    if (this.first) throw this.first;
  }
}

/**
 * Run a sweep in a check: the tally reaches the CheckResult and a note in a `finally`, whatever ends the sweep; a
 * failure kept during it is thrown after.
 */
export async function sweep(t: CheckContext, body: (s: Sweep) => Promise<void>): Promise<void> {
  const s = new Sweep();
  try {
    await body(s);
  } finally {
    t.tally = { ...(t.tally ?? {}), ...s.tally };
    t.note(String(s));
  }
  s.finish();
}
