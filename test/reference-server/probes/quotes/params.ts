import { POOLS } from '../../../../fixtures/server/quotes/engine/pools.ts';
import { MINTS, OTHER_WALLET, type QuoteBody, routesOf, SOL_TO_USDC, WALLET } from '../../quote-support.ts';
import { type Probe, status } from '../probe.ts';
import { quote, routes, swapStatus, UNKNOWN_DEX, USDC_TO_JUP, withPrice } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/quotes/params.ts (Q-PARAM, Q-BOUNDS): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

const isClose = (ix: { p: string; d: string }) =>
  ix.p === 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' && Buffer.from(ix.d, 'base64')[0] === 9;
const SOL_USDC_POOL = POOLS.find((pool) => pool.mints.includes(MINTS.SOL) && pool.mints.includes(MINTS.USDC))!.ammKey;

export const PARAMETER_PROBES: Record<string, Probe> = {
  // ---- Q-PARAM: Quote parameters: defaults and effects ----
  'missing-user-public-key-served': swapStatus({ ...SOL_TO_USDC, userPublicKey: undefined }),
  'malformed-output-mint-answered-no-route': swapStatus({ ...SOL_TO_USDC, outputMint: 'not-a-key' }),
  'fractional-amount-truncated': swapStatus({ ...SOL_TO_USDC, amount: '1.5' }),
  'slippage-bps-ignored': async (t) => (await routes(t, { ...SOL_TO_USDC, slippageBps: 50 })).map((r) => r.slippageBps),
  'num-quotes-ignored': async (t) => (await routes(t, SOL_TO_USDC)).length,
  'num-quotes-one-short': async (t) => (await routes(t, { ...SOL_TO_USDC, numQuotes: 2 })).length,
  'providers-ignored': async (t) => Object.keys((await quote(t, { ...SOL_TO_USDC, numQuotes: 2, providers: 'dflow' })).quotes),
  'dexes-ignored-for-known-venues': async (t) =>
    (await routes(t, { ...SOL_TO_USDC, numQuotes: 2, dexes: 'Meteora DLMM' })).flatMap((r) => r.steps.map((step) => step.label)),
  'unknown-dexes-label-answered-400': swapStatus(UNKNOWN_DEX),
  'exclude-dexes-ignored': async (t) =>
    (await routes(t, { ...SOL_TO_USDC, numQuotes: 2, excludeDexes: 'Whirlpools,Raydium CLMM' })).flatMap((r) =>
      r.steps.map((step) => step.label),
    ),
  'venue-allowlist-ignored': async (t) =>
    (await routes(t, { ...SOL_TO_USDC, numQuotes: 2, venueAllowlist: SOL_USDC_POOL }))
      .flatMap((r) => r.steps.map((step) => step.ammKey))
      .every((key) => key === SOL_USDC_POOL),
  'venue-banlist-ignored-without-allowlist': async (t) =>
    (await routes(t, { ...SOL_TO_USDC, numQuotes: 2, venueBanlist: SOL_USDC_POOL }))
      .flatMap((r) => r.steps.map((step) => step.ammKey))
      .includes(SOL_USDC_POOL),
  'venue-allowlist-overrides-banlist': swapStatus({ ...SOL_TO_USDC, venueAllowlist: SOL_USDC_POOL, venueBanlist: SOL_USDC_POOL }),
  'no-vote-accounts-true-answered-400': swapStatus({ ...SOL_TO_USDC, noVoteAccounts: true }),
  'only-direct-routes-ignored': swapStatus({
    inputMint: MINTS.BONK,
    outputMint: MINTS.USDC,
    amount: '100000000000000',
    userPublicKey: WALLET,
    onlyDirectRoutes: true,
  }),
  'malformed-boolean-read-as-false': swapStatus({ ...SOL_TO_USDC, onlyDirectRoutes: 'yes' }),
  'size-constraint-ignored': swapStatus({ ...SOL_TO_USDC, sizeConstraint: 300 }),
  'size-constraint-above-limit-rejected': swapStatus({ ...SOL_TO_USDC, sizeConstraint: 5000 }),
  'format-1-size-constraint-clamped-to-1232': async (t) =>
    (await routes(t, { ...SOL_TO_USDC, amount: '100000000000000', transactionFormat: 1, sizeConstraint: 4096 })).map((r) =>
      r.steps.map((step) => step.ammKey),
    ),
  'accounts-limit-total-ignored': swapStatus({ ...SOL_TO_USDC, accountsLimitTotal: 5 }),
  'format-1-accounts-limit-above-64-rejected': swapStatus({ ...SOL_TO_USDC, transactionFormat: 1, accountsLimitTotal: 100 }),
  'accounts-limit-writable-ignored': swapStatus({ ...SOL_TO_USDC, accountsLimitWritable: 3 }),
  'template-with-size-constraint-accepted': swapStatus({ ...SOL_TO_USDC, transactionTemplate: 'gA==', sizeConstraint: 1000 }),
  'malformed-template-ignored': swapStatus({ ...SOL_TO_USDC, transactionTemplate: 'not base64!' }),
  'close-input-token-account-ignored': async (t) =>
    (await routes(t, { ...USDC_TO_JUP, closeInputTokenAccount: true })).map((r) => r.instructions.filter(isClose).length),
  'no-create-output-account-by-default': async (t) =>
    (await routes(t, USDC_TO_JUP)).map(
      (r) => r.instructions.filter((ix) => ix.p === 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL').length,
    ),
  'output-account-ignored': async (t) =>
    (await routes(t, { ...USDC_TO_JUP, outputAccount: OTHER_WALLET })).map((r) =>
      r.instructions.some((ix) => ix.a.some((m) => m.p === OTHER_WALLET)),
    ),
  'output-wsol-ignored': async (t) =>
    (await routes(t, { inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '50000000', userPublicKey: WALLET, outputWsol: true })).map(
      (r) => r.instructions.filter(isClose).length,
    ),
  'payer-ignored': async (t) =>
    (await routes(t, { ...USDC_TO_JUP, payer: OTHER_WALLET })).map((r) =>
      r.instructions.some((ix) => ix.a.some((m) => m.p === OTHER_WALLET && m.s)),
    ),
  'positive-slippage-receiver-missing-from-accounts': async (t) =>
    (await routes(t, { ...SOL_TO_USDC, positiveSlippageFeeReceiver: OTHER_WALLET })).map((r) =>
      r.instructions.some((ix) => ix.a.some((m) => m.p === OTHER_WALLET)),
    ),
  'transaction-format-2-read-as-0': swapStatus({ ...SOL_TO_USDC, transactionFormat: 2 }),
  'format-1-routes-keep-lookup-tables': async (t) =>
    (await routes(t, { ...SOL_TO_USDC, transactionFormat: 1 })).map((r) => r.addressLookupTables),
  'format-1-with-swap-version-2-accepted': swapStatus({ ...SOL_TO_USDC, transactionFormat: 1, serviceSwapVersion: 2 }),
  'omitted-swap-version-resolves-to-2': swapStatus({ ...SOL_TO_USDC, transactionFormat: 1 }),
  'simulate-false-answered-400': swapStatus({ ...SOL_TO_USDC, simulate: false }),
  'unsimulated-out-amount-below-the-price-floor': async (t) => {
    const query = { ...SOL_TO_USDC, simulate: false };
    const answers = [await t.swap(query), await t.swap(query, 'application/vnd.msgpack')];
    return answers.map((answer) => routesOf(answer.body as QuoteBody).map(([, route]) => String(route.outAmount)));
  },
  'price-deviation-not-enforced': (t) =>
    withPrice(t, [MINTS.SOL, '200', '150'], async () => status(await t.swap({ ...SOL_TO_USDC, simulate: false }))),
  'price-deviation-10000-read-as-default': (t) =>
    withPrice(t, [MINTS.SOL, '1500', '150'], async () =>
      status(await t.swap({ ...SOL_TO_USDC, simulate: false, maxPriceDeviationBps: 10000 })),
    ),
  'unavailable-prices-reject-every-quote': (t) =>
    withPrice(t, [MINTS.SOL, null, '150'], () =>
      withPrice(t, [MINTS.USDC, null, '1'], async () => status(await t.swap({ ...SOL_TO_USDC, simulate: false }))),
    ),
  'alts-without-include-alt-contents': async (t) => 'alts' in (await quote(t)),
  'alts-missing-a-table': async (t) => {
    const body = await quote(t, { ...SOL_TO_USDC, numQuotes: 2, includeAltContents: true });
    return new Set(routesOf(body).flatMap(([, r]) => r.addressLookupTables)).size === body.alts?.length;
  },
  'list-parameters-honour-only-the-first-element': swapStatus({ ...SOL_TO_USDC, dexes: 'No Such Venue,Meteora DLMM' }),
  'providers-matched-on-names': swapStatus({ ...SOL_TO_USDC, providers: 'dflow' }),
  'omitted-slippage-read-as-50': async (t) => (await routes(t, SOL_TO_USDC)).map((r) => r.slippageBps),
  'alts-contents-without-the-routes-accounts': async (t) => {
    const body = await quote(t, { ...SOL_TO_USDC, numQuotes: 2, includeAltContents: true });
    const used = new Set(routesOf(body).flatMap(([, r]) => r.instructions.flatMap((ix) => ix.a.map((m) => m.p))));
    return (body.alts ?? []).map((alt) => alt.a.some((address) => used.has(address)));
  },
  'swap-version-2-calls-the-version-3-program': async (t) =>
    (await routes(t, { ...SOL_TO_USDC, serviceSwapVersion: 2 })).map((r) => r.instructions.map((ix) => ix.p)),

  // ---- Q-BOUNDS: Parameter values inside and outside the bounds published by /api/v1/info ----
  'num-quotes-bounds-code-3': async (t) => (await t.swap({ ...SOL_TO_USDC, numQuotes: 11 })).body,
  'num-quotes-11-accepted': swapStatus({ ...SOL_TO_USDC, numQuotes: 11 }),
  'slippage-bounds-in-plain-text': async (t) => (await t.swap({ ...SOL_TO_USDC, slippageBps: 10001 })).contentType,
  'slippage-above-u16-clamped': swapStatus({ ...SOL_TO_USDC, slippageBps: 70000 }),
  'price-deviation-above-9999-rejected': swapStatus({ ...SOL_TO_USDC, maxPriceDeviationBps: 20000 }),
};
