import { type CheckContext, defineCheck } from '../harness/check.ts';
import { sendsUnsafeRequests } from '../harness/safe-methods.ts';
import { isObject } from '../shared/values.ts';
import { expectStatus } from './quote-support.ts';

/**
 * Authentication 3 and 4: the separate swap API at {dart_url} takes `X-API-Key` "with its own keys", and "credentials
 * are not interchangeable". Its interface is not shown (UNKNOWNS Q2), so the suite never calls it: it sends one of its
 * keys to the key path, which must answer 401 with the invalid_api_key platform body.
 */

/** The run's swap-API key (SWAP_API_KEY), or one the control API issues in the full profile; undefined without either. */
async function swapApiKey(t: CheckContext): Promise<string | undefined> {
  if (t.env.credentials.swapApiKey) return t.env.credentials.swapApiKey;
  if (!sendsUnsafeRequests(t.env.profile) || !t.control.has('quote-keys')) return undefined;
  return await t.control.createSwapApiKey();
}

export const swapApiKeyIsRejectedOnTheKeyPath = defineCheck({
  name: 'a-key-of-the-separate-swap-api-is-rejected-on-the-key-path-with-401',
  service: 'quotes',
  rules: ['Q-AUTH-007', 'Q-AUTH-003'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const key = await swapApiKey(t);
    if (key === undefined)
      t.skip(
        'no key of the separate swap API in this run: set SWAP_API_KEY to a key issued for {dart_url}, or run the full profile with a control URL that issues one (POST /swap-api-keys, capability quote-keys)',
      );
    for (const path of ['/api/v1/info', '/api/v1/providers']) {
      const ex = await t.quotes.request({ path, headers: { 'x-api-key': key }, retry: false });
      expectStatus(t, 'Q-AUTH-007', ex, 401, `GET ${path} with a key of the separate swap API as x-api-key answered 401`);
      const body = ex.response.body;
      t.expect('Q-AUTH-003', isObject(body) && isObject(body.error) && body.error.code === 'invalid_api_key', {
        documented: 'the platform body {error: {code: "invalid_api_key"}}',
        received: body,
        exchange: ex,
      });
    }
  },
});
