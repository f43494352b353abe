import { defineCheck, type CheckContext } from '../harness/check.ts';
import { randomToken } from '../shared/values.ts';
import { MINIMAL_SWAP_QUERY } from './fixtures.ts';

export const everyResponseCarriesEdgeRequestId = defineCheck({
  name: 'every-response-carries-x-edge-requestid',
  service: 'quotes',
  rules: ['Q-DBG-001'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const requests = [
      { path: '/api/v1/info' },
      { path: '/api/v1/venues', query: { includeProgramIds: true } },
      { path: '/api/v1/providers' },
      { path: '/api/v1/info', headers: { 'x-api-key': undefined } },
      { path: '/api/v1/info', headers: { 'x-api-key': randomToken('unknown-key') } },
      { path: '/api/v1/info', method: 'POST', json: {} },
      { path: `/api/v1/${randomToken('no-such-endpoint')}` },
      // Quote answers: a route, an engine 400 and an engine 404 (no route through an unknown venue).
      { path: '/api/v1/quote/swap', query: MINIMAL_SWAP_QUERY },
      { path: '/api/v1/quote/swap', query: { ...MINIMAL_SWAP_QUERY, amount: '1.5' } },
      { path: '/api/v1/quote/swap', query: { ...MINIMAL_SWAP_QUERY, dexes: randomToken('no-such-venue') } },
    ];
    for (const spec of requests) {
      const ex = await t.quotes.request({ ...spec, retry: false });
      const id = ex.response.headers['x-edge-requestid'];
      t.expect('Q-DBG-001', typeof id === 'string' && id.trim() !== '', {
        documented: 'an x-edge-requestid header on every response',
        received: { status: ex.response.status, headers: ex.response.headers },
        exchange: ex,
      });
    }
  },
});
