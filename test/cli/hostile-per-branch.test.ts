/**
 * On a given target the hostile-input checks send one malformed value per validation branch; against the embedded
 * server every one (the CLI sets `hostileInputs`; suites/shared/hostile.ts).
 */
import { describe, expect, test } from 'vitest';
import type { InvalidRequestSample } from '../../generators/arbitraries.ts';
import { listOperations } from '../../generators/index.ts';
import type { TargetEnv } from '../../suites/harness/types.ts';
import { badQueries } from '../../suites/quotes/hostile-queries.ts';
import {
  amountBranch,
  branchOf,
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
  });

  test('quote parameters: on a given target one value per branch, strictness and key validation of each; every one against the embedded server', () => {
    const swap = listOperations('quotes').find((op) => op.operationId === 'getQuoteSwap')!;
    const sent = (hostile: ReturnType<typeof hostileValues>) =>
      badQueries(swap, hostile).map((q) => {
        const name = q.what.split(/[= ]/)[0]!;
        const value = new URLSearchParams(q.query).getAll(name).at(-1) ?? '';
        return { name, value, strict: q.strict, what: q.what };
      });
    const perBranch = hostileValues(env('per-branch'));
    const overlapping = sent({ ...perBranch, perBranch: false }); // the per-branch lists, before one per branch of each parameter
    const some = sent(perBranch);
    const classOf = (q: { name: string; value: string; strict: boolean }) =>
      `${q.name} ${q.strict} ${keyBranch(q.value)} ${branchOf(q.value)}`;
    expect(some.length).toBeLessThan(overlapping.length);
    expect(new Set(some.map(classOf))).toEqual(new Set(overlapping.map(classOf)));
    // A key with characters outside the alphabet stays apart from text of a key's wrong length, and so do the strict
    // and the lenient readings of an amount.
    expect(some.filter((q) => q.name === 'inputMint').map((q) => q.value)).toContain(MALFORMED_KEYS[0]);
    expect(some.filter((q) => q.what.startsWith('amount=') && !q.strict).map((q) => q.value)).toEqual(['+1', '007', '1e6', ' 1']);
    // Against the embedded server: every value of every list, for each required parameter.
    const every = sent(hostileValues(env()));
    for (const s of HOSTILE_STRINGS) expect(every.some((q) => q.name === 'amount' && q.value === s)).toBe(true);
    for (const m of MALFORMED_AMOUNTS)
      if (typeof m.value === 'string') expect(every.filter((q) => q.name === 'amount' && q.value === m.value).length).toBeGreaterThan(0);
    expect(every.length).toBeGreaterThan(overlapping.length);
  });
});
