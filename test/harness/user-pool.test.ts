/**
 * The run's user pool (suites/orders/user-pool.ts): users made ahead, a few at once, one per marked check that runs
 * alone in the run; none under way once `finish` or `stop` settles; a failed one dropped; each handed out once, its
 * requests and notes becoming the check's. Against the reference server, a pooled user is the one intentUser(t, true)
 * makes: its requests are the check's, it confirms `siws-form`, and the ledger knows its user and fundings.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReferenceServer } from '../../fixtures/server/index.ts';
import { CheckContext, defineCheck, type Check } from '../../suites/harness/check.ts';
import type { Exchange } from '../../suites/harness/exchange.ts';
import { knownUsers, runFundings } from '../../suites/harness/ledger.ts';
import { runsAlone, type Turn } from '../../suites/harness/schedule.ts';
import type { TargetEnv } from '../../suites/harness/types.ts';
import { intentUser, madeUser } from '../../suites/orders/orders.ts';
import { orderGroups } from '../../suites/orders/registry.ts';
import { walletOfSub } from '../../suites/orders/users.ts';
import { beforeCheck, handOver, madeFor, pooledChecks, poolWidth, UserPool, type Made } from '../../suites/orders/user-pool.ts';
import { prepareSelfTest } from '../self-test/sandbox-support.ts';
import { OFFLINE_ENV } from './offline-target.ts';

const check = (name: string, extra: Partial<Check> = {}): Check =>
  defineCheck({ name, service: 'orders', rules: ['OA-INT-001'], profile: 'full', alone: true, async run() {}, ...extra });

/** A `make` whose users the test settles one by one. */
function deferredMakes() {
  const started: Array<{ check: string; settle: (made: Made<string> | undefined) => void; fail: (e: Error) => void }> = [];
  const make = (c: Check) =>
    new Promise<Made<string> | undefined>((resolve, reject) => {
      started.push({ check: c.name, settle: resolve, fail: reject });
    });
  return { started, make };
}

const made = (user: string): Made<string> => ({ user, exchanges: [], notes: [] });
/** The checks of the suite marked `pooledUser`, by name. */
const MARKED = Object.values(orderGroups)
  .flat()
  .filter((c) => c.pooledUser === true)
  .map((c) => c.name);
/** The requests of a made user, less a read of the virtual clock (the SIWS time, when none was known yet). */
const madeBy = (exchanges: readonly Exchange[]) =>
  exchanges
    .map((e) => `${e.request.method} ${new URL(e.request.url).pathname}`)
    .filter((r) => r !== 'GET /__control/clock')
    .sort();
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('UserPool', () => {
  test('makes one user per check in order, at most `width` at once, and more at once when finishing', async () => {
    const { started, make } = deferredMakes();
    const pool = new UserPool(
      ['a', 'b', 'c', 'd', 'e'].map((n) => check(n)),
      make,
      2,
    );
    expect(started.map((s) => s.check)).toEqual(['a', 'b']);
    started[0]!.settle(made('user-a'));
    await tick();
    expect(started.map((s) => s.check)).toEqual(['a', 'b', 'c']);
    expect(pool.making).toBe(2);
    let finished = false;
    const finishing = pool.finish(4).then(() => (finished = true));
    await tick();
    expect(started.map((s) => s.check)).toEqual(['a', 'b', 'c', 'd', 'e']);
    started[1]!.fail(new Error('onboarding answered 500'));
    started[2]!.settle(undefined);
    started[3]!.settle(made('user-d'));
    await tick();
    expect(finished).toBe(false);
    started[4]!.settle(made('user-e'));
    await finishing;
    expect(pool.making).toBe(0);
    // A dropped user (rejected, or undefined) is none; a made one is handed out once.
    expect([pool.take('a')?.user, pool.take('b'), pool.take('c'), pool.take('d')?.user, pool.take('e')?.user]).toEqual([
      'user-a',
      undefined,
      undefined,
      'user-d',
      'user-e',
    ]);
    expect(pool.take('a')).toBeUndefined();
  });

  test('stop starts no more users and settles once those under way are made', async () => {
    const { started, make } = deferredMakes();
    const pool = new UserPool(
      ['a', 'b', 'c'].map((n) => check(n)),
      make,
      1,
    );
    let stopped = false;
    const stopping = pool.stop().then(() => (stopped = true));
    await tick();
    expect(stopped).toBe(false);
    started[0]!.settle(made('user-a'));
    await stopping;
    expect(started.map((s) => s.check)).toEqual(['a']);
    expect(pool.take('a')?.user).toBe('user-a');
    expect(pool.take('b')).toBeUndefined();
  });
});

describe('madeFor and handOver', () => {
  const env = OFFLINE_ENV;
  test('what the answers that made a user broke of the spec goes with it: its check fails on it as if it had made the user', async () => {
    const c = check('a-check');
    const ahead = await madeFor(c, env, async (t) => {
      t.notes.push('made');
      t.violations.push({ rule: 'OA-ONB-001', detail: { documented: 'a documented onboarding answer', received: 'another' } });
      return 'user-1';
    });
    expect(ahead?.violations).toHaveLength(1);
    const t = new CheckContext(c, env);
    expect(handOver(t, ahead!)).toBe('user-1');
    expect(t.violations.map((v) => v.rule)).toEqual(['OA-ONB-001']);
    expect(t.notes[0]).toBe('made');
    expect(t.notes[1]).toMatch(/made ahead/);
  });

  test('a user whose making threw is dropped: its check makes its own', async () => {
    expect(
      await madeFor(check('a-check'), env, async () => {
        throw new Error('onboarding answered 500');
      }),
    ).toBeUndefined();
  });
});

describe('pooledChecks', () => {
  const env = { capabilities: ['funding', 'clock', 'faults', 'prices'], profile: 'full' } as unknown as TargetEnv;
  const listed = MARKED;
  const pooled = (name: string, extra: Partial<Check> = {}) => check(name, { pooledUser: true, ...extra });
  const test_ = (turn: Turn, mode = 'run') => ({ type: 'test', mode, meta: { turn } });

  test('the tests vitest runs, that run alone, marked and judgeable, in the order they start', () => {
    const checks = new Map(
      [
        pooled(listed[0]!),
        pooled(listed[1]!),
        pooled(listed[2]!),
        pooled(listed[3]!, { needs: ['tenants'] }),
        pooled(listed[4]!, { profile: 'full' }),
        check('not-listed'),
      ].map((c) => [c.name, c]),
    );
    const file = {
      type: 'suite',
      mode: 'run',
      meta: {},
      tasks: [
        {
          type: 'suite',
          mode: 'run',
          meta: {},
          tasks: [test_({ check: listed[1]!, rank: 9, alone: true }), test_({ check: 'not-listed', rank: 1, alone: true })],
        },
        test_({ check: listed[0]!, rank: 5, alone: true }),
        test_({ check: listed[2]!, rank: 2, alone: true }, 'skip'),
        test_({ check: listed[3]!, rank: 3, alone: true }),
        test_({ check: listed[4]!, rank: 4, alone: false }),
      ],
    };
    expect(pooledChecks(file, checks, env).map((c) => c.name)).toEqual([listed[0], listed[1]]);
    // No check that may overlap in the run: nothing to make the users beside.
    const aloneOnly = { ...file, tasks: file.tasks.slice(0, 4) };
    expect(pooledChecks(aloneOnly, checks, env)).toEqual([]);
  });

  test('no pool under --max-concurrency 1 (strictly sequential) nor without funding (partner mode)', () => {
    expect(poolWidth({ ...env, maxConcurrency: 1 })).toBe(0);
    expect(poolWidth({ ...env, capabilities: ['clock', 'faults'] })).toBe(0);
    expect(poolWidth({ ...env, maxConcurrency: 8 })).toBe(2);
    expect(poolWidth({ ...env, maxConcurrency: 2 })).toBe(1);
  });

  test('every marked check is an order check of the full profile that runs alone on a target with the control API', () => {
    expect(MARKED.length).toBeGreaterThan(0);
    const all = new Map(Object.values(orderGroups).flatMap((group) => group.map((c) => [c.name, c] as const)));
    const everything = ['tenants', 'quote-keys', 'funding', 'clock', 'prices', 'faults', 'rate-limits', 'token-extensions'] as const;
    for (const name of MARKED) {
      const c = all.get(name);
      expect(c, name).toBeDefined();
      expect(runsAlone(c!, everything), name).toBe(true);
      expect(c!.profile, name).toBe('full');
    }
  });
});

describe('against the reference server', () => {
  let server: Awaited<ReturnType<typeof startReferenceServer>>;
  let env: TargetEnv;
  beforeAll(async () => {
    server = await startReferenceServer({ port: 0 });
    env = await prepareSelfTest({ ordersUrl: server.ordersUrl, quotesUrl: server.quotesUrl, controlUrl: server.controlUrl });
  });
  afterAll(async () => await server.close());

  test('a user made ahead is made as intentUser(t, true) makes one: the ledger and the cleanup know its user, wallet and fundings', async () => {
    const name = MARKED[0]!;
    const c = check(name, { alone: true });
    const pool = new UserPool(
      [c],
      async (ch) => {
        const t = new CheckContext(ch, env);
        return { user: await madeUser(t, true), exchanges: t.exchanges, notes: t.notes };
      },
      1,
    );
    await pool.finish();
    const ahead = pool.take(name)!;
    expect(madeBy(ahead.exchanges)).toEqual(['POST /__control/fund', 'POST /__control/fund', 'POST /partner/onboard']);
    expect(knownUsers().some((u) => u.sub === ahead.user.sub)).toBe(true);
    expect(runFundings().filter((f) => f.wallet === ahead.user.userPubkey)).toHaveLength(2);
    expect(walletOfSub(ahead.user.sub)?.publicKey.toBase58()).toBe(ahead.user.userPubkey);
  });

  test('through the run hook: an alone check waits for the pool and takes its user, with its requests and siws-form, once', async () => {
    const name = MARKED[1]!;
    const listedCheck = Object.values(orderGroups)
      .flat()
      .find((x) => x.name === name)!;
    const file = {
      type: 'suite',
      mode: 'run',
      meta: {},
      tasks: [
        { type: 'test', mode: 'run', meta: { turn: { check: 'a-check-that-may-overlap', rank: 0, alone: false } } },
        { type: 'test', mode: 'run', meta: { turn: { check: name, rank: 1, alone: true } } },
      ],
    };
    const ctx = { signal: new AbortController().signal, task: { file } };
    await beforeCheck(listedCheck, env, ctx);
    const t = new CheckContext(listedCheck, env);
    const user = await intentUser(t, true);
    expect(t.exchanges.map((e) => new URL(e.request.url).pathname).sort()).toEqual([
      '/__control/fund',
      '/__control/fund',
      '/partner/onboard',
    ]);
    expect(t.notes.some((n) => n.includes("the run's user pool"))).toBe(true);
    expect(t.assumptions.holds('siws-form')).toBe(true);
    // Taken once: the check's next user is made in it.
    const second = new CheckContext(listedCheck, env);
    const other = await intentUser(second, true);
    expect(other.sub).not.toBe(user.sub);
    expect(second.notes.some((n) => n.includes("the run's user pool"))).toBe(false);
  });
});
