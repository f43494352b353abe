import { PNG } from 'pngjs';
import { PROVIDERS } from '../../../../fixtures/server/quotes/engine/provider-catalogue.ts';
import { VENUES } from '../../../../fixtures/server/quotes/engine/venue-catalogue.ts';
import { SOL_TO_USDC } from '../../quote-support.ts';
import { type Probe, status } from '../probe.ts';
import { swapStatus } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/quotes/discovery.ts (Q-INFO, Q-VEN, Q-PROV, Q-SHAPE): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

const infoJson: Probe = async (t) => (await t.keyPath('/api/v1/info')).body;

const venuePairs =
  (query: string): Probe =>
  async (t) => {
    const body = (await t.keyPath(`/api/v1/venues${query}`)).body as { labels: string[]; programIds?: string[] };
    return { keys: Object.keys(body).sort(), pairs: body.labels.map((l, i) => `${l}=${body.programIds?.[i] ?? ''}`).sort() };
  };

const providerList =
  (query: string): Probe =>
  async (t) => {
    const providers = (await t.keyPath(`/api/v1/providers${query}`)).body as Record<string, unknown>[];
    return providers.map((p) => ({ ...p, iconUri48: typeof p.iconUri48 === 'string' ? p.iconUri48.slice(0, 22) : p.iconUri48 }));
  };

const FIRST_VENUE = VENUES[0]!.label;
const SECOND_PROVIDER = PROVIDERS[1]!.id;

export const DISCOVERY_PROBES: Record<string, Probe> = {
  // ---- Q-INFO: GET /api/v1/info ----
  'info-protocol-version-string': infoJson,
  'info-interval-ms-min-200': infoJson,
  'info-num-quotes-max-20': infoJson,
  'info-slippage-bps-default-50': infoJson,
  'info-only-direct-routes-true': infoJson,
  'info-add-size-constraint-false': infoJson,
  'info-size-constraint-1232': infoJson,
  'info-close-input-token-account-true': infoJson,
  'info-create-output-token-account-false': infoJson,
  'info-concurrent-streams-0': infoJson,
  'info-range-default-above-max': infoJson,
  'slippage-bps-max-5000-enforced': swapStatus({ ...SOL_TO_USDC, slippageBps: 6000 }),

  // ---- Q-VEN: GET /api/v1/venues ----
  'venues-program-ids-without-flag': venuePairs(''),
  'venues-program-ids-misaligned': venuePairs('?includeProgramIds=true'),
  'venues-program-id-not-base58': venuePairs('?includeProgramIds=true'),
  'venues-duplicated-label': venuePairs(''),
  'venues-malformed-flag-read-as-false': async (t) => status(await t.keyPath('/api/v1/venues?includeProgramIds=yes')),
  'first-venue-label-answered-400': async (t) => status(await t.swap({ ...SOL_TO_USDC, excludeDexes: FIRST_VENUE })),

  // ---- Q-PROV: GET /api/v1/providers ----
  'providers-duplicated-id': providerList(''),
  'providers-icons-without-flag': providerList(''),
  'providers-icon-32x32': async (t) => {
    const providers = (await t.keyPath('/api/v1/providers?includeIcons=true')).body as { iconUri48: string }[];
    return providers.map((p) => {
      const png = PNG.sync.read(Buffer.from(p.iconUri48.split(',')[1] ?? '', 'base64'));
      return [png.width, png.height];
    });
  },
  'providers-icon-not-data-uri': providerList('?includeIcons=true'),
  'providers-three': providerList(''),
  'providers-malformed-flag-read-as-false': async (t) => status(await t.keyPath('/api/v1/providers?includeIcons=yes')),
  'provider-id-answered-400': async (t) => status(await t.swap({ ...SOL_TO_USDC, providers: SECOND_PROVIDER })),

  // ---- Q-SHAPE: Response shapes as a whole ----
  'info-answered-with-status-202': async (t) => status(await t.keyPath('/api/v1/info')),
};
