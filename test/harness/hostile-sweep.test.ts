/**
 * A hostile-input sweep sends up to the run's check slots at once (suites/shared/hostile.ts, Sweep.inputs) with the
 * verdicts of a run of one at a time: the failure reported is the first in the inputs' order whatever order the
 * answers come in, the tally and the notes say the same counts, an input left without an answer (sent twice) ends the sweep, an
 * input that a server may serve runs alone, and `--max-concurrency 1` sends one request at a time. propertyAhead
 * judges a property as `t.property` does, its requests sent ahead.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { CheckContext, defineCheck } from '../../suites/harness/check.ts';
import type { Exchange } from '../../suites/harness/exchange.ts';
import { ConformanceFailure } from '../../suites/harness/failure.ts';
import type { TargetEnv } from '../../suites/harness/types.ts';
import { propertyAhead, sweep, type SweepInput } from '../../suites/shared/hostile.ts';
import { OFFLINE_ENV } from './offline-target.ts';

/** The server: `/?i=N` answers 200 `{}`; `held` requests wait for `release(i)`; `hang` ones never get an answer. */
let server: Server;
let env: TargetEnv;
let arrived: number[];
let inFlight: number;
let peak: number;
let inFlightAtArrival: Map<number, number>;
let held: Map<number, () => void>;
let holds: Set<number>;
let hangs: Set<number>;
let onArrive: (i: number) => void;
let onClose: (i: number) => void;
/** Bumped by each test: a request of an earlier test that ends late changes nothing of this one. */
let generation = 0;

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const i = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('i'));
    const mine = generation;
    arrived.push(i);
    inFlight++;
    peak = Math.max(peak, inFlight);
    inFlightAtArrival.set(i, inFlight);
    let done = false;
    const answer = () => {
      if (done) return;
      done = true;
      if (mine === generation) inFlight--;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    };
    res.on('close', () => {
      if (!done && mine === generation) {
        done = true;
        inFlight--;
        onClose(i);
      }
    });
    if (hangs.has(i)) {
      onArrive(i);
      return;
    }
    if (holds.has(i)) held.set(i, answer);
    else setImmediate(answer);
    onArrive(i);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  env = { ...OFFLINE_ENV, ordersUrl: url, quotesUrl: url, timeoutMs: 1000 };
});

afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

beforeEach(() => {
  generation++;
  arrived = [];
  inFlight = 0;
  peak = 0;
  inFlightAtArrival = new Map();
  held = new Map();
  holds = new Set();
  hangs = new Set();
  onArrive = () => {};
  onClose = () => {};
});

const release = (i: number) => {
  const answer = held.get(i);
  held.delete(i);
  answer?.();
};

const context = (maxConcurrency: number): CheckContext =>
  new CheckContext(defineCheck({ name: 'a-sweep', service: 'quotes', rules: ['Q-HOST-001'], profile: 'readonly', run: async () => {} }), {
    ...env,
    maxConcurrency,
  });

/** Input i: GET /?i=i, counted under getInfo (i < 3) or getVenues, judged wrong when `wrong(i)`; `after` runs last. */
function input(t: CheckContext, i: number, wrong: (i: number) => boolean, after: (i: number) => void = () => {}): SweepInput {
  return {
    operation: i < 3 ? 'getInfo' : 'getVenues',
    run: async (send) => {
      try {
        const ex = await send({ path: '/', query: { i } });
        t.expect('Q-HOST-001', !wrong(i), { documented: `input ${i} answered as documented`, received: ex.response.status });
      } finally {
        after(i);
      }
    },
  };
}

/** Run a sweep of `inputs` in `t`; its error (or undefined) and its note. */
async function run(t: CheckContext, inputs: SweepInput[]): Promise<{ error: unknown; note: string | undefined }> {
  let error: unknown;
  try {
    await sweep(t, (s) => s.inputs(t, t.quotes, 'Q-HOST-001', inputs));
  } catch (e) {
    error = e;
  }
  return { error, note: t.notes.at(-1) };
}

describe('a hostile-input sweep', () => {
  test('answers coming in reverse order: the failure reported is the first in the inputs order, the counts those of one at a time', async () => {
    const n = 6;
    const wrong = (i: number) => i === 1 || i === 4;
    // Every request is held until all have arrived; then the last is answered, and each input once judged lets the
    // one before it be answered: the answers (and judgements) come in exactly the reverse of the inputs' order.
    for (let i = 0; i < n; i++) holds.add(i);
    onArrive = () => {
      if (arrived.length === n) release(n - 1);
    };
    const judged: number[] = [];
    const t = context(8);
    const concurrent = await run(
      t,
      Array.from({ length: n }, (_, i) =>
        input(t, i, wrong, (j) => {
          judged.push(j);
          release(j - 1);
        }),
      ),
    );
    expect(judged).toEqual([5, 4, 3, 2, 1, 0]);
    expect(peak).toBe(n);
    expect(concurrent.error).toBeInstanceOf(ConformanceFailure);
    expect((concurrent.error as ConformanceFailure).detail.documented).toBe('input 1 answered as documented');
    expect(t.tally).toEqual({ getInfo: 3, getVenues: 3 });
    expect(concurrent.note).toBe('6 bad inputs tried, 2 answered wrongly (the first is reported): getInfo 3; getVenues 3');

    // --max-concurrency 1: strictly one request at a time, and the same verdict, tally and note.
    holds.clear();
    peak = 0;
    const one = context(1);
    const sequential = await run(
      one,
      Array.from({ length: n }, (_, i) => input(one, i, wrong)),
    );
    expect(peak).toBe(1);
    expect((sequential.error as ConformanceFailure).detail).toEqual((concurrent.error as ConformanceFailure).detail);
    expect(one.tally).toEqual(t.tally);
    expect(sequential.note).toBe(concurrent.note);
  });

  test('an input left without an answer ends the sweep once sent again and waited for: what came after it is not counted', async () => {
    // Input 1 hangs: its first send gets no answer within --timeout (100 ms), nor its second, waited for ten times as
    // long (hangWaitMs); the others are answered at once.
    hangs.add(1);
    const wrong = (j: number) => j === 0 || j === 2;
    const expectHang = (error: unknown) => {
      expect(error).toBeInstanceOf(ConformanceFailure);
      expect((error as ConformanceFailure).detail.documented).toBe(
        "GET / with a malformed request is answered within the suite's timeout (sent once more after 100 ms of --timeout, and waited 1000 ms)",
      );
    };
    // One at a time: nothing is sent after the input that hangs; it is sent twice.
    const { check } = context(1);
    const t1 = new CheckContext(check, { ...env, maxConcurrency: 1, timeoutMs: 100 });
    const sequential = await run(
      t1,
      Array.from({ length: 6 }, (_, i) => input(t1, i, wrong)),
    );
    expect(arrived).toEqual([0, 1, 1]);
    expectHang(sequential.error);
    expect(t1.tally).toEqual({ getInfo: 2 });
    expect(sequential.note).toBe('2 bad inputs tried, 1 answered wrongly (the first is reported): getInfo 2');

    // Two at a time: the inputs after it, answered while it was waited for, are neither counted nor judged.
    arrived = [];
    const t2 = new CheckContext(check, { ...env, maxConcurrency: 2, timeoutMs: 100 });
    const concurrent = await run(
      t2,
      Array.from({ length: 6 }, (_, i) => input(t2, i, wrong)),
    );
    expect(arrived.filter((i) => i === 1)).toHaveLength(2);
    expectHang(concurrent.error);
    expect(t2.tally).toEqual(t1.tally);
    expect(concurrent.note).toMatch(
      /^2 bad inputs tried, 1 answered wrongly \(the first is reported\): getInfo 2 \(\d more, sent before the sweep ended, neither counted nor judged\)$/,
    );
  });

  test('an input a server may serve keeps its place among the inputs of its state; other states go on beside it', async () => {
    const t = context(8);
    const judged: number[] = [];
    const seenAt = new Map<number, number[]>();
    // Inputs 0, 1 and 3 meet state x, 2 may change it; 4 meets state y and is held until input 3 arrived.
    holds.add(0);
    holds.add(1);
    holds.add(4);
    onArrive = (i) => {
      seenAt.set(i, [...judged]);
      if (arrived.includes(0) && arrived.includes(1)) {
        release(0);
        release(1);
      }
      if (i === 3) release(4);
    };
    const inputs = Array.from({ length: 5 }, (_, i) => ({
      ...input(
        t,
        i,
        () => false,
        (j) => judged.push(j),
      ),
      state: i === 4 ? 'y' : 'x',
      alone: i === 2,
    }));
    const { error } = await run(t, inputs);
    expect(error).toBeUndefined();
    // 0 and 1 overlap (whichever arrives second finds the other under way: they may travel on different connections)
    expect(Math.max(inFlightAtArrival.get(0) ?? 0, inFlightAtArrival.get(1) ?? 0)).toBeGreaterThanOrEqual(2);
    expect(seenAt.get(2)).toEqual(expect.arrayContaining([0, 1])); // 2 after 0 and 1 were judged
    expect(seenAt.get(3)).toContain(2); // 3 after 2
    expect(seenAt.get(4)).not.toContain(2); // 4 (state y) was under way before 2 was judged
    expect([...judged].sort()).toEqual([0, 1, 2, 3, 4]);
  });

  test('a property waiting for its state keeps its ordinal in the inputs order (a replay names it so)', async () => {
    const t: CheckContext = context(8);
    // Input 0 (state x) is held until property 2 (no state) has sent; property 1 (state x, after 0) fails.
    holds.add(0);
    onArrive = (i) => {
      if (i >= 100) release(0);
    };
    const property = (state: string | undefined, base: number, wrong: boolean): SweepInput => ({
      operation: 'getQuoteSwap',
      state,
      alone: state !== undefined,
      run: (send) =>
        t.property(
          'Q-HOST-001',
          fc.integer({ min: 0, max: 50 }),
          async (v) => {
            await send({ path: '/', query: { i: base + v } });
            t.expect('Q-HOST-001', !wrong, { documented: `property ${base} answered as documented` });
          },
          3,
        ),
    });
    const { error } = await run(t, [
      { ...input(t, 0, () => false), state: 'x' },
      property('x', 200, true),
      property(undefined, 100, false),
    ]);
    expect(arrived.findIndex((i) => i >= 100 && i < 200)).toBeLessThan(arrived.findIndex((i) => i >= 200));
    expect(error).toBeInstanceOf(ConformanceFailure);
    expect((error as ConformanceFailure).detail.documented).toBe('property 200 answered as documented');
    expect((error as ConformanceFailure).property?.ordinal).toBe(1);
  });
});

describe('propertyAhead', () => {
  const arb = fc.integer({ min: 0, max: 1000 });
  const send = (t: CheckContext) => (value: number) => t.quotes.request({ path: '/', query: { i: value }, retry: false });
  const judge = (t: CheckContext) => (value: number, ex: Exchange) =>
    t.expect('Q-HOST-001', value < 500, { documented: 'below 500', received: { value, status: ex.response.status } });

  test('sends ahead, each value once in a passing run; fails with the counterexample of t.property', async () => {
    const t = context(8);
    await propertyAhead(t, 'Q-HOST-001', arb, send(t), () => {}, 40);
    expect(arrived).toHaveLength(40);
    expect(new Set(arrived)).toEqual(new Set(fc.sample(arb, { seed: env.seed, numRuns: 40 })));

    const failing = async (t: CheckContext, ahead: boolean) => {
      try {
        if (ahead) await propertyAhead(t, 'Q-HOST-001', arb, send(t), judge(t), 40);
        else await t.property('Q-HOST-001', arb, async (v) => judge(t)(v, await send(t)(v)), 40);
      } catch (e) {
        return e as ConformanceFailure;
      }
      throw new Error('the property passed');
    };
    const [withAhead, oneAtATime] = [await failing(context(8), true), await failing(context(1), false)];
    expect(withAhead.property).toEqual(oneAtATime.property);
    expect(withAhead.detail.received).toEqual({ value: 500, status: 200 });
    expect(await failing(context(1), true)).toMatchObject({ property: oneAtATime.property });
  });
});
