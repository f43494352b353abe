import * as fc from 'fast-check';
import { loadGenerated } from '../../generators/runtime.ts';
import { validValue, invalidValue, requestArbitraries, schemaRoot } from '../../generators/arbitraries.ts';
const api = await loadGenerated('/work/main/generators/out');
for (const svc of ['orders', 'quotes', 'control']) {
  const root = schemaRoot(svc, api.index);
  const cases: [string, unknown, string][] = [];
  const S = api.index.schemas.services[svc]!;
  for (const name of Object.keys(S.components.schemas)) cases.push([`schema ${name}`, { $ref: `#/components/schemas/${name}` }, S.componentValidators[name]!]);
  for (const op of api.listOperations(svc)) {
    for (const p of op.parameters) cases.push([`${op.operationId} ${p.in}:${p.name}`, p.schema, p.validator]);
    for (const [mt, b] of Object.entries(op.requestBody?.mediaTypes ?? {})) cases.push([`${op.operationId} body ${mt}`, b.schema, b.validator]);
  }
  let issues = 0; const t0 = performance.now();
  for (const [label, schema, vname] of cases) {
    const v = api.validator(vname)!;
    const t = performance.now();
    try {
      const vs = fc.sample(validValue(schema as any, { root }), { seed: 1, numRuns: 100 });
      const bad = vs.filter((x) => !v(x));
      if (bad.length) { issues++; console.log(svc, label, 'VALID FAIL', bad.length, JSON.stringify(bad[0]).slice(0, 300), JSON.stringify(v(bad[0]), null) , JSON.stringify(v.errors).slice(0, 400)); }
    } catch (e) { issues++; console.log(svc, label, 'valid error', (e as Error).message.slice(0, 300)); }
    try {
      const inv = fc.sample(invalidValue(schema as any, { root }), { seed: 1, numRuns: 100 });
      const passing = inv.filter((iv) => v(iv.value));
      const unrep = inv.filter((iv) => { v(iv.value); return !(v.errors ?? []).some((e: any) => e.keyword === iv.violation.keyword && e.instancePath === iv.violation.path); });
      if (passing.length || unrep.length) { issues++; console.log(svc, label, 'INVALID', passing.length, unrep.length, JSON.stringify(unrep[0] ?? passing[0]).slice(0, 400), JSON.stringify(v.errors).slice(0, 300)); }
    } catch (e) { console.log(svc, label, 'invalid: ', (e as Error).message.slice(0, 200)); }
    const dt = performance.now() - t; if (dt > 500) console.log(svc, label, 'slow', Math.round(dt));
  }
  for (const op of api.listOperations(svc)) {
    try { const r = requestArbitraries(svc, op.operationId, { index: api.index }); fc.sample(r.valid, {seed: 1, numRuns: 20}); if (r.invalid) fc.sample(r.invalid, {seed: 1, numRuns: 20}); } catch (e) { issues++; console.log(svc, op.operationId, 'request error', (e as Error).message.slice(0, 300)); }
  }
  console.log(svc, cases.length, 'cases', issues, 'issues', Math.round(performance.now() - t0), 'ms');
}
