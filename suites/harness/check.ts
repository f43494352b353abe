import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { AssumptionLog, type Assumption } from './assumptions.ts';
import { ServiceClient, type Violation } from './client.ts';
import { clockGate } from './clock-gate.ts';
import { ControlAdapter } from './control.ts';
import { noteCreated } from './ledger.ts';
import { concurrencyLimitFor, DEFAULT_MAX_CONCURRENCY, pacerFor } from './pacer.ts';
import { safeMethodsOnly } from './safe-methods.ts';
import { runsInCompany } from './schedule.ts';
import type { Exchange } from './exchange.ts';
import { ConformanceFailure, SetupFailed, Skipped, Unsupported, type FailureDetail } from './failure.ts';
import type { RuleId } from '../../generators/vocabulary.ts';
import type { Capability, Profile, ServiceName, TargetEnv } from './types.ts';

/** One check: a small object named after the fact it checks, citing the rule ids it covers (STYLE.md 1, 2). */
export interface Check {
  /** kebab-case fact, e.g. `info-publishes-numquotes-range`; unique across the suite */
  name: string;
  service: ServiceName;
  rules: readonly RuleId[];
  /** the least profile that runs it: smoke < readonly < full */
  profile: Profile;
  /** capabilities of the control API it needs; missing ones make the verdict `unsupported` */
  needs?: readonly Capability[];
  /** runs with no other check: it changes the target's shared state (clock, prices, faults) when offered (schedule.ts) */
  alone?: true;
  /**
   * every tenant whose reports it counts (partner reporting) is one it made itself when the target offers `tenants`
   * and `funding` (e.g. suites/orders/steps/own-tenant.ts): it may then run beside other checks (schedule.ts)
   */
  ownTenant?: true;
  /**
   * every quote key whose rate limit and credits it counts is one it made itself, of a new organization, when the target
   * offers `quote-keys` and `rate-limits` (e.g. suites/quotes/rate.checks.ts): it may then run beside other checks (schedule.ts)
   */
  ownQuoteKey?: true;
  /**
   * every price it sets is of a test mint of its own (`t.control.freshMint()`: suites/orders/steps/triggers.ts
   * `markets`), and it advances the clock only by small steps, to let the target see those prices: its verdict holds
   * whatever steps others add meanwhile, outside its windows (`CheckContext.window`). It then runs in a company: beside
   * the other checks so marked, and no other (schedule.ts); with faults or another shared need it runs alone.
   */
  ownMarket?: true;
  /**
   * its first user is a default-funded user of its own wallet (suites/orders/orders.ts `intentUser(t, true)`): when it
   * runs alone, the run's user pool makes that user ahead, while the checks that may overlap run
   * (suites/orders/user-pool.ts); a check so marked that makes no such user leaves one unused
   */
  pooledUser?: true;
  run(t: CheckContext): Promise<void>;
  /** where it is defined, `suites/…/x.checks.ts:LINE` (set by defineCheck); failures print it */
  source?: string;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

// Deep enough that a failure raised in a helper still shows the frame of the check that called it (failure sites).
Error.stackTraceLimit = Math.max(Error.stackTraceLimit, 50);

/** `suites/…/file.ts:LINE` of one stack frame in the project (absolute path or file URL), else undefined. */
export function sourceSite(frame: string): string | undefined {
  const m = /(?:file:\/\/)?(\/[^\s():]+\.ts):(\d+):\d+/.exec(frame);
  if (!m) return undefined;
  const path = relative(ROOT, m[1]!);
  return path.startsWith('..') ? undefined : `${path}:${m[2]}`;
}

/** `rules` written as literals must be rule ids of the catalogue (a misspelt id is a type error). */
export function defineCheck(check: Check): Check {
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(check.name)) throw new Error(`check name "${check.name}" is not kebab-case`);
  if (check.rules.length === 0) throw new Error(`check "${check.name}" cites no rule`);
  // The line of the check's own file that defines it: the outermost caller frame in a *.checks.ts file (a factory's
  // caller, not the factory), else the caller.
  const sites = (new Error().stack ?? '')
    .split('\n')
    .slice(2)
    .map(sourceSite)
    .filter((site): site is string => site !== undefined);
  check.source ??= sites.findLast((site) => /\.checks\.ts:/.test(site)) ?? sites[0];
  return check;
}

/** What a check sees while it runs: clients for both services, the control adapter, and the assertions. */
export class CheckContext {
  readonly exchanges: Exchange[] = [];
  readonly violations: Violation[] = [];
  readonly notes: string[] = [];
  readonly cleanups: Array<() => Promise<void>> = [];
  /** Bad inputs tried per operation (hostile-input checks); reported on the CheckResult and in the matrix. */
  tally?: Record<string, number>;
  /** What the target confirmed or rejected of the suite's assumptions in this check (assumptions.ts). */
  readonly assumptions = new AssumptionLog();
  readonly orders: ServiceClient;
  readonly quotes: ServiceClient;
  /** The distributor path with the run's JWT, when the target has one (QUOTES_JWT and --gateway-url, or provisioned). */
  readonly gateway?: ServiceClient;
  readonly control: ControlAdapter;

  constructor(
    readonly check: Check,
    readonly env: TargetEnv,
  ) {
    const record = (e: Exchange) => {
      this.exchanges.push(e);
      noteCreated(e);
    };
    const pacer = pacerFor(env.maxRps);
    const limit = concurrencyLimitFor(env.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY);
    const violation = (v: Violation) => this.violations.push(v);
    const orderHeaders: Record<string, string> = { accept: 'application/json' };
    if (env.credentials.ordersApiKey) orderHeaders['X-Service-Key'] = env.credentials.ordersApiKey;
    const quoteHeaders: Record<string, string> = { accept: 'application/json' };
    if (env.credentials.quotesApiKey) quoteHeaders['x-api-key'] = env.credentials.quotesApiKey;
    // smoke and readonly send the order service safe methods only (safe-methods.ts).
    this.orders = safeMethodsOnly(
      new ServiceClient({
        service: 'orders',
        baseUrl: env.ordersUrl,
        timeoutMs: env.timeoutMs,
        defaultHeaders: orderHeaders,
        record,
        violation,
        pacer,
        limit,
      }),
      check.name,
      env.profile,
    );
    this.quotes = new ServiceClient({
      service: 'quotes',
      baseUrl: env.quotesUrl,
      timeoutMs: env.timeoutMs,
      defaultHeaders: quoteHeaders,
      record,
      violation,
      pacer,
      limit,
    });
    if (env.gatewayUrl && env.credentials.quotesJwt) {
      this.gateway = new ServiceClient({
        service: 'quotes',
        baseUrl: env.gatewayUrl,
        timeoutMs: env.timeoutMs,
        record,
        violation,
        pacer,
        limit,
        errorBodies: 'status-only',
        defaultHeaders: { authorization: `Bearer ${env.credentials.quotesJwt}` },
      });
    }
    this.control = new ControlAdapter(env.controlUrl, env.capabilities, env.timeoutMs, record);
  }

  /** The properties this check has run so far: the ordinal of each names it in a replay's --fc-path (fc-path.ts). */
  private properties = 0;

  /**
   * fast-check's parameters for the next property of this check: the run's seed and `numRuns`, and the path of
   * --fc-path when it names this property (the replay then goes straight to the counterexample).
   */
  nextProperty(numRuns: number): { ordinal: number; parameters: { seed: number; numRuns: number; path?: string } } {
    const ordinal = ++this.properties;
    const path = this.env.fcPath?.property === ordinal ? this.env.fcPath.path : undefined;
    return { ordinal, parameters: { seed: this.env.seed, numRuns, ...(path ? { path } : {}) } };
  }

  private cite(rule: RuleId): void {
    if (!this.check.rules.includes(rule)) throw new Error(`check "${this.check.name}" asserts ${rule} but does not cite it`);
  }

  /**
   * Assert a fact of `rule`; on failure the check fails naming that rule. `rule` must be one the check cites (a
   * misspelt id is a type error; citing is checked when the assertion runs).
   */
  expect(rule: RuleId, condition: unknown, detail: FailureDetail): asserts condition {
    this.cite(rule);
    if (!condition) throw new ConformanceFailure(rule, detail);
  }

  fail(rule: RuleId, detail: FailureDetail): never {
    this.cite(rule);
    throw new ConformanceFailure(rule, detail);
  }

  /** Stop with verdict `skipped`; the reason is printed and reported, with the answer that caused it when one did. */
  skip(reason: string, exchange?: Exchange): never {
    throw new Skipped(reason, exchange);
  }

  /** The target accepted this check's positive case resting on `assumption` (of `variant`, an order type). */
  confirm(assumption: Assumption, variant?: string): void {
    this.assumptions.confirm(assumption, variant);
  }

  /** This check sent a request whose meaning rests on `assumption` (of `variant`). */
  exercise(assumption: Assumption, variant?: string): void {
    this.assumptions.exercise(assumption, variant);
  }

  /** The target rejected `assumption` (of `variant`): stop with verdict `skipped`, nothing resting on it is judged. */
  rejectAssumption(assumption: Assumption, reason: string, variant?: string): never {
    this.assumptions.reject(assumption, variant);
    throw new Skipped(reason);
  }

  /** Record an observation for the report (info rules, unknowns). Never fails. */
  note(text: string): void {
    this.notes.push(text);
  }

  /**
   * `span`, with the target's virtual clock never moved by another check while it lasts: a window of the check's own
   * (an intent and its confirm, a sign-in's `Issued At`). Only the checks of a company may move the clock beside this
   * one (schedule.ts): for them the span passes the run's clock gate (clock-gate.ts); for any other check it just runs.
   */
  async window<T>(span: () => Promise<T>): Promise<T> {
    return runsInCompany(this.check, this.env.capabilities) ? await clockGate.window(span) : await span();
  }

  /** Run `fn` after the check, pass or fail (restore faults, cancel orders). */
  defer(fn: () => Promise<void>): void {
    this.cleanups.unshift(fn);
  }

  /**
   * A property of `rule` over values of `arb`, with the run's seed; a counterexample fails the check with the seed,
   * the shrunk value and the replay path (--fc-path replays it: nextProperty). `predicate` asserts with `t.expect` or returns false.
   */
  async property<T>(
    rule: RuleId,
    arb: fc.Arbitrary<T>,
    predicate: (value: T) => Promise<boolean | void>,
    numRuns = this.env.numRuns,
  ): Promise<void> {
    this.cite(rule);
    const { ordinal, parameters } = this.nextProperty(numRuns);
    let lastFailure: ConformanceFailure | undefined;
    // A skip or a broken setup before any failure (e.g. the target rejected an assumed template, an onboarding failed)
    // ends the property with it, never with a counterexample; once a value failed, a skipping value is only a shrink
    // candidate that proves nothing.
    let skipped: Skipped | SetupFailed | Unsupported | undefined;
    let failedOnce = false;
    const details = await fc.check(
      fc.asyncProperty(arb, async (value) => {
        if (skipped) return true;
        try {
          const held = (await predicate(value)) !== false;
          failedOnce ||= !held;
          return held;
        } catch (e) {
          if (e instanceof Skipped || e instanceof SetupFailed || e instanceof Unsupported) {
            if (!failedOnce) skipped = e;
            return true;
          }
          failedOnce = true;
          if (e instanceof ConformanceFailure) lastFailure = e;
          throw e;
        }
      }),
      parameters,
    );
    if (skipped) throw skipped;
    if (!details.failed) return;
    const base =
      lastFailure ??
      new ConformanceFailure(rule, {
        documented: `the property of ${rule} holds for every generated value`,
        received: details.counterexample?.[0],
      });
    throw new ConformanceFailure(base.rule, base.detail, {
      seed: details.seed,
      path: details.counterexample ? (details.counterexamplePath ?? undefined) : undefined,
      counterexample: details.counterexample?.[0],
      numRuns,
      ordinal,
    });
  }
}
