/**
 * A documented 503 that outlasts the client's retries (issue 17): the check is not judged, naming the outage, and the
 * run is INCOMPLETE rather than FAIL; a 503 the check made itself (faults set through the control API) and a 503 the
 * documents give no code are judged as any answer, so the mutants that answer 503 wrongly stay caught.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { findOperation } from '../../generators/index.ts';
import { allChecks } from '../../suites/index.ts';
import { type Check, type CheckContext, defineCheck } from '../../suites/harness/check.ts';
import type { Exchange } from '../../suites/harness/exchange.ts';
import { SetupFailed } from '../../suites/harness/failure.ts';
import { buildMatrix } from '../../suites/harness/matrix.ts';
import { outageShownBy, UNAVAILABLE_CODES } from '../../suites/harness/outage.ts';
import { runCheck } from '../../suites/harness/runner.ts';
import { ERROR_STATUSES } from '../../suites/orders/error-table.ts';
import type { TargetEnv } from '../../suites/harness/types.ts';
import { expectValidMatrix } from '../cli/matrix-schema.ts';
import { runAgainstReference } from '../self-test/run.ts';
import { OFFLINE_ENV, OFFLINE_RUN } from './offline-target.ts';

/** Every order-service request answered `503 {error: {code}}` (or `body`); the control API's POST /faults answered `{}`. */
let code: string | undefined = 'RPC_UNAVAILABLE';
let body: unknown;
const seen: string[] = [];
let server: Server;
let env: TargetEnv;

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      if (req.url?.startsWith('/__control/')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      const reply = body ?? { success: false, error: { code, message: 'Chain access temporarily unavailable. Retry shortly.' } };
      res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  env = { ...OFFLINE_ENV, ordersUrl: url, controlUrl: `${url}/__control`, capabilities: ['faults'], profile: 'full' };
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The order service's answers from now on: `503 {error: {code}}`. */
function answering503(withCode: string): void {
  code = withCode;
  body = undefined;
}

/** OA-BAL-001 judged as the checks judge it: GET /me/balance answers 2xx. */
function expectBalance(t: CheckContext, ex: Exchange): void {
  t.expect('OA-BAL-001', ex.response.status === 200, {
    documented: 'GET /me/balance answers 2xx',
    received: ex.response.status,
    exchange: ex,
  });
}

/**
 * A check of OA-BAL-001 (a must rule: its check gates) that reads GET /me/balance and judges the answer by `judge`;
 * with `faults`, the chain is set down first.
 */
const balanceCheck = (name: string, judge: (t: CheckContext, ex: Exchange) => void = expectBalance, faults = false): Check =>
  defineCheck({
    name,
    service: 'orders',
    rules: ['OA-BAL-001'],
    profile: 'readonly',
    ...(faults ? { needs: ['faults'] as const } : {}),
    async run(t: CheckContext) {
      if (faults) await t.control.setFaults({ rpc: 'down' });
      judge(t, await t.orders.request({ path: '/me/balance', headers: { 'X-Service-User': 'someone' } }));
    },
  });

const run = (check: Check) => {
  seen.length = 0;
  return runCheck(check, env);
};

test("the harness's unavailable codes are the 503 codes of the errors table (itself checked against the spec, test/house)", () => {
  const codes503 = Object.entries(ERROR_STATUSES).filter(([, statuses]) => statuses.includes(503));
  expect(codes503.map(([code]) => code).sort()).toEqual([...UNAVAILABLE_CODES].sort());
});

describe('a 503 RPC_UNAVAILABLE that lasts through the retries', () => {
  test('is not a failure of the rule: the check is not judged, naming the outage, and the run is INCOMPLETE', async () => {
    answering503('RPC_UNAVAILABLE');
    const check = balanceCheck('balance-while-the-chain-is-unavailable');
    const result = await run(check);
    expect(seen.filter((s) => s.startsWith('GET /me/balance'))).toHaveLength(3); // retried twice (handling rule 3)
    expect(result).toMatchObject({ verdict: 'skipped', gating: false, notJudged: 'precondition', unjudged: { id: 'unavailable' } });
    expect(result.unjudged!.problem).toMatch(/503 RPC_UNAVAILABLE to GET \/me\/balance on each of 3 attempts/);
    expect(result.message).toMatch(/^OA-BAL-001 not judged: the order service answered 503 RPC_UNAVAILABLE/);
    const matrix = buildMatrix([result], [check], OFFLINE_RUN, '0');
    expect(matrix.summary.verdict).toBe('incomplete');
    expect(matrix.summary.gatingFailures).toBe(0);
    expect(matrix.summary.preconditions.find((p) => p.id === 'unavailable')?.checks).toEqual([check.name]);
    expectValidMatrix(JSON.parse(JSON.stringify(matrix)));
  });

  test('on a step before the rule: setup-failed, the same precondition', async () => {
    answering503('RPC_UNAVAILABLE');
    const setup = balanceCheck('a-setup-step-meets-the-oracle-down', (_t, ex) => {
      if (ex.response.status !== 200) throw new SetupFailed(`the user's balance answered ${ex.response.status}`, ex);
    });
    const result = await run(setup);
    expect(result).toMatchObject({ verdict: 'setup-failed', notJudged: 'precondition', unjudged: { id: 'unavailable' } });
  });

  test('PRICE_ORACLE_UNAVAILABLE where the spec gives it (an intent), on a POST the client does not resend', async () => {
    answering503('PRICE_ORACLE_UNAVAILABLE');
    const intent = defineCheck({
      name: 'an-intent-while-the-oracle-is-unavailable',
      service: 'orders',
      rules: ['OA-INT-001'],
      profile: 'full',
      async run(t: CheckContext) {
        const ex = await t.orders.request({ method: 'POST', path: '/orders/intent', json: {}, headers: { 'X-Service-User': 'someone' } });
        t.expect('OA-INT-001', ex.response.status === 200, { documented: 'an intent is accepted', exchange: ex });
      },
    });
    const result = await run(intent);
    expect(seen).toEqual(['POST /orders/intent']);
    expect(result).toMatchObject({ verdict: 'skipped', notJudged: 'precondition', unjudged: { id: 'unavailable' } });
    expect(result.unjudged!.problem).toMatch(/503 PRICE_ORACLE_UNAVAILABLE to POST \/orders\/intent the one time it was sent/);
  });

  test('a check that copes with the 503 keeps its verdict', async () => {
    answering503('RPC_UNAVAILABLE');
    const copes = balanceCheck('a-check-that-accepts-an-unavailable-chain', (t, ex) =>
      t.expect('OA-BAL-001', ex.response.status === 503, { documented: 'a 503 while the chain is down', exchange: ex }),
    );
    expect((await run(copes)).verdict).toBe('pass');
  });
});

describe('a 503 that is an answer to judge still fails', () => {
  test('the check set the faults itself (the chain down): its 503 is judged', async () => {
    answering503('RPC_UNAVAILABLE');
    const result = await run(balanceCheck('balance-while-the-check-took-the-chain-down', expectBalance, true));
    expect(seen[0]).toBe('POST /__control/faults');
    expect(result).toMatchObject({ verdict: 'fail', rule: 'OA-BAL-001', gating: true });
  });

  test("a 503 without a documented 'unavailable' code (/health's {status: error}, any other) is judged", async () => {
    body = { status: 'error' };
    expect(await run(balanceCheck('balance-answered-a-bare-503'))).toMatchObject({ verdict: 'fail', rule: 'OA-BAL-001' });
    answering503('INTERNAL_ERROR');
    expect(await run(balanceCheck('balance-answered-503-internal-error'))).toMatchObject({ verdict: 'fail', rule: 'OA-BAL-001' });
  });

  test('a documented code on a path the spec does not give it (PRICE_ORACLE_UNAVAILABLE on GET /me/balance) is judged', async () => {
    answering503('PRICE_ORACLE_UNAVAILABLE');
    expect(await run(balanceCheck('balance-answered-the-oracle-down'))).toMatchObject({ verdict: 'fail', rule: 'OA-BAL-001' });
  });

  test('only the order service: a 503 of the quote service (which documents none) is judged; so is one during set prices', () => {
    const unavailable = { success: false, error: { code: 'RPC_UNAVAILABLE', message: 'Retry shortly.' } };
    const orders503: Exchange = {
      service: 'orders',
      operationId: findOperation('orders', 'GET', '/me/balance')!.operationId,
      request: { method: 'GET', url: 'http://127.0.0.1:9/me/balance', headers: {} },
      response: { status: 503, headers: {}, mediaType: 'application/json', body: unavailable, raw: Buffer.alloc(0) },
      durationMs: 1,
      attempts: 1,
    };
    expect(outageShownBy(orders503, [orders503])?.problem).toMatch(/the one time it was sent/);
    const quote503: Exchange = {
      ...orders503,
      service: 'quotes',
      operationId: findOperation('quotes', 'GET', '/api/v1/info')!.operationId,
    };
    expect(outageShownBy(quote503, [quote503])).toBeUndefined();
    const setPrice: Exchange = { ...orders503, service: 'control', operationId: 'setPrice' };
    expect(outageShownBy(orders503, [setPrice, orders503])).toBeUndefined();
  });

  // The reference server's mutants that answer a documented 503 wrongly, each with the checks that cite its rule: all
  // three checks set the faults first, so the 503 is theirs to judge and the mutant stays caught.
  test.each([
    ['chain-down-answered-rpc-unavailable', 'OA-BAL-023'],
    ['chain-recovery-noticed-five-minutes-late', 'OA-ERR-009'],
    ['usdt-priced-by-the-oracle', 'OA-LIM-027'],
  ])(
    'mutant %s is still caught on %s',
    async (mutant, rule) => {
      const results = await runAgainstReference(
        { mutant },
        allChecks.filter((c) => c.rules.includes(rule as Check['rules'][number])),
      );
      expect(results.filter((r) => r.verdict === 'fail' && r.rule === rule).length, JSON.stringify(results, null, 1)).toBeGreaterThan(0);
      expect(results.filter((r) => r.unjudged?.id === 'unavailable')).toEqual([]);
    },
    120_000,
  );
});
