/**
 * Independent steps sent at once (suites/harness/pacer.ts inOrder; orders.ts atOnce), and reads sent at once that are
 * judged in the check's order (suites/orders/steps/dca.ts judgedLater): a read that went wrong beside one whose answer
 * fails its rule does not hide that failure behind a broken precondition.
 */
import { expect, test } from 'vitest';
import type { CheckContext } from '../../suites/harness/check.ts';
import { SetupFailed } from '../../suites/harness/failure.ts';
import { atOnce } from '../../suites/orders/orders.ts';
import { inOrder } from '../../suites/harness/pacer.ts';
import { judgedLater } from '../../suites/orders/steps/dca.ts';

const t = { env: { maxConcurrency: 8 } } as unknown as CheckContext;
const ruleFails = () => {
  throw new Error('OA-DCA-001: the order reads failed');
};
const broken = () => Promise.reject(new SetupFailed('GET /orders/o-1/executions answered 503 {}'));

test('the first read judged fails its rule first, though the read sent beside it went wrong', async () => {
  const [order, rows] = await atOnce(
    t,
    () => judgedLater(async () => ruleFails),
    () => judgedLater(broken),
  );
  expect(order).toThrow('OA-DCA-001');
  expect(rows).toThrow(SetupFailed);
});

test('without it the broken read would be thrown at once, before the first is judged', async () => {
  await expect(
    atOnce(
      t,
      async () => ruleFails,
      () => broken().then(() => () => undefined),
    ),
  ).rejects.toThrow(SetupFailed);
});

test('an answer read well is judged when called, once', async () => {
  let judged = 0;
  const read = await judgedLater(async () => () => ++judged);
  expect(judged).toBe(0);
  expect(read()).toBe(1);
});

test('inOrder: one after another when sequential, stopping at the first failure; at once otherwise, every step ended first', async () => {
  const started: string[] = [];
  const step =
    (name: string, fails = false) =>
    async () => {
      started.push(name);
      await new Promise((resolve) => setImmediate(resolve));
      if (fails) throw new Error(name);
      return name;
    };
  await expect(inOrder(true, step('a'), step('b', true), step('c'))).rejects.toThrow('b');
  expect(started).toEqual(['a', 'b']);
  started.length = 0;
  await expect(inOrder(false, step('a'), step('b', true), step('c', true))).rejects.toThrow('b');
  expect(started).toEqual(['a', 'b', 'c']);
  expect(await inOrder(false, step('x'), step('y'))).toEqual(['x', 'y']);
});
