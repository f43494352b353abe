import { MINTS } from '../../quote-support.ts';
import type { Answer } from '../../support.ts';
import { failure, type Probe, type Row } from '../probe.ts';
import { actionScene, creator, freshIntent, IDEM_DCA } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/orders/limits.ts (OA-LIM): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

const detailsOf = (a: Answer) => (a.body as { error: { details: Row } }).error.details;
/** The raw DCA intent with `config` and top-level fields changed. */
const rawDca = (config: Row, top: Row = {}) => ({ ...IDEM_DCA, ...top, config: { ...IDEM_DCA.config, ...config } });
const intentFailure =
  (orderType: string, config: Row, top: Row = {}): Probe =>
  async (t) =>
    failure(await (await creator(t)).intent(orderType, config, top));

export const LIMITS_PROBES: Record<string, Probe> = {
  'same-mints-answered-validation-error': async (t) => failure((await freshIntent(t, rawDca({}, { outputMint: MINTS.USDC }))).answer),
  // create-time limits
  'dca-min-notional-answered-bad-request': intentFailure('dca', { amountPerCycle: '5000000' }),
  'trigger-min-notional-answered-bad-request': intentFailure('take_profit', { amount: '5000000' }),
  'minimum-notional-exclusive': intentFailure('stop_loss', { amount: '10000000' }),
  'min-notional-details-without-required-cents': async (t) =>
    detailsOf((await freshIntent(t, rawDca({ totalAmount: '15000000', amountPerCycle: '5000000' }))).answer).requiredCents,
  'usdc-notional-one-cent-low': async (t) => detailsOf(await (await creator(t)).intent('stop_loss', { amount: '9990000' })).usdCents,
  'usdt-notional-one-cent-low': async (t) =>
    detailsOf(await (await creator(t)).intent('stop_loss', { amount: '9990000' }, { inputMint: MINTS.USDT })).usdCents,
  'required-cents-always-the-default': async (t) =>
    detailsOf(await (await creator(t, { minNotionalUsdCents: 2500 })).intent('stop_loss', { amount: '20000000' })).requiredCents,
  'non-stable-notional-one-cent-high': async (t) =>
    detailsOf(await (await creator(t)).intent('stop_loss', { amount: '1000000' }, { inputMint: MINTS.JUP, outputMint: MINTS.USDC }))
      .usdCents,
  'oracle-outage-answered-internal-error': async (t) => {
    const c = await creator(t);
    await t.faults({ oracle: 'down' });
    try {
      return failure(await c.intent('stop_loss', { amount: '1000000000' }, { inputMint: MINTS.SOL, outputMint: MINTS.USDC }));
    } finally {
      await t.faults({ oracle: 'up' });
    }
  },
  'modify-skips-the-minimum-notional': async (t) => {
    const { alice, id } = await actionScene(t);
    return failure(await alice.patch(`/dca/${id}`, { config: { amountPerCycle: '1000000' } }));
  },
  'cycle-frequency-from-30-accepted': async (t) => failure((await freshIntent(t, rawDca({ cycleFrequencySeconds: 30 }))).answer),
  'cycle-frequency-60-rejected': intentFailure('dca', { cycleFrequencySeconds: 60 }),
  'price-decimals-19-accepted': intentFailure('stop_loss', { priceDecimals: 19 }),
  'price-decimals-0-rejected': intentFailure('take_profit', { priceDecimals: 0 }),
  'trailing-stop-bps-10000-accepted': intentFailure('oco', { trailingStopBps: 10_000 }),
  'trailing-stop-bps-9999-rejected': intentFailure('stop_loss', { trailingStopBps: 9999 }),
  'past-expiry-accepted': intentFailure('take_profit', { expiresAt: 1 }),
  'oco-equal-prices-accepted': intentFailure('oco', { stopLossPrice: '1000', takeProfitPrice: '1000' }),
  'zero-amount-accepted-as-a-value': intentFailure('stop_loss', { amount: '0' }),
  'zero-price-accepted': intentFailure('take_profit', { triggerPrice: '0' }),
  'zero-min-output-accepted': intentFailure('stop_loss', { minOutputAmount: '0' }),
  // USDC into JUP (0.5 USD): 2 JUP per USDC; a stop at 1000 is crossed; 12 USDC are worth 24 JUP, far below 1000 JUP.
  'unsatisfiable-min-output-answered-validation-error': intentFailure(
    'stop_loss',
    { priceDecimals: 0, triggerPrice: '1000', minOutputAmount: '1000000000' },
    { outputMint: MINTS.JUP },
  ),
  'min-output-details-without-fair-output': async (t) =>
    Object.keys(
      detailsOf(
        await (await creator(t)).intent(
          'stop_loss',
          { priceDecimals: 0, triggerPrice: '1000', minOutputAmount: '1000000000' },
          { outputMint: MINTS.JUP },
        ),
      ),
    ).sort(),
  'oco-prices-one-percent-apart-required': intentFailure('oco', { stopLossPrice: '1000', takeProfitPrice: '1001' }),
  'usdt-priced-by-the-oracle': async (t) => {
    const c = await creator(t);
    await t.faults({ oracle: 'down' });
    try {
      return failure(await c.intent('dca', {}, { inputMint: MINTS.USDT }));
    } finally {
      await t.faults({ oracle: 'up' });
    }
  },
};
