import fc from 'fast-check';
import { dataOf, errorCode, failureOf, is2xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { isObject } from '../shared/values.ts';
import { createOrder, dcaRequest, intentRequest, intentUser, postIntent, skipIfTemplateRejected, usdc, usdt } from './orders.ts';
import { templatesAccepted, TRIGGER_TYPES, type TriggerType, unixSecondsFromNow } from './steps/create.ts';
import { expectAccepted, expectError } from './steps/expect.ts';
import { asUser } from './users.ts';
import type { RuleId } from '../../generators/vocabulary.ts';

/**
 * Create-time validations and limits of POST /orders/intent (area LIM: Limits; Errors, VALIDATION_ERROR and its
 * trigger-specific causes): mints, the minimum notional and its oracle, the DCA frequency, and the trigger limits
 * (priceDecimals, trail, expiry, OCO prices, minimum output). Each check first has the assumed template accepted
 * (UNKNOWNS.md O7), so that only the value under test can change the answer.
 */

const intentSameMints = defineCheck({
  name: 'dca-intent-with-the-same-input-and-output-mint-answers-400-invalid-mints',
  service: 'orders',
  rules: ['OA-LIM-001'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    // The assumed template first: a target that reads it otherwise (400 VALIDATION_ERROR) leaves nothing to judge.
    skipIfTemplateRejected(t, await postIntent(t, user.sub, dcaRequest()));
    // Stablecoins, so that the per-cycle notional (12 USD) is above the minimum whatever the price oracle says.
    await t.property(
      'OA-LIM-001',
      fc.constantFrom(usdc(), usdt()),
      async (mint) => {
        const ex = await postIntent(t, user.sub, dcaRequest({ inputMint: mint, outputMint: mint }));
        expectError(t, 'OA-LIM-001', ex, {
          status: 400,
          codes: ['INVALID_MINTS'],
          documented: `400 INVALID_MINTS for inputMint = outputMint = ${mint}`,
        });
      },
      Math.min(t.env.numRuns, 4),
    );
  },
});

const intentCycleFrequency = defineCheck({
  name: 'dca-intent-with-cycle-frequency-below-60-answers-400-validation-error',
  service: 'orders',
  rules: ['OA-LIM-011', 'OA-LIM-012'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    // The assumed template first (a target rejecting it gives the checks nothing to stand on), then exactly 60.
    skipIfTemplateRejected(t, await postIntent(t, user.sub, dcaRequest()));
    const at60 = await postIntent(t, user.sub, dcaRequest({ cycleFrequencySeconds: 60 }));
    expectAccepted(t, 'OA-LIM-012', at60, '2xx for a DCA intent with cycleFrequencySeconds 60');
    await t.property(
      'OA-LIM-011',
      fc.integer({ min: 0, max: 59 }),
      async (cycleFrequencySeconds) => {
        const ex = await postIntent(t, user.sub, dcaRequest({ cycleFrequencySeconds }));
        expectError(t, 'OA-LIM-011', ex, {
          status: 400,
          codes: ['VALIDATION_ERROR'],
          documented: `400 VALIDATION_ERROR for cycleFrequencySeconds ${cycleFrequencySeconds} (minimum 60)`,
        });
      },
      Math.min(t.env.numRuns, 8),
    );
  },
});

const intentMinNotional = defineCheck({
  name: 'dca-intent-below-the-minimum-notional-answers-400-min-notional-not-met-with-details',
  service: 'orders',
  rules: ['OA-LIM-002', 'OA-LIM-005', 'OA-LIM-006'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    skipIfTemplateRejected(t, await postIntent(t, user.sub, dcaRequest()));
    // 9.99 USDC per cycle first, to learn the tenant's minimum (OA-LIM-007: configurable per tenant).
    const probe = await postIntent(t, user.sub, dcaRequest({ amountPerCycle: '9990000' }));
    skipIfTemplateRejected(t, probe);
    if (is2xx(probe))
      t.skip(
        "9.99 USDC per cycle is accepted: this tenant's minimum is below the default 10 USD (an override), nothing is generated below it",
      );
    const probeDetails =
      isObject(probe.response.body) && isObject(probe.response.body.error) && isObject(probe.response.body.error.details)
        ? probe.response.body.error.details
        : undefined;
    t.expect(
      'OA-LIM-002',
      probe.response.status === 400 && errorCode(probe) === 'MIN_NOTIONAL_NOT_MET' && Number.isInteger(probeDetails?.requiredCents),
      {
        documented: '400 MIN_NOTIONAL_NOT_MET (details.requiredCents an integer) for 9.99 USDC per cycle, below the default 10 USD minimum',
        received: failureOf(probe),
        exchange: probe,
      },
    );
    const required = probeDetails!.requiredCents as number;
    if (required !== 1000) t.note(`this tenant's minimum is ${required} cents (not the default 1000)`);
    // Both stablecoins, each with its own generated amounts: "USDC and USDT count as 1.00" (6 decimals each).
    for (const [symbol, mint] of [
      ['USDC', usdc()],
      ['USDT', usdt()],
    ] as const) {
      await t.property(
        'OA-LIM-005',
        fc.integer({ min: 1, max: Math.max(1, required - 1) }),
        async (cents) => {
          const amount = String(BigInt(cents) * 10_000n);
          const ex = await postIntent(
            t,
            user.sub,
            dcaRequest({ inputMint: mint, amountPerCycle: amount, totalAmount: String(BigInt(cents) * 30_000n) }),
          );
          expectError(t, 'OA-LIM-002', ex, {
            status: 400,
            codes: ['MIN_NOTIONAL_NOT_MET'],
            documented: `400 MIN_NOTIONAL_NOT_MET for amountPerCycle ${amount} (${cents} cents of ${symbol}, minimum ${required})`,
          });
          const body = ex.response.body as { error: { details?: unknown } };
          const details = isObject(body.error.details) ? body.error.details : undefined;
          t.expect(
            'OA-LIM-005',
            details !== undefined &&
              details.mint === mint &&
              details.amount === amount &&
              Number.isInteger(details.usdCents) &&
              details.requiredCents === required &&
              (details.usdCents as number) < required,
            {
              documented: `error.details {mint: ${mint}, amount: "${amount}", usdCents < requiredCents, requiredCents: ${required}}`,
              received: details ?? '(no details)',
              exchange: ex,
            },
          );
          t.expect('OA-LIM-006', details.usdCents === cents, {
            documented: `${symbol} counts as 1.00 USD: usdCents ${cents} for ${amount} (6 decimals)`,
            received: details.usdCents,
            exchange: ex,
          });
        },
        Math.min(t.env.numRuns, 6),
      );
    }
  },
});

const ocoMinOutput = defineCheck({
  name: 'oco-intent-with-min-output-amount-is-rejected-or-never-reports-it',
  service: 'orders',
  rules: ['OA-LIM-022'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const request = intentRequest('oco', { config: { minOutputAmount: '1' } });
    const ex = await postIntent(t, user.sub, request);
    if (!is2xx(ex)) {
      t.expect('OA-LIM-022', ex.response.status === 400, {
        documented: '400 (or 2xx) for an oco intent carrying minOutputAmount, "not supported on oco"',
        received: failureOf(ex),
        exchange: ex,
      });
      return;
    }
    const { orderId } = await createOrder(t, user, request);
    const detail = await asUser(t, user.sub, { method: 'GET', path: `/oco/${orderId}` });
    const order = dataOf(detail);
    t.expect(
      'OA-LIM-022',
      is2xx(detail) && order !== undefined && (order.minOutputAmount === undefined || order.minOutputAmount === null),
      {
        documented: 'an oco accepted with minOutputAmount does not report it on its detail read',
        received: failureOf(detail),
        exchange: detail,
      },
    );
  },
});

// ---- Create-time limits (Limits; Errors, VALIDATION_ERROR: trigger-specific causes) ----

/** An invalid config class: its rule, the types it applies to, boundary values, and generated ones. */
interface InvalidClass {
  rule: RuleId;
  what: string;
  types: readonly TriggerType[];
  /** Config overrides from a generated value and the service's now (Unix seconds). */
  edges: readonly ((now: number) => Record<string, unknown>)[];
  arb: fc.Arbitrary<(now: number) => Record<string, unknown>>;
}

const outside = (below: number, above: number) =>
  fc.oneof(fc.integer({ min: below - 1000, max: below }), fc.integer({ min: above, max: above + 100_000 }));
const INVALID_CLASSES: readonly InvalidClass[] = [
  {
    rule: 'OA-LIM-013',
    what: 'priceDecimals outside 0 to 18',
    types: TRIGGER_TYPES,
    edges: [() => ({ priceDecimals: -1 }), () => ({ priceDecimals: 19 })],
    arb: outside(-1, 19).map((priceDecimals) => () => ({ priceDecimals })),
  },
  {
    rule: 'OA-LIM-015',
    what: 'trailingStopBps outside 1 to 9999',
    types: TRIGGER_TYPES,
    edges: [() => ({ trailingStopBps: 0 }), () => ({ trailingStopBps: 10_000 })],
    arb: outside(0, 10_000).map((trailingStopBps) => () => ({ trailingStopBps })),
  },
  // At least 10 minutes in the past: the suite's idea of now may be the local clock, not the service's.
  {
    rule: 'OA-LIM-017',
    what: 'expiresAt in the past',
    types: TRIGGER_TYPES,
    edges: [(now) => ({ expiresAt: now - 600 })],
    arb: fc.integer({ min: 600, max: 10_000_000 }).map((ago) => (now: number) => ({ expiresAt: now - ago })),
  },
  {
    rule: 'OA-LIM-019',
    what: 'amount 0',
    types: TRIGGER_TYPES,
    edges: [() => ({ amount: '0' })],
    arb: fc.constant(() => ({ amount: '0' })),
  },
  {
    rule: 'OA-LIM-020',
    what: 'a price of 0',
    types: TRIGGER_TYPES,
    edges: [() => ({ triggerPrice: '0' })],
    arb: fc.constantFrom('triggerPrice', 'stopLossPrice').map((name) => () => ({ [name]: '0' })),
  },
  {
    rule: 'OA-LIM-021',
    what: 'minOutputAmount 0',
    types: ['stop_loss', 'take_profit'],
    edges: [() => ({ minOutputAmount: '0' })],
    arb: fc.constant(() => ({ minOutputAmount: '0' })),
  },
];

/** The price field of a type a class names ("a price": triggerPrice on stop_loss/take_profit, stopLossPrice on oco). */
function applicable(orderType: TriggerType, over: Record<string, unknown>): Record<string, unknown> {
  if ('triggerPrice' in over || 'stopLossPrice' in over) {
    const value = over.triggerPrice ?? over.stopLossPrice;
    return orderType === 'oco' ? { stopLossPrice: value } : { triggerPrice: value };
  }
  return over;
}

const invalidTriggerConfigs = defineCheck({
  name: 'trigger-intents-outside-the-create-time-limits-answer-400-validation-error',
  service: 'orders',
  rules: ['OA-LIM-013', 'OA-LIM-015', 'OA-LIM-017', 'OA-LIM-019', 'OA-LIM-020', 'OA-LIM-021'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    await templatesAccepted(t, user.sub);
    const attempt = async (cls: InvalidClass, orderType: TriggerType, over: (now: number) => Record<string, unknown>) => {
      const config = applicable(orderType, over(await unixSecondsFromNow(t, 0)));
      const ex = await postIntent(t, user.sub, intentRequest(orderType, { config }));
      expectError(t, cls.rule, ex, {
        status: 400,
        codes: ['VALIDATION_ERROR'],
        documented: `400 VALIDATION_ERROR for a ${orderType} intent with ${cls.what}: ${JSON.stringify(config)}`,
      });
    };
    for (const cls of INVALID_CLASSES) {
      for (const orderType of cls.types) for (const edge of cls.edges) await attempt(cls, orderType, edge);
      await t.property(
        cls.rule,
        fc.tuple(fc.constantFrom(...cls.types), cls.arb),
        async ([orderType, over]) => attempt(cls, orderType, over),
        Math.min(t.env.numRuns, 3),
      );
    }
  },
});

const limitsAccepted = defineCheck({
  name: 'trigger-intents-at-the-create-time-limits-are-accepted',
  service: 'orders',
  rules: ['OA-LIM-014', 'OA-LIM-016'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    await templatesAccepted(t, user.sub);
    const cases = [
      ['OA-LIM-014', { priceDecimals: 0 }],
      ['OA-LIM-014', { priceDecimals: 18 }],
      ['OA-LIM-016', { trailingStopBps: 1 }],
      ['OA-LIM-016', { trailingStopBps: 9999 }],
    ] as const;
    for (const orderType of TRIGGER_TYPES) {
      for (const [rule, config] of cases) {
        const ex = await postIntent(t, user.sub, intentRequest(orderType, { config }));
        expectAccepted(t, rule, ex, `2xx for a ${orderType} intent with ${JSON.stringify(config)} (inside the limits)`);
      }
    }
  },
});

const ocoPriceOrder = defineCheck({
  name: 'oco-intents-are-rejected-exactly-when-stop-loss-price-is-not-below-take-profit-price',
  service: 'orders',
  rules: ['OA-LIM-018', 'OA-LIM-026'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    const attempt = async ([stopLoss, takeProfit]: readonly [bigint, bigint]) => {
      const config = { stopLossPrice: String(stopLoss), takeProfitPrice: String(takeProfit) };
      const ex = await postIntent(t, user.sub, intentRequest('oco', { config }));
      if (stopLoss < takeProfit) {
        expectAccepted(t, 'OA-LIM-026', ex, `2xx for an oco intent with stopLossPrice ${stopLoss} < takeProfitPrice ${takeProfit}`);
      } else {
        expectError(t, 'OA-LIM-018', ex, {
          status: 400,
          codes: ['VALIDATION_ERROR'],
          documented: `400 VALIDATION_ERROR for an oco intent with stopLossPrice ${stopLoss} >= takeProfitPrice ${takeProfit}`,
        });
      }
    };
    skipIfTemplateRejected(t, await postIntent(t, user.sub, intentRequest('oco')));
    // The boundary first: one apart (accepted), equal and one apart the other way (rejected).
    for (const pair of [
      [1000n, 1001n],
      [1000n, 1000n],
      [1001n, 1000n],
    ] as const)
      await attempt(pair);
    const price = fc.bigInt({ min: 1n, max: 10n ** 24n });
    await t.property(
      'OA-LIM-018',
      fc.oneof(
        fc.tuple(price, price),
        price.map((p) => [p, p] as const),
        price.map((p) => [p, p + 1n] as const),
      ),
      async (pair) => attempt(pair as readonly [bigint, bigint]),
      Math.min(t.env.numRuns, 10),
    );
  },
});

/** The group in running order (a module namespace lists its exports alphabetically, an array keeps this order). */
export const limitChecks = [
  intentSameMints,
  intentCycleFrequency,
  intentMinNotional,
  ocoMinOutput,
  invalidTriggerConfigs,
  limitsAccepted,
  ocoPriceOrder,
];
