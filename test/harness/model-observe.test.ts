/**
 * The model checks' read after a step (suites/orders/model/model.ts observe): the orders and the balance are read at
 * once. OA-BAL-014 (withdrawalPending 0 while no order reads a withdrawal in flight) is the one judgement that needs
 * the balance read after the orders: a withdrawal that ends by itself between the two answers reads ended in its order
 * yet held in a balance answered a moment before. Against the reference server behind a proxy that makes the balance
 * hold 1 of withdrawalPending with no withdrawal (availableToWithdraw reduced to match, OA-BAL-007 kept): held on the
 * read beside the orders only, the balance is read once more and the step passes; held on every read, it fails on
 * OA-BAL-014; held on none, the balance is read once.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type RunningServer, startReferenceServer } from '../../fixtures/server/index.ts';
import { CheckContext } from '../../suites/harness/check.ts';
import { ConformanceFailure } from '../../suites/harness/failure.ts';
import type { TargetEnv } from '../../suites/harness/types.ts';
import { orderGroups } from '../../suites/orders/registry.ts';
import { observe, setup } from '../../suites/orders/model/model.ts';
import { answerProxy, jsonObjectOf } from '../cli/leak-support.ts';
import { prepareSelfTest } from '../self-test/sandbox-support.ts';

let server: RunningServer;
let proxy: { url: string; close(): Promise<void> };
let env: TargetEnv;
/** How many of the next balance answers hold the phantom withdrawalPending (Infinity: all of them). */
let held = 0;
let balanceReads = 0;

beforeAll(async () => {
  server = await startReferenceServer({ port: 0 });
  proxy = await answerProxy(server.ordersUrl, (req, _body, answer) => {
    if (req.method !== 'GET' || !req.url?.startsWith('/me/balance')) return answer;
    balanceReads++;
    const json = jsonObjectOf(answer.raw);
    const row = (json?.data as { balances?: Array<Record<string, string>> } | undefined)?.balances?.[0];
    if (held <= 0 || !row) return answer;
    held--;
    const free = BigInt(row.totalBalance!) - BigInt(row.lockedForFutureTxns!) - 1n;
    Object.assign(row, { withdrawalPending: '1', availableToWithdraw: String(free > 0n ? free : 0n) });
    return { ...answer, raw: Buffer.from(JSON.stringify(json)) };
  });
  env = await prepareSelfTest({ ordersUrl: proxy.url, quotesUrl: server.quotesUrl, controlUrl: server.controlUrl });
});
afterAll(async () => {
  await proxy.close();
  await server.close();
});

/** A DCA model run's user and first order, then one read after a step with `phantom` balance answers held. */
async function readAfterStep(phantom: number) {
  const dcaModel = orderGroups['orders/model']!.find((c) => c.name === 'dca-orders-follow-the-model-through-generated-sequences')!;
  const t = new CheckContext(dcaModel, env);
  const { model, real } = await setup(t, 'dca');
  [held, balanceReads] = [phantom, 0];
  const outcome = await observe(model, real).then(
    () => 'pass',
    (e: unknown) => (e instanceof ConformanceFailure ? e.rule : e),
  );
  held = 0;
  return { outcome, balanceReads };
}

test('nothing held: one balance read, beside the orders', async () => {
  expect(await readAfterStep(0)).toEqual({ outcome: 'pass', balanceReads: 1 });
});

test('held on the read beside the orders only (a withdrawal that ended by itself): read again after them, no failure', async () => {
  expect(await readAfterStep(1)).toEqual({ outcome: 'pass', balanceReads: 2 });
});

test('held on every read: OA-BAL-014 fails', async () => {
  expect(await readAfterStep(Number.POSITIVE_INFINITY)).toEqual({ outcome: 'OA-BAL-014', balanceReads: 2 });
});
