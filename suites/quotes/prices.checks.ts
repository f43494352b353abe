/**
 * Reference prices (metadata; Performance parameters: simulate, maxPriceDeviationBps) driven through the control
 * API's prices. Every price a check changes is put back afterwards (t.defer), to the value the target reported
 * before, or to "unavailable" when it reported none.
 */
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { isObject, type Json } from '../shared/values.ts';
import { QUOTE_DEFAULTS } from './fixtures.ts';
import { PRICE_TOLERANCE, valueRatio } from './route-params-invariants.ts';
import { decimal, discover, type Discovery, expectCallStatus, Judge, type QuoteCall, quoteParams, routesOf } from './quote-support.ts';
import { quote, widestQuote } from './samples.ts';

/** A price as the control API takes it: a plain decimal string (no exponent), or null for "unavailable". */
function decimalString(value: unknown): string | null {
  if (typeof value === 'string' && /^(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(value)) return value;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) {
    const fixed = value.toFixed(12).replace(/0+$/, '').replace(/\.$/, '');
    return fixed === '' ? '0' : fixed;
  }
  return null;
}

function metadataOf(call: QuoteCall): Json | undefined {
  return isObject(call.body) && isObject(call.body.metadata) ? call.body.metadata : undefined;
}

/**
 * The current reference prices of the configured pair (from a quote's metadata), and a cleanup that restores them;
 * `numQuotes` is what the check's quotes ask for (samples.ts widestQuote). Skips when the pair is not routed.
 */
async function holdPrices(t: CheckContext): Promise<{
  d: Discovery;
  j: Judge;
  input: string | null;
  output: string | null;
  baseline: QuoteCall;
  numQuotes: number | undefined;
}> {
  const d = await discover(t);
  const j = new Judge(t);
  const { call: baseline, numQuotes } = await widestQuote(t, j, d, { simulate: false, maxPriceDeviationBps: 10000 });
  if (baseline.status !== 200) t.skip(`the configured pair was not routed (${baseline.status})`);
  const meta = metadataOf(baseline);
  const input = decimalString(meta?.inputPriceUSD);
  const output = decimalString(meta?.outputPriceUSD);
  t.defer(async () => {
    await t.control.setPrice(QUOTE_DEFAULTS.inputMint, input);
    await t.control.setPrice(QUOTE_DEFAULTS.outputMint, output);
  });
  return { d, j, input, output, baseline, numQuotes };
}

function close(a: number | undefined, b: number): boolean {
  return a !== undefined && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
}

export const metadataPricesAreTheReferencePrices = defineCheck({
  name: 'metadata-usd-prices-are-the-reference-prices-of-the-two-mints',
  service: 'quotes',
  rules: ['Q-META-007'],
  profile: 'full',
  needs: ['prices'],
  async run(t: CheckContext) {
    const { d, j, ...held } = await holdPrices(t);
    // Near the current prices, so routing is not disturbed; distinct enough to be recognised.
    const setIn = (Number(held.input ?? '1') * 1.0137).toFixed(6);
    const setOut = (Number(held.output ?? '1') * 0.9871).toFixed(6);
    await t.control.setPrice(QUOTE_DEFAULTS.inputMint, setIn);
    await t.control.setPrice(QUOTE_DEFAULTS.outputMint, setOut);
    const call = await quote(t, j, d, quoteParams());
    if (call.status !== 200) t.skip(`the pair was not routed after the prices were set (${call.status})`);
    const meta = metadataOf(call);
    t.expect('Q-META-007', close(decimal(meta?.inputPriceUSD), Number(setIn)) && close(decimal(meta?.outputPriceUSD), Number(setOut)), {
      documented: `inputPriceUSD ${setIn} and outputPriceUSD ${setOut}: the reference prices set for the two mints`,
      received: { inputPriceUSD: meta?.inputPriceUSD, outputPriceUSD: meta?.outputPriceUSD },
      exchange: call.ex,
    });
  },
});

export const deviatingQuotesAreRejectedUnlessDisabled = defineCheck({
  name: 'quotes-deviating-from-the-reference-price-are-rejected-unless-the-check-is-disabled',
  service: 'quotes',
  rules: ['Q-PARAM-038', 'Q-PARAM-039'],
  profile: 'full',
  needs: ['prices'],
  async run(t: CheckContext) {
    const { d, j, ...held } = await holdPrices(t);
    if (held.input === null || held.output === null) t.skip('the target reports no reference price for the pair');
    // The input is now worth ten times more: every route gives about a tenth of the reference value.
    await t.control.setPrice(QUOTE_DEFAULTS.inputMint, (Number(held.input) * 10).toFixed(6));
    const disabled = await quote(t, j, d, quoteParams({ simulate: false, maxPriceDeviationBps: 10000, numQuotes: held.numQuotes }));
    expectCallStatus(
      t,
      'Q-PARAM-039',
      disabled,
      200,
      'maxPriceDeviationBps=10000 disables the check: the request routed before the price moved is still served',
    );
    const floor = 0.9 * (1 - PRICE_TOLERANCE);
    const ratios = routesOf(disabled.body).map(([, r]) => valueRatio(r, metadataOf(disabled)));
    if (ratios.length === 0 || ratios.some((r) => r === undefined || r >= floor)) {
      t.skip(
        `moving the reference price did not make every route deviate (ratios ${ratios.map((r) => r?.toFixed(3)).join(', ')}): the target's pools may follow its prices`,
      );
    }
    const checked = await quote(t, j, d, quoteParams({ simulate: false, numQuotes: held.numQuotes }));
    const within = checked.status === 200 && routesOf(checked.body).every(([, r]) => (valueRatio(r, metadataOf(checked)) ?? 0) >= floor);
    t.expect('Q-PARAM-038', (checked.status === 404 && isObject(checked.body) && checked.body.code === -7) || within, {
      documented:
        'with simulate=false and the default maxPriceDeviationBps (1000), routes worth under 90 % of the reference value are rejected: 404 code -7 when none is left',
      received: { status: checked.status, body: checked.body },
      exchange: checked.ex,
    });
  },
});

export const unavailablePricesPassQuotesThrough = defineCheck({
  name: 'quotes-pass-the-price-check-when-both-reference-prices-are-unavailable',
  service: 'quotes',
  rules: ['Q-PARAM-040', 'Q-META-006'],
  profile: 'full',
  needs: ['prices'],
  async run(t: CheckContext) {
    const { d, j, numQuotes } = await holdPrices(t);
    const params = quoteParams({ simulate: false, numQuotes });
    await t.control.setPrice(QUOTE_DEFAULTS.inputMint, null);
    await t.control.setPrice(QUOTE_DEFAULTS.outputMint, null);
    const call = await quote(t, j, d, params);
    expectCallStatus(
      t,
      'Q-PARAM-040',
      call,
      200,
      'with no reference price for either token the price check passes quotes through: the pair routed before is served with simulate=false',
    );
    const meta = metadataOf(call);
    for (const key of ['inputPriceUSD', 'outputPriceUSD']) {
      t.expect('Q-META-006', meta?.[key] === undefined || meta[key] === null, {
        documented: `${key} is null or absent when no reference price is available`,
        received: meta?.[key],
        exchange: call.ex,
      });
    }
  },
});
