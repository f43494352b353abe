/** Every example value of the documents validates against the specs; every known-invalid variant does not. */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { validateSchema, type Service } from '../../generators/index.ts';

const SERVICES: Record<string, Service> = { 'order-automation': 'orders', 'swap-quote': 'quotes' };
const ROOT = new URL('../../specs/examples/', import.meta.url);

interface Example {
  schema: string;
  value: unknown;
  why?: string;
}

for (const [dir, service] of Object.entries(SERVICES)) {
  for (const kind of ['valid', 'invalid'] as const) {
    const folder = new URL(`${dir}/${kind}/`, ROOT);
    const files = readdirSync(folder)
      .filter((f) => f.endsWith('.json'))
      .sort();
    describe(`${dir} ${kind} examples`, () => {
      test('exist', () => expect(files.length).toBeGreaterThanOrEqual(10));
      test.each(files)('%s', (file) => {
        const ex = JSON.parse(readFileSync(new URL(file, folder), 'utf8')) as Example;
        const errors = validateSchema(service, ex.schema, ex.value);
        if (kind === 'valid') expect(errors, JSON.stringify(errors, null, 1)).toEqual([]);
        else expect(errors.length, `${file} should fail ${ex.schema}: ${ex.why ?? ''}`).toBeGreaterThan(0);
      });
    });
  }
}
