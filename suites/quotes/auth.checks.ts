import { defineCheck, type Check, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { isObject, randomToken } from '../shared/values.ts';
import { MINIMAL_SWAP_QUERY } from './fixtures.ts';
import { expectStatus } from './quote-support.ts';

const ENDPOINTS: Array<{ path: string; query?: Record<string, string> }> = [
  { path: '/api/v1/info' },
  { path: '/api/v1/venues' },
  { path: '/api/v1/providers' },
  { path: '/api/v1/quote/swap', query: MINIMAL_SWAP_QUERY },
];

/** Q-AUTH-003: the key-path 401 body is the platform error invalid_api_key. */
function expectPlatformInvalidKey(t: CheckContext, ex: Exchange): void {
  const body = ex.response.body;
  t.expect('Q-AUTH-003', isObject(body) && isObject(body.error) && body.error.code === 'invalid_api_key', {
    documented: 'the platform body {error: {code: "invalid_api_key"}}',
    received: body,
    exchange: ex,
  });
}

/** Every key-path endpoint (Q-AUTH-005 is the same fact as Q-AUTH-001 and Q-AUTH-003 together: see the catalogue). */
function rejectsKey(name: string, rule: 'Q-AUTH-001' | 'Q-AUTH-002', key: () => string | undefined, what: string): Check {
  return defineCheck({
    name,
    service: 'quotes',
    rules: [rule, 'Q-AUTH-003'],
    profile: 'smoke',
    async run(t: CheckContext) {
      for (const { path, query } of ENDPOINTS) {
        const ex = await t.quotes.request({ path, query, headers: { 'x-api-key': key() }, retry: false });
        expectStatus(t, rule, ex, 401, `GET ${path} with ${what} answered 401`);
        expectPlatformInvalidKey(t, ex);
      }
    },
  });
}

export const missingKeyIsRejectedWith401 = rejectsKey(
  'missing-api-key-is-rejected-with-401-invalid-api-key',
  'Q-AUTH-001',
  () => undefined,
  'no x-api-key',
);
export const unknownKeyIsRejectedWith401 = rejectsKey(
  'unknown-api-key-is-rejected-with-401-invalid-api-key',
  'Q-AUTH-002',
  () => randomToken('unknown-key'),
  'an unknown x-api-key',
);

/** Query parameter names a careless key path might read a key from. */
const KEY_QUERY_NAMES = ['x-api-key', 'apiKey', 'api_key', 'key', 'token'];

export const keyIsReadFromTheHeaderOnly = defineCheck({
  name: 'an-empty-api-key-or-a-key-in-the-query-string-is-rejected-with-401',
  service: 'quotes',
  rules: ['Q-AUTH-008', 'Q-AUTH-003'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const key = t.env.credentials.quotesApiKey;
    if (!key) t.skip('no QUOTES_API_KEY for this run: a valid key is needed to send it in the query string');
    const inQuery = Object.fromEntries(KEY_QUERY_NAMES.map((name) => [name, key]));
    const cases: Array<[string, Record<string, string | undefined>, Record<string, string>]> = [
      ['an empty x-api-key', { 'x-api-key': '' }, {}],
      ['the valid key in the query string and no x-api-key header', { 'x-api-key': undefined }, inQuery],
    ];
    for (const { path, query } of ENDPOINTS) {
      for (const [what, headers, extra] of cases) {
        const ex = await t.quotes.request({ path, query: { ...query, ...extra }, headers, retry: false });
        expectStatus(t, 'Q-AUTH-008', ex, 401, `GET ${path} with ${what}: 401`);
        expectPlatformInvalidKey(t, ex);
      }
    }
  },
});

export const revokedKeyIsRejectedWith401 = defineCheck({
  name: 'revoked-api-key-is-rejected-with-401-invalid-api-key',
  service: 'quotes',
  rules: ['Q-AUTH-004', 'Q-AUTH-003'],
  profile: 'full',
  needs: ['quote-keys'],
  async run(t: CheckContext) {
    const key = await t.control.createQuoteKey({ state: 'revoked' });
    for (const { path, query } of ENDPOINTS) {
      const ex = await t.quotes.request({ path, query, headers: { 'x-api-key': key }, retry: false });
      expectStatus(t, 'Q-AUTH-004', ex, 401, `GET ${path} with a revoked x-api-key answered 401`);
      expectPlatformInvalidKey(t, ex);
    }
  },
});
