/**
 * Keep-alive connections the target closed while idle are not the target's fault (suites/harness/client.ts, `pooled`
 * and `fresh`): a request that may be sent twice is sent again on a new connection when one drops before any answer
 * byte, and any other request goes out on a connection of its own. A drop after the target read a POST is still a
 * failure, and the POST is not sent twice.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { boundedRequest, ServiceClient, TransportError } from '../../suites/harness/client.ts';
import { ConformanceFailure } from '../../suites/harness/failure.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A loopback server; `handle` sees each request (with its number on its connection) after its body was read. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse, nth: number) => void, setup?: (s: Server) => void) {
  const seen = { requests: [] as string[], connections: 0 };
  const perSocket = new WeakMap<Socket, number>();
  const server = createServer((req, res) => {
    const nth = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, nth);
    req.resume();
    req.on('end', () => {
      seen.requests.push(`${req.method} ${req.url}`);
      handle(req, res, nth);
    });
  });
  server.on('connection', () => seen.connections++);
  setup?.(server);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const ok = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
const send = (url: string, method: string, headers: Record<string, string> = {}) =>
  boundedRequest(url, { method, headers, body: method === 'POST' ? '{}' : undefined }, 10_000, 1 << 20);
const requests = [
  ['GET', {}],
  ['POST', { 'x-idempotency-key': 'k-1' }],
  ['POST', {}],
] as const;
const blockEventLoop = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // A worker busy building arbitraries: no timer and no socket event runs meanwhile.
  }
};

describe('a keep-alive connection the target closed is not a failure', () => {
  test('a target that closes idle connections after 200 ms: a client that waits longer, or blocks its event loop, gets every answer', async () => {
    const t = await serve(
      (_req, res) => ok(res),
      (server) => {
        server.keepAliveTimeout = 0; // no Keep-Alive hint: the client keeps idle connections its own default (1 s)
        server.on('connection', (socket: Socket) => socket.setTimeout(200, () => socket.destroy()));
      },
    );
    for (const [method, headers] of requests) {
      await send(`${t.url}/warm`, method, headers);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect((await send(`${t.url}/after-wait`, method, headers)).status).toBe(200);
      await send(`${t.url}/warm`, method, headers);
      blockEventLoop(400);
      expect((await send(`${t.url}/after-block`, method, headers)).status).toBe(200);
    }
    // Nothing was sent twice: a dropped request reaches no handler, and none was dropped after being read.
    expect(t.seen.requests).toHaveLength(requests.length * 4);
  });

  test('a target that drops every request arriving on a reused connection, unread: each one is answered, a POST without a key read once', async () => {
    let dropped = 0;
    const t = await serve((req, res, nth) => (nth > 1 ? (dropped++, req.socket.destroy()) : ok(res)));
    for (const [method, headers] of requests) {
      const kind = `${method}${Object.keys(headers).length ? '-keyed' : ''}`;
      for (let i = 0; i < 4; i++) expect((await send(`${t.url}/${kind}-${i}`, method, headers)).status).toBe(200);
    }
    expect(dropped).toBeGreaterThan(0); // the GETs and keyed POSTs did meet reused connections, and were sent again
    // A POST without an idempotency key never went out on a reused connection: the target read each exactly once.
    expect(t.seen.requests.filter((r) => /^POST \/POST-\d/.test(r))).toEqual(
      ['/POST-0', '/POST-1', '/POST-2', '/POST-3'].map((p) => `POST ${p}`),
    );
  });
});

describe('a connection the target drops after reading the request is still a failure', () => {
  test('a POST without an idempotency key: a failure of its rule, read by the target once (never sent again)', async () => {
    const t = await serve((req) => req.socket.resetAndDestroy());
    const client = new ServiceClient({
      service: 'orders',
      baseUrl: t.url,
      timeoutMs: 10_000,
      defaultHeaders: {},
      record: () => {},
      violation: () => {},
      sleep: async () => {},
    });
    const error = await client
      .request({ method: 'POST', path: '/not-a-documented-path', json: {}, validate: false })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConformanceFailure);
    const failure = error as ConformanceFailure;
    expect(failure.rule).toBe('OA-SHAPE-001');
    expect(String(failure.detail.received)).toMatch(
      /^the target dropped the connection; no answer was received \(.*\) on a new connection of its own$/,
    );
    expect(t.seen.requests).toEqual(['POST /not-a-documented-path']);
  });

  test('a GET dropped on every try: sent once more on a new connection, then a dropped answer saying so', async () => {
    const t = await serve((req) => req.socket.resetAndDestroy());
    const error = await send(`${t.url}/x`, 'GET').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ kind: 'dropped', head: undefined });
    expect((error as Error).message).toMatch(
      /no answer was received \(.*\) on a new connection, sent again after a first try was dropped too$/,
    );
    expect(t.seen.requests).toEqual(['GET /x', 'GET /x']);
  });
});
