/**
 * The request budget of a run, obeyed by every request the harness sends (suites/harness/client.ts):
 * - `Pacer`: at most `maxRps` requests per second leave this process, whatever check sends them (--max-rps);
 * - `ConcurrencyLimit`: at most `max` requests are in flight at once (--max-concurrency);
 * - a 429 with a usable retry-after holds every later request of the run until it has passed (`Pacer.holdFor`).
 * Conformance files run one at a time in one worker, so one of each per process is the whole budget.
 */
export class Pacer {
  private next = 0;
  private heldUntil = 0;

  constructor(private readonly maxRps: number, private readonly now = () => Date.now(),
    private readonly sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))) {}

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
