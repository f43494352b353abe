import { SOL_TO_USDC } from '../../quote-support.ts';
import { type Probe, status } from '../probe.ts';

/**
 * Probes of the mutants of fixtures/mutants/quotes/edge.ts (Q-EDGE, Q-DBG, Q-VER): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

export const EDGE_PROBES: Record<string, Probe> = {
  // ---- Q-EDGE: Edge layer (unknown methods and paths) ----
  'post-served-like-get': async (t) => status(await t.keyPath('/api/v1/info', 'application/json', 'POST')),
  'edge-403-with-platform-body': async (t) => (await t.quotes('/api/v1/nope')).body,
  'unknown-path-answered-404': async (t) => status(await t.keyPath('/api/v1/nope')),
  'quote-price-served-on-key-path': async (t) => status(await t.keyPath('/api/v1/quote/price')),
  'key-path-ws-answered-426': async (t) => status(await t.keyPath('/api/v1/ws')),

  // ---- Q-DBG: Debugging identifiers ----
  'edge-requestid-missing-on-errors': async (t) => typeof (await t.quotes('/api/v1/info')).headers['x-edge-requestid'],
  'edge-requestid-missing-on-quotes': async (t) => typeof (await t.swap(SOL_TO_USDC)).headers['x-edge-requestid'],
  'edge-requestid-missing-on-429': async (t) => {
    const headers = { 'x-api-key': await t.quoteKey({ rps: 1 / 60 }) };
    await t.quotes('/api/v1/info', { headers });
    return typeof (await t.quotes('/api/v1/info', { headers })).headers['x-edge-requestid'];
  },

  // ---- Q-VER: Versioning: protocolVersion and the /api/v1 prefix ----
  'providers-moved-off-api-v1': async (t) => status(await t.keyPath('/api/v1/providers')),
  'api-v2-served-as-v1': async (t) => status(await t.keyPath('/api/v2/info')),
};
