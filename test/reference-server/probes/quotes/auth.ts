import { SOL_TO_USDC } from '../../quote-support.ts';
import { type Probe, status } from '../probe.ts';
import { swapStatus } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/quotes/auth.ts (Q-AUTH): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

export const QUOTES_AUTH_PROBES: Record<string, Probe> = {
  'quote-missing-key-served-anonymously': async (t) => status(await t.quotes('/api/v1/info')),
  'quote-swap-served-without-key': async (t) => status(await t.quotes(`/api/v1/quote/swap?${new URLSearchParams(SOL_TO_USDC).toString()}`)),
  'quote-unknown-key-accepted': async (t) => status(await t.quotes('/api/v1/info', { headers: { 'x-api-key': 'qk_never-issued' } })),
  'quote-swap-api-key-accepted': async (t) => {
    const { apiKey } = await t.provision<{ apiKey: string }>('POST', '/swap-api-keys');
    return status(await t.quotes('/api/v1/info', { headers: { 'x-api-key': apiKey } }));
  },
  'quote-401-code-unauthorized': async (t) => (await t.quotes('/api/v1/info')).body,
  'quote-revoked-key-accepted': async (t) =>
    status(await t.quotes('/api/v1/info', { headers: { 'x-api-key': await t.quoteKey({ state: 'revoked' }) } })),
  'quote-requires-wallet-signature': swapStatus(SOL_TO_USDC),
  'quote-key-read-from-the-query-string': async (t) => {
    const key = await t.quoteKey();
    return (await t.quotes(`/api/v1/info?apiKey=${encodeURIComponent(key)}`, { headers: { accept: 'application/json' } })).status;
  },
};
