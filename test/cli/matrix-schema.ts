/** matrix.json against its published JSON Schema (specs/matrix.schema.json), with ajv. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020Module from 'ajv/dist/2020.js';
import { expect } from 'vitest';
import { ROOT } from './run-cli.ts';

// ajv is CommonJS: under Node's ESM interop its class is the default export's `default` (as generators/build.ts).
const Ajv2020 = Ajv2020Module.default;
const schema = JSON.parse(readFileSync(join(ROOT, 'specs/matrix.schema.json'), 'utf8')) as object;
const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);

/** Fails the test with ajv's own words when `matrix` does not match the schema. */
export function expectValidMatrix(matrix: unknown): void {
  const valid = validate(matrix);
  expect(valid ? [] : validate.errors?.map((e) => `${e.instancePath} ${e.message}`)).toEqual([]);
}
