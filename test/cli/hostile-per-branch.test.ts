/**
 * On a given target the hostile-input checks send one malformed value per validation branch; against the embedded
 * server every one (the CLI sets `hostileInputs`; suites/shared/hostile.ts).
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { InvalidRequestSample } from '../../generators/arbitraries.ts';
import { listOperations } from '../../generators/index.ts';
import type { TargetEnv } from '../../suites/harness/types.ts';
import { MALFORMED_BOOLEANS } from '../../suites/shared/arbitraries.ts';
import { badInputs } from '../../suites/orders/steps/hostile-inputs.ts';
import { badQueries } from '../../suites/quotes/hostile-queries.ts';
import { notABoolean } from '../../suites/shared/arbitraries.ts';
import {
  amountBranch,
  branchOf,
  DECODING_BRANCHES,
  generatedSampler,
  HOSTILE_STRINGS,
  hostileValues,
  keyBranch,
  MALFORMED_AMOUNTS,
  MALFORMED_KEYS,
  MALFORMED_PATH_IDS,
  pathIdBranch,
} from '../../suites/shared/hostile.ts';

const env = (hostileInputs?: TargetEnv['hostileInputs']) => ({ hostileInputs }) as TargetEnv;
const branches = <T>(values: readonly T[], branch: (v: T) => string) => new Set(values.map(branch));

describe('hostile inputs per validation branch', () => {
  test('every input unless the run says per-branch (the embedded server, the self-test)', () => {
    for (const e of [env(), env('every')]) {
      const all = hostileValues(e);
      expect(all.strings).toEqual(HOSTILE_STRINGS);
      expect(all.amounts).toEqual(MALFORMED_AMOUNTS);
      expect(all.keys).toEqual(MALFORMED_KEYS);
      expect(all.pathIds).toEqual(MALFORMED_PATH_IDS);
    }
  });

  test('per branch: fewer values, and every branch (so every reading of an amount) still sent once', () => {
    const some = hostileValues(env('per-branch'));
    const cases: Array<[readonly unknown[], readonly unknown[], (v: never) => string]> = [
      [some.strings, HOSTILE_STRINGS, branchOf],
      [some.amounts, MALFORMED_AMOUNTS, amountBranch],
      [some.keys, MALFORMED_KEYS, keyBranch],
      [some.pathIds, MALFORMED_PATH_IDS, pathIdBranch],
    ];
    for (const [kept, all, branch] of cases) {
      expect(kept.length).toBeLessThan(all.length);
      expect(branches(kept as never[], branch)).toEqual(branches(all as never[], branch));
      expect(branches(kept as never[], branch).size).toBe(kept.length);
    }
    expect(new Set(some.amounts.map((m) => m.reading))).toEqual(new Set(MALFORMED_AMOUNTS.map((m) => m.reading)));
  });

  test('injection-looking strings share a branch; empty, long, control, unicode and digits do not', () => {
    expect(branchOf("' OR '1'='1' --")).toBe(branchOf('<script>alert(1)</script>'));
    const distinct = ['', 'x'.repeat(4096), '\u0000a', '\u202e', '9'.repeat(80), '12', '1.5', ' 1', '../etc', 'text', null, 1, true];
    expect(new Set(distinct.map(branchOf)).size).toBe(distinct.length);
  });

  test('generated invalid requests: the first of each operation, target and keyword is sent', () => {
    const sample = (target: string, keyword: string) => ({ target, violation: { keyword } }) as unknown as InvalidRequestSample;
    const sampled = generatedSampler(env('per-branch'));
    expect([sampled('op', sample('body', 'type')), sampled('op', sample('body', 'type')), sampled('op', sample('body', 'enum'))]).toEqual([
      true,
      false,
      true,
    ]);
    expect(sampled('other', sample('body', 'type'))).toBe(true);
    const every = generatedSampler(env());
    expect([every('op', sample('body', 'type')), every('op', sample('body', 'type'))]).toEqual([true, true]);
    // A header the HTTP layer reads: once per sweep; the idempotency key, read by each write: once per operation.
    expect([sampled('op', sample('header:X-Request-Id', 'pattern')), sampled('other', sample('header:X-Request-Id', 'pattern'))]).toEqual([
      true,
      false,
    ]);
    expect([
      sampled('op', sample('header:X-Idempotency-Key', 'minLength')),
      sampled('other', sample('header:X-Idempotency-Key', 'minLength')),
    ]).toEqual([true, true]);
  });

  test('generated invalid requests in a branch the fixed inputs cover are not sent on a given target', () => {
    const sample = (target: string, keyword: string, path = '') =>
      ({ target, violation: { keyword, path } }) as unknown as InvalidRequestSample;
    const sampled = generatedSampler(env('per-branch'));
    expect(sampled('op', sample('query:amount', 'pattern'))).toBe(false);
    expect(sampled('op', sample('query:slippageBps', 'type'))).toBe(false);
    expect(sampled('op', sample('body', 'type'))).toBe(false);
    expect(sampled('op', sample('query:amount', 'required'))).toBe(true);
    expect(sampled('op', sample('query:slippageBps', 'maximum'))).toBe(true);
    expect(sampled('op', sample('body', 'type', '/config'))).toBe(true);
    expect(generatedSampler(env())('op', sample('body', 'type'))).toBe(true);
  });

  test('quote parameters: on a given target one value per branch of each parameter; every one against the embedded server', () => {
    const swap = listOperations('quotes').find((op) => op.operationId === 'getQuoteSwap')!;
    const sent = (hostile: ReturnType<typeof hostileValues>, byKind = false) =>
      badQueries(swap, hostile, byKind).map((q) => {
        const name = q.what.split(/[= ]/)[0]!;
        const value = new URLSearchParams(q.query).getAll(name).at(-1) ?? '';
        return { name, value, strict: q.strict, what: q.what, branch: q.branch };
      });
    const perBranch = hostileValues(env('per-branch'));
    const overlapping = sent({ ...perBranch, perBranch: false }); // the per-branch lists, before one per branch of each parameter
    const some = sent(perBranch);
    expect(some.length).toBeLessThan(overlapping.length);
    // The same branches of each parameter's own validation (unknown parameters, alone and repeated, go in one
    // request); the decoding branches (very long, traversal, control, unicode) go to the parameters in turn, the
    // amount's excepted, so that each reaches several parameters and every parameter one.
    const decoding = (q: { value: string }) => DECODING_BRANCHES.has(branchOf(q.value));
    const own = (qs: typeof some) => new Set(qs.filter((q) => !/unknown/.test(q.what) && !decoding(q)).map((q) => q.branch));
    expect(own(some)).toEqual(own(overlapping));
    for (const branch of DECODING_BRANCHES)
      expect(
        new Set(some.filter((q) => branchOf(q.value) === branch && q.name !== 'amount').map((q) => q.name)).size,
        branch,
      ).toBeGreaterThan(1);
    expect(some.filter((q) => q.name === 'amount' && decoding(q)).length).toBe(DECODING_BRANCHES.size);
    expect(some.filter((q) => /unknown/.test(q.what)).map((q) => q.what)).toEqual(['unknown query parameters, one repeated']);
    const values = (name: string, strict?: boolean) =>
      some
        .filter((q) => q.name === name && !q.what.endsWith('repeated') && (strict === undefined || q.strict === strict))
        .map((q) => q.value);
    // Every parameter still gets its hostile values and its repetition; strict stays apart from lenient.
    for (const p of swap.parameters.filter((q) => q.in === 'query')) {
      expect(values(p.name).length, p.name).toBeGreaterThan(0);
      expect(some.some((q) => q.what === `${p.name} repeated`)).toBe(true);
    }
    // A key with characters outside the alphabet stays apart from text of a key's wrong length, and so do the strict
    // and the lenient readings of an amount; an amount keeps every branch, an integer its digits-or-not ones, a
    // boolean one value that is neither true nor false.
    expect(values('inputMint')).toContain(MALFORMED_KEYS[0]);
    expect(values('amount', false)).toEqual(['+1', '007', '1e6', ' 1']);
    expect(values('amount', true)).toEqual(expect.arrayContaining(['9'.repeat(80), '-1', '1.5', '']));
    expect(values('slippageBps')).toEqual(expect.arrayContaining([HOSTILE_STRINGS[0], '1.5', '-1', '9'.repeat(80)]));
    expect(values('onlyDirectRoutes')).toEqual([HOSTILE_STRINGS[0]]);
    // Against the embedded server: every value of every list, for each required parameter.
    const every = sent(hostileValues(env()));
    for (const s of HOSTILE_STRINGS) expect(every.some((q) => q.name === 'amount' && q.value === s)).toBe(true);
    for (const m of MALFORMED_AMOUNTS)
      if (typeof m.value === 'string') expect(every.filter((q) => q.name === 'amount' && q.value === m.value).length).toBeGreaterThan(0);
    expect(every.length).toBeGreaterThan(overlapping.length);
    // The distributor path shares the parameters: one value per branch of each kind of parameter, the amount's all.
    const byKind = sent(perBranch, true);
    expect(byKind.length).toBeLessThan(some.length / 2);
    expect(byKind.filter((q) => q.name === 'amount').map((q) => q.value)).toEqual(
      some.filter((q) => q.name === 'amount').map((q) => q.value),
    );
    const requests = (qs: typeof every) => qs.map((q) => [q.what, q.strict]);
    expect(requests(sent(hostileValues(env()), true))).toEqual(requests(every));
  });

  test('the per-branch inputs still send what each hostile-input mutant answers wrongly', () => {
    const hostile = hostileValues(env('per-branch'));
    const real = { dca: randomUUID(), trigger: randomUUID(), slice: randomUUID() };
    const ops = listOperations('orders');
    const inputs = (operationId: string) =>
      badInputs(ops.find((op) => op.operationId === operationId)!, '11111111111111111111111111111111', real, hostile);
    const bodies = (operationId: string) => inputs(operationId).map((i) => (i.spec.json !== undefined ? i.spec.json : i.spec.body));
    // invalid-json-body-answers-500, intent-invalid-json-served-with-a-default-body: a body that does not parse, to every write.
    for (const op of ops.filter((o) => o.method !== 'GET'))
      expect(
        bodies(op.operationId).some((b) => typeof b === 'string' && b !== '' && !isJson(b)),
        op.operationId,
      ).toBe(true);
    // trigger-patch-with-a-string-config-answers-500, trigger-patch-serves-a-negative-price.
    const patch = bodies('patchStopLoss') as Array<{ config?: unknown }>;
    expect(patch.some((b) => typeof b?.config === 'string')).toBe(true);
    expect(patch.some((b) => String((b?.config as { triggerPrice?: unknown } | undefined)?.triggerPrice).startsWith('-'))).toBe(true);
    // health-query-parameters-answer-500: a query parameter on GET /health.
    expect(inputs('getHealth').some((i) => i.spec.query !== undefined)).toBe(true);
    // Every amount field of every intent template gets every branch of an amount (stop_loss and take_profit, whose configs
    // share a schema, take turns).
    const intentBodies = bodies('postOrdersIntent') as Array<{ config?: Record<string, unknown> }>;
    for (const field of [
      'totalAmount',
      'amountPerCycle',
      'amount',
      'triggerPrice',
      'minOutputAmount',
      'stopLossPrice',
      'takeProfitPrice',
    ]) {
      const sentValues = intentBodies
        .filter((b) => typeof b?.config === 'object' && b.config !== null && field in b.config && !isWellFormed(b.config[field]))
        .map((b) => b.config![field]);
      const expected = hostile.amounts.filter((m) => !(/Price$/.test(field) && m.reading === 'beyond-u64')).map((m) => m.value);
      expect(sentValues, field).toEqual(expect.arrayContaining(expected));
    }
    // The oco and slice templates have config schemas of their own: each of them gets every branch of an amount.
    for (const type of ['oco', 'slice']) {
      const sentValues = intentBodies
        .filter((b) => (b as { orderType?: string }).orderType === type && b.config && !isWellFormed(b.config.amount))
        .map((b) => b.config!.amount);
      expect(sentValues, type).toEqual(expect.arrayContaining(hostile.amounts.map((m) => m.value)));
    }
    // Every operation with a path id gets an id that is no UUID, and some decoding branches; each decoding branch of a
    // path id, and each body the HTTP layer judges, reaches several reads and several writes.
    const pathIds = (op: (typeof ops)[number]) =>
      inputs(op.operationId)
        .filter((i) => i.what.startsWith('path id'))
        .map((i) => pathIdBranch(i.spec.path.split('/').find((_, k) => op.path.split('/')[k]?.startsWith('{')) ?? ''));
    for (const writes of [false, true]) {
      const withIds = ops.filter((o) => o.path.includes('{') && (o.method !== 'GET') === writes);
      for (const op of withIds) {
        expect(pathIds(op), op.operationId).toContain('text');
        expect(pathIds(op).length, op.operationId).toBeGreaterThan(1);
      }
      for (const branch of DECODING_BRANCHES)
        expect(withIds.filter((op) => pathIds(op).includes(branch)).length, branch).toBeGreaterThan(1);
    }
    const writes = ops.filter((o) => o.method !== 'GET');
    for (const what of ['JSON nested 10000 deep', 'a 1 MiB body', 'a text/plain content type', 'a form content type', 'no content type'])
      expect(writes.filter((op) => inputs(op.operationId).some((i) => i.what === what)).length, what).toBeGreaterThan(1);
    // quote-amount-beyond-u64-answers-500, distributor-quote-amount-beyond-u64-answers-500, quote-negative-amount-routed.
    const swap = listOperations('quotes').find((op) => op.operationId === 'getQuoteSwap')!;
    for (const byKind of [false, true]) {
      const amounts = badQueries(swap, hostile, byKind).map((q) => new URLSearchParams(q.query).getAll('amount').at(-1) ?? '');
      expect(amounts.some((a) => /^\d{21,}$/.test(a))).toBe(true);
      expect(amounts.some((a) => a.startsWith('-'))).toBe(true);
    }
  });

  test('a malformed boolean flag: one value per lenient reading on a given target', () => {
    expect(new Set(MALFORMED_BOOLEANS).size).toBe(MALFORMED_BOOLEANS.length);
    for (const v of MALFORMED_BOOLEANS) expect(['true', 'false']).not.toContain(v);
    expect(fc.sample(notABoolean, { seed: 1, numRuns: 200 })).toEqual(expect.arrayContaining([...MALFORMED_BOOLEANS]));
  });
});

const isJson = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** The valid amount the intent template carries (a string of digits without a leading zero). */
const isWellFormed = (v: unknown) => typeof v === 'string' && /^[1-9][0-9]{0,18}$/.test(v);
