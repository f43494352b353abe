// The shapes of the files in generators/out/ (operations.json, schemas.json, stamp.json).
// Written by generators/build.ts, read by generators/runtime.ts and generators/arbitraries.ts.

/** A JSON Schema 2020-12 schema as it appears in the specs (refs stay `#/components/schemas/...`). */
export type JsonSchema = boolean | JsonSchemaObject;
export interface JsonSchemaObject {
  [keyword: string]: unknown;
}

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

/** One instance-path pattern that carries an `x-rule` (`*` stands for any array index or map key). */
export interface RulePointer {
  pointer: string;
  rule: string;
}

export interface ParameterInfo {
  name: string;
  in: ParameterLocation;
  required: boolean;
  /** Set when the parameter's schema is exactly a `$ref` (e.g. `#/components/schemas/UuidV4`). */
  schemaRef?: string;
  /** The parameter's schema as written (present whether or not it is a plain `$ref`). */
  schema: JsonSchema;
  /** Export name in validators.js. */
  validator: string;
  /** `x-assumed: true` on the parameter or its schema. */
  assumed: boolean;
  rule?: string;
}

export interface MediaTypeInfo {
  validator: string;
  schema: JsonSchema;
  schemaRef?: string;
}

export interface RequestBodyInfo {
  required: boolean;
  mediaTypes: Record<string, MediaTypeInfo>;
  assumed: boolean;
}

export interface ResponseInfo {
  /** Media type (lower case, no parameters) -> validator. Empty for a response without content. */
  mediaTypes: Record<string, { validator: string; schemaRef?: string }>;
  /** Header names as written in the spec. */
  headers: string[];
  /** `x-rule` on the response object, if any. */
  rule?: string;
}

export interface OperationInfo {
  service: string;
  operationId: string;
  /** Upper case HTTP method. */
  method: string;
  /** Path template as written in the spec, e.g. `/api/v1/orders/{orderId}`. */
  path: string;
  /** Operation-level `x-rule`, else the document's `x-default-rule`, else ''. */
  rule: string;
  /** Names of the security schemes that apply (union of all alternatives; [] = no auth). */
  security: string[];
  /** The security requirement alternatives: any one inner list suffices; `[]` inside means anonymous. */
  securityAlternatives: string[][];
  parameters: ParameterInfo[];
  requestBody?: RequestBodyInfo;
  /** Keys: '200', '4XX', 'default', ... (ranges upper case). */
  responses: Record<string, ResponseInfo>;
  /** Validator name -> instance-path patterns carrying an x-rule (response, request and parameter validators). */
  ruleMap: Record<string, RulePointer[]>;
}

export interface SourceSpec {
  service: string;
  /** Path relative to the repository root when inside it, else absolute. */
  file: string;
  /** sha256 of the file bytes, null when the file was missing at generation time. */
  sha256: string | null;
}

/** generators/out/operations.json */
export interface OperationsFile {
  '//': string[];
  sources: SourceSpec[];
  /** Service -> the document's `x-default-rule` ('' when absent). */
  defaultRules: Record<string, string>;
  operations: OperationInfo[];
}

/** Per service: `components.schemas` (so `#/components/schemas/X` refs resolve against this object). */
export interface ServiceSchemas {
  components: { schemas: Record<string, JsonSchema> };
  /** Component schema name -> validator export name. */
  componentValidators: Record<string, string>;
  /** Component validator export name -> its x-rule pointers (as OperationInfo.ruleMap). */
  ruleMaps: Record<string, RulePointer[]>;
  /** operationId -> request body schemas by media type, parameter schemas by `in:name`. */
  operations: Record<
    string,
    {
      requestBody: Record<string, JsonSchema>;
      parameters: Record<string, JsonSchema>;
    }
  >;
}

/** generators/out/schemas.json */
export interface SchemasFile {
  '//': string[];
  services: Record<string, ServiceSchemas>;
}

/** generators/out/stamp.json */
export interface StampFile {
  '//'?: string[];
  /** sha256 over the generator's own source files and the versions of the tools it uses. */
  generator: string;
  specs: SourceSpec[];
  files: string[];
}
