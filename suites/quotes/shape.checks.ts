import { defineCheck, type CheckContext } from '../harness/check.ts';

/**
 * Every answer the harness receives is validated against specs/swap-quote.openapi.yaml (status, media type, body).
 * This check walks the discovery endpoints in both encodings with every flag, so that validation runs on all of
 * them even when no narrower check looks at a field.
 */
export const discoveryAnswersMatchTheSpec = defineCheck({
  name: 'discovery-endpoints-answer-documented-statuses-and-shapes',
  service: 'quotes',
  rules: ['Q-SHAPE-001'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const requests = [
      { path: '/api/v1/info' },
      { path: '/api/v1/venues', query: { includeProgramIds: false } },
      { path: '/api/v1/venues', query: { includeProgramIds: true } },
      { path: '/api/v1/providers', query: { includeIcons: false } },
      { path: '/api/v1/providers', query: { includeIcons: true } },
    ];
    for (const accept of ['application/json', 'application/vnd.msgpack']) {
      for (const spec of requests) {
        const ex = await t.quotes.request({ ...spec, headers: { accept } });
        if (!ex.operationId) throw new Error(`GET ${spec.path} matches no operation of the spec, so nothing was validated`);
      }
    }
  },
});
