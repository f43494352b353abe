import * as fc from 'fast-check';
import { loadIndex } from '../../generators/runtime.ts';
import { validValue, invalidValue, schemaRoot } from '../../generators/arbitraries.ts';
const idx = loadIndex('/work/main/generators/out');
const root = schemaRoot('orders', idx);
for (const name of (process.argv[2] ?? 'Order,TypedOrder').split(',')) {
  const schema = { $ref: `#/components/schemas/${name}` };
  let t = performance.now();
  const va = validValue(schema, { root }); const c1 = performance.now() - t; t = performance.now();
  fc.sample(va, { seed: 1, numRuns: 100 }); const s1 = performance.now() - t; t = performance.now();
  const ia = invalidValue(schema, { root }); const c2 = performance.now() - t; t = performance.now();
  fc.sample(ia, { seed: 1, numRuns: 100 }); const s2 = performance.now() - t;
  console.log(name, 'valid build', Math.round(c1), 'sample', Math.round(s1), 'invalid build', Math.round(c2), 'sample', Math.round(s2));
}
