/**
 * Parameter values inside and outside the bounds the target publishes itself (GET /api/v1/info: "An entry with
 * min, max, default is the accepted range of the quote parameter with the same name"). Inside: accepted. Just and
 * far outside, within the parameter's integer type: 400 with the JSON body {code: integer, message: string} (code 7
 * for numQuotes, the only code the document shows). Outside the integer type (UNKNOWNS part B): 400 with either
 * engine body. intervalMs is a streaming setting and is never sent on the key path.
 */
import fc from 'fast-check';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import {
  discover,
  type Discovery,
  expectCallStatus,
  isCodeMessage,
  isPlainText,
  Judge,
  type QuoteCall,
  quoteParams,
  quoteRuns,
  type Range,
  requestQuote,
} from './quote-support.ts';
import { expectAccepted, quote } from './samples.ts';

/** The key-path parameters info gives a range for, with their integer types (Routing parameters). */
const RANGED: ReadonlyArray<{ name: 'numQuotes' | 'slippageBps'; typeMax: number }> = [
  { name: 'numQuotes', typeMax: 255 }, // u8
  { name: 'slippageBps', typeMax: 65535 }, // u16
];

function publishedRanges(t: CheckContext, d: Discovery): Array<{ name: string; typeMax: number; range: Range }> {
  const found = RANGED.flatMap(({ name, typeMax }) => {
    const range = d.ranges.get(name);
    return range ? [{ name, typeMax, range }] : [];
  });
  if (found.length === 0) t.skip('GET /api/v1/info publishes no range for numQuotes or slippageBps (Q-INFO-003/004 report it)');
  return found;
}

/**
 * The engine 400 for a well-formed value outside the published bounds (Errors, body shapes). `rule` decides the
 * whole answer; with `code`, the body must carry that engine code (numQuotes: 7).
 */
function expectBoundsError(t: CheckContext, rule: 'Q-BOUNDS-001' | 'Q-BOUNDS-002', call: QuoteCall, what: string, code?: number): void {
  t.expect(rule, call.status === 400 && isCodeMessage(call.body), {
    documented: `${what} is outside the published bounds: 400 with the JSON body {code: integer, message: string}`,
    received: { status: call.status, contentType: call.ex.response.headers['content-type'], body: call.body },
    exchange: call.ex,
  });
  if (code !== undefined) {
    t.expect(rule, call.body.code === code, { documented: `${what}: code ${code}`, received: call.body, exchange: call.ex });
  } else if (call.body.code !== 7) {
    t.note(`Q-BOUNDS-005: ${what} gave engine code ${call.body.code}`);
  }
}

export const publishedRangesAreAccepted = defineCheck({
  name: 'ranged-parameters-accept-every-value-of-the-published-range',
  service: 'quotes',
  rules: ['Q-BOUNDS-002', 'Q-INFO-013'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const ranges = publishedRanges(t, d);
    // The edges of each range, then values inside it.
    for (const { name, range } of ranges) {
      for (const value of new Set([range.min, range.default, range.max])) {
        const call = await quote(t, j, d, quoteParams({ [name]: value }));
        expectAccepted(t, 'Q-INFO-013', call, `${name}=${value} (inside the published ${range.min} to ${range.max})`);
      }
    }
    const inside = fc
      .constantFrom(...ranges)
      .chain(({ name, range }) => fc.integer({ min: range.min, max: range.max }).map((value) => ({ name, value })));
    await t.property(
      'Q-BOUNDS-002',
      inside,
      async ({ name, value }) => {
        const call = await quote(t, j, d, quoteParams({ [name]: value }));
        expectAccepted(t, 'Q-BOUNDS-002', call, `${name}=${value} (inside the published range)`);
      },
      quoteRuns(t, 12),
    );
  },
});

export const valuesOutsideThePublishedRangeGiveCodeMessage = defineCheck({
  name: 'ranged-parameters-reject-values-outside-the-published-range-with-code-and-message',
  service: 'quotes',
  rules: ['Q-BOUNDS-002', 'Q-BOUNDS-005'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const ranges = publishedRanges(t, d);
    for (const { name, typeMax, range } of ranges) {
      for (const value of [range.min - 1, range.max + 1]) {
        if (value < 0 || value > typeMax) continue; // outside the type: Q-BOUNDS-003
        const call = await requestQuote(t, quoteParams({ [name]: value }), { noRetry: true });
        expectBoundsError(t, 'Q-BOUNDS-002', call, `${name}=${value} (published range ${range.min} to ${range.max})`);
      }
    }
    const outside = fc.constantFrom(...ranges).chain(({ name, typeMax, range }) => {
      const options = [fc.integer({ min: Math.min(range.max + 1, typeMax), max: typeMax })];
      if (range.min > 0) options.push(fc.integer({ min: 0, max: range.min - 1 }));
      return fc
        .oneof(...options)
        .filter((v) => v < range.min || v > range.max)
        .map((value) => ({ name, value, range }));
    });
    await t.property(
      'Q-BOUNDS-002',
      outside,
      async ({ name, value, range }) => {
        const call = await requestQuote(t, quoteParams({ [name]: value }), { noRetry: true });
        expectBoundsError(t, 'Q-BOUNDS-002', call, `${name}=${value} (published range ${range.min} to ${range.max})`);
      },
      quoteRuns(t, 15),
    );
  },
});

export const numQuotesOutOfBoundsGivesCode7 = defineCheck({
  name: 'numquotes-outside-1-to-10-gives-400-code-7',
  service: 'quotes',
  rules: ['Q-BOUNDS-001'],
  profile: 'readonly',
  async run(t: CheckContext) {
    for (const value of [0, 11]) {
      const call = await requestQuote(t, quoteParams({ numQuotes: value }), { noRetry: true });
      expectBoundsError(t, 'Q-BOUNDS-001', call, `numQuotes=${value} (documented 1 to 10)`, 7);
    }
    await t.property(
      'Q-BOUNDS-001',
      fc.integer({ min: 11, max: 255 }),
      async (value) => {
        const call = await requestQuote(t, quoteParams({ numQuotes: value }), { noRetry: true });
        expectBoundsError(t, 'Q-BOUNDS-001', call, `numQuotes=${value} (documented 1 to 10)`, 7);
      },
      quoteRuns(t, 8),
    );
  },
});

/** Values outside the integer type of their parameter: out of range for a u8, u16, u32 or u64, or negative. */
const outOfType: fc.Arbitrary<{ name: string; value: string }> = fc.oneof(
  fc.integer({ min: 256, max: 1_000_000 }).map((v) => ({ name: 'numQuotes', value: String(v) })),
  fc.integer({ min: 65536, max: 10_000_000 }).map((v) => ({ name: 'slippageBps', value: String(v) })),
  fc
    .constantFrom('accountsLimitTotal', 'accountsLimitWritable', 'maxPriceDeviationBps')
    .chain((name) => fc.integer({ min: 65536, max: 10_000_000 }).map((v) => ({ name, value: String(v) }))),
  fc.bigInt({ min: 4294967296n, max: 10n ** 12n }).map((v) => ({ name: 'sizeConstraint', value: v.toString() })),
  fc.bigInt({ min: 18446744073709551616n, max: 10n ** 24n }).map((v) => ({ name: 'amount', value: v.toString() })),
  fc
    .tuple(fc.constantFrom('numQuotes', 'slippageBps', 'maxPriceDeviationBps'), fc.integer({ min: -100_000, max: -1 }))
    .map(([name, v]) => ({ name, value: String(v) })),
);

export const valuesOutsideTheirTypeAreRejected = defineCheck({
  name: 'values-outside-the-parameter-integer-type-give-400',
  service: 'quotes',
  rules: ['Q-BOUNDS-003', 'Q-ERR-001'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const rows = [
      { name: 'slippageBps', value: '70000' },
      { name: 'numQuotes', value: '300' },
      { name: 'slippageBps', value: '-1' },
    ];
    const judge = async ({ name, value }: { name: string; value: string }) => {
      const call = await requestQuote(t, quoteParams({ [name]: value }), { noRetry: true });
      expectCallStatus(t, 'Q-BOUNDS-003', call, 400, `${name}=${value} (outside the parameter's integer type) answered 400`);
      t.expect('Q-ERR-001', isPlainText(call.ex) ? call.body !== '' : isCodeMessage(call.body), {
        documented: 'an engine 400 body is plain text or JSON {code: integer, message: string}',
        received: call.body,
        exchange: call.ex,
      });
    };
    for (const row of rows) await judge(row);
    await t.property('Q-BOUNDS-003', outOfType, judge, quoteRuns(t, 15));
  },
});

export const disabledPriceCheckValuesAreAccepted = defineCheck({
  name: 'maxpricedeviationbps-from-10000-to-65535-is-accepted',
  service: 'quotes',
  rules: ['Q-BOUNDS-004'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    for (const value of [10000, 65535]) {
      expectAccepted(
        t,
        'Q-BOUNDS-004',
        await quote(t, j, d, quoteParams({ maxPriceDeviationBps: value })),
        `maxPriceDeviationBps=${value} (10000 or higher disables the check)`,
      );
    }
    await t.property(
      'Q-BOUNDS-004',
      fc.integer({ min: 10000, max: 65535 }),
      async (value) => {
        const call = await quote(t, j, d, quoteParams({ maxPriceDeviationBps: value, simulate: false }));
        expectAccepted(t, 'Q-BOUNDS-004', call, `maxPriceDeviationBps=${value} with simulate=false`);
      },
      quoteRuns(t, 6),
    );
  },
});
