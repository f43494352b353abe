// The runtime API over generators/out (regenerated first when missing or stale, see ensure.ts).
// Suites and fixtures import from here; nothing in here compiles a schema.
import { DEFAULT_OUT_DIR } from './config.js';
import { ensureGenerated } from './ensure.js';
import type { OperationInfo } from './model.js';
import { loadGenerated, type ResponseValidation, type SchemaError } from './runtime.js';

export type Service = 'orders' | 'quotes' | 'control';
export type { OperationInfo, ParameterInfo, RequestBodyInfo, ResponseInfo, MediaTypeInfo, RulePointer, JsonSchema } from './model.js';
export type { SchemaError, ResponseValidation } from './runtime.js';
export { ensureGenerated } from './ensure.js';

await ensureGenerated();
const api = await loadGenerated(DEFAULT_OUT_DIR);

/** The operation with this operationId; throws on an unknown id. */
export function getOperation(service: Service, operationId: string): OperationInfo {
  return api.getOperation(service, operationId);
}

/** The operation serving `method path` (query string ignored, `{param}` templates matched, concrete paths first). */
export function findOperation(service: Service, method: string, path: string): OperationInfo | undefined {
  return api.findOperation(service, method, path);
}

/**
 * Validate a response: the status falls back to `4XX`-style ranges, then `default`; the media type is compared
 * without parameters; each error carries the rule of the longest matching x-rule pointer, else the response's
 * x-rule, else the operation rule.
 */
export function validateResponse(
  service: Service,
  operationId: string,
  status: number,
  mediaType: string | undefined,
  body: unknown,
): ResponseValidation {
  return api.validateResponse(service, operationId, status, mediaType, body);
}

/** Validate a value against a components schema by name (errors outside any x-rule get the x-default-rule). */
export function validateSchema(service: Service, name: string, value: unknown): SchemaError[] {
  return api.validateSchema(service, name, value);
}

export function listOperations(service?: Service): OperationInfo[] {
  return api.listOperations(service);
}

/** Run a generated validator by its export name (see operations.json). */
export function validateWith(validatorName: string, value: unknown, fallbackRule: string): SchemaError[] {
  return api.validateWith(validatorName, value, fallbackRule);
}

/** The document's `x-default-rule` ('' when the spec has none or was not generated). */
export function defaultRule(service: Service): string {
  return api.index.operations.defaultRules[service] ?? '';
}

/** Spec file (relative to the repository root) -> sha256 of the specs the validators were generated from. */
export const specHashes: Record<string, string> = api.specHashes;
