/**
 * A 429 whose retry-after ends past the run's --max-duration deadline is the deadline met (hostile-bounded, issue 17):
 * the run waits until the deadline and no longer, the check is not judged for the deadline (as the checks the deadline
 * leaves unrun are), and the matrix says "deadline", not a rate limit.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type CheckContext, defineCheck } from '../../suites/harness/check.ts';
import { ServiceClient } from '../../suites/harness/client.ts';
import { NotJudged } from '../../suites/harness/failure.ts';
import { buildMatrix, headline } from '../../suites/harness/matrix.ts';
import { configureBounds, DEFAULT_BOUNDS, Pacer, RetryAfterBudget } from '../../suites/harness/pacer.ts';
import { deadlineUnjudged } from '../../suites/harness/preconditions.ts';
import { runCheck } from '../../suites/harness/runner.ts';
import { OFFLINE_ENV, OFFLINE_RUN } from './offline-target.ts';

let server: Server;
let url: string;
let requests = 0;

beforeAll(async () => {
  // Every request: 429 rate_limited, retry-after 5 s (the quote platform's limit of the run's own key).
  server = createServer((req, res) => {
    requests++;
    req.resume();
    res
      .writeHead(429, { 'content-type': 'application/json', 'retry-after': '5' })
      .end(JSON.stringify({ error: { code: 'rate_limited', message: 'slow down' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  configureBounds();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

test('the client waits until the deadline, holds the run with it, and throws NotJudged for the deadline', async () => {
  const now = () => 10_000;
  const pacer = new Pacer(0, now);
  const slept: number[] = [];
  const said: string[] = [];
  const client = new ServiceClient({
    service: 'quotes',
    baseUrl: url,
    timeoutMs: 2000,
    defaultHeaders: { 'x-api-key': 'k' },
    record: () => {},
    violation: () => {},
    pacer,
    retryAfter: new RetryAfterBudget({ ...DEFAULT_BOUNDS, deadlineAt: 13_000, maxDurationS: 9 }, now),
    sleep: async (ms) => void slept.push(ms),
    announce: (line) => void said.push(line),
  });
  const error = await client.request({ path: '/api/v1/info' }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(NotJudged);
  expect((error as NotJudged).unjudged).toEqual(deadlineUnjudged(9));
  expect((error as NotJudged).reason).toMatch(/429 rate_limited retry-after: 5; waiting would pass the run's deadline/);
  expect(slept).toEqual([3000]); // up to the deadline, not the 5 s asked
  expect(pacer.heldUntilMs).toBe(13_000); // the run's own key: every later request waits for the deadline too
  expect(said).toEqual(["waiting 3 s for the run's deadline: the quote service asked for 5 s (429 rate_limited retry-after: 5), past it"]);
});

test('a check stopped so is not judged for the deadline, and the run says the deadline was reached', async () => {
  configureBounds({ deadlineAt: Date.now() + 300, maxDurationS: 7 });
  const check = defineCheck({
    name: 'info-read-while-rate-limited-near-the-deadline',
    service: 'quotes',
    rules: ['Q-INFO-002'],
    profile: 'readonly',
    async run(t: CheckContext) {
      const ex = await t.quotes.request({ path: '/api/v1/info' });
      t.expect('Q-INFO-002', ex.response.status === 200, { documented: 'GET /api/v1/info answers 200', exchange: ex });
    },
  });
  requests = 0;
  const result = await runCheck(check, { ...OFFLINE_ENV, quotesUrl: url, credentials: { quotesApiKey: 'k' } });
  expect(requests).toBe(1);
  expect(result).toMatchObject({ verdict: 'skipped', gating: false, notJudged: 'precondition', unjudged: deadlineUnjudged(7) });
  // The same row as the checks the deadline left unrun (bin/reporters/matrix-reporter.ts), not `rate-limit`; and the
  // run stopped at its deadline even when vitest finished the run before the CLI's timer cancelled it.
  const matrix = buildMatrix([result], [check], { ...OFFLINE_RUN, maxDurationS: 7 }, '0');
  expect(matrix.summary.preconditions.map((p) => [p.id, p.checks])).toEqual([['deadline', [check.name]]]);
  expect(matrix.summary.stopped).toBe('deadline');
  expect(headline(matrix)).toBe('INCOMPLETE (deadline reached)');
});
