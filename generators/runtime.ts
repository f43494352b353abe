// The runtime API over a generated directory: operation lookup, response and schema validation with
// x-rule attribution. No schema is compiled here: validators come from the generated validators.js.
// generators/index.ts binds this to generators/out; tests bind it to a temporary directory.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { OperationInfo, OperationsFile, ResponseInfo, SchemasFile, StampFile } from './model.js';
import { attributeRule } from './rule-map.js';
import { escapePointerSegment } from './schema-walk.js';

export interface SchemaError {
  /** The rule the error belongs to (nearest enclosing x-rule, else the operation rule). */
  rule: string;
  instancePath: string;
  schemaPath: string;
  message: string;
}

export interface ResponseValidation {
  /** The status matched a documented key (exact, `4XX`-style range, or `default`). */
  documentedStatus: boolean;
  /** The media type (parameters ignored) is documented for that status; for a response documented without
   * content, true when no body came. */
  documentedMediaType: boolean;
  errors: SchemaError[];
}

interface AjvError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message?: string;
}

export interface Validator {
  (data: unknown): boolean;
  errors?: AjvError[] | null;
}

export interface GeneratedIndex {
  outDir: string;
  operations: OperationsFile;
  schemas: SchemasFile;
  stamp: StampFile;
}

export interface GeneratedApi {
  readonly outDir: string;
  /** Spec file (relative to the repository root) -> sha256, for the specs that were present. */
  readonly specHashes: Record<string, string>;
  readonly index: GeneratedIndex;
  getOperation(service: string, operationId: string): OperationInfo;
  findOperation(service: string, method: string, path: string): OperationInfo | undefined;
  validateResponse(service: string, operationId: string, status: number, mediaType: string | undefined, body: unknown): ResponseValidation;
  validateSchema(service: string, name: string, value: unknown): SchemaError[];
  listOperations(service?: string): OperationInfo[];
  /** Run any generated validator by export name; `fallbackRule` for errors outside every x-rule. */
  validateWith(validatorName: string, value: unknown, fallbackRule: string, service?: string): SchemaError[];
  validator(name: string): Validator | undefined;
}

/** Read operations.json, schemas.json and stamp.json (synchronous; no validators). */
export function loadIndex(outDir: string): GeneratedIndex {
  const read = <T>(f: string): T => {
    const p = join(outDir, f);
    if (!existsSync(p)) throw new Error(`${p} is missing: run \`npm run generate\``);
    return JSON.parse(readFileSync(p, 'utf8')) as T;
  };
  return {
    outDir,
    operations: read<OperationsFile>('operations.json'),
    schemas: read<SchemasFile>('schemas.json'),
    stamp: read<StampFile>('stamp.json'),
  };
}

/** Load a generated directory: the JSON indexes and the validators module. */
export async function loadGenerated(outDir: string): Promise<GeneratedApi> {
  const index = loadIndex(outDir);
  const mod = (await import(pathToFileURL(join(outDir, 'validators.js')).href)) as Record<string, Validator>;
  return createApi(index, mod);
}

interface CompiledPath {
  op: OperationInfo;
  regex: RegExp;
  literalSegments: number;
}

function compilePath(op: OperationInfo): CompiledPath {
  const segments = op.path.split('/');
  let literalSegments = 0;
  const source = segments
    .map((seg) => {
      if (!seg.includes('{')) {
        literalSegments++;
        return escapeRegex(seg);
      }
      return seg
        .split(/(\{[^}]+\})/)
        .map((part) => (part.startsWith('{') && part.endsWith('}') ? '[^/]+' : escapeRegex(part)))
        .join('');
    })
    .join('/');
  return { op, regex: new RegExp(`^${source}$`), literalSegments };
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `application/JSON; charset=utf-8` -> `application/json`. */
function bareMediaType(mt: string): string {
  return (mt.split(';')[0] ?? '').trim().toLowerCase();
}

function statusKeys(status: number): string[] {
  return [String(status), `${String(status).charAt(0)}XX`, 'default'];
}

function formatMessage(e: AjvError): string {
  const base = e.message ?? e.keyword;
  const p = e.params;
  if (e.keyword === 'enum' && Array.isArray(p['allowedValues']))
    return `${base}: ${p['allowedValues'].map((v) => JSON.stringify(v)).join(', ')}`;
  if (e.keyword === 'const' && 'allowedValue' in p) return `${base}: ${JSON.stringify(p['allowedValue'])}`;
  if (e.keyword === 'additionalProperties' && typeof p['additionalProperty'] === 'string')
    return `${base}: ${JSON.stringify(p['additionalProperty'])}`;
  return base;
}

/** Path used to attribute an error: a missing required property counts as an error at that property. */
function attributionPath(e: AjvError): string {
  const missing = e.params['missingProperty'];
  if ((e.keyword === 'required' || e.keyword === 'dependentRequired') && typeof missing === 'string') {
    return `${e.instancePath}/${escapePointerSegment(missing)}`;
  }
  return e.instancePath;
}

export function createApi(index: GeneratedIndex, validators: Record<string, Validator>): GeneratedApi {
  const ops = index.operations.operations;
  const byId = new Map<string, OperationInfo>();
  const ruleMaps = new Map<string, OperationInfo['ruleMap'][string]>();
  for (const op of ops) {
    byId.set(`${op.service}\0${op.operationId}`, op);
    for (const [v, pointers] of Object.entries(op.ruleMap)) ruleMaps.set(v, pointers);
  }
  for (const svc of Object.values(index.schemas.services)) {
    for (const [v, pointers] of Object.entries(svc.ruleMaps ?? {})) ruleMaps.set(v, pointers);
  }
  const compiled = new Map<string, CompiledPath[]>();
  for (const op of ops) {
    const list = compiled.get(op.service) ?? [];
    list.push(compilePath(op));
    compiled.set(op.service, list);
  }
  // OpenAPI: concrete paths are matched before templated ones.
  for (const list of compiled.values()) list.sort((a, b) => b.literalSegments - a.literalSegments);

  const specHashes: Record<string, string> = {};
  for (const s of index.stamp.specs) if (s.sha256) specHashes[s.file] = s.sha256;

  const validator = (name: string): Validator | undefined => validators[name];

  const validateWith = (validatorName: string, value: unknown, fallbackRule: string, service?: string): SchemaError[] => {
    const v = validators[validatorName];
    if (!v)
      throw new Error(
        `no generated validator ${validatorName}${service ? ` (service ${service})` : ''}: regenerate with \`npm run generate\``,
      );
    if (v(value)) return [];
    const pointers = ruleMaps.get(validatorName);
    return (v.errors ?? []).map((e) => ({
      rule: attributeRule(pointers, attributionPath(e), fallbackRule),
      instancePath: e.instancePath,
      schemaPath: e.schemaPath,
      message: formatMessage(e),
    }));
  };

  const getOperation = (service: string, operationId: string): OperationInfo => {
    const op = byId.get(`${service}\0${operationId}`);
    if (!op) {
      const known = ops.filter((o) => o.service === service).map((o) => o.operationId);
      throw new Error(
        `unknown operation ${service}.${operationId}` +
          (known.length ? ` (known: ${known.join(', ')})` : ` (no operations generated for service ${service})`),
      );
    }
    return op;
  };

  const findOperation = (service: string, method: string, path: string): OperationInfo | undefined => {
    const bare = (path.split(/[?#]/)[0] ?? '') || '/';
    const m = method.toUpperCase();
    for (const c of compiled.get(service) ?? []) {
      if (c.op.method === m && c.regex.test(bare)) return c.op;
    }
    return undefined;
  };

  const validateResponse = (
    service: string,
    operationId: string,
    status: number,
    mediaType: string | undefined,
    body: unknown,
  ): ResponseValidation => {
    const op = getOperation(service, operationId);
    let response: ResponseInfo | undefined;
    for (const k of statusKeys(status)) {
      response = op.responses[k];
      if (response) break;
    }
    if (!response) return { documentedStatus: false, documentedMediaType: false, errors: [] };
    const documented = Object.keys(response.mediaTypes);
    if (documented.length === 0) {
      const noBody = mediaType === undefined || body === undefined || body === '' || (body instanceof Uint8Array && body.length === 0);
      return { documentedStatus: true, documentedMediaType: noBody, errors: [] };
    }
    if (mediaType === undefined) return { documentedStatus: true, documentedMediaType: false, errors: [] };
    const mt = bareMediaType(mediaType);
    const [type] = mt.split('/');
    const entry = response.mediaTypes[mt] ?? response.mediaTypes[`${type}/*`] ?? response.mediaTypes['*/*'];
    if (!entry) return { documentedStatus: true, documentedMediaType: false, errors: [] };
    const fallback = response.rule ?? op.rule;
    return { documentedStatus: true, documentedMediaType: true, errors: validateWith(entry.validator, body, fallback, service) };
  };

  const validateSchema = (service: string, name: string, value: unknown): SchemaError[] => {
    const svc = index.schemas.services[service];
    const vname = svc?.componentValidators[name];
    if (!svc || !vname) {
      const known = svc ? Object.keys(svc.componentValidators).join(', ') : `no schemas generated for service ${service}`;
      throw new Error(`unknown schema ${service}.${name} (${known})`);
    }
    return validateWith(vname, value, index.operations.defaultRules[service] ?? '', service);
  };

  const listOperations = (service?: string): OperationInfo[] =>
    service === undefined ? [...ops] : ops.filter((o) => o.service === service);

  return {
    outDir: index.outDir,
    specHashes,
    index,
    getOperation,
    findOperation,
    validateResponse,
    validateSchema,
    listOperations,
    validateWith,
    validator,
  };
}
