/**
 * Which checks may run at the same time, and in what order they start (README, `--max-concurrency`; CONTRIBUTING,
 * "Checks"). The checks of both services run in one process against one target (suites/conformance.test.ts), at most
 * `--max-concurrency` at once, except those that change or count state every check shares: such a check runs alone on
 * the whole target, with no other check of either service under way (the reference server's two services share one
 * clock and one price table, and a real target's control API may too). The checks that may overlap start first, then
 * the company's (below), then those that run alone, one after another (`runOrder`, `CheckQueue`). The rule, from data:
 * - it needs a capability whose state is global to the target (`SHARED_CAPABILITIES`: the virtual clock, prices and
 *   pools, faults, a quote key's metered rate limit);
 * - or it cites a rule of an area that counts everything of a tenant or a key (`SHARED_AREAS`: partner reporting,
 *   the quote rate limit and allowance);
 * - or it says so itself (`alone: true` on the check: it changes global state only when the target offers it).
 * A check that counts only what it made itself shares nothing of it, when the target lets it make its own: `ownTenant`
 * (tenants of its own, OWN_TENANT_NEEDS) for partner reporting, `ownQuoteKey` (quote keys of a new organization of its
 * own, OWN_QUOTE_KEY_NEEDS: Authentication 7, limits and credits are pooled per organization) for the rate limit and
 * allowance; it then runs beside the others, unless it needs the clock, prices or faults. One that meters the run's
 * own quote key (the target lacks OWN_QUOTE_KEY_NEEDS) runs alone on the whole target, not only apart from the other
 * quote checks: a 429's retry-after on that key holds every later request of the run, the order service's too
 * (pacer.ts `holdFor`), and an order check held for up to a minute could miss a window it meets on the wall clock.
 * A check that is not marked and still tries to change the clock, prices, pools or faults is stopped before the call
 * with a suite error (`guardSharedState`), so a missing mark is found on the first run, never a flaky verdict.
 *
 * Between the two, the company (`runsInCompany`): the checks marked `ownMarket` (the trigger checks, which trade in
 * markets of fresh test mints of their own, suites/orders/steps/triggers.ts, and two minimum-notional checks that price
 * a test mint of their own) need the clock and prices only to move their own prices and let the target see them, a
 * small step of the clock at a time. They run at the same time as each other, and
 * beside no other check: each sees the others' steps of the clock as time passing, and nothing of theirs moves its
 * prices. None of them sees the clock jump inside a window of its own (an intent and its confirm, a sign-in): windows
 * and advances pass the run's clock gate (clock-gate.ts, `CheckContext.window`), never both at once. The guard lets a
 * member advance the clock only through the gate and set only the prices of its own mints (`freshMint`), never pools or
 * faults.
 */
import type { Check } from './check.ts';
import { clockGate } from './clock-gate.ts';
import { ControlAdapter } from './control.ts';
import type { Capability, TargetEnv } from './types.ts';

export const SHARED_CAPABILITIES: readonly Capability[] = ['clock', 'prices', 'faults', 'rate-limits'];

/** Rule-id prefixes of the areas whose checks count everything of a tenant (`/partners/me/*`) or of a key (429 metering). */
export const SHARED_AREAS: readonly string[] = ['OA-REP-', 'Q-RATE-'];

/** What a target offers for a check marked `ownTenant` to count a tenant it made itself, with users of its own. */
export const OWN_TENANT_NEEDS: readonly Capability[] = ['tenants', 'funding'];

/** What a target offers for a check marked `ownQuoteKey` to meter only keys it made itself, with a plan of its own. */
export const OWN_QUOTE_KEY_NEEDS: readonly Capability[] = ['quote-keys', 'rate-limits'];

/** The capabilities a check marked `ownMarket` shares with its company only: the clock in steps, prices of its own mints. */
export const OWN_MARKET_SHARES: readonly Capability[] = ['clock', 'prices'];

/** The largest step of the clock a company member may take (the trigger checks step by 30 s). */
export const COMPANY_STEP_SECONDS = 60;

/** Where a check runs: beside any check but those that do not (`overlap`), beside its company only, or alone. */
export type Place = 'overlap' | 'company' | 'alone';

/**
 * Where `check` runs on a target offering `capabilities`. A check marked `ownTenant` counts only tenants it made itself
 * when they hold OWN_TENANT_NEEDS, so its reporting rules share nothing then; one marked `ownQuoteKey` meters only quote
 * keys of an organization it made itself when they hold OWN_QUOTE_KEY_NEEDS, so neither its rate-limit rules nor
 * `rate-limits` share anything then. Without them (or when the capabilities are not given) it counts the run's tenant
 * or the run's quote key, and runs alone. One marked `ownMarket` whose shared needs are all OWN_MARKET_SHARES runs in the
 * company; any other shared need (faults, a counting area, `alone: true`) makes it run alone.
 */
export function placeOf(check: Check, capabilities: readonly Capability[] = []): Place {
  const offers = (needs: readonly Capability[]) => needs.every((c) => capabilities.includes(c));
  const ownTenant = check.ownTenant === true && offers(OWN_TENANT_NEEDS);
  const ownQuoteKey = check.ownQuoteKey === true && offers(OWN_QUOTE_KEY_NEEDS);
  const own = (shared: string) =>
    (ownTenant && shared === 'OA-REP-') || (ownQuoteKey && (shared === 'Q-RATE-' || shared === 'rate-limits'));
  if (check.alone === true) return 'alone';
  const sharedNeeds = (check.needs ?? []).filter((c) => SHARED_CAPABILITIES.includes(c) && !own(c));
  const areas = SHARED_AREAS.filter((prefix) => check.rules.some((id) => id.startsWith(prefix)) && !own(prefix));
  if (sharedNeeds.length === 0 && areas.length === 0) return 'overlap';
  const company = check.ownMarket === true && areas.length === 0 && sharedNeeds.every((c) => OWN_MARKET_SHARES.includes(c));
  return company ? 'company' : 'alone';
}

/** Does `check` run with no other check at the same time, on a target offering `capabilities` (placeOf)? */
export function runsAlone(check: Check, capabilities: readonly Capability[] = []): boolean {
  return placeOf(check, capabilities) === 'alone';
}

/** Does `check` run beside the checks of its company only (placeOf)? */
export function runsInCompany(check: Check, capabilities: readonly Capability[] = []): boolean {
  return placeOf(check, capabilities) === 'company';
}

/**
 * Do the order checks share one user? Without the `funding` capability every order check onboards the run's own wallet
 * (TEST_WALLET_SECRET_KEY, suites/orders/users.ts): its balances, locks and order lists are one state that every check
 * reads, so a full run's order checks then run one at a time, whatever `--max-concurrency` says.
 */
export function ordersShareOneWallet(env: Pick<TargetEnv, 'capabilities' | 'profile'>): boolean {
  return env.profile === 'full' && !env.capabilities.includes('funding');
}

/** How many checks may run at once for `--max-concurrency N` (0: no cap). 1 is a strictly sequential run. */
export function checkSlots(maxConcurrency: number): number {
  return maxConcurrency > 0 ? maxConcurrency : 1000;
}

/**
 * Consecutive checks cut into runs: a run of checks that may overlap, a run of one company's checks (which may overlap
 * each other), or one check that runs alone.
 */
export function segments(checks: readonly Check[], capabilities: readonly Capability[] = []): Array<{ place: Place; checks: Check[] }> {
  const out: Array<{ place: Place; checks: Check[] }> = [];
  for (const check of checks) {
    const place = placeOf(check, capabilities);
    const last = out.at(-1);
    if (last && place !== 'alone' && last.place === place) last.checks.push(check);
    else out.push({ place, checks: [check] });
  }
  return out;
}

/** The control calls that change what every check of the target sees. */
const SHARED_WRITES = ['advanceClock', 'setPrice', 'setPool', 'setFaults'] as const;

/**
 * Stop a check before it changes the target's shared state beyond its place (a suite error naming the fix): one that
 * may overlap changes none of it; a company member advances the clock only through the run's clock gate (never inside a
 * window of another member) by COMPANY_STEP_SECONDS at most, reads it only inside a window of its own, and sets only
 * the prices of its own test mints (`ControlAdapter.freshMint`).
 */
export function guardSharedState(control: ControlAdapter, check: Check): void {
  const place = placeOf(check, control.capabilities);
  if (place === 'alone') return;
  const refuse = (method: string, why: string) => async () => {
    throw new Error(`check "${check.name}" calls ${method}, ${why}`);
  };
  for (const method of SHARED_WRITES) {
    control[method] = refuse(
      method,
      place === 'overlap'
        ? 'which changes state every check shares, but may run beside other checks: give it `alone: true` (suites/harness/schedule.ts)'
        : 'which changes state its company shares (`ownMarket`: only its own prices and steps of the clock): give it `alone: true` (suites/harness/schedule.ts)',
    );
  }
  if (place !== 'company') return;
  const { advanceClock, clock, setPrice } = ControlAdapter.prototype;
  control.advanceClock = async (seconds) => {
    if (seconds > COMPANY_STEP_SECONDS)
      throw new Error(
        `check "${check.name}" advances the clock by ${seconds} s: a company member (\`ownMarket\`) moves it by steps of at most ${COMPANY_STEP_SECONDS} s; give it \`alone: true\` (suites/harness/schedule.ts)`,
      );
    return await clockGate.advance(() => advanceClock.call(control, seconds));
  };
  // A time read is good only while no other member can move the clock: inside a window.
  control.clock = async () => {
    if (!clockGate.inWindow())
      throw new Error(
        `check "${check.name}" reads the clock outside a window: a company member (\`ownMarket\`) reads it only inside \`t.window(...)\`, where no other member moves it (suites/harness/schedule.ts)`,
      );
    return await clock.call(control);
  };
  control.setPrice = async (mint, usdPrice) => {
    if (!control.madeMint(mint))
      throw new Error(
        `check "${check.name}" sets the price of ${mint}, not a mint of its own (\`t.control.freshMint()\`): a company member (\`ownMarket\`) moves only the prices of its own mints (suites/harness/schedule.ts)`,
      );
    await setPrice.call(control, mint, usdPrice);
  };
}

/**
 * The order the checks of a run start in, the services' areas given in declaration order. Sequential (`--max-concurrency
 * 1`): the declaration order. Otherwise the checks that may overlap first, then the company's, then each that runs
 * alone, each in declaration order: a few alone checks scattered among the others would cut the run into short
 * concurrent stretches, each waiting for its slowest check (issue 17: on a 100-300 ms target fewer than 2 checks were
 * under way on average). The checks of a lane (`laneOf`: the order checks on one shared wallet) keep their declaration
 * order, alone or not, ahead of the rest.
 */
export function runOrder(
  groups: ReadonlyArray<readonly [string, readonly Check[]]>,
  sequential: boolean,
  place: (check: Check) => Place = (check) => placeOf(check),
  laneOf: (check: Check) => string | undefined = () => undefined,
): Check[] {
  const declared = groups.flatMap(([, checks]) => checks);
  if (sequential) return declared;
  const tier = (c: Check) => (laneOf(c) !== undefined ? 0 : ['overlap', 'company', 'alone'].indexOf(place(c)));
  return [0, 1, 2].flatMap((k) => declared.filter((c) => tier(c) === k));
}

/** A check waiting for its turn, or under way (in its test's meta: plain data). */
export interface Turn {
  check: string;
  /** its place in `runOrder`: the lower starts first */
  rank: number;
  alone: boolean;
  /** runs beside the checks of the company only (placeOf `company`) */
  company?: true;
  /** the checks of one lane run one at a time, in rank order */
  lane?: string;
}

/**
 * The run's checks: which may start now. At most `slots` under way; one that runs alone starts when nothing else is
 * under way, and nothing else starts until it ends; the checks of the company beside each other only (the first starts
 * when nothing else is under way, the others join it while it lasts); the checks of a lane one at a time, in their
 * order; otherwise by rank. A check waiting for the others to end (alone, or a company's) does not hold back those ranked
 * after it (the checks that may overlap are all ranked before the company's, and those before the alone ones; or
 * another lane's): it starts once they have all ended. Pure bookkeeping, no timers: `Scheduler` drives it.
 */
export class CheckQueue {
  private readonly waiting: Turn[] = [];
  private readonly running = new Set<Turn>();

  constructor(readonly slots: number) {}

  add(turn: Turn): void {
    const at = this.waiting.findIndex((t) => t.rank > turn.rank);
    this.waiting.splice(at === -1 ? this.waiting.length : at, 0, turn);
  }

  /** Take a waiting check out (its run was cancelled). */
  remove(turn: Turn): void {
    const at = this.waiting.indexOf(turn);
    if (at !== -1) this.waiting.splice(at, 1);
  }

  /** The checks that start now, in rank order; they are under way from here until `done`. */
  next(): Turn[] {
    const running = [...this.running];
    if (running.some((t) => t.alone)) return [];
    const heldLanes = new Set(running.flatMap((t) => t.lane ?? []));
    // Whether a check of the company, and one of none, is under way.
    let company = running.some((t) => t.company === true);
    let others = running.some((t) => t.company !== true);
    const start: Turn[] = [];
    for (const turn of this.waiting) {
      if (running.length + start.length >= this.slots) break;
      if (turn.lane !== undefined && heldLanes.has(turn.lane)) continue;
      if (turn.lane !== undefined) heldLanes.add(turn.lane);
      if (turn.alone) {
        if (running.length + start.length > 0) continue;
        start.push(turn);
        break;
      }
      if (turn.company === true ? others : company) continue;
      start.push(turn);
      if (turn.company === true) company = true;
      else others = true;
    }
    for (const turn of start) {
      this.remove(turn);
      this.running.add(turn);
    }
    return start;
  }

  done(turn: Turn): void {
    this.running.delete(turn);
  }

  /** Checks under way. */
  get underWay(): number {
    return this.running.size;
  }

  /** Checks waiting for their turn. */
  get queued(): number {
    return this.waiting.length;
  }
}

/**
 * Hands out turns of a `CheckQueue` (suites/harness/check-runner.mjs): `turn` resolves when the check may start, with the
 * function that ends its turn. Checks arriving together (vitest starts every test of the run at once) are all queued
 * before any starts, so that the first to start is the first by rank, not the first to arrive. A cancelled wait
 * (`signal`: Ctrl-C, the deadline) leaves the queue and rejects with the signal's reason: the check never starts.
 */
export class Scheduler {
  private pending = false;
  private readonly granted = new Map<Turn, () => void>();

  constructor(private readonly queue: CheckQueue) {}

  turn(turn: Turn, signal?: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        this.queue.remove(turn);
        this.granted.delete(turn);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.granted.set(turn, () => {
        signal?.removeEventListener('abort', onAbort);
        let ended = false;
        resolve(() => {
          if (ended) return;
          ended = true;
          this.queue.done(turn);
          this.dispatchSoon();
        });
      });
      this.queue.add(turn);
      this.dispatchSoon();
    });
  }

  private dispatchSoon(): void {
    if (this.pending) return;
    this.pending = true;
    setImmediate(() => {
      this.pending = false;
      for (const turn of this.queue.next()) {
        const grant = this.granted.get(turn);
        this.granted.delete(turn);
        grant?.();
      }
    });
  }
}
