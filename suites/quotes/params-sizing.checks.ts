/**
 * Quote parameters and their effects (area PARAM): the Transaction sizing parameters. Each check sends the parameter,
 * asserts that a well-formed value is accepted (never 400), and lets the shared invariant judge the effect on every
 * route (invariants.ts reads the request that produced each answer).
 */
import fc from 'fast-check';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { isObject, type Json } from '../shared/values.ts';
import { QUOTE_DEFAULTS } from './fixtures.ts';
import { discover, type Discovery, expectCallStatus, Judge, maxNumQuotes, quoteParams, quoteRuns, routesOf } from './quote-support.ts';
import type { RuleId } from '../../generators/vocabulary.ts';
import { expectAccepted, learnRoutes, quote, rejectedEach } from './samples.ts';
import { compileRoute, instructionsOf, uniqueAccounts } from './solana.ts';

// ---------------------------------------------------------------- Transaction sizing parameters

/** A bound judged where it bites: `param` at each of `rows` (from the target's own routes), then at generated values. */
interface Bound {
  rule: RuleId;
  param: string;
  rows: readonly number[];
  /** What the rows are taken from, for the failure message. */
  bites: string;
  values: fc.Arbitrary<number>;
  runs: number;
}

/** Every quote of a `Bound` is accepted (with the alt contents and all quotes, so the invariant sees each route). */
async function acceptedAcross(t: CheckContext, j: Judge, d: Discovery, b: Bound): Promise<void> {
  const send = (value: number) => quote(t, j, d, quoteParams({ [b.param]: value, includeAltContents: true, numQuotes: maxNumQuotes(d) }));
  for (const value of b.rows) expectAccepted(t, b.rule, await send(value), `${b.param}=${value} (${b.bites})`);
  await t.property(b.rule, b.values, async (value) => expectAccepted(t, b.rule, await send(value), `${b.param}=${value}`), b.runs);
}

/**
 * sizeConstraint is judged where it bites: the sizes of the target's own routes (compiled as the invariant does)
 * give a value just below the smallest route, one between, and one at the largest; a property adds values from a
 * few hundred bytes up to the format 0 limit.
 */
export const sizeConstraintBoundsTheRoutes = defineCheck({
  name: 'sizeconstraint-bounds-the-assembled-route-size',
  service: 'quotes',
  rules: ['Q-PARAM-018'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const { d, j, routed } = await learnRoutes(t, { includeAltContents: true });
    const sizes = routed.flatMap((call) => {
      const tables = new Map<string, string[]>();
      for (const alt of Array.isArray((call.body as Json).alts) ? (call.body as { alts: unknown[] }).alts : []) {
        if (isObject(alt) && typeof alt.p === 'string' && Array.isArray(alt.a)) tables.set(alt.p, alt.a as string[]);
      }
      return routesOf(call.body).flatMap(([, r]) => {
        const ixs = instructionsOf(r);
        const compiled = ixs
          ? compileRoute(ixs, QUOTE_DEFAULTS.userPublicKey, tables, (r.addressLookupTables as string[] | undefined) ?? [])
          : undefined;
        return compiled ? [compiled.size] : [];
      });
    });
    const rows = sizes.length
      ? [Math.min(...sizes) - 1, Math.round((Math.min(...sizes) + Math.max(...sizes)) / 2), Math.max(...sizes)]
      : [];
    await acceptedAcross(t, j, d, {
      rule: 'Q-PARAM-018',
      param: 'sizeConstraint',
      rows: rows.filter((n) => n > 0 && n <= 1232),
      bites: `routes of this pair take ${Math.min(...sizes)} to ${Math.max(...sizes)} bytes`,
      values: fc.integer({ min: 200, max: 1232 }),
      runs: quoteRuns(t, 10),
    });
  },
});

export const sizeConstraintAboveTheLimitIsClamped = defineCheck({
  name: 'sizeconstraint-above-the-format-limit-is-clamped-not-rejected',
  service: 'quotes',
  rules: ['Q-PARAM-019'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    await t.property(
      'Q-PARAM-019',
      fc.tuple(fc.integer({ min: 1233, max: 4294967295 }), fc.constantFrom(0, 1)),
      async ([size, format]) => {
        const value = format === 1 ? Math.max(size, 4097) : size;
        const call = await quote(t, j, d, quoteParams({ sizeConstraint: value, transactionFormat: format, includeAltContents: true }));
        expectAccepted(
          t,
          'Q-PARAM-019',
          call,
          `sizeConstraint=${value} with transactionFormat=${format} (clamped to ${format === 1 ? 4096 : 1232})`,
        );
      },
      quoteRuns(t, 8),
    );
  },
});

export const accountsLimitTotalBoundsRoutes = defineCheck({
  name: 'accountslimittotal-bounds-the-accounts-of-every-route',
  service: 'quotes',
  rules: ['Q-PARAM-020'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const { d, j, routed } = await learnRoutes(t, { includeAltContents: true });
    // Where it bites: just below the fewest accounts a route of this pair passes, and at the most.
    const counts = routed
      .flatMap((call) => routesOf(call.body).map(([, r]) => uniqueAccounts(instructionsOf(r) ?? []).size))
      .filter((n) => n > 0);
    const rows = counts.length ? [Math.min(...counts) - 1, Math.max(...counts)] : [];
    await acceptedAcross(t, j, d, {
      rule: 'Q-PARAM-020',
      param: 'accountsLimitTotal',
      rows: rows.filter((n) => n > 0),
      bites: `routes of this pair pass ${Math.min(...counts)} to ${Math.max(...counts)} accounts`,
      values: fc.integer({ min: 8, max: 64 }),
      runs: quoteRuns(t, 8),
    });
  },
});

export const accountsLimitTotalIsClampedOnFormat1 = defineCheck({
  name: 'accountslimittotal-above-64-is-clamped-on-format-1',
  service: 'quotes',
  rules: ['Q-PARAM-021'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    await t.property(
      'Q-PARAM-021',
      fc.integer({ min: 65, max: 65535 }),
      async (limit) => {
        const call = await quote(t, j, d, quoteParams({ accountsLimitTotal: limit, transactionFormat: 1, numQuotes: maxNumQuotes(d) }));
        expectAccepted(t, 'Q-PARAM-021', call, `accountsLimitTotal=${limit} with transactionFormat=1 (clamped to 64)`);
      },
      quoteRuns(t, 5),
    );
  },
});

export const accountsLimitWritableBoundsRoutes = defineCheck({
  name: 'accountslimitwritable-bounds-the-writable-accounts-of-every-route',
  service: 'quotes',
  rules: ['Q-PARAM-022'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    await t.property(
      'Q-PARAM-022',
      fc.integer({ min: 4, max: 64 }),
      async (limit) => {
        const call = await quote(t, j, d, quoteParams({ accountsLimitWritable: limit, numQuotes: maxNumQuotes(d) }));
        expectAccepted(t, 'Q-PARAM-022', call, `accountsLimitWritable=${limit}`);
      },
      quoteRuns(t, 8),
    );
  },
});

/** A template object encoded as MessagePack, then base64: the empty map (the template's fields are not shown). */
const EMPTY_TEMPLATE = Buffer.from([0x80]).toString('base64');

export const transactionTemplateExcludesSizingParameters = defineCheck({
  name: 'transactiontemplate-with-a-sizing-parameter-gives-400',
  service: 'quotes',
  rules: ['Q-PARAM-023'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const alone = await quote(t, j, d, quoteParams({ transactionTemplate: EMPTY_TEMPLATE }), { noRetry: true });
    if (alone.status === 400)
      t.skip(
        'the target rejects an empty template object on its own (its fields are not shown), so the incompatibility cannot be isolated',
      );
    for (const [name, value] of [
      ['accountsLimitTotal', 40],
      ['accountsLimitWritable', 40],
      ['sizeConstraint', 1100],
    ] as const) {
      const call = await quote(t, j, d, quoteParams({ transactionTemplate: EMPTY_TEMPLATE, [name]: value }), { noRetry: true });
      expectCallStatus(
        t,
        'Q-PARAM-023',
        call,
        400,
        `transactionTemplate together with ${name} is rejected with 400 (they are incompatible)`,
      );
    }
  },
});

/** Not base64, or base64 of bytes that are no MessagePack value (0xc1 is never used; a fixarray missing its items). */
const notATemplate: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^[!*@#$%^&(){}~]{1,8}[A-Za-z0-9]{0,8}$/),
  fc.uint8Array({ maxLength: 12 }).map((rest) => Buffer.from([0xc1, ...rest]).toString('base64')),
  fc.integer({ min: 1, max: 15 }).map((n) => Buffer.from([0x90 | n]).toString('base64')),
);

export const malformedTransactionTemplateIsRejected = defineCheck({
  name: 'transactiontemplate-that-is-not-base64-messagepack-gives-400',
  service: 'quotes',
  rules: ['Q-PARAM-024'],
  profile: 'readonly',
  async run(t: CheckContext) {
    await rejectedEach(
      t,
      'Q-PARAM-024',
      notATemplate,
      (template) => ({ transactionTemplate: template }),
      (template) => `transactionTemplate=${JSON.stringify(template)} (not base64 of a MessagePack value) answered 400`,
      quoteRuns(t, 12),
    );
  },
});
