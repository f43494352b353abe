/**
 * Bounded, whatever the target does (issue 12): small hostile servers on 127.0.0.1 in front of the reference server
 * (a body that drips, a 64 MiB body against a 1 MiB cap, a connection reset, bytes that are not HTTP, JSON nested
 * 100000 deep, a 429 storm, the 60-second rate window of the quote document) each give a verdict and an exit code,
 * in bounded time and memory: never a hang, a crash or a silent pass.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReferenceServer, type RunningServer } from '../../fixtures/server/index.ts';
import { boundedRequest, ServiceClient, TransportError, type Violation } from '../../suites/harness/client.ts';
import { nestsDeeperThan } from '../../suites/harness/json-exact.ts';
import type { Check } from '../../suites/harness/check.ts';
import { runCheck, type CheckResult } from '../../suites/harness/runner.ts';
import { cli as runCli, listenLoopback, matrixOf, type Ran, reportDir } from '../cli/run-cli.ts';
import UnfinishedChecksReporter from '../../bin/reporters/unfinished.ts';
import { allChecks } from '../../suites/index.ts';
import { SELF_TEST_SEED } from './run.ts';
import { prepareSelfTest } from './sandbox-support.ts';

const MiB = 1024 * 1024;

/** Answer the request itself (true), or let it through to the reference server (false). */
type Hostile = (req: IncomingMessage, res: ServerResponse) => boolean;

interface Proxy {
  url: string;
  close(): Promise<void>;
}

/** A proxy to `upstream` on 127.0.0.1 that lets `hostile` answer what it wants. */
async function proxy(upstream: string, hostile: Hostile): Promise<Proxy> {
  const server = createServer((req, res) => {
    if (!hostile(req, res)) forward(upstream, req, res);
  });
  server.on('clientError', (_e, socket) => socket.destroy());
  return listenLoopback(server);
}

/** Pass one request through to `upstream`, as it is. */
function forward(upstream: string, req: IncomingMessage, res: ServerResponse): void {
  const target = new URL(upstream);
  const out = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
    res.writeHead(up.statusCode ?? 502, up.headers);
    up.pipe(res);
  });
  out.on('error', () => res.destroy());
  req.pipe(out);
}

const pathOf = (req: IncomingMessage) => req.url!.split('?')[0]!;

/** One byte every 200 ms, for ever (until the client goes). */
function drip(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{');
  const timer = setInterval(() => res.write(' '), 200);
  res.on('close', () => clearInterval(timer));
}

/** A JSON body of `total` bytes, streamed as the client reads it (never held whole); `sent` counts what left. */
function huge(res: ServerResponse, total: number, sent: { bytes: number }): void {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  res.writeHead(200, { 'content-type': 'application/json' });
  const pump = () => {
    while (!res.destroyed && sent.bytes < total) {
      sent.bytes += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

const rateLimited = (res: ServerResponse, seconds: number) =>
  res
    .writeHead(429, { 'content-type': 'application/json', 'retry-after': String(seconds) })
    .end(JSON.stringify({ error: { code: 'rate_limited' } }));

const checksNamed = (...names: string[]): Check[] =>
  names.map((n) => {
    const check = allChecks.find((c) => c.name === n);
    if (!check) throw new Error(`no check named ${n}`);
    return check;
  });

/** The checks `--grep RULE-PREFIX` runs (vitest matches the test name, which ends with the rule ids). */
const byRule = (prefix: string) => allChecks.filter((c) => c.rules.some((r) => r.startsWith(prefix)));

let reference: RunningServer;
beforeAll(async () => {
  reference = await startReferenceServer({ port: 0 });
});
afterAll(async () => {
  await reference?.close();
});

/** Run `checks` in-process through a hostile proxy, as the CLI would in its workers. */
async function through(hostile: Hostile, checks: readonly Check[]): Promise<CheckResult[]> {
  const p = await proxy(reference.ordersUrl, hostile);
  try {
    const env = await prepareSelfTest({
      ordersUrl: p.url,
      quotesUrl: p.url,
      controlUrl: reference.controlUrl.replace(reference.ordersUrl, p.url),
      profile: 'readonly',
      bounds: { maxBodyBytes: MiB },
    });
    const results: CheckResult[] = [];
    for (const check of checks) results.push(await runCheck(check, env));
    return results;
  } finally {
    await p.close();
  }
}

/** The CLI in a child process, as a CI job runs it (no credentials or CONFORMANCE_ variables leak in from here). */
async function cli(args: string[]): Promise<Ran & { dir: string }> {
  const dir = reportDir('conformance-hostile-');
  return { ...(await runCli([...args, '--report-dir', dir])), dir };
}

const targetArgs = (p: Proxy) => [
  '--orders-url',
  p.url,
  '--quotes-url',
  p.url,
  '--control-url',
  `${p.url}/__control`,
  '--seed',
  String(SELF_TEST_SEED),
];

describe('every read of an answer is bounded', () => {
  test('a 64 MiB body against a 1 MiB cap: reading stops at the cap, the rest is never sent', async () => {
    const sent = { bytes: 0 };
    const p = await proxy(reference.ordersUrl, (_req, res) => (huge(res, 64 * MiB, sent), true));
    try {
      const error = await boundedRequest(`${p.url}/big`, { method: 'GET' }, 10_000, MiB).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TransportError);
      expect(error).toMatchObject({ kind: 'too-large', head: { status: 200 } });
      expect((error as Error).message).toMatch(/^the body exceeded 1048576 bytes \(--max-body-bytes\)/);
      await new Promise((r) => setTimeout(r, 100));
      expect(sent.bytes).toBeLessThan(16 * MiB); // what socket buffers hold, not the 64 MiB
    } finally {
      await p.close();
    }
  });

  test('a body announced larger than the cap is not read at all', async () => {
    const p = await proxy(
      reference.ordersUrl,
      (_req, res) => (res.writeHead(200, { 'content-length': String(2 * 1024 * MiB) }).write('['), true),
    );
    try {
      await expect(boundedRequest(`${p.url}/x`, { method: 'GET' }, 10_000, MiB)).rejects.toThrow(
        /exceeded 1048576 bytes .*content-length 2147483648/,
      );
    } finally {
      await p.close();
    }
  });

  test('a body that drips a byte at a time ends at the deadline of the whole answer', async () => {
    const p = await proxy(reference.ordersUrl, (_req, res) => (drip(res), true));
    try {
      const error = await boundedRequest(`${p.url}/slow`, { method: 'GET' }, 1000, MiB).catch((e: unknown) => e);
      expect(error).toMatchObject({ kind: 'timeout', head: { status: 200 } });
      expect((error as Error).message).toMatch(/^the body did not arrive within 1000 ms: an answer began \(status 200/);
    } finally {
      await p.close();
    }
  });
});

describe('a broken answer fails the rule its request checks', () => {
  test('a connection reset on every try: a failure saying no answer was received, not setup-failed', async () => {
    let resets = 0;
    const [result] = await through(
      (req) => pathOf(req) === '/api/v1/venues' && (resets++, req.socket.resetAndDestroy(), true),
      checksNamed('venue-labels-are-unique-non-empty-strings'),
    );
    expect(result!.verdict, result!.message).toBe('fail');
    expect(result!.message).toMatch(/received: +the target dropped the connection; no answer was received \(ECONNRESET/);
    // A GET is tried again twice after a dropped connection, and each try dropped before any answer byte is sent once
    // more at once on a new connection (suites/harness/client.ts: a keep-alive connection may have gone stale).
    expect(resets).toBe(6);
  });

  test('a connection closed after the answer began: the failure says so', async () => {
    const [result] = await through((req, res) => {
      if (pathOf(req) !== '/api/v1/venues') return false;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"labels":[', () => req.socket.end()); // all of it arrives, then the connection ends, 989 bytes short
      return true;
    }, checksNamed('venue-labels-are-unique-non-empty-strings'));
    expect(result!.verdict, result!.message).toBe('fail');
    expect(result!.message).toMatch(
      /an answer began \(status 200 and its headers, then 11 bytes of the body\) but the connection was dropped/,
    );
  });

  test('bytes that are not HTTP: a failure saying an answer began but is not HTTP', async () => {
    const [result] = await through(
      (req) => pathOf(req) === '/api/v1/providers' && (req.socket.end('SSH-2.0-OpenSSH_9.6\r\n'), true),
      checksNamed('providers-are-objects-with-string-id-name-kind-and-unique-ids'),
    );
    expect(result!.verdict, result!.message).toBe('fail');
    expect(result!.message).toMatch(/an answer began but is not HTTP/);
  });

  test('JSON nested 100000 deep: a verdict on the rule, no stack overflow, no suite error', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const results = await through(
      (req, res) => {
        if (pathOf(req) !== '/api/v1/info') return false;
        res.writeHead(200, { 'content-type': 'application/json' }).end(deep);
        return true;
      },
      checksNamed('info-publishes-protocol-version-as-three-integers', 'info-publishes-numquotes-1-to-10-default-1'),
    );
    for (const result of results) {
      expect(result.verdict, result.message).toBe('fail');
      expect(result.message).not.toMatch(/suite error|Maximum call stack/);
    }
    // What the harness makes of the body: one that does not decode, a violation of the operation's rule.
    const violations: Violation[] = [];
    const p = await proxy(reference.ordersUrl, (_req, res) => (res.writeHead(200, { 'content-type': 'application/json' }).end(deep), true));
    try {
      await new ServiceClient({
        service: 'quotes',
        baseUrl: p.url,
        timeoutMs: 2000,
        defaultHeaders: {},
        record: () => {},
        violation: (v) => violations.push(v),
      }).request({ path: '/api/v1/info' });
    } finally {
      await p.close();
    }
    expect(violations.map((v) => [v.rule, v.detail.received])).toEqual([
      ['Q-SHAPE-001', 'application/json body does not decode: the JSON text nests deeper than 256 levels'],
    ]);
    const msgpack = [new Uint8Array(1)];
    let nested: unknown = msgpack;
    for (let i = 0; i < 100_000; i++) nested = [nested];
    expect(nestsDeeperThan(nested, 256)).toBe(true);
    expect(nestsDeeperThan({ routes: [{ steps: [{ a: [1, 2, msgpack] }] }] }, 256)).toBe(false);
  });
});

describe('a check that never reached its verdict is a failure in the matrix', () => {
  const [check, next, third, fourth] = checksNamed(
    'info-publishes-protocol-version-as-three-integers',
    'info-publishes-numquotes-1-to-10-default-1',
    'info-publishes-slippagebps-0-to-10000-default-100',
    'info-publishes-onlydirectroutes-false',
  );
  const testCase = (c: Check, state: string, errors?: Array<{ message: string }>) => {
    const meta: Record<string, unknown> = {};
    return {
      id: c.name,
      meta: () => meta,
      name: `${c.name} [${c.rules.join(' ')}]`,
      result: () => ({ state, errors }),
      diagnostic: () => undefined,
    };
  };
  /** The reporter at the end of a run of `tests`, of which vitest reported `started` as started. */
  const run = (
    tests: ReturnType<typeof testCase>[],
    errors: Array<{ message: string }> = [],
    reason = 'failed',
    started = tests.slice(0, 0),
  ) => {
    const reporter = new UnfinishedChecksReporter();
    for (const t of started) reporter.onTestCaseReady(t as never);
    reporter.onTestRunEnd([{ children: { allTests: () => tests } }] as never, errors, reason as never);
    return tests.map((t) => t.meta().conformance as CheckResult | undefined);
  };

  test("vitest's test timeout: a gating failure of the check's rule, saying so", () => {
    const [result] = run([testCase(check!, 'failed', [{ message: 'Test timed out in 300000ms.\nIf this is a long-running test…' }])]);
    expect(result).toMatchObject({ verdict: 'fail', gating: true, rule: 'Q-INFO-001' });
    expect(result!.message).toMatch(/received: +Test timed out in 300000ms\./);
  });

  test('a worker that died: the check under way fails, the ones after it are skipped saying why; an interrupted run is left as it is', () => {
    const [died, after] = run(
      [testCase(check!, 'pending'), testCase(next!, 'pending')],
      [{ message: '[vitest-pool]: Worker forks emitted error.' }],
    );
    expect(died).toMatchObject({ verdict: 'fail', gating: true });
    expect(died!.message).toMatch(/its worker died before it finished \(\[vitest-pool\]: Worker forks emitted error\.\)/);
    expect(after).toMatchObject({
      verdict: 'skipped',
      message: `not run: the worker running this file died during check "${check!.name}"`,
    });
    expect(run([testCase(check!, 'pending')], [], 'interrupted')).toEqual([undefined]);
  });

  test('a worker that died running two checks at once: both fail, the one not yet started is skipped naming both', () => {
    const tests = [testCase(check!, 'passed'), testCase(next!, 'pending'), testCase(third!, 'pending'), testCase(fourth!, 'pending')];
    const [passed, first, second, notStarted] = run(tests, [{ message: 'Worker exited unexpectedly' }], 'failed', tests.slice(0, 3));
    expect(passed).toBeUndefined();
    for (const died of [first, second]) {
      expect(died).toMatchObject({ verdict: 'fail', gating: true });
      expect(died!.message).toMatch(/its worker died before it finished \(Worker exited unexpectedly\)/);
    }
    expect(notStarted).toMatchObject({
      verdict: 'skipped',
      message: `not run: the worker running this file died during checks "${next!.name}", "${third!.name}"`,
    });
  });
});

describe('the CLI stays bounded against hostile targets', () => {
  test('a dripping /api/v1/info is not judged (later than --timeout), a 64 MiB /api/v1/venues fails its rule: exit 1, a matrix, no crash', async () => {
    const sent = { bytes: 0 };
    const p = await proxy(reference.ordersUrl, (req, res) => {
      if (pathOf(req) === '/api/v1/info') return (drip(res), true);
      if (pathOf(req) === '/api/v1/venues') return (huge(res, 64 * MiB, sent), true);
      return false;
    });
    try {
      const r = await cli([
        ...targetArgs(p),
        '--profile',
        'smoke',
        '--timeout',
        '3000',
        '--max-body-bytes',
        String(MiB),
        '--grep',
        'info-publishes-protocol-version|venue-labels-are-unique',
      ]);
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stderr).not.toMatch(/internal error/);
      const matrix = matrixOf(r.dir);
      const verdict = (name: string) => matrix.checks.find((c) => c.check === name);
      // Neither document sets a response time: an answer later than the run's own --timeout is a precondition.
      expect(verdict('info-publishes-protocol-version-as-three-integers')).toMatchObject({
        verdict: 'setup-failed',
        notJudged: 'precondition',
        unjudged: { id: 'timeout', fix: 'raise --timeout (now 3000 ms)' },
      });
      expect(verdict('info-publishes-protocol-version-as-three-integers')!.message).toMatch(/the body did not arrive within 3000 ms/);
      expect(verdict('venue-labels-are-unique-non-empty-strings')).toMatchObject({ verdict: 'fail', gating: true });
      expect(verdict('venue-labels-are-unique-non-empty-strings')!.message).toMatch(/the body exceeded 1048576 bytes/);
      expect(sent.bytes).toBeLessThan(32 * MiB);
    } finally {
      await p.close();
    }
  }, 240_000);

  test('a 429 storm: the retry-after budget ends the waiting, the checks are skipped saying why, none fails', async () => {
    let limited = 0;
    const p = await proxy(reference.ordersUrl, (req, res) => {
      if (!pathOf(req).startsWith('/api/v1/')) return false;
      limited++;
      rateLimited(res, 1);
      return true;
    });
    try {
      const r = await cli([...targetArgs(p), '--profile', 'readonly', '--grep', 'Q-INFO', '--max-retry-wait', '3']);
      expect(r.stderr).not.toMatch(/internal error/);
      // A documented 429 is never a violation of another rule: the checks it stopped were not judged, INCOMPLETE (exit 4).
      expect(r.code, r.stdout + r.stderr).toBe(4);
      const checks = matrixOf(r.dir).checks;
      expect(checks.length).toBeGreaterThan(3);
      for (const c of checks) expect(c.verdict, `${c.check}: ${c.message}`).toBe('skipped');
      expect(checks.filter((c) => /budget is 3 s \(--max-retry-wait\)/.test(c.message ?? '')).length).toBeGreaterThan(0);
      expect(r.stderr).toMatch(/waiting 1 s: the quote service asked for it \(429 rate_limited retry-after: 1\)/);
      expect(limited).toBeLessThan(200);
    } finally {
      await p.close();
    }
  }, 240_000);

  test('--max-duration: the run stops at its deadline, and the verdict says so (INCOMPLETE, not a pass)', async () => {
    const p = await proxy(reference.ordersUrl, (req, res) => pathOf(req).startsWith('/api/v1/') && (rateLimited(res, 2), true));
    try {
      const r = await cli([...targetArgs(p), '--profile', 'readonly', '--grep', 'Q-INFO', '--max-duration', '6']);
      expect(r.code, r.stdout + r.stderr).toBe(4);
      expect(r.stdout).toMatch(/Conformance INCOMPLETE \(deadline reached\)/);
      expect(r.stderr).toMatch(/deadline was reached \(--max-duration 6 s\)/);
      expect(r.stderr).toMatch(/deadline reached \(--max-duration 6 s\): the verdicts above cover only the checks that ran before it/);
      expect(matrixOf(r.dir).summary.verdict).not.toBe('pass');
    } finally {
      await p.close();
    }
  }, 240_000);

  test("the quote document's rate window (first request of each path: 429 rate_limited, retry-after): waited out, the verdicts of the faithful server", async () => {
    const seen = new Set<string>();
    const p = await proxy(reference.ordersUrl, (req, res) => {
      const path = pathOf(req);
      if (!path.startsWith('/api/v1/') || seen.has(path)) return false;
      seen.add(path);
      // 40 s in the issue; the same path of the code, shorter: each first 429 holds every request of the run (the
      // pacer), so the run waits about a second per path of the quote service.
      rateLimited(res, 1);
      return true;
    });
    try {
      // Q-INFO as in the issue; Q-EDGE checks observe answers as they come (retry: false), on the run's own key.
      const r = await cli([...targetArgs(p), '--profile', 'readonly', '--grep', 'Q-INFO|Q-EDGE']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stderr).toMatch(/waiting 1 s: the quote service asked for it \(429 rate_limited retry-after: 1\)/);
      const verdicts = (results: CheckResult[]) => Object.fromEntries(results.map((c) => [c.check, c.verdict]));
      const faithful = verdicts(await through(() => false, [...byRule('Q-INFO'), ...byRule('Q-EDGE')]));
      expect(Object.values(faithful)).not.toContain('fail');
      expect(verdicts(matrixOf(r.dir).checks)).toEqual(faithful);
    } finally {
      await p.close();
    }
  }, 240_000);
});
