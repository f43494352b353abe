import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { decodeImage, parseDataUri } from '../shared/image.ts';
import { malformedFlag } from '../shared/hostile.ts';
import { isObject, type Json } from '../shared/values.ts';
import { expectStatus } from './quote-support.ts';

async function getProviders(t: CheckContext, query?: Record<string, boolean>): Promise<{ ex: Exchange; providers: Json[] }> {
  const ex = await t.quotes.request({ path: '/api/v1/providers', query });
  const body = ex.response.body;
  t.expect('Q-PROV-001', ex.response.status === 200 && Array.isArray(body) && body.every(isObject), {
    documented: 'GET /api/v1/providers answers 200 with an array of provider objects',
    received: body,
    exchange: ex,
  });
  return { ex, providers: body as Json[] };
}

export const providersHaveIdNameKind = defineCheck({
  name: 'providers-are-objects-with-string-id-name-kind-and-unique-ids',
  service: 'quotes',
  rules: ['Q-PROV-001', 'Q-PROV-006'],
  profile: 'smoke', // smoke's one read of GET /api/v1/providers (README, Profiles)
  async run(t: CheckContext) {
    const { ex, providers } = await getProviders(t);
    for (const p of providers) {
      t.expect(
        'Q-PROV-001',
        ['id', 'name', 'kind'].every((k) => typeof p[k] === 'string' && p[k] !== ''),
        {
          documented: 'each provider {id: string, name: string, kind: string}',
          received: p,
          exchange: ex,
        },
      );
    }
    const ids = providers.map((p) => p.id);
    t.expect('Q-PROV-001', new Set(ids).size === ids.length, { documented: 'provider ids are unique', received: ids, exchange: ex });
  },
});

export const providersOmitIconsUnlessAsked = defineCheck({
  name: 'providers-omit-iconuri48-without-includeicons',
  service: 'quotes',
  rules: ['Q-PROV-002', 'Q-PROV-001'],
  profile: 'readonly',
  async run(t: CheckContext) {
    for (const query of [undefined, { includeIcons: false }]) {
      const { ex, providers } = await getProviders(t, query);
      const withIcon = providers.filter((p) => p.iconUri48 != null).map((p) => p.id); // null, like absence, carries no icon
      t.expect('Q-PROV-002', withIcon.length === 0, {
        documented: `no iconUri48 when includeIcons is ${query ? 'false' : 'omitted'}`,
        received: { providersWithIcon: withIcon },
        exchange: ex,
      });
    }
  },
});

export const providerIconsAre48x48DataUris = defineCheck({
  name: 'provider-icons-are-48x48-image-data-uris',
  service: 'quotes',
  rules: ['Q-PROV-003', 'Q-PROV-001'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const { ex, providers } = await getProviders(t, { includeIcons: true });
    for (const p of providers) {
      const uri = p.iconUri48;
      const parsed = typeof uri === 'string' ? parseDataUri(uri) : undefined;
      t.expect('Q-PROV-003', parsed !== undefined && parsed.bytes.length > 0, {
        documented: `provider ${String(p.id)} has iconUri48, a data URI, with includeIcons=true`,
        received: typeof uri === 'string' ? `${uri.slice(0, 80)}…` : (uri ?? '(absent)'),
        exchange: ex,
      });
      const decoded = decodeImage(parsed.bytes);
      if (!decoded.ok && decoded.unknownFormat) {
        t.note(`provider ${String(p.id)}: icon of media type ${parsed.mediaType} is ${decoded.reason}; its size cannot be checked`);
        continue;
      }
      t.expect('Q-PROV-003', decoded.ok && decoded.image.width === 48 && decoded.image.height === 48, {
        documented: `provider ${String(p.id)}'s icon is a 48 by 48 image`,
        received: decoded.ok ? `${decoded.image.format} ${decoded.image.width}x${decoded.image.height}` : decoded.reason,
        exchange: ex,
      });
    }
  },
});

export const keyPathOffersTheExpectedProviderCount = defineCheck({
  name: 'key-path-offers-two-providers',
  service: 'quotes',
  rules: ['Q-PROV-004', 'Q-PROV-001'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const { ex, providers } = await getProviders(t);
    const expected = t.env.expectedProviders;
    t.expect('Q-PROV-004', providers.length === expected, {
      documented: `the key path offers ${expected} providers (--expected-providers)`,
      received: providers.map((p) => p.id),
      exchange: ex,
    });
  },
});

export const providerKindIsReported = defineCheck({
  name: 'provider-kind-is-a-non-empty-string',
  service: 'quotes',
  rules: ['Q-PROV-005', 'Q-PROV-001'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const { ex, providers } = await getProviders(t);
    for (const p of providers) {
      t.expect('Q-PROV-005', typeof p.kind === 'string' && p.kind.length > 0, {
        documented: 'kind is a non-empty string',
        received: p,
        exchange: ex,
      });
      if (p.kind !== 'DexAggregator') t.note(`provider ${String(p.id)} has kind "${p.kind}" (only DexAggregator is documented)`);
    }
  },
});

export const providersRejectMalformedFlag = defineCheck({
  name: 'providers-reject-a-malformed-includeicons-with-400',
  service: 'quotes',
  rules: ['Q-PROV-007'],
  profile: 'readonly',
  async run(t: CheckContext) {
    // Generated values against the embedded server, one per lenient reading on a given target (malformedFlag).
    await malformedFlag(
      t,
      'Q-PROV-007',
      (value) => t.quotes.request({ path: '/api/v1/providers', query: `includeIcons=${encodeURIComponent(value)}`, retry: false }),
      (value, ex) =>
        expectStatus(t, 'Q-PROV-007', ex, 400, `includeIcons=${JSON.stringify(value)} (booleans are true or false) answered 400`),
    );
  },
});
