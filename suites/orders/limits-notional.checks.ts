import fc from 'fast-check';
import { detailsOf, errorCode, failureOf, is2xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { SetupFailed } from '../harness/failure.ts';
import { dcaRequest, intentRequest, intentUser, NATIVE_MINT, postIntent, skipIfTemplateRejected, usdc, usdt } from './orders.ts';
import { templatesAccepted, TRIGGER_TYPES } from './steps/create.ts';
import { expectAccepted, expectError } from './steps/expect.ts';
import { onboardedOnTenant } from './users.ts';

/**
 * The minimum notional of POST /orders/intent (area LIM: Limits, Minimum notional; Errors, MIN_NOTIONAL_NOT_MET,
 * PRICE_ORACLE_UNAVAILABLE, MIN_OUTPUT_UNSATISFIABLE): trigger orders on their full amount, the tenant's own minimum,
 * mints priced by the oracle and stablecoins that need none, and a minimum output the market cannot give. Each check
 * first has the assumed template accepted (UNKNOWNS.md O7), so that only the value under test can change the answer.
 */

const triggerMinNotional = defineCheck({
  name: 'trigger-intents-are-held-to-the-minimum-notional-on-their-full-amount',
  service: 'orders',
  rules: ['OA-LIM-003', 'OA-LIM-004'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    await templatesAccepted(t, user.sub);
    // 9.99 USDC first, to learn the tenant's minimum (OA-LIM-007: configurable per tenant).
    const probe = await postIntent(t, user.sub, intentRequest('stop_loss', { config: { amount: '9990000' } }));
    skipIfTemplateRejected(t, probe);
    if (is2xx(probe)) t.skip("9.99 USDC is accepted: this tenant's minimum is below the default 10 USD (an override)");
    const required = Number.isInteger(detailsOf(probe)?.requiredCents) ? (detailsOf(probe)!.requiredCents as number) : 1000;
    for (const orderType of TRIGGER_TYPES) {
      for (const cents of [required - 1, Math.max(1, Math.floor(required / 3))]) {
        const amount = String(BigInt(cents) * 10_000n);
        const ex = await postIntent(t, user.sub, intentRequest(orderType, { config: { amount } }));
        expectError(t, 'OA-LIM-003', ex, {
          status: 400,
          codes: ['MIN_NOTIONAL_NOT_MET'],
          documented: `400 MIN_NOTIONAL_NOT_MET for a ${orderType} intent whose full amount is ${cents} cents of USDC (minimum ${required})`,
        });
      }
    }
    const exact = String(BigInt(required) * 10_000n);
    for (const request of [
      ...TRIGGER_TYPES.map((orderType) => intentRequest(orderType, { config: { amount: exact } })),
      intentRequest('dca', { config: { amountPerCycle: exact, totalAmount: String(BigInt(exact) * 3n) } }),
    ]) {
      const ex = await postIntent(t, user.sub, request);
      expectAccepted(
        t,
        'OA-LIM-004',
        ex,
        `2xx for a ${String(request.orderType)} intent worth exactly the minimum (${required} cents of USDC ${request.orderType === 'dca' ? 'per cycle' : 'in full'})`,
      );
    }
  },
});

const tenantMinimum = defineCheck({
  name: 'the-minimum-notional-is-the-tenants-configured-minimum',
  service: 'orders',
  rules: ['OA-LIM-007'],
  profile: 'full',
  needs: ['tenants'],
  async run(t: CheckContext) {
    const tenant = await t.control.createTenant({ minNotionalUsdCents: 2500 });
    const wallet = await onboardedOnTenant(t, tenant.apiKey);
    const post = (amount: string) =>
      postIntent(t, wallet.sub, intentRequest('stop_loss', { config: { amount } }), { 'X-Service-Key': tenant.apiKey });
    // At the minimum first: the assumed template accepted (or the check skips), then below it.
    const at = await post('25000000');
    skipIfTemplateRejected(t, at);
    expectAccepted(t, 'OA-LIM-007', at, '2xx for 25 USDC on a tenant whose minimum is 25 USD');
    const below = await post('20000000');
    t.expect(
      'OA-LIM-007',
      below.response.status === 400 && errorCode(below) === 'MIN_NOTIONAL_NOT_MET' && detailsOf(below)?.requiredCents === 2500,
      {
        documented: '400 MIN_NOTIONAL_NOT_MET with requiredCents 2500 for 20 USDC on a tenant whose minimum is 25 USD',
        received: failureOf(below),
        exchange: below,
      },
    );
  },
});

/** A mint the target creates on first funding (control API: 6 decimals by default), priced only by what the check sets. */
async function testMint(t: CheckContext, holder: string): Promise<string> {
  const mint = t.control.freshMint();
  await t.control.fund(holder, mint, '1');
  return mint;
}

const oracleNotional = defineCheck({
  name: 'non-stable-inputs-are-valued-at-the-oracle-price-for-the-minimum-notional',
  service: 'orders',
  rules: ['OA-LIM-008'],
  profile: 'full',
  needs: ['prices', 'funding'],
  ownMarket: true,
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    const mint = await testMint(t, user.userPubkey);
    await t.property(
      'OA-LIM-008',
      fc.record({ dollars: fc.integer({ min: 1, max: 5 }), amount: fc.integer({ min: 1, max: 30_000_000 }) }),
      async ({ dollars, amount }) => {
        // The price set, then the intent valued at it, in one window: no step of the clock between them.
        const ex = await t.window(async () => {
          await t.control.setPrice(mint, String(dollars));
          return await postIntent(
            t,
            user.sub,
            intentRequest('stop_loss', { inputMint: mint, outputMint: usdc(), config: { amount: String(amount) } }),
          );
        });
        skipIfTemplateRejected(t, ex);
        const cents = Math.floor((amount * dollars * 100) / 1_000_000);
        if (is2xx(ex)) return;
        const details = detailsOf(ex);
        t.expect('OA-LIM-008', errorCode(ex) === 'MIN_NOTIONAL_NOT_MET' && details?.usdCents === cents, {
          documented: `usdCents ${cents} for ${amount} units (6 decimals) of a mint the oracle prices at ${dollars} USD`,
          received: failureOf(ex),
          exchange: ex,
        });
      },
      Math.min(t.env.numRuns, 8),
    );
  },
});

const oracleDown = defineCheck({
  name: 'intent-with-an-unpriceable-input-answers-503-price-oracle-unavailable',
  service: 'orders',
  rules: ['OA-LIM-009'],
  profile: 'full',
  needs: ['faults'],
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    // The stop_loss template accepted with the oracle up first (or the check skips).
    skipIfTemplateRejected(t, await postIntent(t, user.sub, intentRequest('stop_loss')));
    await t.control.setFaults({ oracle: 'down' });
    t.defer(() => t.control.setFaults({ oracle: 'up' }));
    const ex = await postIntent(
      t,
      user.sub,
      intentRequest('stop_loss', { inputMint: NATIVE_MINT, outputMint: usdc(), config: { amount: '1000000000' } }),
    );
    skipIfTemplateRejected(t, ex);
    expectError(t, 'OA-LIM-009', ex, {
      status: 503,
      codes: ['PRICE_ORACLE_UNAVAILABLE'],
      documented: '503 PRICE_ORACLE_UNAVAILABLE for a native-asset input while the oracle is down',
    });
  },
});

const stablecoinsNeedNoOracle = defineCheck({
  name: 'usdc-and-usdt-inputs-are-accepted-while-the-price-oracle-is-down',
  service: 'orders',
  rules: ['OA-LIM-027'],
  profile: 'full',
  needs: ['faults'],
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    const requests = [usdc(), usdt()].map((inputMint) => dcaRequest({ inputMint }));
    // With the oracle up first: each body is one this target accepts, so that only the outage can change the answer.
    for (const request of requests) {
      const ex = await postIntent(t, user.sub, request);
      skipIfTemplateRejected(t, ex);
      if (!is2xx(ex)) throw new SetupFailed(`a DCA intent from ${request.inputMint} answered ${ex.response.status} with the oracle up`, ex);
    }
    await t.control.setFaults({ oracle: 'down' });
    t.defer(() => t.control.setFaults({ oracle: 'up' }));
    for (const request of requests) {
      const ex = await postIntent(t, user.sub, request);
      expectAccepted(
        t,
        'OA-LIM-027',
        ex,
        `2xx (never 503 PRICE_ORACLE_UNAVAILABLE) for a DCA intent of 12 per cycle from the stablecoin ${request.inputMint} while the oracle is down: it counts as 1.00`,
      );
    }
  },
});

const minOutputUnsatisfiable = defineCheck({
  name: 'crossed-trigger-with-an-unreachable-minimum-output-answers-400-min-output-unsatisfiable',
  service: 'orders',
  rules: ['OA-LIM-023', 'OA-LIM-024'],
  profile: 'full',
  needs: ['prices', 'funding'],
  ownMarket: true,
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    const mint = await testMint(t, user.userPubkey);
    // The price set, then the intents judged at it, in one window: no step of the clock between them.
    await t.window(async () => {
      await t.control.setPrice(mint, '2');
      for (const orderType of ['stop_loss', 'take_profit'] as const)
        skipIfTemplateRejected(t, await postIntent(t, user.sub, intentRequest(orderType)));
      // 12 USDC (about 1 USD each) into a mint at 2 USD: about 0.5 per USDC, about 6 whole tokens (6000000 units) of
      // market value. priceDecimals 6: a stop at 1.0 and a take-profit at 0.1 are both already crossed.
      for (const [orderType, triggerPrice] of [
        ['stop_loss', '1000000'],
        ['take_profit', '100000'],
      ] as const) {
        const ex = await postIntent(
          t,
          user.sub,
          intentRequest(orderType, { outputMint: mint, config: { priceDecimals: 6, triggerPrice, minOutputAmount: '7000000' } }),
        );
        expectError(t, 'OA-LIM-023', ex, {
          status: 400,
          codes: ['MIN_OUTPUT_UNSATISFIABLE'],
          documented: `400 MIN_OUTPUT_UNSATISFIABLE for a ${orderType} already crossed (pair 0.5, trigger ${triggerPrice} at 6 decimals) whose minOutputAmount 7000000 exceeds the about 6000000 the input is worth`,
        });
        const details = detailsOf(ex);
        t.expect(
          'OA-LIM-024',
          details !== undefined && ['triggerPrice', 'currentPairPrice', 'minOutputAmount', 'fairOutputAmount'].every((k) => k in details),
          {
            documented: 'details {triggerPrice, currentPairPrice, minOutputAmount, fairOutputAmount}',
            received: details ?? '(no details)',
            exchange: ex,
          },
        );
      }
    });
  },
});

/** The group in running order (a module namespace lists its exports alphabetically, an array keeps this order). */
export const notionalLimitChecks = [
  triggerMinNotional,
  tenantMinimum,
  oracleNotional,
  oracleDown,
  stablecoinsNeedNoOracle,
  minOutputUnsatisfiable,
];
