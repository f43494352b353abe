/**
 * "A suite that is safe to point at staging": a slow target (100-300 ms added latency) and a flaky one (occasional
 * 503 RPC_UNAVAILABLE and connection resets, as the documents allow) give the same verdicts as the faithful
 * reference server, only slower; a dead target (accepts connections, never answers) gives exit 3 quickly with a
 * clear message. The transport conditions are the reference server's `latencyMs` and `flaky` (fixtures/server/
 * transport.ts); the suite's checks run in-process as in the mutation self-test.
 */
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReferenceServer, type RunningServer } from '../../fixtures/server/index.ts';
import { FLAKY_503_EVERY, FLAKY_RESET_EVERY, FlakySchedule } from '../../fixtures/server/transport.ts';
import { DEFAULT_MAX_CONCURRENCY } from '../../suites/harness/pacer.ts';
import type { CheckResult } from '../../suites/harness/runner.ts';
import { profileIncludes } from '../../suites/harness/types.ts';
import { allChecks } from '../../suites/index.ts';
import { cli, reportDir } from '../cli/run-cli.ts';
import { describeResults, runAgainstReference, SELF_TEST_SEED } from './run.ts';

/** The readonly check that judges only the orders a tenant already has (suites/orders/reporting.checks.ts). */
const NOTHING_TO_READ = 'every-order-and-execution-the-tenant-already-has-holds-the-passive-invariants';
/**
 * The readonly checks that skip on a fresh embedded server, saying why: the first has no order of the tenant to read;
 * the second no key of the separate swap API (SWAP_API_KEY; only the full profile asks the control API for one,
 * suites/quotes/swap-api-key.checks.ts).
 */
const SKIP_IN_READONLY = [NOTHING_TO_READ, 'a-key-of-the-separate-swap-api-is-rejected-on-the-key-path-with-401'];

const verdicts = (results: CheckResult[]) => Object.fromEntries(results.map((r) => [r.check, r.verdict]));
const requests = (results: CheckResult[]) => results.reduce((n, r) => n + r.requests, 0);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - started };
}

describe('the flaky transport injects only what the documents allow, on a fixed schedule', () => {
  test('schedule: every 7th order GET a 503, every 11th a reset, never two in a row, only into first attempts', () => {
    const schedule = new FlakySchedule();
    const got = Array.from({ length: 77 }, (_, i) => schedule.next(`GET /r${i + 1}`));
    const at = (kind: string) => got.flatMap((g, i) => (g === kind ? [i + 1] : []));
    expect(at('503')).toEqual([7, 14, 21, 28, 35, 42, 49, 63, 70, 77]); // 56 follows the reset of 55
    expect(at('reset')).toEqual([11, 33, 44, 55, 66]); // 22 follows the 503 of 21; 77 is a 503
    for (let i = 1; i < got.length; i++) expect(got[i] !== undefined && got[i - 1] !== undefined).toBe(false);
    // A request seen among the last 16 order GETs or in the last 10 s (a retry, or a quick poll) is let through even
    // on its turn; the clock is given (ms).
    const again = new FlakySchedule();
    for (let i = 1; i < FLAKY_503_EVERY; i++) again.next(`GET /r${i}`, 0);
    expect(again.next('GET /same', 0)).toBe('503');
    for (let i = 1; i < FLAKY_503_EVERY; i++) again.next(`GET /s${i}`, 0);
    expect(again.next('GET /same', 0)).toBeUndefined(); // the 14th: its turn, but a repeat
    for (let i = 15; i < 21; i++) again.next(`GET /t${i}`, 0);
    expect(again.next('GET /same', 0)).toBeUndefined(); // the 21st: still a repeat (the 14th was 7 GETs ago)
    for (let i = 22; i < 98; i++) again.next(`GET /u${i}`, 1000);
    // the 98th: 76 other GETs later (checks running side by side), but 1 s after its last try: still a repeat
    expect(again.next('GET /same', 1000)).toBeUndefined();
    for (let i = 99; i < 119; i++) again.next(`GET /v${i}`, 12_000);
    expect(again.next('GET /same', 12_000)).toBe('503'); // the 119th: 11 s and 20 GETs later, a first attempt again
    expect([FLAKY_503_EVERY, FLAKY_RESET_EVERY]).toEqual([7, 11]);
  });

  let server: RunningServer;
  beforeAll(async () => {
    server = await startReferenceServer({ port: 0, flaky: true });
  });
  afterAll(() => server.close());

  const send = async (method: string, path: string) => {
    try {
      const res = await request(`${server.baseUrl}${path}`, {
        method,
        headers: { 'x-request-id': 'req-1' },
        body: method === 'POST' ? '{}' : undefined,
      });
      const text = await res.body.text();
      return { status: res.statusCode, body: text ? (JSON.parse(text) as unknown) : undefined, requestId: res.headers['x-request-id'] };
    } catch (e) {
      return { error: (e as { code?: string }).code ?? (e as Error).message };
    }
  };

  test('order GETs: the 7th answered 503 RPC_UNAVAILABLE in the envelope, the 11th dropped; /health, POSTs, quotes and control untouched', async () => {
    const seen: unknown[] = [];
    for (let i = 1; i <= 11; i++) {
      // Untouched traffic in between: it neither counts nor is ever injected.
      for (const [method, path] of [
        ['GET', '/health'],
        ['POST', '/orders/intent'],
        ['GET', '/api/v1/info'],
        ['GET', '/__control/capabilities'],
      ] as const) {
        const other = await send(method, path);
        expect(other, `${method} ${path}`).toHaveProperty('status');
        expect((other as { status: number }).status, `${method} ${path}`).not.toBe(503);
      }
      seen.push(await send('GET', `/me/balance?i=${i}`));
    }
    expect(seen.slice(0, 6).every((s) => (s as { status?: number }).status === 401)).toBe(true);
    expect(seen[6]).toEqual({
      status: 503,
      requestId: 'req-1',
      body: { success: false, error: { code: 'RPC_UNAVAILABLE', message: expect.any(String) as string } },
    });
    expect(seen[10]).toHaveProperty('error');
    expect(server.transportFaults()).toEqual({ '503': 1, reset: 1 });
  });
});

describe(`same verdicts on a slow or flaky target, only slower (seed ${SELF_TEST_SEED})`, () => {
  // The slow run takes the readonly profile, without the big tables: every added request costs 200 ms on average, so
  // even with 8 checks at once (as the CLI runs them) the full profile would take many minutes. Checks that
  // send more than SLOW_MAX_REQUESTS on the faithful server (hostile-input and key tables on every operation, each
  // request judged on its own) are left out; what remains is about 600 requests.
  const SLOW_MAX_REQUESTS = 30;
  const SLOW_NUM_RUNS = 10;
  const readonly = allChecks.filter((c) => profileIncludes('readonly', c.profile));
  const timings: string[] = [];
  let faithfulReadonly: CheckResult[];

  // The faithful verdicts of the full profile are all `pass` (test/self-test/variants-1.test.ts runs that baseline);
  // the readonly baseline is run here, with the small numRuns of the slow run.
  beforeAll(async () => {
    const ro = await timed(() => runAgainstReference({}, readonly, { profile: 'readonly', numRuns: SLOW_NUM_RUNS }));
    faithfulReadonly = ro.value;
    timings.push(
      `faithful, readonly:         ${seconds(ro.ms)}, ${readonly.length} checks, ${requests(ro.value)} requests (numRuns ${SLOW_NUM_RUNS})`,
    );
  }, 300_000);

  afterAll(() => console.log(`\nresilience runs:\n  ${timings.join('\n  ')}`));

  test('the faithful server passes every readonly check (the baseline)', () => {
    const notPassing = faithfulReadonly.filter(
      (r) => r.verdict !== 'pass' && !(r.verdict === 'skipped' && SKIP_IN_READONLY.includes(r.check)),
    );
    expect(notPassing, describeResults(notPassing)).toEqual([]);
  });

  test('100-300 ms added latency on every request: the readonly verdicts are the faithful ones', async () => {
    const small = new Set(faithfulReadonly.filter((r) => r.requests <= SLOW_MAX_REQUESTS).map((r) => r.check));
    const subset = readonly.filter((c) => small.has(c.name));
    expect(subset.length).toBeGreaterThan(100);
    const slow = await timed(() =>
      runAgainstReference({ latencyMs: [100, 300] }, subset, {
        profile: 'readonly',
        numRuns: SLOW_NUM_RUNS,
        checksAtOnce: DEFAULT_MAX_CONCURRENCY,
      }),
    );
    timings.push(
      `latency 100-300 ms, readonly: ${seconds(slow.ms)}, ${subset.length} of ${readonly.length} checks ` +
        `(those sending at most ${SLOW_MAX_REQUESTS} requests), ${requests(slow.value)} requests`,
    );
    const expected = Object.fromEntries(faithfulReadonly.filter((r) => small.has(r.check)).map((r) => [r.check, r.verdict]));
    const differ = slow.value.filter((r) => r.verdict !== expected[r.check]);
    expect(differ, describeResults(differ)).toEqual([]);
    expect(verdicts(slow.value)).toEqual(expected);
  }, 240_000);

  // The Proof of the issue: random latency and occasional documented 503s at once, on the whole full profile. The
  // latency is small here (0-5 ms, drawn per request), and still the answers to requests sent together arrive out of
  // order, which is what latency does to races and polls. Checks run 8 at once, as the CLI runs them. The run is bound
  // by its waits, not by work: the checks that run alone send about 3,300 requests one after another, so every
  // millisecond of average latency costs about 3 s (issue 17: 0-15 ms waited about 20 s longer than 0-5 ms).
  test('random latency with occasional 503 RPC_UNAVAILABLE and connection resets on order GETs: the full verdicts are the faithful ones', async () => {
    let faults = { '503': 0, reset: 0 };
    const flaky = await timed(() =>
      runAgainstReference({ flaky: true, latencyMs: [0, 5] }, allChecks, {
        checksAtOnce: DEFAULT_MAX_CONCURRENCY,
        inspect: (s) => {
          faults = s.transportFaults();
        },
      }),
    );
    timings.push(
      `flaky, latency 0-5 ms, full:  ${seconds(flaky.ms)}, ${requests(flaky.value)} requests, ` +
        `${faults['503']} answered 503 RPC_UNAVAILABLE, ${faults.reset} connections reset`,
    );
    const differ = flaky.value.filter((r) => r.verdict !== 'pass');
    expect(differ, describeResults(differ)).toEqual([]);
    expect(Object.keys(verdicts(flaky.value))).toEqual(allChecks.map((c) => c.name));
    expect(faults['503']).toBeGreaterThan(20);
    expect(faults.reset).toBeGreaterThan(10);
  }, 420_000);
});

describe('a dead target', () => {
  let hanging: ReturnType<typeof createTcpServer>;
  const sockets = new Set<Socket>();
  let url: string;
  beforeAll(async () => {
    // Accepts every connection and never answers, like a wedged process behind an open port.
    hanging = createTcpServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => hanging.close(() => r()));
  });

  test('a target that accepts connections and never answers: exit 3 within seconds, saying it could not be reached', async () => {
    const started = Date.now();
    const r = await cli(['--orders-url', url, '--quotes-url', url, '--report-dir', reportDir('conformance-dead-')]);
    const elapsed = Date.now() - started;
    console.log(`dead target: exit ${r.code} after ${seconds(elapsed)}: ${r.stderr.trim()}`);
    expect(r.code, r.stderr).toBe(3);
    // A ceiling that bounds a hang (retries without end), not a measure of speed: a busy machine starts tsx slowly.
    expect(elapsed).toBeLessThan(90_000);
    expect(r.stderr).toMatch(/the target could not be reached/);
    expect(r.stderr).toMatch(/no answer within 10000 ms/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // Under a --timeout tighter than the probe's 10 s, the same silence may be a slow target: INCOMPLETE, with the fix.
    const tight = await cli([
      '--orders-url',
      url,
      '--quotes-url',
      url,
      '--timeout',
      '2000',
      '--report-dir',
      reportDir('conformance-dead-'),
    ]);
    expect(tight.code, tight.stderr).toBe(4);
    expect(tight.stderr).toMatch(/no answer within 2000 ms.*raise --timeout \(now 2000 ms\)/);
    expect(tight.stderr).not.toMatch(/\n\s+at /);
  }, 180_000);
});
