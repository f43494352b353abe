/**
 * The run's request budget (suites/harness/pacer.ts, obeyed by suites/harness/client.ts): at most --max-rps
 * requests per second, at most --max-concurrency in flight at once, and a 429's retry-after waited out.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseCli, UsageError } from '../../bin/conformance.ts';
import { defineCheck } from '../../suites/harness/check.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { retryAfterMs, retryDelay, ServiceClient, transientRetryDelay, type ClientOptions } from '../../suites/harness/client.ts';
import { Skipped } from '../../suites/harness/failure.ts';
import {
  ConcurrencyLimit,
  DEFAULT_BOUNDS,
  DEFAULT_MAX_CONCURRENCY,
  mapAtMost,
  Pacer,
  RetryAfterBudget,
} from '../../suites/harness/pacer.ts';
import { runCheck } from '../../suites/harness/runner.ts';
import type { TargetEnv } from '../../suites/harness/types.ts';
import type { Exchange } from '../../suites/harness/exchange.ts';
import { OFFLINE_ENV } from './offline-target.ts';

/** Fake time: `sleep` waits until `advance` moves the clock past its deadline. */
class FakeTime {
  now = 0;
  private timers: Array<{ at: number; resolve: () => void }> = [];
  readonly clock = () => this.now;
  readonly sleep = (ms: number) => new Promise<void>((resolve) => this.timers.push({ at: this.now + ms, resolve }));
  get pending(): number {
    return this.timers.length;
  }
  /** Move to the next deadline and wake whoever waits for it; false when nobody waits. */
  async step(): Promise<boolean> {
    if (this.timers.length === 0) return false;
    this.now = Math.min(...this.timers.map((t) => t.at));
    const due = this.timers.filter((t) => t.at <= this.now);
    this.timers = this.timers.filter((t) => t.at > this.now);
    for (const t of due) t.resolve();
    await flush();
    return true;
  }
}

/** A pacer without a rate budget whose sleeps move its clock forward at once; `slept` lists them. */
function instantPacer(): { pacer: Pacer; slept: number[] } {
  let clock = 0;
  const slept: number[] = [];
  const pacer = new Pacer(
    0,
    () => clock,
    async (ms) => {
      slept.push(ms);
      clock += ms;
    },
  );
  return { pacer, slept };
}

/** Let every settled promise chain run. */
const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

describe('concurrency cap (--max-concurrency)', () => {
  test('200 concurrent requests through a cap of 4: never more than 4 hold a place, all get one, in arrival order', async () => {
    const time = new FakeTime();
    const limit = new ConcurrencyLimit(4);
    let inFlight = 0;
    let peak = 0;
    const started: number[] = [];
    const request = async (i: number) => {
      const release = await limit.acquire();
      inFlight++;
      peak = Math.max(peak, inFlight);
      started.push(i);
      expect(limit.inFlight).toBeLessThanOrEqual(4);
      await time.sleep(10 + ((i * 37) % 90)); // uneven durations, so places free up out of order
      inFlight--;
      release();
      release(); // a second release is ignored
    };
    const all = Promise.all(Array.from({ length: 200 }, (_, i) => request(i)));
    await flush();
    expect([limit.inFlight, limit.queued]).toEqual([4, 196]);
    while (await time.step());
    await all;
    expect(peak).toBe(4);
    expect(limit.highWater).toBe(4);
    expect(started).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect([limit.inFlight, limit.queued]).toEqual([0, 0]);
  });

  test('0 means no cap; the default is 8', async () => {
    const none = new ConcurrencyLimit(0);
    const releases = await Promise.all(Array.from({ length: 100 }, () => none.acquire()));
    expect(releases).toHaveLength(100);
    expect(DEFAULT_MAX_CONCURRENCY).toBe(8);
  });

  test('with a rate budget too: 50 concurrent slots, at most 3 in flight and at most maxRps started per second', async () => {
    const time = new FakeTime();
    const limit = new ConcurrencyLimit(3);
    const pacer = new Pacer(5, time.clock, time.sleep);
    const starts: number[] = [];
    let inFlight = 0;
    let peak = 0;
    const request = async () => {
      const release = await limit.acquire(); // the client's order: a place first, then the rate slot
      try {
        await pacer.slot();
        starts.push(time.now);
        inFlight++;
        peak = Math.max(peak, inFlight);
        await time.sleep(700); // slower than the rate: the cap is what holds them back
        inFlight--;
      } finally {
        release();
      }
    };
    const all = Promise.all(Array.from({ length: 50 }, request));
    await flush();
    while (await time.step());
    await all;
    expect(starts).toHaveLength(50);
    expect(peak).toBe(3);
    for (const t of starts) expect(starts.filter((s) => s >= t && s < t + 1000).length).toBeLessThanOrEqual(5);
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(200);
  });
});

describe('retry-after on a 429 is obeyed', () => {
  test("delay-seconds and HTTP-date, whatever their length (the run's bounds decide the wait); absent or malformed: none", () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(' 0 ')).toBe(0);
    expect(retryAfterMs('30')).toBe(30_000);
    expect(retryAfterMs('41')).toBe(41_000);
    expect(retryAfterMs('60')).toBe(60_000);
    expect(retryAfterMs('3600')).toBe(3_600_000);
    expect(retryAfterMs(undefined)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs('-1')).toBeUndefined();
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:41 GMT', now)).toBe(41_000);
  });

  test("the document's 60-second window is waited out: up to --max-retry-after (default 65 s), not beyond", () => {
    let clock = 0;
    const budget = (over: Partial<typeof DEFAULT_BOUNDS> = {}) => new RetryAfterBudget({ ...DEFAULT_BOUNDS, ...over }, () => clock);
    expect(DEFAULT_BOUNDS.maxRetryAfterMs).toBeGreaterThanOrEqual(60_000);
    for (const s of [40, 41, 59, 60, 65]) expect(budget().grant(s * 1000)).toMatchObject({ granted: true });
    expect(budget().grant(66_000)).toEqual({ granted: false, reason: 'longer than --max-retry-after 65 s' });
    expect(budget({ maxRetryAfterMs: 30_000 }).grant(41_000)).toMatchObject({
      granted: false,
      reason: expect.stringMatching(/--max-retry-after 30 s/),
    });
    // Waits past the run's deadline are not granted.
    clock = 1000;
    expect(budget({ deadlineAt: 40_000 }).grant(41_000)).toMatchObject({ granted: false, reason: expect.stringMatching(/deadline/) });
    expect(budget({ deadlineAt: 45_000 }).grant(41_000)).toMatchObject({ granted: true });
  });

  test('all waits together stay within --max-retry-wait; waits that overlap are charged once', () => {
    let clock = 0;
    const budget = new RetryAfterBudget({ ...DEFAULT_BOUNDS, maxRetryWaitMs: 100_000 }, () => clock);
    expect(budget.grant(60_000)).toEqual({ granted: true, extraMs: 60_000 });
    // Eight requests in flight meet the same limit a moment later: 0.5 s more, not 8 minutes.
    clock = 500;
    for (let i = 0; i < 8; i++) expect(budget.grant(60_000)).toMatchObject({ granted: true });
    expect(budget.spentMs).toBe(60_500);
    clock = 61_000;
    expect(budget.grant(40_000)).toMatchObject({
      granted: false,
      reason: expect.stringMatching(/already waited 60.5 s.*budget is 100 s \(--max-retry-wait\)/),
    });
    expect(budget.grant(39_000)).toEqual({ granted: true, extraMs: 39_000 });
    expect(budget.spentMs).toBe(99_500);
  });

  test('the budget lasts the whole run: processes of one run share it through a file', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'retry-wait-')), 'spent');
    const bounds = { ...DEFAULT_BOUNDS, maxRetryWaitMs: 50_000, retryWaitFile: file };
    expect(new RetryAfterBudget(bounds, () => 0).grant(30_000)).toMatchObject({ granted: true });
    const next = new RetryAfterBudget(bounds, () => 100_000); // the next conformance file, in a process of its own
    expect(next.spentMs).toBe(30_000);
    expect(next.grant(30_000)).toMatchObject({ granted: false });
    expect(next.grant(20_000)).toMatchObject({ granted: true });
  });

  test('transient retries a check cannot turn off: order-service GETs on a 5xx only', () => {
    expect(transientRetryDelay('orders', 'GET', 503, 1)).toBe(250);
    expect(transientRetryDelay('orders', 'GET', 500, 2)).toBe(500);
    expect(transientRetryDelay('orders', 'GET', 503, 3)).toBeUndefined();
    expect(transientRetryDelay('orders', 'POST', 503, 1)).toBeUndefined();
    expect(transientRetryDelay('orders', 'GET', 409, 1)).toBeUndefined();
    expect(transientRetryDelay('orders', 'GET', 429, 1)).toBeUndefined();
    expect(transientRetryDelay('quotes', 'GET', 503, 1)).toBeUndefined();
    expect(transientRetryDelay('control', 'GET', 503, 1)).toBeUndefined();
  });

  test('retryDelay: a 5xx is retried on the order service only (the quote document gives no 5xx retry rule)', () => {
    expect(retryDelay('orders', 'GET', {}, 503, 1)).toBe(250);
    expect(retryDelay('orders', 'POST', { 'X-Idempotency-Key': 'k' }, 500, 2)).toBe(500);
    expect(retryDelay('quotes', 'GET', {}, 503, 1)).toBeUndefined();
    expect(retryDelay('quotes', 'GET', {}, 500, 1)).toBeUndefined();
    expect(retryDelay('control', 'GET', {}, 503, 1)).toBeUndefined();
    expect(retryDelay('quotes', 'GET', {}, 409, 1)).toBeUndefined();
  });
});

describe("a 429's retry-after holds every later request (Pacer.holdFor)", () => {
  test('without a rate budget: slots wait until the hold has passed, then go at once', async () => {
    const time = new FakeTime();
    const pacer = new Pacer(0, time.clock, time.sleep);
    await pacer.slot();
    pacer.holdFor(2000);
    expect(pacer.heldUntilMs).toBe(2000);
    const starts: number[] = [];
    const all = Promise.all(
      [0, 1, 2].map(async () => {
        await pacer.slot();
        starts.push(time.now);
      }),
    );
    await flush();
    expect(starts).toEqual([]);
    while (await time.step());
    await all;
    expect(starts).toEqual([2000, 2000, 2000]);
  });

  test('holds never shorten one another; a past hold holds nothing', async () => {
    const time = new FakeTime();
    const pacer = new Pacer(0, time.clock, time.sleep);
    pacer.holdFor(5000);
    pacer.holdFor(1000);
    expect(pacer.heldUntilMs).toBe(5000);
    time.now = 6000;
    const started = pacer.slot().then(() => time.now);
    await flush();
    expect(await started).toBe(6000);
  });

  test('with a rate budget: after the hold the budget spaces the requests again; a slot already waiting is held too', async () => {
    const time = new FakeTime();
    const pacer = new Pacer(2, time.clock, time.sleep); // 500 ms apart
    const starts: number[] = [];
    const go = async () => {
      await pacer.slot();
      starts.push(time.now);
    };
    const first = [go(), go()]; // at 0 and 500
    await flush();
    pacer.holdFor(3000); // a 429 arrives at 0, while the second waits for its turn
    const later = [go(), go()];
    await flush();
    while (await time.step());
    await Promise.all([...first, ...later]);
    expect(starts[0]).toBe(0);
    expect(starts.slice(1).every((at) => at >= 3000)).toBe(true);
    for (let i = 2; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(500);
  });
});

describe('ServiceClient obeys the budget against a real server', () => {
  let server: Server;
  let url: string;
  let inFlight = 0;
  let peak = 0;
  const hits = new Map<string, number>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = req.url!.split('?')[0]!;
      const n = (hits.get(req.url!) ?? 0) + 1;
      hits.set(req.url!, n);
      inFlight++;
      peak = Math.max(peak, inFlight);
      const answer = (status: number, headers: Record<string, string> = {}) => {
        inFlight--;
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ n }));
      };
      if (path === '/hold') return setTimeout(() => answer(200), 40);
      if (path === '/limited' && n === 1) return answer(429, { 'retry-after': '2' });
      if (path === '/window' && n === 1) {
        inFlight--;
        return res
          .writeHead(429, { 'content-type': 'application/json', 'retry-after': '41' })
          .end(JSON.stringify({ error: { code: 'rate_limited' } }));
      }
      // 30 s ahead: the date has whole seconds, and a busy machine may take seconds before the client reads it.
      if (path === '/limited-date' && n === 1) return answer(429, { 'retry-after': new Date(Date.now() + 30_000).toUTCString() });
      if (path === '/limited-long') return answer(429, { 'retry-after': '3600' });
      if (path === '/exhausted') {
        inFlight--;
        return res
          .writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' })
          .end(JSON.stringify({ error: { code: 'allowance_exhausted' } }));
      }
      if (path === '/blip' && n === 1) return answer(503);
      if (path === '/down') return answer(500);
      answer(200);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const client = (extra: Partial<ClientOptions> = {}) => {
    const waits: number[] = [];
    const recorded: number[] = [];
    const said: string[] = [];
    const c = new ServiceClient({
      service: 'quotes',
      baseUrl: url,
      timeoutMs: 5000,
      defaultHeaders: {},
      record: (e) => recorded.push(e.response.status),
      violation: () => {},
      sleep: async (ms) => {
        waits.push(ms);
      },
      retryAfter: new RetryAfterBudget(DEFAULT_BOUNDS),
      announce: (line) => said.push(line),
      ...extra,
    });
    return { c, waits, recorded, said };
  };

  test('40 requests at once with a cap of 4: the server never sees more than 4 at a time', async () => {
    peak = 0;
    const limit = new ConcurrencyLimit(4);
    const { c } = client({ limit });
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => c.request({ path: '/hold', query: { i } })));
    expect(answers.every((a) => a.response.status === 200)).toBe(true);
    expect(peak).toBe(4);
    expect(limit.inFlight).toBe(0);
  });

  test('without a cap the same 40 overlap (the test above is not vacuous)', async () => {
    peak = 0;
    const { c } = client({ limit: new ConcurrencyLimit(0) });
    await Promise.all(Array.from({ length: 40 }, (_, i) => c.request({ path: '/hold', query: { j: i } })));
    expect(peak).toBeGreaterThan(4);
  });

  test('a 429 waits the seconds of retry-after, then the request is repeated', async () => {
    const { c, waits, recorded, said } = client();
    const ex = await c.request({ path: '/limited' });
    expect([ex.response.status, ex.attempts]).toEqual([200, 2]);
    expect(waits).toEqual([2000]);
    expect(recorded).toEqual([429, 200]);
    expect(said).toEqual(['waiting 2 s: the quote service asked for it (429 retry-after: 2)']);
  });

  test('a rate_limited 429 of the 60-second window (retry-after: 41) is waited out, and said on the terminal', async () => {
    const { c, waits, said } = client();
    const ex = await c.request({ path: '/window' });
    expect([ex.response.status, ex.attempts]).toEqual([200, 2]);
    expect(waits).toEqual([41_000]);
    expect(said).toEqual(['waiting 41 s: the quote service asked for it (429 rate_limited retry-after: 41)']);
  });

  test('retry-after as an HTTP-date is waited out too; one longer than --max-retry-after is not: the check cannot be judged', async () => {
    const dated = client();
    expect((await dated.c.request({ path: '/limited-date' })).response.status).toBe(200);
    expect(dated.waits).toHaveLength(1);
    expect(dated.waits[0]).toBeGreaterThan(1000); // second resolution of the header, and the time it took to read it
    expect(dated.waits[0]).toBeLessThanOrEqual(30_000);
    const long = client();
    const skipped = await long.c.request({ path: '/limited-long' }).catch((e: unknown) => e);
    expect(skipped).toBeInstanceOf(Skipped);
    expect((skipped as Skipped).reason).toBe(
      'the quote service answered 429 retry-after: 3600; not waited out: longer than ' +
        '--max-retry-after 65 s; the check cannot be judged (a 429 is a limit of the run, not an answer to the rule)',
    );
    expect(long.waits).toEqual([]);
    expect(long.recorded).toEqual([429]);
  });

  test("once the run's retry-after budget is spent, a 429 is not waited out: the check cannot be judged", async () => {
    hits.delete('/limited');
    const spent = new RetryAfterBudget({ ...DEFAULT_BOUNDS, maxRetryWaitMs: 1000 });
    const { c, waits } = client({ retryAfter: spent });
    await expect(c.request({ path: '/limited' })).rejects.toThrow(/budget is 1 s \(--max-retry-wait\)/);
    expect(waits).toEqual([]);
  });

  test('a check that observes 429 (retry: false) gets it at once', async () => {
    hits.delete('/limited');
    const { c, waits } = client();
    expect((await c.request({ path: '/limited', retry: false })).response.status).toBe(429);
    expect(waits).toEqual([]);
  });

  test("a 429 seen with retry: false is returned at once, and the run's next requests wait out its retry-after", async () => {
    hits.delete('/limited');
    const { pacer, slept: paced } = instantPacer();
    const { c, waits } = client({ pacer });
    expect((await c.request({ path: '/limited', retry: false })).response.status).toBe(429);
    expect(waits).toEqual([]);
    expect(paced).toEqual([]);
    expect((await c.request({ path: '/other' })).response.status).toBe(200);
    expect(paced).toEqual([2000]);
    expect((await c.request({ path: '/other' })).response.status).toBe(200);
    expect(paced).toEqual([2000]);
  });

  test("the limit of another key (a check's own small plan, observed with retry: false) holds nobody else", async () => {
    hits.delete('/window');
    const { pacer } = instantPacer();
    const budget = new RetryAfterBudget(DEFAULT_BOUNDS);
    const { c, said, waits } = client({ pacer, retryAfter: budget, defaultHeaders: { 'x-api-key': 'the-run-key' } });
    expect((await c.request({ path: '/window', headers: { 'x-api-key': 'a-minted-key' }, retry: false })).response.status).toBe(429);
    expect([pacer.heldUntilMs, budget.spentMs, said, waits]).toEqual([0, 0, [], []]);
    // The platform's 429 to the run's own key is a limit of the run even for a check that observes 409/5xx answers.
    hits.delete('/window');
    const own = await c.request({ path: '/window', retry: false });
    expect([own.response.status, own.attempts, waits, pacer.heldUntilMs]).toEqual([200, 2, [41_000], 41_000]);
  });

  test('a 429 that is retried holds the others too; one whose retry-after is too long holds nothing', async () => {
    hits.delete('/limited');
    const { pacer } = instantPacer();
    const { c, waits } = client({
      pacer,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    expect((await c.request({ path: '/limited' })).response.status).toBe(200);
    expect(waits).toEqual([2000]);
    expect(pacer.heldUntilMs).toBe(2000);
    const long = client({
      pacer: new Pacer(
        0,
        () => 0,
        async () => {},
      ),
    });
    expect((await long.c.request({ path: '/limited-long', retry: false })).response.status).toBe(429);
    expect((long.c as unknown as { opts: ClientOptions }).opts.pacer!.heldUntilMs).toBe(0);
  });

  test('allowance_exhausted is never retried ("retrying does not help"): returned to a check that observes it, else the check cannot be judged; a quote-service 5xx is not retried either', async () => {
    const observed = client();
    const ex = await observed.c.request({ path: '/exhausted', headers: { 'x-api-key': 'a-spent-key' }, retry: false });
    expect([ex.response.status, ex.attempts]).toEqual([429, 1]);
    const exhausted = client();
    await expect(exhausted.c.request({ path: '/exhausted' })).rejects.toThrow(/allowance_exhausted.*retrying does not help/);
    expect(exhausted.waits).toEqual([]);
    expect(observed.waits).toEqual([]);
    hits.delete('/blip');
    const quotes = client();
    const blip = await quotes.c.request({ path: '/blip', validate: false });
    expect([blip.response.status, blip.attempts]).toEqual([503, 1]);
    hits.delete('/blip');
    const orders = client({ service: 'orders' });
    const repeated = await orders.c.request({ path: '/blip', validate: false });
    expect([repeated.response.status, repeated.attempts]).toEqual([200, 2]);
    hits.delete('/blip');
  });

  test('a retry pause does not hold a place: with a cap of 1, others go while a 429 waits', async () => {
    hits.delete('/limited');
    const limit = new ConcurrencyLimit(1);
    let wake!: () => void;
    const order: string[] = [];
    const c = new ServiceClient({
      service: 'quotes',
      baseUrl: url,
      timeoutMs: 5000,
      defaultHeaders: {},
      record: () => {},
      violation: () => {},
      limit,
      sleep: () =>
        new Promise<void>((resolve) => {
          order.push('pause');
          wake = resolve;
        }),
    });
    const limited = c.request({ path: '/limited' }).then((ex) => {
      order.push(`limited ${ex.response.status}`);
    });
    while (!order.includes('pause')) await new Promise((r) => setTimeout(r, 5));
    expect(limit.inFlight).toBe(0);
    const other = await c.request({ path: '/other' });
    order.push(`other ${other.response.status}`);
    wake();
    await limited;
    expect(order).toEqual(['pause', 'other 200', 'limited 200']);
  });

  test('orders: a GET answered 5xx is repeated even with retry: false; a lasting 5xx comes back as it is; a POST is not', async () => {
    const orders = (extra: Partial<ClientOptions> = {}) => client({ service: 'orders', ...extra });
    const blip = orders();
    const ex = await blip.c.request({ path: '/blip', retry: false, validate: false });
    expect([ex.response.status, ex.attempts]).toEqual([200, 2]);
    expect(blip.recorded).toEqual([503, 200]);
    const down = orders();
    const lasting = await down.c.request({ path: '/down', retry: false, validate: false });
    expect([lasting.response.status, lasting.attempts]).toEqual([500, 3]);
    expect(down.waits).toEqual([250, 500]);
    const post = orders();
    expect((await post.c.request({ method: 'POST', path: '/down', json: {}, retry: false, validate: false })).attempts).toBe(1);
    const quotes = client();
    hits.delete('/blip');
    expect((await quotes.c.request({ path: '/blip', retry: false, validate: false })).response.status).toBe(503);
  });

  test('orders: the lasting answer a check waits for (`settled`) comes back at once; any other 5xx is still retried', async () => {
    const down = client({ service: 'orders' });
    const at500 = (ex: Exchange) => ex.response.status === 500;
    const lasting = await down.c.request({ path: '/down', retry: false, validate: false, settled: at500 });
    expect([lasting.response.status, lasting.attempts, down.waits]).toEqual([500, 1, []]);
    hits.delete('/blip');
    const blip = client({ service: 'orders' });
    const ex = await blip.c.request({ path: '/blip', retry: false, validate: false, settled: at500 });
    expect([ex.response.status, ex.attempts, blip.recorded]).toEqual([200, 2, [503, 200]]);
  });

  test("a check's clients share the cap of its TargetEnv (maxConcurrency)", async () => {
    peak = 0;
    const env: TargetEnv = {
      ...OFFLINE_ENV,
      ordersUrl: url,
      quotesUrl: url,
      profile: 'smoke',
      numRuns: 1,
      timeoutMs: 5000,
      maxConcurrency: 2,
    };
    const check = defineCheck({
      name: 'many-at-once',
      service: 'quotes',
      rules: ['Q-INFO-003'],
      profile: 'smoke',
      async run(t) {
        await Promise.all(
          Array.from({ length: 12 }, (_, i) => (i % 2 ? t.quotes : t.orders).request({ path: '/hold', query: { k: i }, validate: false })),
        );
      },
    });
    expect((await runCheck(check, env)).verdict).toBe('pass');
    expect(peak).toBe(2);
  });
});

describe('--max-concurrency', () => {
  const target = ['--orders-url', 'http://127.0.0.1:9', '--quotes-url', 'http://127.0.0.1:9'];
  test('default 8 on a given target and on the embedded server; option and environment variable; 0 = no cap', () => {
    expect(parseCli(target, {}).config.maxConcurrency).toBe(8);
    expect(parseCli([], {}).config.maxConcurrency).toBe(8);
    expect(parseCli([...target, '--max-concurrency', '3'], {}).config.maxConcurrency).toBe(3);
    expect(parseCli(target, { CONFORMANCE_MAX_CONCURRENCY: '0' }).config.maxConcurrency).toBe(0);
    expect(parseCli([...target, '--max-concurrency', '2'], { CONFORMANCE_MAX_CONCURRENCY: '5' }).config.maxConcurrency).toBe(2);
  });
  test('not an integer >= 0: usage error naming the option', () => {
    expect(() => parseCli(['--max-concurrency', 'many'], {})).toThrow(UsageError);
    expect(() => parseCli(['--max-concurrency', '-1'], {})).toThrow(/--max-concurrency/);
  });
});

describe('mapAtMost (independent tasks at once, e.g. the end-of-run cleanup)', () => {
  /** Runs `n` tasks of `width`, each yielding a few times; the most under way at once and the order they started. */
  async function trace(n: number, width: number) {
    let active = 0;
    let peak = 0;
    const started: number[] = [];
    const results = await mapAtMost(
      Array.from({ length: n }, (_, i) => i),
      width,
      async (item, index) => {
        started.push(item);
        peak = Math.max(peak, ++active);
        for (let k = 0; k < (item % 3) + 1; k++) await Promise.resolve();
        active--;
        return item * 10 + index;
      },
    );
    return { results, peak, started };
  }

  test('at most `width` at once, started in order, results in the items order', async () => {
    const { results, peak, started } = await trace(20, 4);
    expect(peak).toBe(4);
    expect(started).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i * 11));
  });

  test('width 1 is one after another; 0 is all at once; no items is nothing', async () => {
    expect((await trace(6, 1)).peak).toBe(1);
    expect((await trace(6, 0)).peak).toBe(6);
    expect(await mapAtMost([], 3, async () => 1)).toEqual([]);
  });

  test('a failure: no item starts after it, and the tasks under way end before it is thrown', async () => {
    const started: number[] = [];
    const ended: number[] = [];
    const run = mapAtMost([0, 1, 2, 3, 4, 5], 2, async (item) => {
      started.push(item);
      for (let k = 0; k < (item === 1 ? 1 : 5); k++) await Promise.resolve();
      if (item === 1) throw new Error('item 1');
      ended.push(item);
    });
    await expect(run).rejects.toThrow('item 1');
    expect(started).toEqual([0, 1]);
    expect(ended).toEqual([0]);
  });
});
