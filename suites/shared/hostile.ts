import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { MALFORMED_BOOLEANS, notABoolean } from './arbitraries.ts';
import { requestArbitraries, type InvalidRequestSample } from '../../generators/arbitraries.ts';
import type { OperationInfo } from '../../generators/index.ts';
import type { CheckContext } from '../harness/check.ts';
import type { RequestSpec, ServiceClient } from '../harness/client.ts';
import type { Exchange } from '../harness/exchange.ts';
import { ConformanceFailure, LateAnswer, SetupFailed, Skipped } from '../harness/failure.ts';
import { ConcurrencyLimit, DEFAULT_MAX_CONCURRENCY, mapAtMost } from '../harness/pacer.ts';
import { checkSlots } from '../harness/schedule.ts';
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

/**
 * An amount's branch: how a conforming server may read it, and the branch of its value; a JSON number or boolean is
 * one branch whatever its sign or fraction (an amount is a string: the type check rejects them all, and a server that
 * coerces them serves the number 1, which no reading lets through).
 */
export const amountBranch = (m: MalformedAmount): string =>
  `${m.reading}:${typeof m.value === 'string' || m.value === null ? branchOf(m.value) : 'not-a-string'}`;

/**
 * A path id's branch, as the server sees it once decoded: ids are UUIDs, so digits (within u64 or beyond) are text
 * that is no UUID like any other.
 */
export const pathIdBranch = (id: string): string => {
  const branch = branchOf(decodeURIComponent(id));
  return branch.startsWith('digits') ? 'text' : branch;
};

/** The malformed values a check sends: every one, or the first of each validation branch (`TargetEnv.hostileInputs`). */
export interface HostileValues {
  /** One value per validation branch (a given target), not every one. */
  perBranch: boolean;
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
    return { perBranch: false, strings: HOSTILE_STRINGS, amounts: MALFORMED_AMOUNTS, keys: MALFORMED_KEYS, pathIds: MALFORMED_PATH_IDS };
  return {
    perBranch: true,
    strings: perBranch(HOSTILE_STRINGS, branchOf),
    amounts: perBranch(MALFORMED_AMOUNTS, amountBranch),
    keys: perBranch(MALFORMED_KEYS, keyBranch),
    pathIds: perBranch(MALFORMED_PATH_IDS, pathIdBranch),
  };
}

/**
 * A generated invalid request in a branch the fixed inputs of both services cover: a query parameter's value of the
 * wrong type or format (every documented query parameter gets text that is neither), a body of the wrong JSON type
 * (the bodies that are null, an array, a string).
 */
function coveredByFixedInputs(sample: InvalidRequestSample): boolean {
  const { keyword, path } = sample.violation;
  if (sample.target.startsWith('query:')) return keyword === 'type' || keyword === 'pattern';
  return sample.target === 'body' && keyword === 'type' && path === '';
}

/**
 * The branches of the HTTP layer an operation gets: every one when the run sends every input; on a given target a
 * share, in turn. How a path segment is decoded (very long, traversal, control characters, other unicode), how deep or
 * large a body may be and which content type it needs are decided by a service's HTTP stack for all its operations,
 * not by each operation's validation: each operation (the `turn`-th of `of`) gets some of them, so that each still
 * reaches several operations and every operation some.
 */
export function inTurn<T>(hostile: HostileValues, values: readonly T[], turn: number, of: number): readonly T[] {
  if (!hostile.perBranch || values.length === 0) return values;
  const n = Math.min(Math.max(1, of), values.length);
  return values.filter((_, j) => j % n === turn % n);
}

/** Branches of a path segment or query value that its decoding decides (see inTurn). */
export const DECODING_BRANCHES: ReadonlySet<string> = new Set(['long', 'traversal', 'control', 'unicode']);

/**
 * The hostile strings of the `turn`-th of `of` parameters of a query: every one of `own` when the run sends every
 * input; else those of the parameter's own validation, and its share (inTurn) of the decoding branches of `all`.
 */
export function stringsInTurn(
  hostile: HostileValues,
  own: readonly string[],
  turn: number,
  of: number,
  all: readonly string[] = own,
): readonly string[] {
  if (!hostile.perBranch) return own;
  const decoding = (v: string) => DECODING_BRANCHES.has(branchOf(v));
  return [...own.filter((v) => !decoding(v)), ...inTurn(hostile, all.filter(decoding), turn, of)];
}

/**
 * Whether to send a generated invalid request: always when the run sends every input, else the first of each branch
 * (what the sample makes invalid, and how) per operation (per sweep for a header the HTTP layer reads) that no fixed
 * input covers; the others pass unsent.
 */
export function generatedSampler(env: TargetEnv): (operation: string, sample: InvalidRequestSample) => boolean {
  if (env.hostileInputs !== 'per-branch') return () => true;
  const first = firstOfBranch();
  // A header read by the service's HTTP layer, the same for every operation (X-Request-Id): its branch once per sweep.
  // X-Idempotency-Key is read by each write that takes it, often per route: its branch per operation.
  const perSweep = (target: string) => target.startsWith('header:') && !/idempotency/i.test(target);
  return (operation, sample) =>
    !coveredByFixedInputs(sample) && first(`${perSweep(sample.target) ? '' : operation} ${sample.target} ${sample.violation.keyword}`);
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

/**
 * Unknown query parameters (`unknown`, a raw query string) and one repeated: two requests, or on a given target one
 * request with both, since an unknown parameter is one branch whatever it looks like (ignored, or rejected).
 */
export function unknownQueries(hostile: HostileValues, unknown: string): Array<{ what: string; query: string }> {
  if (hostile.perBranch) return [{ what: 'unknown query parameters, one repeated', query: `${unknown}&conformanceUnknown=b` }];
  return [
    { what: 'unknown query parameters', query: unknown },
    { what: 'an unknown query parameter repeated', query: 'conformanceUnknown=a&conformanceUnknown=b' },
  ];
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
 * How long a malformed request may go unanswered before it is a hang: an answer later than --timeout is waited for once
 * more, ten times as long (at most the default --timeout, 30 s), so a slow target is not failed for a tight --timeout.
 */
export const hangWaitMs = (timeoutMs: number): number => Math.max(timeoutMs, Math.min(30_000, 10 * timeoutMs));

/**
 * Send one hostile request without retries or spec validation (the hostile checks judge the answer themselves). No
 * answer is a failure of `rule` (a hang: none within --timeout, nor when the request is sent once more and waited for
 * `hangWaitMs`), and so is a dropped connection: a keep-alive connection the target
 * closed while this worker was busy is not one (the client sends a request that may be sent twice once more on a new
 * connection, and any other on a connection of its own: suites/harness/client.ts).
 */
export async function sendHostile(t: CheckContext, client: ServiceClient, rule: RuleId, spec: RequestSpec): Promise<Exchange> {
  const request = { ...spec, retry: false, validate: false };
  const what = `${request.method ?? 'GET'} ${request.path}`;
  let waited = '';
  try {
    try {
      return await client.request(request);
    } catch (e) {
      const wait = e instanceof LateAnswer ? hangWaitMs(e.timeoutMs) : 0;
      if (!(e instanceof LateAnswer) || wait <= e.timeoutMs) throw e;
      waited = ` (sent once more after ${e.timeoutMs} ms of --timeout, and waited ${wait} ms)`;
      t.note(`${what} with a malformed request answered nothing within --timeout ${e.timeoutMs} ms: sent once more, waiting ${wait} ms`);
      return await client.request({ ...request, timeoutMs: wait });
    }
  } catch (e) {
    if (e instanceof ConformanceFailure) {
      t.fail(rule, {
        documented: `${what} with a malformed request is answered within the suite's timeout`,
        received: e.detail.received,
      });
    }
    if (e instanceof LateAnswer) {
      t.fail(rule, { documented: `${what} with a malformed request is answered within the suite's timeout${waited}`, received: e.reason });
    }
    if (e instanceof SetupFailed) {
      t.fail(rule, { documented: `${what} with a malformed request is answered (a client error), not dropped`, received: e.reason });
    }
    throw e;
  }
}

/** Sends refused once a sweep has ended: the input that met one was cut short, not answered wrongly. */
class SweepEnded extends Skipped {
  constructor() {
    super('the sweep ended at an input left without an answer, or one that could not be judged');
    this.name = 'SweepEnded';
  }
}

/**
 * One input of a sweep: a bad request (or a property over generated ones) and its judgement. `run` sends with `send`
 * (sendHostile, counted under `operation`) and judges with `t.expect`; a conformance failure it throws is this input
 * answered wrongly.
 */
export interface SweepInput {
  operation: string;
  /**
   * The state of the target this input meets (a user, a real order); inputs without one meet none that a sweep
   * changes. The inputs of one state keep, towards those that may change it (`alone`), the order of a run of one at
   * a time.
   */
  state?: string;
  /**
   * A conforming server may serve it (2xx) and so change its `state` (a pending order, a paused or modified order, an
   * idempotency key, a per-user limit): it waits for the inputs of that state before it, and those after it wait for
   * it, so that each meets the state a run of one at a time leaves it.
   */
  alone?: boolean;
  run(send: (spec: RequestSpec) => Promise<Exchange>): Promise<void>;
}

/** How many inputs of a sweep are under way at once: the run's check slots (--max-concurrency; 1 is one at a time). */
export const sweepWidth = (env: TargetEnv): number => checkSlots(env.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY);

interface Outcome {
  tally: Record<string, number>;
  error?: unknown;
  /** One of its requests was left without an answer: it sends no more. */
  unanswered: boolean;
}

/**
 * The turns of the inputs of each state, handed out in the inputs' order: an input that may change its state waits
 * for every input of that state before it; any other input waits for the last of those before it.
 */
class StateTurns {
  private readonly states = new Map<string, { changed: Promise<unknown>; since: Array<Promise<unknown>> }>();

  /** When input `done` (of `state`, `alone` or not) may send; `done` settles when it has finished. */
  take(state: string | undefined, alone: boolean, done: Promise<unknown>): Promise<unknown> {
    if (state === undefined) return Promise.resolve();
    const s = this.states.get(state) ?? { changed: Promise.resolve(), since: [] };
    this.states.set(state, s);
    if (!alone) {
      s.since.push(done);
      return s.changed;
    }
    const turn = Promise.allSettled([s.changed, ...s.since]);
    s.changed = done;
    s.since = [];
    return turn;
  }
}

/**
 * One sweep of bad inputs over a service: it counts what it sends per operation, and goes on after a bad answer so
 * that every input is tried and counted; the first failure in the inputs' order is thrown at the end (`finish`). An
 * input left without an answer (a hang, a dropped connection), or stopped by what is no answer to judge (a 429, a
 * suite error), ends the sweep: no input after it is sent, and its error is thrown.
 *
 * `inputs` sends up to `width` requests at once (sweepWidth; 1: one input after another), with the verdicts of a run
 * of one at a time: the failure reported is the first in the inputs' order, whatever order the answers come in; the
 * inputs that may change a state keep their place among those that meet it (SweepInput.alone); when the sweep ends at
 * an input, the ones before it finish, and what the ones after it that were under way sent or met is neither counted
 * nor judged, so the tally and the notes say what a run of one at a time says.
 */
export class Sweep {
  readonly tally: Record<string, number> = {};
  private first?: ConformanceFailure;
  private failures = 0;
  private unanswered?: ConformanceFailure;
  private cutShort = 0;

  private keep(e: ConformanceFailure): void {
    this.failures++;
    this.first ??= e;
  }

  /** Send and judge `inputs`, up to `width` requests under way at once (see the class). */
  async inputs(
    t: CheckContext,
    client: ServiceClient,
    rule: RuleId,
    inputs: readonly SweepInput[],
    width = sweepWidth(t.env),
  ): Promise<void> {
    if (this.unanswered) throw this.unanswered;
    const outcomes: Outcome[] = inputs.map(() => ({ tally: {}, unanswered: false }));
    const turns = new StateTurns();
    const places = new ConcurrencyLimit(width);
    /** The first input (in the inputs' order) that ended the sweep so far. */
    let end = Number.POSITIVE_INFINITY;
    const one = async (input: SweepInput, i: number): Promise<void> => {
      if (i > end) return;
      const o = outcomes[i]!;
      let finished = () => {};
      const turn = turns.take(input.state, input.alone === true, new Promise<void>((r) => (finished = r)));
      const send = async (spec: RequestSpec): Promise<Exchange> => {
        await turn;
        const release = await places.acquire();
        try {
          if (i > end || o.unanswered) throw new SweepEnded();
          o.tally[input.operation] = (o.tally[input.operation] ?? 0) + 1;
          return await sendHostile(t, client, rule, spec);
        } catch (e) {
          if (e instanceof ConformanceFailure) {
            o.unanswered = true;
            o.error ??= e;
            end = Math.min(end, i);
          }
          throw e;
        } finally {
          release();
        }
      };
      try {
        await input.run(send);
      } catch (e) {
        if (e instanceof SweepEnded) return;
        o.error = e;
        if (!(e instanceof ConformanceFailure)) end = Math.min(end, i);
      } finally {
        finished();
      }
    };
    // One at a time: each input after the one before it. Else every input begins at once, in the inputs' order, so
    // that each takes its turn (StateTurns) and each property (t.property) its ordinal, as a replay (--fc-path) counts
    // them, in that order; what is ready is sent first come first served, at most `width` at once.
    if (width === 1) await mapAtMost(inputs, 1, one);
    else await Promise.all(inputs.map(one));
    const ended = Number.isFinite(end);
    const counted = ended ? outcomes.slice(0, end + 1) : outcomes;
    this.cutShort += ended ? outcomes.slice(end + 1).filter((o) => Object.keys(o.tally).length > 0).length : 0;
    for (const [i, o] of counted.entries()) {
      for (const [operation, n] of Object.entries(o.tally)) this.tally[operation] = (this.tally[operation] ?? 0) + n;
      if (i !== end && o.error instanceof ConformanceFailure) this.keep(o.error);
    }
    if (ended) {
      const error = outcomes[end]!.error;
      if (error instanceof ConformanceFailure) this.unanswered = error;
      throw error;
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
        .join('; ') +
      (this.cutShort > 0 ? ` (${this.cutShort} more, sent before the sweep ended, neither counted nor judged)` : '')
    );
  }

  /** Throw the first failure kept, if any. */
  finish(): void {
    if (this.first) throw this.first;
  }
}

/**
 * A property of `rule` over `arb` (as `t.property`: the run's seed and `numRuns`, the same counterexample, shrinking
 * and --fc-path replay) whose requests go out ahead of their turn, up to the run's check slots at once (sweepWidth):
 * the values fast-check tries first are known in advance (`fc.sample` with the same seed), so each is sent while the
 * ones before it are still under way, and judged in its turn by `judge`. Nothing more is sent ahead once a value was
 * judged wrong or a request failed; a value not sent ahead (a shrink, a replay, a run of one at a time) is sent in its
 * turn. In a passing run every value is sent exactly once, as one at a time.
 */
export async function propertyAhead<T>(
  t: CheckContext,
  rule: RuleId,
  arb: fc.Arbitrary<T>,
  send: (value: T) => Promise<Exchange>,
  judge: (value: T, ex: Exchange) => void | Promise<void>,
  numRuns = t.env.numRuns,
): Promise<void> {
  const width = sweepWidth(t.env);
  const values = width === 1 || t.env.fcPath ? [] : fc.sample(arb, { seed: t.env.seed, numRuns });
  const ahead = new Map<number, Promise<Exchange>>();
  let stop = false;
  const fetch = (i: number) => {
    if (stop || i >= values.length || ahead.has(i)) return;
    const answer = send(values[i]!);
    answer.catch(() => {
      stop = true;
    });
    ahead.set(i, answer);
  };
  let turn = 0;
  try {
    await t.property(
      rule,
      arb,
      async (value) => {
        const i = turn++;
        for (let j = i; j < (width > 0 ? i + width : values.length); j++) fetch(j);
        const fetched = ahead.get(i);
        const ex = await (fetched && isDeepStrictEqual(values[i], value) ? fetched : send(value));
        try {
          await judge(value, ex);
        } catch (e) {
          stop = true;
          throw e;
        }
      },
      numRuns,
    );
  } finally {
    await Promise.allSettled(ahead.values());
  }
}

/**
 * A malformed boolean flag, sent and judged: against the embedded server a property of `rule` over `notABoolean`
 * (propertyAhead); on a given target (`hostileInputs` per-branch) each of MALFORMED_BOOLEANS once, up to the run's
 * check slots at once (sweepWidth; 1: one after another), judged in their order.
 */
export async function malformedFlag(
  t: CheckContext,
  rule: RuleId,
  send: (value: string) => Promise<Exchange>,
  judge: (value: string, ex: Exchange) => void,
): Promise<void> {
  if (t.env.hostileInputs !== 'per-branch') return propertyAhead(t, rule, notABoolean, send, judge);
  const answers = await mapAtMost(MALFORMED_BOOLEANS, sweepWidth(t.env), send);
  MALFORMED_BOOLEANS.forEach((value, i) => judge(value, answers[i]!));
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
