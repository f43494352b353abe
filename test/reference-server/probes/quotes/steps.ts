import { MINTS, type QuoteBody, routesOf, SOL_TO_USDC, WALLET } from '../../quote-support.ts';
import { Target } from '../../support.ts';
import { type Probe, status } from '../probe.ts';

/**
 * Steps the probes of several rule areas share: the users, orders and requests they set up, and what they read.
 */

export type Query = Record<string, string | number | boolean | undefined>;
export const USDC_TO_JUP = { inputMint: MINTS.USDC, outputMint: MINTS.JUP, amount: '250000000', userPublicKey: WALLET };
export const quote = async (t: Target, query: Query = SOL_TO_USDC): Promise<QuoteBody> => (await t.swap(query)).body as QuoteBody;
export const routes = async (t: Target, query: Query) => routesOf(await quote(t, query)).map(([, route]) => route);
export const swapStatus =
  (query: Query): Probe =>
  async (t) =>
    status(await t.swap(query));
export const noRouteBody = async (t: Target, query: Query) =>
  (await t.swap(query)).body as { code: number; metadata: Record<string, unknown> };
export const UNKNOWN_DEX = { ...SOL_TO_USDC, dexes: 'No Such Venue' };

export async function withPrice<T>(t: Target, [mint, price, usual]: [string, string | null, string], run: () => Promise<T>): Promise<T> {
  await t.setPrice(mint, price);
  try {
    return await run();
  } finally {
    await t.setPrice(mint, usual);
  }
}
