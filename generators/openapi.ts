// OpenAPI 3.1 documents -> the operation index and the list of schemas to compile.
// Follows `$ref`s between OpenAPI objects (responses, parameters, request bodies, headers, path items);
// schema `$ref`s stay as written (`#/components/schemas/...`) and are checked to resolve.
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { displayPath, toIdentifier, type SpecSource } from './config.js';
import type {
  JsonSchema,
  JsonSchemaObject,
  MediaTypeInfo,
  OperationInfo,
  ParameterInfo,
  ParameterLocation,
  RequestBodyInfo,
  ResponseInfo,
  RulePointer,
  ServiceSchemas,
} from './model.js';
import { collectRulePointers } from './rule-map.js';
import { COMPONENT_SCHEMA_PREFIX, forEachSchema, getByRef, isSchema, isSchemaObject } from './schema-walk.js';
import { sha256 } from './stamp.js';

type Obj = Record<string, unknown>;

export interface LoadedSpec {
  service: string;
  path: string;
  file: string;
  sha256: string;
  text: string;
  doc: Obj;
}

export class SpecError extends Error {
  constructor(file: string, where: string, message: string) {
    super(`${file}${where ? ` at ${where}` : ''}: ${message}`);
    this.name = 'SpecError';
  }
}

/** Read and parse one spec (YAML or JSON). Throws a SpecError naming the file on a parse error. */
export function loadSpec(src: SpecSource): LoadedSpec {
  const bytes = readFileSync(src.path);
  const text = bytes.toString('utf8');
  const file = displayPath(src.path);
  const parsed = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (parsed.errors.length > 0) {
    throw new SpecError(file, '', `YAML does not parse:\n${parsed.errors.map((e) => `  ${e.message}`).join('\n')}`);
  }
  const doc: unknown = parsed.toJS({ maxAliasCount: 1000 });
  if (!isSchemaObject(doc)) throw new SpecError(file, '', 'the document is not a mapping');
  if (typeof doc['openapi'] !== 'string' || !doc['openapi'].startsWith('3.1')) {
    throw new SpecError(file, '/openapi', `expected an OpenAPI 3.1.x document, got ${JSON.stringify(doc['openapi'])}`);
  }
  return { service: src.service, path: src.path, file, sha256: sha256(bytes), text, doc };
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** A schema to compile into validators.js under `name`. */
export interface ValidatorSpec {
  name: string;
  schema: JsonSchema;
  /** JSON pointer into the spec, for error messages. */
  where: string;
}

export interface ServiceModel {
  spec: LoadedSpec;
  defaultRule: string;
  operations: OperationInfo[];
  validators: ValidatorSpec[];
  schemas: ServiceSchemas;
  warnings: string[];
}

/** Allocates unique JavaScript export names across all services. */
export class NameAllocator {
  private readonly used = new Set<string>();
  take(...parts: string[]): string {
    const base = toIdentifier(parts.join('_'));
    let name = base;
    for (let i = 2; this.used.has(name); i++) name = `${base}_${i}`;
    this.used.add(name);
    return name;
  }
}

/** `application/JSON; charset=utf-8` -> `application/json`. */
export function normalizeMediaType(mt: string): string {
  return (mt.split(';')[0] ?? '').trim().toLowerCase();
}

/** `2xx` -> `2XX`; `200` stays. */
export function normalizeStatusKey(k: string): string {
  return /^[1-5]xx$/i.test(k) ? k.toUpperCase() : k;
}

function ptr(...segs: string[]): string {
  return segs.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

export function buildServiceModel(spec: LoadedSpec, names: NameAllocator): ServiceModel {
  const { doc, file, service } = spec;
  const warnings: string[] = [];
  const defaultRule = typeof doc['x-default-rule'] === 'string' ? doc['x-default-rule'] : '';
  const validators: ValidatorSpec[] = [];
  const operations: OperationInfo[] = [];

  /** Follow `$ref`s between OpenAPI objects; sibling fields of a `$ref` (x-rule, description) override. */
  const deref = (value: unknown, where: string): Obj => {
    let cur: unknown = value;
    let overrides: Obj = {};
    const seen = new Set<string>();
    while (isSchemaObject(cur) && typeof cur['$ref'] === 'string') {
      const ref = cur['$ref'];
      if (seen.has(ref)) throw new SpecError(file, where, `circular $ref ${ref}`);
      seen.add(ref);
      const { $ref: _ignored, ...siblings } = cur;
      overrides = { ...siblings, ...overrides };
      let target: unknown;
      try {
        target = getByRef(doc, ref);
      } catch (e) {
        throw new SpecError(file, where, (e as Error).message);
      }
      if (target === undefined) throw new SpecError(file, where, `$ref ${ref} does not resolve`);
      cur = target;
    }
    if (!isSchemaObject(cur)) throw new SpecError(file, where, 'expected an object');
    return { ...cur, ...overrides };
  };

  /** Schema refs must point into #/components/schemas and resolve. */
  const checkSchema = (schema: unknown, where: string): JsonSchema => {
    if (!isSchema(schema)) throw new SpecError(file, where, 'schema is neither an object nor a boolean');
    forEachSchema(schema, (s) => {
      const ref = s['$ref'];
      if (ref === undefined) return;
      if (typeof ref !== 'string') throw new SpecError(file, where, '$ref is not a string');
      if (!ref.startsWith(COMPONENT_SCHEMA_PREFIX)) {
        throw new SpecError(file, where, `schema $ref ${ref} does not point into #/components/schemas (not supported)`);
      }
      let target: unknown;
      try {
        target = getByRef(doc, ref);
      } catch (e) {
        throw new SpecError(file, where, (e as Error).message);
      }
      if (!isSchema(target)) throw new SpecError(file, where, `schema $ref ${ref} does not resolve`);
    });
    return schema;
  };

  const isAssumed = (schema: JsonSchema): boolean => {
    if (!isSchemaObject(schema)) return false;
    if (schema['x-assumed'] === true) return true;
    const ref = schema['$ref'];
    if (typeof ref === 'string') {
      const t = getByRef(doc, ref);
      return isSchemaObject(t) && t['x-assumed'] === true;
    }
    return false;
  };

  const refOf = (schema: JsonSchema): string | undefined => {
    if (!isSchemaObject(schema)) return undefined;
    const keys = Object.keys(schema).filter((k) => !['description', 'summary', 'title'].includes(k));
    return keys.length === 1 && typeof schema['$ref'] === 'string' ? schema['$ref'] : undefined;
  };

  const rulesAt = (...objs: Obj[]): RulePointer[] =>
    objs.flatMap((o) => (typeof o['x-rule'] === 'string' && o['x-rule'] !== '' ? [{ pointer: '', rule: o['x-rule'] }] : []));

  // Components first, so that `<service>_schema_<Name>` names are stable.
  const components = isSchemaObject(doc['components']) ? doc['components'] : {};
  const componentSchemas = isSchemaObject(components['schemas']) ? components['schemas'] : {};
  const schemasEntry: ServiceSchemas = {
    components: { schemas: {} },
    componentValidators: {},
    ruleMaps: {},
    operations: {},
  };
  for (const [name, raw] of Object.entries(componentSchemas)) {
    const where = ptr('components', 'schemas', name);
    const schema = checkSchema(raw, where);
    const vname = names.take(service, 'schema', name);
    schemasEntry.components.schemas[name] = schema;
    schemasEntry.componentValidators[name] = vname;
    schemasEntry.ruleMaps[vname] = collectRulePointers(schema, doc);
    validators.push({ name: vname, schema, where });
  }

  const paths = isSchemaObject(doc['paths']) ? doc['paths'] : {};
  if (Object.keys(paths).length === 0) warnings.push(`${file}: no paths`);
  for (const [path, rawItem] of Object.entries(paths)) {
    const itemWhere = ptr('paths', path);
    const item = deref(rawItem, itemWhere);
    const pathParams = Array.isArray(item['parameters']) ? item['parameters'] : [];
    for (const method of HTTP_METHODS) {
      const rawOp = item[method];
      if (rawOp === undefined) continue;
      const where = `${itemWhere}/${method}`;
      const op = deref(rawOp, where);
      let operationId = typeof op['operationId'] === 'string' ? op['operationId'] : '';
      if (!operationId) {
        operationId = toIdentifier(`${method}_${path}`);
        warnings.push(`${file}: ${method.toUpperCase()} ${path} has no operationId; using ${operationId}`);
      }
      const opRule = typeof op['x-rule'] === 'string' && op['x-rule'] !== '' ? op['x-rule'] : defaultRule;
      const ruleMap: Record<string, RulePointer[]> = {};
      const opSchemas: ServiceSchemas['operations'][string] = { requestBody: {}, parameters: {} };

      // Parameters: path-level, overridden by operation-level with the same (in, name).
      const merged = new Map<string, { p: Obj; where: string }>();
      const opParams = Array.isArray(op['parameters']) ? op['parameters'] : [];
      pathParams.forEach((p, i) => {
        const w = `${itemWhere}/parameters/${i}`;
        const d = deref(p, w);
        merged.set(`${String(d['in'])}:${String(d['name'])}`, { p: d, where: w });
      });
      opParams.forEach((p, i) => {
        const w = `${where}/parameters/${i}`;
        const d = deref(p, w);
        merged.set(`${String(d['in'])}:${String(d['name'])}`, { p: d, where: w });
      });
      const parameters: ParameterInfo[] = [];
      for (const { p, where: w } of merged.values()) {
        const loc = p['in'];
        const pname = p['name'];
        if (typeof pname !== 'string' || !['path', 'query', 'header', 'cookie'].includes(String(loc))) {
          throw new SpecError(file, w, 'parameter needs a name and in: path|query|header|cookie');
        }
        let rawSchema: unknown = p['schema'];
        if (rawSchema === undefined && isSchemaObject(p['content'])) {
          const first = Object.values(p['content'])[0];
          rawSchema = isSchemaObject(first) ? first['schema'] : undefined;
        }
        const schema = checkSchema(rawSchema ?? true, `${w}/schema`);
        const validator = names.take(service, operationId, 'param', String(loc), pname);
        validators.push({ name: validator, schema, where: `${w}/schema` });
        const info: ParameterInfo = {
          name: pname,
          in: loc as ParameterLocation,
          required: loc === 'path' ? true : p['required'] === true,
          schema,
          validator,
          assumed: p['x-assumed'] === true || isAssumed(schema),
        };
        const sref = refOf(schema);
        if (sref) info.schemaRef = sref;
        if (typeof p['x-rule'] === 'string') info.rule = p['x-rule'];
        parameters.push(info);
        ruleMap[validator] = [...rulesAt(p), ...collectRulePointers(schema, doc)];
        opSchemas.parameters[`${String(loc)}:${pname}`] = schema;
      }
      for (const m of path.matchAll(/\{([^}]+)\}/g)) {
        if (!parameters.some((p) => p.in === 'path' && p.name === m[1])) {
          warnings.push(`${file}: ${method.toUpperCase()} ${path}: path parameter {${m[1]}} is not declared`);
        }
      }

      // Request body.
      let requestBody: RequestBodyInfo | undefined;
      if (op['requestBody'] !== undefined) {
        const rbWhere = `${where}/requestBody`;
        const rb = deref(op['requestBody'], rbWhere);
        const content = isSchemaObject(rb['content']) ? rb['content'] : {};
        const mediaTypes: Record<string, MediaTypeInfo> = {};
        let assumed = rb['x-assumed'] === true;
        for (const [mtRaw, media] of Object.entries(content)) {
          const mt = normalizeMediaType(mtRaw);
          const mWhere = `${rbWhere}/content/${mtRaw.replace(/~/g, '~0').replace(/\//g, '~1')}`;
          const m = isSchemaObject(media) ? media : {};
          const schema = checkSchema(m['schema'] ?? true, `${mWhere}/schema`);
          const validator = names.take(service, operationId, 'request', mt);
          validators.push({ name: validator, schema, where: `${mWhere}/schema` });
          const info: MediaTypeInfo = { validator, schema };
          const sref = refOf(schema);
          if (sref) info.schemaRef = sref;
          mediaTypes[mt] = info;
          assumed ||= isAssumed(schema);
          ruleMap[validator] = [...rulesAt(rb, m), ...collectRulePointers(schema, doc)];
          opSchemas.requestBody[mt] = schema;
        }
        requestBody = { required: rb['required'] === true, mediaTypes, assumed };
      }

      // Responses.
      const responses: Record<string, ResponseInfo> = {};
      const rawResponses = isSchemaObject(op['responses']) ? op['responses'] : {};
      if (Object.keys(rawResponses).length === 0) warnings.push(`${file}: ${operationId} documents no responses`);
      for (const [statusRaw, rawResp] of Object.entries(rawResponses)) {
        const status = normalizeStatusKey(statusRaw);
        const rWhere = `${where}/responses/${statusRaw}`;
        const resp = deref(rawResp, rWhere);
        const content = isSchemaObject(resp['content']) ? resp['content'] : {};
        const info: ResponseInfo = {
          mediaTypes: {},
          headers: isSchemaObject(resp['headers']) ? Object.keys(resp['headers']) : [],
        };
        if (typeof resp['x-rule'] === 'string' && resp['x-rule'] !== '') info.rule = resp['x-rule'];
        for (const [mtRaw, media] of Object.entries(content)) {
          const mt = normalizeMediaType(mtRaw);
          const m = isSchemaObject(media) ? media : {};
          const sWhere = `${rWhere}/content/${mtRaw.replace(/~/g, '~0').replace(/\//g, '~1')}/schema`;
          const schema = checkSchema(m['schema'] ?? true, sWhere);
          const validator = names.take(service, operationId, status, mt === '*/*' ? 'any' : mt);
          validators.push({ name: validator, schema, where: sWhere });
          const entry: ResponseInfo['mediaTypes'][string] = { validator };
          const sref = refOf(schema);
          if (sref) entry.schemaRef = sref;
          info.mediaTypes[mt] = entry;
          ruleMap[validator] = [...rulesAt(resp, m), ...collectRulePointers(schema, doc)];
        }
        responses[status] = info;
      }

      const securityReq = Array.isArray(op['security']) ? op['security'] : Array.isArray(doc['security']) ? doc['security'] : [];
      const securityAlternatives = securityReq.filter(isSchemaObject).map((req) => Object.keys(req));
      operations.push({
        service,
        operationId,
        method: method.toUpperCase(),
        path,
        rule: opRule,
        security: [...new Set(securityAlternatives.flat())],
        securityAlternatives,
        parameters,
        ...(requestBody ? { requestBody } : {}),
        responses,
        ruleMap,
      });
      if (schemasEntry.operations[operationId]) {
        throw new SpecError(file, where, `duplicate operationId ${operationId}`);
      }
      schemasEntry.operations[operationId] = opSchemas;
    }
  }
  return { spec, defaultRule, operations, validators, schemas: schemasEntry, warnings };
}

/** Every `x-*` key used on any schema object of the document (to register with Ajv as annotations). */
export function extensionKeywords(doc: Obj): string[] {
  const found = new Set<string>();
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (isSchemaObject(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (k.startsWith('x-')) found.add(k);
        visit(x);
      }
    }
  };
  visit(doc);
  return [...found].sort();
}

export type { JsonSchemaObject };
