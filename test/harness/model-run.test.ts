import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { defineCheck, type CheckContext } from '../../suites/harness/check.ts';
import { modelRun } from '../../suites/harness/model-run.ts';
import { runCheck } from '../../suites/harness/runner.ts';
import type { TargetEnv } from '../../suites/harness/types.ts';
import { OFFLINE_ENV } from './offline-target.ts';

/**
 * suites/harness/model-run.ts against a tiny counter service: POST /add?n=N adds N, GET /count reads it. From 3 on,
 * the faulty counter forgets one on every add, so a model that sums the adds catches it after a few steps.
 */

let count = 0;
let server: Server;
let url = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    const at = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'POST' && at.pathname === '/add') count += Number(at.searchParams.get('n')) - (count >= 3 ? 1 : 0);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ count }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

interface Model {
  sum: number;
}
interface Real {
  t: CheckContext;
}

class Add implements fc.AsyncCommand<Model, Real> {
  constructor(readonly n: number) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    await r.t.orders.request({ method: 'POST', path: '/add', query: { n: String(this.n) }, validate: false, retry: false });
    m.sum += this.n;
    const read = await r.t.orders.request({ path: '/count', validate: false, retry: false });
    r.t.expect('Q-INFO-003', (read.response.body as { count: number }).count === m.sum, {
      documented: 'the count is the sum of the adds',
      received: read.response.body,
      exchange: read,
    });
  }
  toString = () => `add ${this.n}`;
}

/** The same model, but the read is judged the way the harness validates answers: a violation, not an assertion. */
class AddJudgedBySchema extends Add {
  override async run(m: Model, r: Real): Promise<void> {
    await r.t.orders.request({ method: 'POST', path: '/add', query: { n: String(this.n) }, validate: false, retry: false });
    m.sum += this.n;
    const read = await r.t.orders.request({ path: '/count', validate: false, retry: false });
    if ((read.response.body as { count: number }).count !== m.sum) {
      r.t.violations.push({
        rule: 'Q-INFO-002',
        detail: { documented: 'the count is the sum of the adds', received: read.response.body, exchange: read },
      });
    }
  }
}

const env = (): TargetEnv => ({ ...OFFLINE_ENV, ordersUrl: url, quotesUrl: url, profile: 'full', seed: 7, numRuns: 20, timeoutMs: 2000 });

/** A check whose model run sends up to 8 adds of 1 to 5, each made by `command`, to a counter reset to 0. */
const counterCheck = (name: string, command: (n: number) => Add) =>
  defineCheck({
    name,
    service: 'quotes',
    rules: ['Q-INFO-003'],
    profile: 'smoke',
    async run(t) {
      await modelRun(
        t,
        fc.commands([fc.integer({ min: 1, max: 5 }).map(command)], { maxCommands: 8 }),
        async () => {
          count = 0;
          return { model: { sum: 0 }, real: { t } };
        },
        20,
      );
    },
  });

/** The counter check run with `command`: a failure of `rule`, shrunk, with its seed and path. */
async function shrunkFailure(name: string, command: (n: number) => Add, rule: string) {
  const r = await runCheck(counterCheck(name, command), env());
  expect([r.verdict, r.rule]).toEqual(['fail', rule]);
  expect(r.message).toMatch(/seed:\s+7\s+path: \S+/);
  expect(r.message).toMatch(/counterexample: add \d,add \d/);
  return r;
}

describe('model-based runs', () => {
  test('a spec violation recorded inside a command fails it: shrunk and reported on the violated rule', async () => {
    const r = await shrunkFailure('counter-model-judged-by-schema', (n) => new AddJudgedBySchema(n), 'Q-INFO-002');
    expect(r.message).not.toMatch(/counterexample: (add \d,){3}/);
    expect(r.notes.join('\n')).toMatch(
      /model-based sequence failing Q-INFO-002 .*its HTTP calls in order:\nPOST \/add\?n=\d -> 200\nGET \/count -> 200/,
    );
  });

  test('a failing sequence shrinks and is reported with its rule, seed, path, commands and HTTP calls', async () => {
    const r = await shrunkFailure('counter-model', (n) => new Add(n), 'Q-INFO-003');
    expect(r.message).toMatch(/"POST \/add\?n=\d -> 200"/);
    expect(r.notes.join('\n')).toMatch(/its HTTP calls in order:\nPOST \/add\?n=\d -> 200\nGET \/count -> 200/);
  });
});
