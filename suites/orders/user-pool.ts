/**
 * The run's user pool (issue 17). On a target with the `funding` capability, most order checks that run alone begin by
 * making a default-funded user of their own wallet (orders.ts `intentUser(t, true)`: an onboarding and two fundings
 * through the control API, sent at once): a round trip before the check can do anything, while it has the whole
 * target to itself and the request budget is idle. The pool makes those users beforehand, while the checks that may
 * overlap run (a few at a time, inside the request budget), one for each check marked `pooledUser` the run selected,
 * and hands each to its check:
 * - nothing of the pool is under way once a check that runs alone (or in a company, schedule.ts) starts: the first one
 *   waits for the users still being made (`beforeCheck`), so it sees the whole target as before (faults, clock, the
 *   tenant's users);
 * - a user is made exactly as its check would make it (in a CheckContext of that check, so the ledger and the cleanup
 *   know it as any check's user), and handed to that check only, once: the requests that made it become the check's
 *   first (its report lists them, a note says where they came from), and its accepted onboarding confirms `siws-form`
 *   there, as onboardedUser does;
 * - a user whose making threw (an answer onboardedUser or fundUser would not take, no answer) is dropped: its check
 *   makes its own, as without the pool, and judges what it gets; the spec violations of the answers that made a user
 *   go with it to its check, which fails on them as if it had made the user itself;
 * - no pool without `funding` (partner mode: the run's one wallet), nor under `--max-concurrency 1` (strictly
 *   sequential); a cancelled run (Ctrl-C, the deadline) starts no more users.
 */
import type { TestContext } from 'vitest';
import { CheckContext, type Check } from '../harness/check.ts';
import type { Violation } from '../harness/client.ts';
import type { Exchange } from '../harness/exchange.ts';
import { DEFAULT_MAX_CONCURRENCY } from '../harness/pacer.ts';
import { checkSlots, placeOf, type Turn } from '../harness/schedule.ts';
import { profileIncludes, type TargetEnv } from '../harness/types.ts';

/** A user made ahead for a check, with what the check takes over with it. */
export interface Made<U> {
  user: U;
  /** the requests that made it, in the ledger already */
  exchanges: readonly Exchange[];
  notes: readonly string[];
  /** what their answers broke of the spec */
  violations?: readonly Violation[];
}

/**
 * Users made ahead, one per check, in the given order, at most `width` at once; `make` answers undefined for a user
 * that could not be made (dropped). Pure bookkeeping over `make`: `startUserPool` gives it the checks of the run.
 */
export class UserPool<U> {
  private readonly queue: Check[];
  private readonly made = new Map<string, Made<U>>();
  private readonly underWay = new Set<Promise<void>>();

  constructor(
    checks: readonly Check[],
    private readonly make: (check: Check) => Promise<Made<U> | undefined>,
    private width: number,
  ) {
    this.queue = [...checks];
    this.pump();
  }

  private pump(): void {
    while (this.underWay.size < this.width && this.queue.length > 0) {
      const check = this.queue.shift()!;
      const making: Promise<void> = this.make(check)
        .then((made) => void (made && this.made.set(check.name, made)))
        .catch(() => undefined)
        .finally(() => {
          this.underWay.delete(making);
          this.pump();
        });
      this.underWay.add(making);
    }
  }

  /** Users being made now. */
  get making(): number {
    return this.underWay.size;
  }

  /** Make the rest, `width` at once: settles once every user is made or dropped, with none under way. */
  async finish(width = this.width): Promise<void> {
    this.width = Math.max(this.width, width);
    this.pump();
    await this.settled();
  }

  /** Start no more users (the rest are dropped); settles once none is under way. */
  async stop(): Promise<void> {
    this.queue.length = 0;
    await this.settled();
  }

  async settled(): Promise<void> {
    while (this.underWay.size > 0) await Promise.allSettled([...this.underWay]);
  }

  /** The user made for `check`, once: undefined when none was (not marked, dropped, or taken already). */
  take(check: string): Made<U> | undefined {
    const made = this.made.get(check);
    this.made.delete(check);
    return made;
  }
}

/**
 * A user made in a context of `check`, as the check would make it, with what its answers broke of the spec (the check
 * meets that when it takes the user: handOver); undefined when making it threw (a broken precondition, a skip, no
 * answer): its check then makes its own and meets whatever it meets.
 */
export async function madeFor<U>(check: Check, env: TargetEnv, make: (t: CheckContext) => Promise<U>): Promise<Made<U> | undefined> {
  const t = new CheckContext(check, env);
  try {
    return { user: await make(t), exchanges: t.exchanges, notes: t.notes, violations: t.violations };
  } catch {
    return undefined;
  }
}

/**
 * `made` taken over by `t`'s check: its requests, notes and the spec violations of their answers become the check's,
 * with a note saying where they came from (a violation fails the check as if it had made the user itself).
 */
export function handOver<U>(t: CheckContext, made: Made<U>): U {
  t.exchanges.push(...made.exchanges);
  t.notes.push(
    ...made.notes,
    "its user was made ahead, before the checks that run alone (the run's user pool, suites/orders/user-pool.ts): the requests that made it are listed with this check's",
  );
  t.violations.push(...(made.violations ?? []));
  return made.user;
}

/** The part of a vitest task the pool reads: the run's tests, with the turn suites/harness/vitest.ts gave each. */
interface TaskTree {
  type: string;
  mode: string;
  meta: { turn?: Turn };
  tasks?: TaskTree[];
}

/**
 * The checks that take a pooled user in this run: the tests vitest will run (after --grep and --shard), that run alone,
 * whose check is marked `pooledUser` and not left unjudged for the profile or a capability (runner.ts), in the order they start;
 * none when no check of the run may overlap (the users would be made with nothing else under way: no time saved).
 */
export function pooledChecks(file: TaskTree, checks: ReadonlyMap<string, Check>, env: TargetEnv): Check[] {
  const walk = (task: TaskTree): Turn[] => [
    ...(task.type === 'test' && task.mode === 'run' && task.meta.turn ? [task.meta.turn] : []),
    ...(task.tasks ?? []).flatMap(walk),
  ];
  const turns = walk(file);
  // Without a check that may overlap, nothing runs while the users are made: each check makes its own.
  if (turns.every((turn) => turn.alone || turn.company === true)) return [];
  return turns
    .filter((turn) => turn.alone)
    .sort((a, b) => a.rank - b.rank)
    .map((turn) => checks.get(turn.check))
    .filter(
      (check): check is Check =>
        check?.pooledUser === true &&
        profileIncludes(env.profile, check.profile) &&
        (check.needs ?? []).every((c) => env.capabilities.includes(c)),
    );
}

/** The pool of this run (one per worker: one conformance file, one run). */
let pool: Promise<UserPool<unknown> | undefined> | undefined;

/**
 * How many users the pool makes at once beside the checks that may overlap (each is one onboarding within
 * --max-concurrency and two control requests on top of it): a quarter of --max-concurrency, at least one; 0 for no pool.
 */
export function poolWidth(env: Pick<TargetEnv, 'maxConcurrency' | 'capabilities'>): number {
  const slots = checkSlots(env.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY);
  return slots === 1 || !env.capabilities.includes('funding') ? 0 : Math.max(1, Math.floor(slots / 4));
}

async function startUserPool(file: TaskTree, env: TargetEnv): Promise<UserPool<unknown> | undefined> {
  const width = poolWidth(env);
  if (width === 0) return undefined;
  const [{ orderGroups }, { madeUser }] = await Promise.all([import('./registry.ts'), import('./orders.ts')]);
  const checks = new Map(Object.values(orderGroups).flatMap((group) => group.map((check) => [check.name, check] as const)));
  const pooled = pooledChecks(file, checks, env);
  if (pooled.length === 0) return undefined;
  return new UserPool(pooled, (check) => madeFor(check, env, (t) => madeUser(t, true)), width);
}

/**
 * Called as each check's test starts, before the check runs (suites/harness/vitest.ts): the first starts the pool; a
 * cancelled test (the run cancelled, Ctrl-C or the deadline) stops it; a check that runs alone (or in a company: the
 * checks that may overlap have all ended) waits until no user of the pool is under way, the ones still to make made then, at most half of `--max-concurrency` at once.
 */
export async function beforeCheck(
  check: Check,
  env: TargetEnv,
  ctx: Pick<TestContext, 'signal'> & { task: { file: unknown } },
): Promise<void> {
  pool ??= startUserPool(ctx.task.file as TaskTree, env);
  const started = await pool;
  if (!started) return;
  ctx.signal.addEventListener('abort', () => void started.stop(), { once: true });
  if (placeOf(check, env.capabilities) !== 'overlap')
    await started.finish(Math.ceil(checkSlots(env.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY) / 2));
}

/** Settles once no user of the pool is under way (the cleanup waits for it: suites/harness/vitest.ts checksSettled). */
export async function userPoolSettled(): Promise<void> {
  await (await pool)?.settled();
}

/**
 * The user made ahead for `t`'s check, if there is one, handed over (handOver): what making it met is the check's. The
 * caller confirms what making it confirmed (orders.ts intentUser).
 */
export async function pooledUser<U>(t: CheckContext): Promise<U | undefined> {
  const made = (await pool)?.take(t.check.name) as Made<U> | undefined;
  return made && handOver(t, made);
}
