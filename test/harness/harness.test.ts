import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { defineCheck, type CheckContext } from '../../suites/harness/check.ts';
import { ControlAdapter } from '../../suites/harness/control.ts';
import { normalizeMsgpack, retryDelay, ServiceClient } from '../../suites/harness/client.ts';
import { toCurl } from '../../suites/harness/curl.ts';
import { ConformanceFailure, formatFailure, LateAnswer, SetupFailed } from '../../suites/harness/failure.ts';
import { buildMatrix, renderHtml, renderMarkdown } from '../../suites/harness/matrix.ts';
import { clearSecrets, redact, registerSecret } from '../../suites/harness/redact.ts';
import { runCheck } from '../../suites/harness/runner.ts';
import type { TargetEnv } from '../../suites/harness/types.ts';
import { startReferenceServer } from '../../fixtures/server/index.ts';
import { decodeImage, parseDataUri } from '../../suites/shared/image.ts';
import { sweep } from '../../suites/shared/hostile.ts';
import { parseCli, UsageError } from '../../bin/conformance.ts';
import { OFFLINE_ENV, OFFLINE_RUN } from './offline-target.ts';

describe('redaction and reproductions', () => {
  test('a registered secret never appears in a curl reproduction; a shell variable stands in for it', () => {
    registerSecret('sk-live-abcdef123456', 'QUOTES_API_KEY');
    const curl = toCurl({
      method: 'GET',
      url: 'http://127.0.0.1:9/api/v1/info?auth=sk-live-abcdef123456',
      headers: { 'x-api-key': 'sk-live-abcdef123456' },
    });
    expect(curl).not.toContain('sk-live-abcdef123456');
    expect(curl).toContain('"x-api-key: $QUOTES_API_KEY"');
    expect(redact('key=sk-live-abcdef123456')).toBe('key=$QUOTES_API_KEY');
    clearSecrets();
  });

  test('credential headers and ?auth= never show a value the run did not register; registered ones keep their $NAME', () => {
    registerSecret('jwt.registered.signature0123', 'QUOTES_JWT');
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLW5ldmVyLXJlZ2lzdGVyZWQ';
    const curl = toCurl({
      method: 'POST',
      url: `http://127.0.0.1:9/gateway/api/v1/quote/swap?amount=1&auth=${jwt}&key=raw-key-in-query`,
      headers: {
        'X-Service-Key': 'sk-unregistered-0123456789',
        'x-api-key': 'qk-unregistered-0123456789',
        authorization: `Bearer ${jwt}`,
        'Proxy-Authorization': 'Basic dXNlcjpwYXNz',
        'X-Service-User': 'conformance-sub-1',
        accept: 'application/json',
      },
      body: '{"a":1}',
    });
    for (const raw of ['sk-unregistered', 'qk-unregistered', jwt, jwt.split('.')[2]!, 'raw-key-in-query', 'dXNlcjpwYXNz'])
      expect(curl).not.toContain(raw);
    expect(curl).toContain('"X-Service-Key: $UNREGISTERED_SECRET"');
    expect(curl).toContain('"x-api-key: $UNREGISTERED_SECRET"');
    expect(curl).toContain('"authorization: Bearer $UNREGISTERED_SECRET"');
    expect(curl).toContain('"Proxy-Authorization: Basic $UNREGISTERED_SECRET"');
    expect(curl).toContain('amount=1&auth=$UNREGISTERED_SECRET&key=$UNREGISTERED_SECRET');
    expect(curl).toContain(`'X-Service-User: conformance-sub-1'`);
    expect(curl).toMatch(/# \$UNREGISTERED_SECRET: a credential this run did not register/);
    // Registered: the reproduction runs once the variable is exported; an empty credential carries nothing.
    const known = toCurl({
      method: 'GET',
      url: 'http://127.0.0.1:9/api/v1/info?auth=jwt.registered.signature0123',
      headers: { authorization: 'Bearer jwt.registered.signature0123', 'x-api-key': '' },
    });
    expect(known).toContain('"authorization: Bearer $QUOTES_JWT"');
    expect(known).toContain('?auth=$QUOTES_JWT');
    expect(known).toContain(`'x-api-key: '`);
    expect(known).not.toContain('UNREGISTERED');
    // The run's JWT with one character altered is no more printable than the JWT itself.
    expect(
      toCurl({ method: 'GET', url: 'http://127.0.0.1:9/x', headers: { authorization: 'Bearer jwt.registered.Aignature0123' } }),
    ).not.toContain('ignature0123');
    // The exchange line of a failure report shows its URL through the same redaction.
    const f = new ConformanceFailure('Q-INFO-003', {
      documented: 'x',
      exchange: {
        service: 'quotes',
        request: { method: 'GET', url: `http://127.0.0.1:9/gateway/api/v1/info?auth=${jwt}`, headers: {} },
        response: { status: 401, headers: {}, body: undefined, raw: Buffer.alloc(0) },
        durationMs: 1,
        attempts: 1,
      },
    });
    expect(formatFailure(f, 'a-check')).not.toContain(jwt.split('.')[2]!);
    // Prose about the parameter is not a credential.
    for (const prose of ['sent as Bearer or ?auth=, without x-api-key', 'the query parameter ?auth=<JWT>.', '`?auth=`'])
      expect(redact(prose)).toBe(prose);
    clearSecrets();
  });

  test('secrets minted through the control adapter are registered where they are minted, and never reach a result', async () => {
    const server = await startReferenceServer({ port: 0 });
    try {
      const adapter = new ControlAdapter(server.controlUrl, ['tenants', 'quote-keys'], 5000);
      const tenant = await adapter.createTenant();
      const revoked = await adapter.createKey(tenant.tenantId, 'revoked');
      const quoteKey = await adapter.issueQuoteKey({});
      const { jwt } = await adapter.createQuoteJwt({});
      expect(redact(`${tenant.apiKey} ${revoked}`)).toBe('$PROVISIONED_ORDERS_KEY $PROVISIONED_ORDERS_KEY');
      expect(redact(quoteKey.apiKey)).toBe('$PROVISIONED_QUOTES_KEY');
      expect(redact(jwt)).toBe('$PROVISIONED_QUOTES_JWT');
      clearSecrets();

      // A check that mints a tenant and fails on an exchange sent with its key: the reproduction names the placeholder.
      const env: TargetEnv = {
        ...OFFLINE_ENV,
        ordersUrl: server.ordersUrl,
        quotesUrl: server.quotesUrl,
        controlUrl: server.controlUrl,
        capabilities: ['tenants', 'quote-keys'],
        profile: 'full',
        timeoutMs: 5000,
      };
      const minted: string[] = [];
      const result = await runCheck(
        defineCheck({
          name: 'a-minting-check',
          service: 'orders',
          rules: ['OA-AUTH-010'],
          profile: 'full',
          needs: ['tenants'],
          async run(t: CheckContext) {
            const { apiKey } = await t.control.createTenant();
            const { jwt: token } = await t.control.createQuoteJwt();
            minted.push(apiKey, token);
            t.note(`minted ${apiKey}`);
            const ex = await t.orders.request({ path: '/health', headers: { 'X-Service-Key': apiKey }, validate: false });
            t.expect('OA-AUTH-010', false, { documented: 'x', received: { apiKey, token }, exchange: ex });
          },
        }),
        env,
      );
      expect(result.verdict).toBe('fail');
      const text = JSON.stringify(result);
      for (const secret of minted) expect(text).not.toContain(secret);
      expect(result.reproductions?.join('\n')).toMatch(/"X-Service-Key: \$PROVISIONED_ORDERS_KEY"/);
      expect(result.message).toMatch(/\$PROVISIONED_QUOTES_JWT/);
      expect(result.notes).toEqual(['minted $PROVISIONED_ORDERS_KEY']);
    } finally {
      clearSecrets();
      await server.close();
    }
  });

  test('a failure names the rule, what was documented, what was received, and ends with curl and seed', () => {
    const f = new ConformanceFailure(
      'Q-INFO-003',
      { documented: 'numQuotes 1..10', received: { min: 1, max: 20 } },
      { seed: 42, path: '3:1' },
    );
    const text = formatFailure(f, 'info-publishes-numquotes', 'numQuotes range');
    expect(text).toMatch(/FAIL Q-INFO-003/);
    expect(text).toMatch(/documented: numQuotes 1..10/);
    expect(text).toMatch(/"max": 20/);
    expect(text).toMatch(/seed:\s+42\s+path: 3:1/);
    // The replay command needs the run's target, profile and fast-check runs: the matrix adds it (test/cli/replay.test.ts).
    expect(text).not.toMatch(/replay:/);
  });
});

describe('handling rules decide retries', () => {
  const h = {};
  test('5xx on a GET is retried, on a POST only with an idempotency key', () => {
    expect(retryDelay('orders', 'GET', h, 503, 1)).toBeGreaterThan(0);
    expect(retryDelay('orders', 'POST', h, 503, 1)).toBeUndefined();
    expect(retryDelay('orders', 'POST', { 'X-Idempotency-Key': 'k' }, 500, 1)).toBeGreaterThan(0);
  });
  test('409 backs off on the orders service; 4xx are never retried; retries stop', () => {
    expect(retryDelay('orders', 'GET', h, 409, 1)).toBe(1000);
    expect(retryDelay('orders', 'GET', h, 400, 1)).toBeUndefined();
    expect(retryDelay('orders', 'GET', h, 503, 3)).toBeUndefined();
  });
});

describe('ServiceClient against a local server', () => {
  let server: Server;
  let url: string;
  const hits = new Map<string, number>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      const n = (hits.get(req.url!) ?? 0) + 1;
      hits.set(req.url!, n);
      if (req.url === '/flaky' && n === 1) return res.writeHead(503).end();
      if (req.url === '/slow') return setTimeout(() => res.end('late'), 2000);
      if (req.url === '/limited' && n === 1) return res.writeHead(429, { 'retry-after': '0' }).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ n }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const client = (timeoutMs = 2000, service: 'orders' | 'control' = 'control') => {
    const recorded: string[] = [];
    const c = new ServiceClient({
      service,
      baseUrl: url,
      timeoutMs,
      defaultHeaders: {},
      record: (e) => recorded.push(`${e.response.status}`),
      violation: () => {},
      sleep: async () => {},
    });
    return { c, recorded };
  };

  test('a 503 on an order-service GET is retried and both exchanges are recorded', async () => {
    const { c, recorded } = client(2000, 'orders');
    const ex = await c.request({ path: '/flaky', validate: false });
    expect(ex.response.status).toBe(200);
    expect(ex.attempts).toBe(2);
    expect(recorded).toEqual(['503', '200']);
  });
  test('a 429 with retry-after is retried', async () => {
    const { c } = client();
    expect((await c.request({ path: '/limited' })).response.status).toBe(200);
  });
  test('no answer within the timeout is a typed error, not a hang: a late answer (a precondition of the run), on every service', async () => {
    const { c } = client(150, 'orders');
    await expect(c.request({ path: '/slow' })).rejects.toBeInstanceOf(LateAnswer);
    await expect(c.request({ path: '/slow' })).rejects.toThrow(
      /^no whole answer to GET \/slow within --timeout 150 ms: no answer within 150 ms$/,
    );
    await expect(client(150, 'control').c.request({ path: '/slow' })).rejects.toBeInstanceOf(LateAnswer);
    await expect(client(150, 'control').c.request({ path: '/slow' })).rejects.toBeInstanceOf(SetupFailed);
  });
});

describe('decoding', () => {
  test('MessagePack values normalise to their JSON twins', () => {
    expect(normalizeMsgpack({ d: new Uint8Array([1, 2, 3]), big: 2n ** 60n, small: 5n, list: [new Uint8Array([255])] })).toEqual({
      d: 'AQID',
      big: '1152921504606846976',
      small: 5,
      list: ['/w=='],
    });
  });
  test('images: PNG sizes come from a real decode; other formats from their headers', () => {
    const png = new PNG({ width: 48, height: 32 });
    const uri = `data:image/png;base64,${PNG.sync.write(png).toString('base64')}`;
    const parsed = parseDataUri(uri)!;
    expect(parsed.mediaType).toBe('image/png');
    expect(decodeImage(parsed.bytes)).toEqual({ ok: true, image: { format: 'png', width: 48, height: 32 } });
    expect(decodeImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 48"></svg>'))).toEqual({
      ok: true,
      image: { format: 'svg', width: 48, height: 48 },
    });
    const gif = Buffer.from('474946383961300030000000', 'hex');
    expect(decodeImage(gif)).toEqual({ ok: true, image: { format: 'gif', width: 48, height: 48 } });
    expect(decodeImage(Buffer.from('\x89PNG\r\n\x1a\nbroken', 'latin1')).ok).toBe(false);
    expect(parseDataUri('https://example.com/icon.png')).toBeUndefined();
  });
});

describe('runner verdicts', () => {
  const env = OFFLINE_ENV;
  const check = (run: Parameters<typeof defineCheck>[0]['run'], extra: Partial<Parameters<typeof defineCheck>[0]> = {}) =>
    defineCheck({ name: 'a-check', service: 'quotes', rules: ['Q-INFO-003', 'Q-PROV-005'], profile: 'smoke', run, ...extra });

  test('pass, gating fail, non-gating info fail, skipped, unsupported, profile, setup-failed', async () => {
    expect(
      (
        await runCheck(
          check(async () => {}),
          env,
        )
      ).verdict,
    ).toBe('pass');
    const fail = await runCheck(
      check(async (t) => t.expect('Q-INFO-003', false, { documented: 'x' })),
      env,
    );
    expect([fail.verdict, fail.rule, fail.gating]).toEqual(['fail', 'Q-INFO-003', true]);
    const info = await runCheck(
      check(async (t) => t.expect('Q-PROV-005', false, { documented: 'x' })),
      env,
    );
    expect([info.verdict, info.level, info.gating]).toEqual(['fail', 'info', false]);
    expect(
      (
        await runCheck(
          check(async (t) => t.skip('because')),
          env,
        )
      ).message,
    ).toBe('because');
    expect(
      (
        await runCheck(
          check(async () => {}, { needs: ['clock'] }),
          env,
        )
      ).verdict,
    ).toBe('unsupported');
    expect(
      (
        await runCheck(
          check(async () => {}, { profile: 'full' }),
          env,
        )
      ).verdict,
    ).toBe('skipped');
    expect(
      (
        await runCheck(
          check(async () => {
            throw new TypeError('oops');
          }),
          env,
        )
      ).verdict,
    ).toBe('setup-failed');
  });

  test('a property failure carries the seed and the shrunk counterexample', async () => {
    const fc = (await import('fast-check')).default;
    const r = await runCheck(
      check(async (t: CheckContext) =>
        t.property('Q-INFO-003', fc.integer({ min: 0, max: 100 }), async (n) => {
          t.expect('Q-INFO-003', n < 50, { documented: 'n < 50', received: n });
        }),
      ),
      env,
    );
    expect(r.verdict).toBe('fail');
    expect(r.message).toMatch(/counterexample: 50/);
    expect(r.message).toMatch(/seed:\s+1/);
  });

  test('asserting a rule the check does not cite is a suite error', async () => {
    expect(
      (
        await runCheck(
          check(async (t) => t.expect('Q-INFO-002', true, { documented: 'x' })),
          env,
        )
      ).verdict,
    ).toBe('setup-failed');
  });

  test('the matrix aggregates per rule and renders a readable page', async () => {
    const results = [
      await runCheck(
        check(async (t) => t.expect('Q-INFO-003', false, { documented: 'x' })),
        env,
      ),
    ];
    const m = buildMatrix(results, [check(async () => {})], OFFLINE_RUN, '0');
    expect(m.summary.verdict).toBe('fail');
    expect(m.rules.find((r) => r.id === 'Q-INFO-003')?.verdict).toBe('fail');
    expect(m.rules.find((r) => r.id === 'Q-PROV-005')?.verdict).toBe('not-run');
    expect(m.rules.find((r) => r.id === 'Q-INFO-001')?.verdict).toBe('uncovered');
    expect(renderMarkdown(m)).toMatch(/## Failures/);
    expect(renderMarkdown(m)).not.toMatch(/Bad inputs tried/);
  });

  test('a sweep of bad inputs goes on after a bad answer; its tally reaches the result (also on a suite error) and the matrix', async () => {
    const server = createServer((_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const target = { ...env, quotesUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    try {
      const sweeping = check(async (t) =>
        sweep(t, (s) =>
          s.inputs(
            t,
            t.quotes,
            'Q-INFO-003',
            [0, 1, 2, 3, 4].map((i) => ({
              operation: i < 3 ? 'getInfo' : 'getVenues',
              run: async (send) => {
                const ex = await send({ path: '/x', query: { i } });
                return t.expect('Q-INFO-003', i !== 1, { documented: 'a 4xx', received: ex.response.status });
              },
            })),
          ),
        ),
      );
      const r = await runCheck(sweeping, target);
      expect([r.verdict, r.rule, r.requests]).toEqual(['fail', 'Q-INFO-003', 5]);
      expect(r.tally).toEqual({ getInfo: 3, getVenues: 2 });
      expect(r.notes.join('\n')).toMatch(/5 bad inputs tried, 1 answered wrongly/);
      const broken = await runCheck(
        check(async (t) =>
          sweep(t, (s) =>
            s.inputs(t, t.quotes, 'Q-INFO-003', [
              {
                operation: 'getInfo',
                run: async (send) => {
                  await send({ path: '/x' });
                  throw new TypeError('suite bug');
                },
              },
            ]),
          ),
        ),
        target,
      );
      expect([broken.verdict, broken.tally]).toEqual(['setup-failed', { getInfo: 1 }]);
      const m = buildMatrix([r], [sweeping], OFFLINE_RUN, '0');
      expect(m.checks[0]?.tally).toEqual({ getInfo: 3, getVenues: 2 });
      expect(renderMarkdown(m)).toMatch(
        /## Bad inputs tried per operation\n\n\| Check \| Verdict \| Total \| Per operation \|\n[^\n]*\n\| a-check \| fail \| 5 \| getInfo 3, getVenues 2 \|/,
      );
      expect(renderHtml(m)).toMatch(
        /<h2>Bad inputs tried per operation<\/h2><table>.*<td>a-check<\/td>.*<td>5<\/td><td>getInfo 3, getVenues 2<\/td>/,
      );
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('CLI options', () => {
  const parse = (args: string[], env: NodeJS.ProcessEnv = {}) => parseCli(args, env);
  test('defaults: embedded server, full profile; external targets default to readonly', () => {
    expect(parse([]).config.profile).toBe('full');
    expect(parse(['--orders-url', 'http://a', '--quotes-url', 'http://b']).config.profile).toBe('readonly');
    expect(parse([], { CONFORMANCE_PROFILE: 'smoke', CONFORMANCE_SEED: '7' }).config).toMatchObject({ profile: 'smoke', seed: 7 });
  });
  test('bounds whatever the target does: body cap, retry-after bound and budget, run deadline; option, environment, defaults', () => {
    const defaults = parse([]);
    expect(defaults.config.bounds).toEqual({ maxBodyBytes: 8 * 1024 * 1024, maxRetryAfterMs: 65_000, maxRetryWaitMs: 300_000 });
    expect(defaults.maxDurationS).toBe(1800);
    const given = parse(['--max-body-bytes', '1048576', '--max-retry-after', '90', '--max-retry-wait', '600', '--max-duration', '0']);
    expect(given.config.bounds).toEqual({ maxBodyBytes: 1_048_576, maxRetryAfterMs: 90_000, maxRetryWaitMs: 600_000 });
    expect(given.maxDurationS).toBe(0);
    const env = parse([], {
      CONFORMANCE_MAX_BODY_BYTES: '4096',
      CONFORMANCE_MAX_RETRY_AFTER: '60',
      CONFORMANCE_MAX_RETRY_WAIT: '0',
      CONFORMANCE_MAX_DURATION: '3600',
    });
    expect(env.config.bounds).toEqual({ maxBodyBytes: 4096, maxRetryAfterMs: 60_000, maxRetryWaitMs: 0 });
    expect(env.maxDurationS).toBe(3600);
    expect(() => parse(['--max-body-bytes', '0'])).toThrow(/--max-body-bytes must be an integer >= 1/);
    expect(() => parse(['--max-duration', '1h'])).toThrow(/--max-duration/);
  });
  test.each([
    [['--profile', 'nope']],
    [['--orders-url', 'ftp://a']],
    [['--orders-url', 'http://a', '--gateway-url', 'http://g']],
    [['--orders-url', 'ftp://a', '--quotes-url', 'http://b']],
    [['--seed', '-1']],
    [['--shard', '3/2']],
    [['--bogus']],
    [['--orders-url', 'http://a', '--quotes-url', 'http://b', '--mutant', 'x']],
  ])('bad usage %j is a UsageError', (args) => {
    expect(() => parse(args)).toThrow(UsageError);
  });
  test('one service URL alone is a run of that service (README "One service only")', () => {
    expect(parse(['--orders-url', 'http://a']).config).toMatchObject({ ordersUrl: 'http://a' });
    expect(parse(['--quotes-url', 'http://b']).config).toMatchObject({ quotesUrl: 'http://b' });
  });
});

describe('exact JSON and encoding equality', async () => {
  const { parseJsonExact } = await import('../../suites/harness/json-exact.ts');
  const { deepEqual } = await import('../../suites/shared/values.ts');
  test('integers above 2^53 arrive as exact digit strings; the rest parses as JSON.parse does', () => {
    expect(parseJsonExact('{"a":18446744073709551615,"b":[-9007199254740993,1.5e3,42],"s":"12345678901234567890"}')).toEqual({
      a: '18446744073709551615',
      b: ['-9007199254740993', 1500, 42],
      s: '12345678901234567890',
    });
    expect(parseJsonExact('{"q":"a \\" 99999999999999999999"}')).toEqual({ q: 'a " 99999999999999999999' });
  });
  test('a u64 as a number equals its digit string; other values do not mix', () => {
    expect(deepEqual({ amount: 100 }, { amount: '100' })).toBe(true);
    expect(deepEqual({ amount: 100 }, { amount: '101' })).toBe(false);
    expect(deepEqual('100', '100.0')).toBe(false);
    expect(deepEqual(true, 'true')).toBe(false);
  });
});

describe('request budget', async () => {
  const { Pacer } = await import('../../suites/harness/pacer.ts');
  test('at most maxRps slots per second, in order; 0 means no budget', async () => {
    let clock = 0;
    const waits: number[] = [];
    const pacer = new Pacer(
      4,
      () => clock,
      async (ms) => {
        waits.push(ms);
      },
    );
    for (let i = 0; i < 5; i++) await pacer.slot();
    expect(waits).toEqual([250, 500, 750, 1000]);
    clock = 5000;
    await pacer.slot();
    expect(waits).toHaveLength(4);
    const none = new Pacer(
      0,
      () => 0,
      async () => {
        throw new Error('no wait expected');
      },
    );
    await none.slot();
  });
});
