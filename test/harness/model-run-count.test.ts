/**
 * The model checks' runs (issue 17): all of them against the embedded server, whose mutants the self-test catches with
 * every run; fewer on a given target whose round trips are long, said in a note of the check. The slow target here
 * answers after at least 500 ms, where not even 3 runs fit in a family's budget (run-count.ts), so the count does not
 * depend on how busy the machine is (slower only means fewer).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CheckContext, defineCheck } from '../../suites/harness/check.ts';
import { modelRunCount } from '../../suites/orders/model/run-count.ts';
import { OFFLINE_ENV } from './offline-target.ts';

let server: Server;
let requests = 0;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    req.resume();
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'), 500);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const check = defineCheck({ name: 'a-model-check', service: 'orders', rules: ['OA-STATE-002'], profile: 'full', run: async () => {} });

test('the embedded server (hostile inputs absent or every): every run, and no request to measure', async () => {
  for (const hostileInputs of [undefined, 'every'] as const) {
    const t = new CheckContext(check, { ...OFFLINE_ENV, ordersUrl: url, numRuns: 100, hostileInputs, capabilities: ['funding'] });
    expect(await modelRunCount(t)).toBe(20);
    expect(t.notes).toEqual([]);
  }
  expect(requests).toBe(0);
});

test("without the funding capability: at most 6 runs, on the partner's wallet, said in a note", async () => {
  const t = new CheckContext(check, { ...OFFLINE_ENV, ordersUrl: url, numRuns: 100, capabilities: [] });
  expect(await modelRunCount(t)).toBe(6);
  expect(t.notes).toHaveLength(1);
  expect(t.notes[0]).toMatch(/^model runs: 6 of 20: without the funding capability every run deposits from the partner's wallet/);
});

test('a given target with round trips of 500 ms or more: the fewest runs, measured first, said in a note', async () => {
  const t = new CheckContext(check, { ...OFFLINE_ENV, ordersUrl: url, numRuns: 100, hostileInputs: 'per-branch' });
  expect(await modelRunCount(t)).toBe(3);
  expect(requests).toBe(3); // GET /health, to measure the round trip
  expect(t.notes).toHaveLength(1);
  expect(t.notes[0]).toMatch(/^model runs: 3 of 20, sized to the target's median round trip of \d+ ms .*the embedded server runs all 20$/);
});
