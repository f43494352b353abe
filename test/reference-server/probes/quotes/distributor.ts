import { OTHER_WALLET, type QuoteBody, routesOf, SOL_TO_USDC } from '../../quote-support.ts';
import { type Probe, status } from '../probe.ts';
import { UNKNOWN_DEX } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/quotes/distributor.ts (Q-DIST): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

export const DISTRIBUTOR_PROBES: Record<string, Probe> = {
  'distributor-bearer-header-rejected': async (t) =>
    status(await t.gateway('/api/v1/info', { authorization: `Bearer ${(await t.quoteJwt()).jwt}` })),
  'distributor-auth-query-rejected': async (t) => status(await t.gateway(`/api/v1/info?auth=${(await t.quoteJwt()).jwt}`)),
  'invalid-jwt-accepted-on-distributor-path': async (t) => status(await t.gateway('/api/v1/info', { authorization: 'Bearer abc.def.ghi' })),
  'api-key-accepted-on-distributor-path': async (t) => status(await t.gateway('/api/v1/info', { 'x-api-key': await t.quoteKey() })),
  'jwt-accepted-on-key-path': async (t) =>
    status(await t.quotes('/api/v1/info', { headers: { authorization: `Bearer ${(await t.quoteJwt()).jwt}` } })),
  'json-on-distributor-path': async (t) =>
    (await t.gateway('/api/v1/info', { authorization: `Bearer ${(await t.quoteJwt()).jwt}` })).contentType,
  'distributor-rejects-include-alt-contents': async (t) =>
    status(
      await t.gateway(`/api/v1/quote/swap?${new URLSearchParams({ ...SOL_TO_USDC, includeAltContents: 'true' }).toString()}`, {
        authorization: `Bearer ${(await t.quoteJwt()).jwt}`,
      }),
    ),
  'distributor-fee-bps-answered-400': async (t) =>
    status(
      await t.gateway(`/api/v1/quote/swap?${new URLSearchParams({ ...SOL_TO_USDC, feeBps: '10' }).toString()}`, {
        authorization: `Bearer ${(await t.quoteJwt()).jwt}`,
      }),
    ),
  'distributor-malformed-fee-account-ignored': async (t) =>
    status(
      await t.gateway(`/api/v1/quote/swap?${new URLSearchParams({ ...SOL_TO_USDC, feeAccount: 'bad' }).toString()}`, {
        authorization: `Bearer ${(await t.quoteJwt()).jwt}`,
      }),
    ),
  'distributor-fee-account-missing-from-accounts': async (t) => {
    const query = new URLSearchParams({ ...SOL_TO_USDC, feeAccount: OTHER_WALLET, feeBps: '25' }).toString();
    const answer = await t.gateway(`/api/v1/quote/swap?${query}`, { authorization: `Bearer ${(await t.quoteJwt()).jwt}` });
    return routesOf(answer.body as QuoteBody).map(([, route]) => route.instructions.some((ix) => ix.a.some((m) => m.p === OTHER_WALLET)));
  },
  'distributor-no-route-answered-200': async (t) =>
    status(
      await t.gateway(`/api/v1/quote/swap?${new URLSearchParams(UNKNOWN_DEX).toString()}`, {
        authorization: `Bearer ${(await t.quoteJwt()).jwt}`,
      }),
    ),
  'distributor-bad-token-on-discovery-answered-403': async (t) =>
    status(await t.gateway('/api/v1/info', { authorization: 'Bearer abc.def.ghi' })),
};
