import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { isObject, randomToken } from '../shared/values.ts';
import { MINIMAL_SWAP_QUERY } from './fixtures.ts';
import { expectStatus } from './quote-support.ts';
import type { RuleId } from '../../generators/vocabulary.ts';

/** Q-EDGE-002: the edge body is {message: string} — not the platform {error} body. */
function expectEdgeBody(t: CheckContext, ex: Exchange): void {
  const body = ex.response.body;
  t.expect('Q-EDGE-002', isObject(body) && typeof body.message === 'string' && !('error' in body), {
    documented: 'the edge 403 body {message: string}, without the platform error object',
    received: body,
    exchange: ex,
  });
}

/** A 403 from the edge (the status under `rule`, the body under Q-EDGE-002). */
function expectEdge403(t: CheckContext, rule: RuleId, ex: Exchange, documented: string): void {
  expectStatus(t, rule, ex, 403, documented);
  expectEdgeBody(t, ex);
}

const KEY_PATH_ENDPOINTS = ['/api/v1/info', '/api/v1/venues', '/api/v1/providers', '/api/v1/quote/swap'];

export const nonGetMethodsAnswer403WithEdgeBody = defineCheck({
  name: 'non-get-methods-answer-403-with-edge-body',
  service: 'quotes',
  rules: ['Q-EDGE-001', 'Q-EDGE-002', 'Q-EDGE-005'],
  profile: 'readonly',
  async run(t: CheckContext) {
    // Sent with the run's valid key: the 403 is about the method, not authentication (Q-EDGE-005).
    for (const path of KEY_PATH_ENDPOINTS) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        const ex = await t.quotes.request({ method, path, json: {}, retry: false });
        expectEdge403(t, 'Q-EDGE-001', ex, `${method} ${path} answered 403 (all endpoints are GET)`);
      }
    }
  },
});

export const unknownPathAnswers403WithEdgeBody = defineCheck({
  name: 'unknown-path-answers-403-with-edge-body',
  service: 'quotes',
  rules: ['Q-EDGE-003', 'Q-EDGE-002'],
  profile: 'readonly',
  async run(t: CheckContext) {
    for (const path of [`/api/v1/${randomToken('no-such-endpoint')}`, '/api/v1/quote', '/api/v1/quote/swap/extra']) {
      const ex = await t.quotes.request({ path, retry: false });
      expectEdge403(t, 'Q-EDGE-003', ex, `GET ${path} (no such path) answered 403`);
    }
  },
});

export const keyPathHasNoPriceEndpoint = defineCheck({
  name: 'key-path-has-no-quote-price-endpoint',
  service: 'quotes',
  rules: ['Q-EDGE-004', 'Q-EDGE-002'],
  profile: 'readonly',
  async run(t: CheckContext) {
    // Not validated against getQuotePrice: that operation belongs to the distributor path only.
    const ex = await t.quotes.request({ path: '/api/v1/quote/price', retry: false, validate: false });
    expectEdge403(t, 'Q-EDGE-004', ex, 'GET /api/v1/quote/price on the key path answered 403 (distributor path only)');
  },
});

export const keyPathHasNoWebSocket = defineCheck({
  name: 'key-path-answers-api-v1-ws-as-an-unknown-path',
  service: 'quotes',
  rules: ['Q-EDGE-006', 'Q-EDGE-002'],
  profile: 'readonly',
  async run(t: CheckContext) {
    // The Direct stream's path, asked over plain HTTPS: the key path has no WebSocket, so no such path.
    const ex = await t.quotes.request({ path: '/api/v1/ws', retry: false, validate: false });
    expectEdge403(t, 'Q-EDGE-006', ex, 'GET /api/v1/ws on the key path answered 403 like an unknown path (no WebSocket on the key path)');
  },
});

export const otherApiVersionsAreUnknownPaths = defineCheck({
  name: 'paths-outside-api-v1-answer-403-with-edge-body',
  service: 'quotes',
  rules: ['Q-VER-002', 'Q-EDGE-002'],
  profile: 'readonly',
  async run(t: CheckContext) {
    for (const path of ['/api/v2/info', '/api/v2/venues', '/api/v2/providers']) {
      const ex = await t.quotes.request({ path, retry: false });
      expectEdge403(t, 'Q-VER-002', ex, `GET ${path} (outside /api/v1) answered 403`);
    }
  },
});

export const keyPathEndpointsAnswerUnderApiV1 = defineCheck({
  name: 'the-four-key-path-endpoints-answer-under-api-v1',
  service: 'quotes',
  rules: ['Q-VER-001'],
  profile: 'readonly',
  async run(t: CheckContext) {
    // Any engine answer (200, or 404 code -7 for a quote) shows the endpoint exists; the edge's 403 says it does not.
    for (const path of KEY_PATH_ENDPOINTS) {
      const ex = await t.quotes.request({ path, query: path.endsWith('/quote/swap') ? MINIMAL_SWAP_QUERY : undefined, retry: false });
      t.expect('Q-VER-001', ex.response.status !== 403, {
        documented: `${path} exists under the /api/v1 prefix (not the edge's 403 for an unknown path)`,
        received: { status: ex.response.status, body: ex.response.body },
        exchange: ex,
      });
    }
  },
});
