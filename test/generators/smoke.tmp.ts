import * as fc from 'fast-check';
import { loadGenerated } from '/work/main/generators/runtime.ts';
import { validValue, invalidValue, requestArbitraries, schemaRoot } from '/work/main/generators/arbitraries.ts';
const api = await loadGenerated('/tmp/gen-fx');
console.log(api.findOperation('fixture', 'get', '/api/v1/orders/summary')?.operationId, api.findOperation('fixture', 'GET', '/api/v1/orders/abc?x=1')?.operationId, api.findOperation('fixture','GET','/nope'));
const good = { protocolVersion: { major: 1, minor: 0, patch: 0 }, numQuotes: 3, venues: ['a'] };
console.log(api.validateResponse('fixture', 'getInfo', 200, 'application/json; charset=utf-8', good));
console.log(JSON.stringify(api.validateResponse('fixture', 'getInfo', 200, 'application/json', { ...good, protocolVersion: { major: -1, minor: 0, patch: 0 }, motd: 5 }), null, 1));
console.log(api.validateResponse('fixture', 'getInfo', 404, 'application/json', {error: {code: 1}}));
console.log(api.validateResponse('fixture', 'getInfo', 503, 'text/plain', 'x'));
console.log(api.validateResponse('fixture', 'cancelOrder', 204, undefined, undefined));
const root = schemaRoot('fixture', api.index);
for (const name of Object.keys(api.index.schemas.services.fixture!.components.schemas)) {
  const schema = { $ref: `#/components/schemas/${name}` };
  const t0 = performance.now();
  const vs = fc.sample(validValue(schema, { root }), { seed: 1, numRuns: 100 });
  const bad = vs.filter((v) => api.validateSchema('fixture', name, v).length > 0);
  let inv: any[] = [];
  try { inv = fc.sample(invalidValue(schema, { root }), { seed: 1, numRuns: 100 }); } catch (e) { console.log(name, 'invalid:', (e as Error).message); }
  const passing = inv.filter((iv) => api.validateSchema('fixture', name, iv.value).length === 0);
  const unreported = inv.filter((iv) => { const v = api.validator(api.index.schemas.services.fixture!.componentValidators[name]!)!; v(iv.value); return !(v.errors ?? []).some((e: any) => e.keyword === iv.violation.keyword && e.instancePath === iv.violation.path); });
  const kinds = [...new Set(inv.map((i) => i.violation.keyword + '@' + i.violation.path))];
  console.log(name, 'validFail', bad.length, 'invalidPass', passing.length, 'unreported', unreported.length, Math.round(performance.now() - t0), 'ms', kinds.slice(0, 12).join(' '));
  if (bad.length) console.log('  e.g.', JSON.stringify(bad[0]), api.validateSchema('fixture', name, bad[0]));
  if (unreported.length) console.log('  e.g.', JSON.stringify(unreported[0]));
}
const r = requestArbitraries('fixture', 'createOrder', { index: api.index });
console.log(r.assumed, fc.sample(r.valid, { seed: 2, numRuns: 2 }));
console.log(fc.sample(r.invalid!, { seed: 2, numRuns: 3 }));
const r2 = requestArbitraries('fixture', 'listOrders', { index: api.index });
console.log(fc.sample(r2.valid, { seed: 2, numRuns: 3 }), fc.sample(r2.invalid!, { seed: 3, numRuns: 5 }).map(x => [x.target, x.violation.keyword, x.query, x.headers]));
