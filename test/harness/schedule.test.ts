/**
 * The harness's scheduler (suites/harness/schedule.ts): which checks start, in what order, driven step by step
 * (no timers, no wall time).
 */
import { describe, expect, test } from 'vitest';
import type { Check } from '../../suites/harness/check.ts';
import { clockGate } from '../../suites/harness/clock-gate.ts';
import { ControlAdapter } from '../../suites/harness/control.ts';
import {
  CheckQueue,
  COMPANY_STEP_SECONDS,
  guardSharedState,
  OWN_QUOTE_KEY_NEEDS,
  OWN_TENANT_NEEDS,
  type Place,
  placeOf,
  runOrder,
  runsAlone,
  Scheduler,
  type Turn,
} from '../../suites/harness/schedule.ts';
import { allChecks } from '../../suites/index.ts';

const check = (name: string, service: Check['service'] = 'quotes', alone = false): Check => ({
  name,
  service,
  rules: ['Q-INFO-001'],
  profile: 'smoke',
  ...(alone ? { alone: true as const } : {}),
  run: async () => {},
});

/**
 * Turns ranked in the given order: `a` overlaps, `A` runs alone, `m` is of the company "own-market", a leading `o` is an
 * order check of lane "orders".
 */
function turns(...names: string[]): Turn[] {
  return names.map((name, rank) => {
    const laned = name.startsWith('o');
    const bare = laned ? name.slice(1) : name;
    return {
      check: name,
      rank,
      alone: bare === bare.toUpperCase(),
      ...(bare.startsWith('m') ? { company: true as const } : {}),
      ...(laned ? { lane: 'orders' } : {}),
    };
  });
}

const names = (ts: readonly Turn[]) => ts.map((t) => t.check);

/** Every turn's run, one step at a time: each step starts what may start, then ends the ones `ends` names. */
function steps(queue: CheckQueue, all: Turn[], ends: (underWay: Turn[]) => Turn[] = (u) => u): string[][] {
  for (const t of all) queue.add(t);
  const underWay: Turn[] = [];
  const out: string[][] = [];
  while (queue.queued > 0 || underWay.length > 0) {
    const started = queue.next();
    underWay.push(...started);
    out.push(names(started));
    for (const t of ends([...underWay])) {
      queue.done(t);
      underWay.splice(underWay.indexOf(t), 1);
    }
    if (out.length > 100) throw new Error('no progress');
  }
  return out;
}

describe('CheckQueue', () => {
  test('at most `slots` under way, by rank, whatever the arrival order', () => {
    const all = turns('a1', 'a2', 'a3', 'a4', 'a5');
    const queue = new CheckQueue(2);
    for (const t of [...all].reverse()) queue.add(t);
    expect(names(queue.next())).toEqual(['a1', 'a2']);
    expect(names(queue.next())).toEqual([]);
    queue.done(all[1]!);
    expect(names(queue.next())).toEqual(['a3']);
    expect(queue.underWay).toBe(2);
  });

  test('a check that runs alone starts once nothing else is under way, and nothing starts beside it', () => {
    const all = turns('a1', 'a2', 'A3', 'a4');
    const queue = new CheckQueue(8);
    for (const t of all) queue.add(t);
    // A3 waits for a1, a2; a4 does not wait for A3 (ranked after it, it is one that may overlap).
    expect(names(queue.next())).toEqual(['a1', 'a2', 'a4']);
    queue.done(all[0]!);
    queue.done(all[1]!);
    expect(names(queue.next())).toEqual([]);
    queue.done(all[3]!);
    expect(names(queue.next())).toEqual(['A3']);
    queue.add(turns('x', 'a5')[1]!);
    expect(names(queue.next())).toEqual([]);
    queue.done(all[2]!);
    expect(names(queue.next())).toEqual(['a5']);
  });

  test('alone checks run one after another, each by itself', () => {
    const all = turns('a1', 'a2', 'A3', 'A4');
    expect(steps(new CheckQueue(8), all, (u) => u.slice(0, 1))).toEqual([['a1', 'a2'], [], ['A3'], ['A4']]);
  });

  test('one slot: one check at a time, in rank order', () => {
    const all = turns('a1', 'A2', 'a3', 'oA4', 'oa5');
    expect(steps(new CheckQueue(1), all)).toEqual([['a1'], ['A2'], ['a3'], ['oA4'], ['oa5']]);
  });

  test("a lane's checks one at a time in their order, the others beside them", () => {
    const all = turns('oa1', 'oa2', 'oA3', 'oa4', 'a5', 'a6', 'A7');
    // Each step ends the lane's check under way and nothing else, then everything.
    const ends = (u: Turn[]) => (u.some((t) => t.lane) ? u.filter((t) => t.lane) : u);
    expect(steps(new CheckQueue(8), all, ends)).toEqual([
      ['oa1', 'a5', 'a6'],
      ['oa2'],
      // oA3 waits for a5, a6; oa4, behind it in the lane, waits too.
      [],
      ['oA3'],
      ['oa4'],
      ['A7'],
    ]);
  });

  test("a company's checks start together once the others have ended, beside nothing else, before the alone ones", () => {
    const all = turns('a1', 'a2', 'm3', 'm4', 'm5', 'A6');
    expect(steps(new CheckQueue(8), all)).toEqual([['a1', 'a2'], ['m3', 'm4', 'm5'], ['A6']]);
    // At most `slots` of them; the alone check waits for the last.
    expect(steps(new CheckQueue(2), turns('m1', 'm2', 'm3', 'A4'))).toEqual([['m1', 'm2'], ['m3'], ['A4']]);
  });

  test('nothing else starts beside the company, and the company waits for the others', () => {
    const queue = new CheckQueue(8);
    const [a1, m2, m3, a4] = turns('a1', 'm2', 'm3', 'a4');
    for (const t of [a1!, m2!, m3!]) queue.add(t);
    expect(names(queue.next())).toEqual(['a1']);
    queue.done(a1!);
    expect(names(queue.next())).toEqual(['m2', 'm3']);
    // A check that may overlap, arriving late, waits for the company to end.
    queue.add(a4!);
    queue.done(m2!);
    expect(names(queue.next())).toEqual([]);
    queue.done(m3!);
    expect(names(queue.next())).toEqual(['a4']);
    // And a member arriving while it runs waits for it.
    const [m5] = turns('m5');
    queue.add({ ...m5!, rank: 5 });
    expect(names(queue.next())).toEqual([]);
    queue.done(a4!);
    expect(names(queue.next())).toEqual(['m5']);
  });

  test('a removed (cancelled) check never starts', () => {
    const all = turns('a1', 'a2');
    const queue = new CheckQueue(1);
    for (const t of all) queue.add(t);
    queue.remove(all[1]!);
    expect(names(queue.next())).toEqual(['a1']);
    queue.done(all[0]!);
    expect(names(queue.next())).toEqual([]);
    expect(queue.queued).toBe(0);
  });
});

describe('runsAlone: rate-limit checks on quote keys of their own', () => {
  const metering: Check = {
    name: 'a-rate-limit-check',
    service: 'quotes',
    rules: ['Q-RATE-001'],
    profile: 'full',
    needs: ['quote-keys', 'rate-limits'],
    run: async () => {},
  };
  const own: Check = { ...metering, ownQuoteKey: true };

  test('a check marked ownQuoteKey runs beside others only on a target offering quote-keys and rate-limits', () => {
    expect(runsAlone(own)).toBe(true);
    expect(runsAlone(own, ['quote-keys'])).toBe(true);
    expect(runsAlone(own, ['rate-limits'])).toBe(true);
    expect(runsAlone(own, OWN_QUOTE_KEY_NEEDS)).toBe(false);
    // Without capabilities of its own (the run's key, blackbox-rate.checks.ts) too.
    expect(runsAlone({ ...own, needs: [] }, OWN_QUOTE_KEY_NEEDS)).toBe(false);
    expect(runsAlone({ ...own, needs: [] })).toBe(true);
  });

  test('unmarked, or sharing the clock, prices, faults or partner reporting as well: alone whatever the target offers', () => {
    const all = [...OWN_QUOTE_KEY_NEEDS, ...OWN_TENANT_NEEDS, 'clock', 'prices', 'faults'] as const;
    expect(runsAlone(metering, all)).toBe(true);
    expect(runsAlone({ ...metering, rules: ['Q-INFO-001'] }, all)).toBe(true);
    for (const shared of ['clock', 'prices', 'faults'] as const)
      expect(runsAlone({ ...own, needs: [...own.needs!, shared] }, all)).toBe(true);
    expect(runsAlone({ ...own, alone: true }, all)).toBe(true);
    // Each mark answers for its own area only.
    expect(runsAlone({ ...own, rules: ['Q-RATE-001', 'OA-REP-001'] }, all)).toBe(true);
    expect(runsAlone({ ...metering, ownTenant: true }, all)).toBe(true);
  });

  test('one that runs beside others is still stopped before it changes the clock, prices or faults', async () => {
    const control = new ControlAdapter('http://127.0.0.1:9', [...OWN_QUOTE_KEY_NEEDS, 'faults', 'clock'], 1000);
    guardSharedState(control, own);
    await expect(control.setFaults({ oracle: 'down' })).rejects.toThrow(/alone: true/);
    await expect(control.advanceClock(60)).rejects.toThrow(/alone: true/);
  });

  test("the suite's rate-limit checks all make keys of their own where the target offers them", () => {
    const metered = allChecks.filter((c) => c.rules.some((id) => id.startsWith('Q-RATE-')));
    expect(metered.length).toBeGreaterThanOrEqual(5);
    for (const c of metered) {
      expect(c.ownQuoteKey, c.name).toBe(true);
      expect(runsAlone(c, [...OWN_QUOTE_KEY_NEEDS, ...OWN_TENANT_NEEDS, 'funding']), c.name).toBe(false);
      expect(runsAlone(c, ['tenants', 'funding', 'clock']), c.name).toBe(true);
    }
  });
});

describe('placeOf: the company of the checks trading in markets of their own', () => {
  const trading: Check = {
    name: 'a-trigger-check',
    service: 'orders',
    rules: ['OA-TRIG-001'],
    profile: 'full',
    needs: ['funding', 'prices', 'clock'],
    ownMarket: true,
    run: async () => {},
  };
  const all = ['funding', 'prices', 'clock', 'faults', 'tenants'] as const;

  test('a check marked ownMarket that shares only the clock and prices runs in the company; unmarked it runs alone', () => {
    expect(placeOf(trading, all)).toBe('company');
    expect(placeOf({ ...trading, needs: ['funding', 'prices'] }, all)).toBe('company');
    expect(placeOf({ ...trading, ownMarket: undefined }, all)).toBe('alone');
    // Sharing nothing, it overlaps like any other.
    expect(placeOf({ ...trading, needs: ['funding'] }, all)).toBe('overlap');
  });

  test('with faults, a counting area or `alone: true` as well, it runs alone', () => {
    expect(placeOf({ ...trading, needs: [...trading.needs!, 'faults'] }, all)).toBe('alone');
    expect(placeOf({ ...trading, rules: ['OA-TRIG-001', 'OA-REP-001'] }, all)).toBe('alone');
    expect(placeOf({ ...trading, alone: true }, all)).toBe('alone');
  });

  test('a member advances the clock only through the gate, and sets only prices of test mints of its own; never faults or pools', async () => {
    const control = new ControlAdapter('http://127.0.0.1:9', [...all], 1000);
    const other = new ControlAdapter('http://127.0.0.1:9', [...all], 1000);
    guardSharedState(control, trading);
    await expect(control.setFaults({ oracle: 'down' })).rejects.toThrow(/alone: true/);
    await expect(control.setPool('So11111111111111111111111111111111111111112', { enabled: false })).rejects.toThrow(/alone: true/);
    await expect(control.setPrice('So11111111111111111111111111111111111111112', '1')).rejects.toThrow(/not a mint of its own/);
    // Another check's test mint is not its own. (The closed port refuses the calls; the guard is judged before.)
    const [theirs, mine] = [other.freshMint(), control.freshMint()];
    expect(mine).not.toBe(theirs);
    await expect(control.setPrice(theirs, '1')).rejects.toThrow(/not a mint of its own/);
    await expect(control.setPrice(mine, '1')).rejects.not.toThrow(/not a mint of its own/);
    // The advance passes the gate: inside a window of the check it would wait for itself.
    await expect(clockGate.window(() => control.advanceClock(30))).rejects.toThrow(/inside a window/);
    await expect(control.advanceClock(30)).rejects.not.toThrow(/inside a window|alone: true/);
    // Steps only; a read of the clock only inside a window of its own.
    await expect(control.advanceClock(COMPANY_STEP_SECONDS + 1)).rejects.toThrow(/steps of at most/);
    await expect(control.clock()).rejects.toThrow(/outside a window/);
    await expect(clockGate.window(() => control.clock())).rejects.not.toThrow(/outside a window/);
  });

  test("the suite's company: the trigger checks trading in markets of their own, without faults", () => {
    const members = allChecks.filter((c) => placeOf(c, [...all]) === 'company');
    expect(members.length).toBeGreaterThanOrEqual(10);
    for (const c of members) expect((c.needs ?? []).includes('faults'), c.name).toBe(false);
    // An expiry check advances the clock past a window of its own: never a member.
    expect(members.map((c) => c.name)).not.toContain('trigger-order-expires-at-its-expires-at');
  });
});

describe('runOrder', () => {
  const [q1, Q2, q3] = [check('q1'), check('Q2', 'quotes', true), check('q3')];
  const [o1, O2, o3] = [check('o1', 'orders'), check('O2', 'orders', true), check('o3', 'orders')];
  const groups: Array<[string, Check[]]> = [
    ['orders/a', [o1!, O2!]],
    ['orders/b', [o3!]],
    ['quotes/a', [q1!, Q2!, q3!]],
  ];
  const alone = (c: Check): Place => (c.alone === true ? 'alone' : 'overlap');

  test('sequential: the declaration order', () => {
    expect(runOrder(groups, true, alone).map((c) => c.name)).toEqual(['o1', 'O2', 'o3', 'q1', 'Q2', 'q3']);
  });

  test('otherwise those that may overlap first, then those that run alone, each in declaration order', () => {
    expect(runOrder(groups, false, alone).map((c) => c.name)).toEqual(['o1', 'o3', 'q1', 'q3', 'O2', 'Q2']);
  });

  test("a company's checks after those that may overlap, before those that run alone", () => {
    const place = (c: Check): Place => (c.name === 'o3' || c.name === 'q1' ? 'company' : alone(c));
    expect(runOrder(groups, false, place).map((c) => c.name)).toEqual(['o1', 'q3', 'o3', 'q1', 'O2', 'Q2']);
  });

  test("a lane's checks keep their declaration order, ahead of those that run alone", () => {
    const lane = (c: Check) => (c.service === 'orders' ? 'orders' : undefined);
    expect(runOrder(groups, false, alone, lane).map((c) => c.name)).toEqual(['o1', 'O2', 'o3', 'q1', 'q3', 'Q2']);
  });
});

describe('Scheduler', () => {
  /** Settle the scheduler's deferred dispatch. */
  const tick = () => new Promise<void>((r) => setImmediate(r));

  test('checks arriving together start by rank; an ended turn lets the next start', async () => {
    const all = turns('a1', 'a2', 'a3');
    const scheduler = new Scheduler(new CheckQueue(2));
    const started: string[] = [];
    const ends = new Map<string, () => void>();
    for (const t of [...all].reverse())
      void scheduler.turn(t).then((end) => {
        started.push(t.check);
        ends.set(t.check, end);
      });
    await tick();
    await tick();
    expect(started).toEqual(['a1', 'a2']);
    ends.get('a2')!();
    ends.get('a2')!();
    await tick();
    await tick();
    expect(started).toEqual(['a1', 'a2', 'a3']);
  });

  test('a wait cancelled by its signal rejects and its check never starts', async () => {
    const all = turns('a1', 'a2', 'a3');
    const scheduler = new Scheduler(new CheckQueue(1));
    const controller = new AbortController();
    const first = scheduler.turn(all[0]!);
    const second = scheduler.turn(all[1]!, controller.signal);
    const third = scheduler.turn(all[2]!);
    const end = await first;
    controller.abort(new Error('cancelled'));
    await expect(second).rejects.toThrow('cancelled');
    end();
    await expect(third).resolves.toBeTypeOf('function');
    const late = new AbortController();
    late.abort(new Error('already'));
    await expect(scheduler.turn(turns('a4')[0]!, late.signal)).rejects.toThrow('already');
  });
});
