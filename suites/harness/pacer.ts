import { readFileSync, writeFileSync } from 'node:fs';

/**
 * The request budget of a run, obeyed by every request the harness sends (suites/harness/client.ts):
 * - `Pacer`: at most `maxRps` requests per second leave this process, whatever check sends them (--max-rps);
 * - `ConcurrencyLimit`: at most `max` requests are in flight at once (--max-concurrency);
 * - a 429 with a usable retry-after holds every later request of the run until it has passed (`Pacer.holdFor`).
 * Both services' checks run in one process (suites/conformance.test.ts), so one of each per process is the whole
 * budget of the target, shared by the checks under way (suites/harness/schedule.ts). What must last the whole run (the
 * retry-after wait spent) is kept in a file (RetryAfterBudget).
 */
export class Pacer {
  private next = 0;
  private heldUntil = 0;

  constructor(
    private readonly maxRps: number,
    private readonly now = () => Date.now(),
    private readonly sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
  ) {}

  /**
   * Hold every later request for `ms`: a 429's retry-after speaks for the whole run, not only for the request that met
   * it (quote document, platform codes: "the client waits the number of seconds in the retry-after header"). Holds
   * never shorten one another. Applies with or without a rate budget.
   */
  holdFor(ms: number): void {
    this.heldUntil = Math.max(this.heldUntil, this.now() + ms);
  }

  /** Until when (pacer clock, ms) requests are held; 0 or a past time when they are not. */
  get heldUntilMs(): number {
    return this.heldUntil;
  }

  /** Wait for this request's slot: after any hold, then within the budget (0 means no budget). */
  async slot(): Promise<void> {
    for (;;) {
      const now = this.now();
      if (this.heldUntil > now) {
        await this.sleep(this.heldUntil - now);
        continue;
      }
      if (this.maxRps <= 0) return;
      const interval = 1000 / this.maxRps;
      const at = Math.max(now, this.next);
      this.next = at + interval;
      if (at > now) await this.sleep(at - now);
      // A 429 met by another request while this one waited for its slot holds this one too.
      if (this.heldUntil <= this.now()) return;
    }
  }
}

/** The default of --max-concurrency, on a given target and on the embedded server alike. */
export const DEFAULT_MAX_CONCURRENCY = 8;

/**
 * At most `max` holders at once; the others wait in arrival order (FIFO). 0 means no cap. A request holds a place
 * for one attempt (connect, send, read the whole answer) and gives it back before any retry pause, so a request
 * waiting out a `retry-after` never blocks the others.
 */
export class ConcurrencyLimit {
  private active = 0;
  private peak = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly max: number) {}

  /** Wait for a place; call the returned function (once; more calls are ignored) to give it back. */
  async acquire(): Promise<() => void> {
    if (this.max <= 0) return () => {};
    if (this.active < this.max) {
      this.active++;
    } else {
      // release() hands its place over directly, so `active` stays at max and no late arrival can jump the queue.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.peak = Math.max(this.peak, this.active);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    };
  }

  /** Requests holding a place now. */
  get inFlight(): number {
    return this.active;
  }

  /** Requests waiting for a place now. */
  get queued(): number {
    return this.waiting.length;
  }

  /** The most places held at once so far. */
  get highWater(): number {
    return this.peak;
  }
}

const pacers = new Map<number, Pacer>();
const limits = new Map<number, ConcurrencyLimit>();

/** The process-wide pacer for a budget. */
export function pacerFor(maxRps: number): Pacer {
  let pacer = pacers.get(maxRps);
  if (!pacer) pacers.set(maxRps, (pacer = new Pacer(maxRps)));
  return pacer;
}

/** The process-wide concurrency cap for a limit (every client of a run shares it). */
export function concurrencyLimitFor(max: number): ConcurrencyLimit {
  let limit = limits.get(max);
  if (!limit) limits.set(max, (limit = new ConcurrencyLimit(max)));
  return limit;
}

/**
 * How far a run goes, whatever the target does (README, "Safe to point at staging"): the largest body it reads, the
 * longest retry-after it waits out, the total time it waits for retry-after, and the run's deadline. Set once per
 * process from the run's options (`configureBounds`, target.ts); the defaults apply until then.
 */
export interface RunBounds {
  /** The largest response body read, in bytes (--max-body-bytes); a larger one is a failure of the rule. */
  maxBodyBytes: number;
  /** The longest retry-after waited out, in ms (--max-retry-after). */
  maxRetryAfterMs: number;
  /** The total time the run may wait for retry-after, in ms (--max-retry-wait). */
  maxRetryWaitMs: number;
  /** When the run must stop, epoch ms (--max-duration); no retry-after wait reaches past it. */
  deadlineAt?: number;
  /** --max-duration in seconds, to name it when the deadline is met. */
  maxDurationS?: number;
  /**
   * A file holding the retry-after wait spent so far, shared by the run's processes (the CLI's and the conformance
   * worker's); in memory when absent.
   */
  retryWaitFile?: string;
}

export const DEFAULT_BOUNDS: RunBounds = { maxBodyBytes: 8 * 1024 * 1024, maxRetryAfterMs: 65_000, maxRetryWaitMs: 300_000 };

/**
 * A retry-after wait granted (`extraMs`: how much it added to the waits already under way), or why not; refused because
 * it ends past the run's deadline, `untilDeadlineMs` says how far the deadline is: the run meets it while it waits.
 */
export type RetryAfterGrant = { granted: true; extraMs: number } | { granted: false; reason: string; untilDeadlineMs?: number };

/**
 * The run's retry-after waits: each within --max-retry-after and before the deadline, all together within
 * --max-retry-wait. Waits that overlap (requests in flight at once meeting the same limit) are charged once: a wait is
 * charged only for the time it adds after the latest end of the waits granted before it.
 */
export class RetryAfterBudget {
  private until = 0;
  private spentInMemory = 0;

  constructor(
    private readonly bounds: RunBounds,
    private readonly now = () => Date.now(),
  ) {}

  /** --max-duration in seconds, when the run has a deadline and says it. */
  get maxDurationS(): number | undefined {
    return this.bounds.maxDurationS;
  }

  /** The retry-after wait spent by the run so far, ms. */
  get spentMs(): number {
    const file = this.bounds.retryWaitFile;
    if (!file) return this.spentInMemory;
    try {
      const spent = Number(readFileSync(file, 'utf8'));
      return Number.isFinite(spent) ? spent : 0;
    } catch {
      return 0;
    }
  }

  private set spent(ms: number) {
    if (this.bounds.retryWaitFile) writeFileSync(this.bounds.retryWaitFile, String(ms));
    else this.spentInMemory = ms;
  }

  /** May the run wait `ms` for a retry-after? A granted wait is charged at once. */
  grant(ms: number): RetryAfterGrant {
    const { maxRetryAfterMs, maxRetryWaitMs, deadlineAt } = this.bounds;
    const now = this.now();
    if (ms > maxRetryAfterMs) return { granted: false, reason: `longer than --max-retry-after ${seconds(maxRetryAfterMs)} s` };
    if (deadlineAt !== undefined && now + ms > deadlineAt)
      return {
        granted: false,
        reason: "waiting would pass the run's deadline (--max-duration)",
        untilDeadlineMs: Math.max(0, deadlineAt - now),
      };
    const extraMs = Math.max(0, now + ms - Math.max(this.until, now));
    const spent = this.spentMs;
    if (spent + extraMs > maxRetryWaitMs) {
      return {
        granted: false,
        reason: `the run already waited ${seconds(spent)} s for retry-after, its budget is ${seconds(maxRetryWaitMs)} s (--max-retry-wait)`,
      };
    }
    this.until = Math.max(this.until, now + ms);
    this.spent = spent + extraMs;
    return { granted: true, extraMs };
  }
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

let bounds: RunBounds = DEFAULT_BOUNDS;
let retryAfter = new RetryAfterBudget(bounds);

/** Set the bounds of the run in this process (the main process and each worker). */
export function configureBounds(given: Partial<RunBounds> = {}): void {
  bounds = { ...DEFAULT_BOUNDS, ...Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) };
  retryAfter = new RetryAfterBudget(bounds);
}

/** The bounds of the run in this process. */
export function runBounds(): RunBounds {
  return bounds;
}

/** The process-wide retry-after budget of the run. */
export function retryAfterBudget(): RetryAfterBudget {
  return retryAfter;
}

/**
 * Independent steps at once, or one after the other when `sequential` (`--max-concurrency 1`: one request in flight at
 * a time); their results in order. Every step ends before the first failure in the given order is thrown.
 */
export async function inOrder<T extends unknown[]>(sequential: boolean, ...steps: { [K in keyof T]: () => Promise<T[K]> }): Promise<T> {
  const out: unknown[] = [];
  if (sequential) {
    for (const step of steps) out.push(await step());
    return out as T;
  }
  for (const outcome of await Promise.allSettled(steps.map((step) => step()))) {
    if (outcome.status === 'rejected') throw outcome.reason;
    out.push(outcome.value);
  }
  return out as T;
}

/**
 * `fn` over `items`, at most `width` at once (0: all at once), each started in the items' order; the results in the
 * items' order. Width 1 is one after another. The requests they send still obey the run's budget (Pacer,
 * ConcurrencyLimit): the width only bounds how many independent tasks are under way. The first failure (in time) is
 * thrown once every task under way has ended; no item starts after it.
 */
export async function mapAtMost<T, R>(items: readonly T[], width: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < items.length && !failed) {
      const i = next++;
      try {
        results[i] = await fn(items[i]!, i);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  const n = width > 0 ? Math.min(width, items.length) : items.length;
  // After a failure no item starts, and the ones under way end before it is thrown (nothing outlives the caller).
  const settled = await Promise.allSettled(Array.from({ length: n }, worker));
  const failure = settled.find((s) => s.status === 'rejected');
  if (failure) throw failure.reason;
  return results;
}
