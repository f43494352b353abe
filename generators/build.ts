// specs/*.openapi.yaml -> generators/out/: validators.js (+ .d.ts), operations.json, schemas.json,
// types/<service>.ts, stamp.json. Every file starts with a header naming its source specs and their sha256.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Ajv2020Module from 'ajv/dist/2020.js';
import standaloneModule from 'ajv/dist/standalone/index.js';
import openapiTS, { astToString } from 'openapi-typescript';
import { displayPath, type SpecSource } from './config.js';
import type { JsonSchema, JsonSchemaObject, OperationsFile, SchemasFile, SourceSpec, StampFile } from './model.js';
import { NameAllocator, buildServiceModel, extensionKeywords, loadSpec, type LoadedSpec, type ServiceModel } from './openapi.js';
import { COMPONENT_SCHEMA_PREFIX, escapePointerSegment, fragmentSegments, isSchemaObject, mapSchema } from './schema-walk.js';
import { STAMP_FILE, generatorHash } from './stamp.js';

const Ajv2020 = Ajv2020Module.default;
const standaloneCode = standaloneModule.default;

/** Base of the `$id`s given to component schemas inside the Ajv instance (never fetched). */
const ID_BASE = 'https://conformance.invalid';
/** Keywords OpenAPI 3.1 adds to JSON Schema; annotations only. */
const OPENAPI_SCHEMA_KEYWORDS = ['example', 'discriminator', 'xml', 'externalDocs'];

export interface GenerateOptions {
  specs: readonly SpecSource[];
  outDir: string;
  log?: (line: string) => void;
}

export interface GenerateResult {
  outDir: string;
  services: string[];
  skipped: string[];
  operations: number;
  validators: number;
  files: string[];
  warnings: string[];
  ms: number;
  /** Milliseconds per phase: read, index, validators, types, write. */
  phases: Record<string, number>;
}

export async function generate(opts: GenerateOptions): Promise<GenerateResult> {
  const started = performance.now();
  const log = opts.log ?? ((line: string) => console.log(line));
  const warnings: string[] = [];
  const phases: Record<string, number> = {};
  let mark = started;
  const phase = (name: string): void => {
    const now = performance.now();
    phases[name] = Math.round(now - mark);
    mark = now;
  };

  // 1. Read the specs; a missing one is skipped with a warning.
  const loaded: LoadedSpec[] = [];
  const sources: SourceSpec[] = [];
  const skipped: string[] = [];
  for (const src of opts.specs) {
    if (!existsSync(src.path)) {
      const msg = `warning: ${displayPath(src.path)} is missing; service ${src.service} skipped`;
      log(msg);
      warnings.push(msg);
      skipped.push(src.service);
      sources.push({ service: src.service, file: displayPath(src.path), sha256: null });
      continue;
    }
    const spec = loadSpec(src);
    loaded.push(spec);
    sources.push({ service: spec.service, file: spec.file, sha256: spec.sha256 });
  }
  const services = loaded.map((s) => s.service);
  if (new Set(services).size !== services.length) throw new Error(`two specs map to the same service: ${services.join(', ')}`);

  phase('read');

  // 2. Operation index and the list of schemas to compile.
  const names = new NameAllocator();
  const models: ServiceModel[] = loaded.map((spec) => buildServiceModel(spec, names));
  for (const m of models) for (const w of m.warnings) warnings.push(`warning: ${w}`);

  const header = headerLines(sources);
  phase('index');

  // 3. One Ajv standalone module for every validator.
  const validatorsJs = compileValidators(models, header, warnings);
  const validatorNames = models.flatMap((m) => m.validators.map((v) => v.name));
  const validatorsDts = [
    ...header.map((l) => `// ${l}`),
    'export interface ValidatorError {',
    '  keyword: string;',
    '  instancePath: string;',
    '  schemaPath: string;',
    '  params: Record<string, unknown>;',
    '  message?: string;',
    '}',
    'export interface Validator {',
    '  (data: unknown): boolean;',
    '  errors?: ValidatorError[] | null;',
    '}',
    ...validatorNames.map((n) => `export declare const ${n}: Validator;`),
    '',
  ].join('\n');

  phase('validators');

  // 4. JSON indexes.
  const operationsFile: OperationsFile = {
    '//': header,
    sources,
    defaultRules: Object.fromEntries(models.map((m) => [m.spec.service, m.defaultRule])),
    operations: models.flatMap((m) => m.operations),
  };
  const schemasFile: SchemasFile = {
    '//': header,
    services: Object.fromEntries(models.map((m) => [m.spec.service, m.schemas])),
  };

  // 5. TypeScript types, one file per service, via openapi-typescript's Node API.
  const typeFiles: Record<string, string> = {};
  for (const m of models) {
    let body: string;
    try {
      const ast = await openapiTS(structuredClone(m.spec.doc) as unknown as Parameters<typeof openapiTS>[0], { silent: true });
      body = astToString(ast);
    } catch (e) {
      throw new Error(`${m.spec.file}: openapi-typescript failed: ${(e as Error).message}`);
    }
    const own = headerLines(sources.filter((s) => s.service === m.spec.service));
    typeFiles[`types/${m.spec.service}.ts`] = `${own.map((l) => `// ${l}`).join('\n')}\n\n${body}`;
  }

  phase('types');

  // 6. Write: stamp.json goes first (removed) and last (written), so a half-written directory reads as stale.
  const files: Record<string, string> = {
    'validators.js': validatorsJs,
    'validators.d.ts': validatorsDts,
    'operations.json': `${JSON.stringify(operationsFile, null, 2)}\n`,
    'schemas.json': `${JSON.stringify(schemasFile, null, 2)}\n`,
    ...typeFiles,
  };
  const stamp: StampFile = { '//': header, generator: generatorHash(), specs: sources, files: [...Object.keys(files), STAMP_FILE] };
  mkdirSync(join(opts.outDir, 'types'), { recursive: true });
  rmSync(join(opts.outDir, STAMP_FILE), { force: true });
  for (const f of readdirSync(join(opts.outDir, 'types'))) {
    if (!(`types/${f}` in files)) rmSync(join(opts.outDir, 'types', f), { force: true });
  }
  for (const [name, content] of Object.entries(files)) writeAtomic(join(opts.outDir, name), content);
  writeAtomic(join(opts.outDir, STAMP_FILE), `${JSON.stringify(stamp, null, 2)}\n`);
  phase('write');

  return {
    outDir: opts.outDir,
    services,
    skipped,
    operations: operationsFile.operations.length,
    validators: validatorNames.length,
    files: stamp.files,
    warnings,
    ms: Math.round(performance.now() - started),
    phases,
  };
}

function headerLines(sources: readonly SourceSpec[]): string[] {
  return [
    'generated — do not edit; regenerate with `npm run generate` (generators/generate.ts)',
    ...sources.map((s) => `source: ${s.file} (${s.service}) ${s.sha256 ? `sha256 ${s.sha256}` : 'missing, skipped'}`),
  ];
}

function writeAtomic(path: string, content: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, content);
  renameSync(tmp, path);
}

/** `#/components/schemas/Name/rest` -> the absolute `$id`-based reference used inside Ajv. */
function componentId(service: string, name: string): string {
  return `${ID_BASE}/${encodeURIComponent(service)}/schemas/${encodeURIComponent(name)}`;
}

function rewriteRefs(schema: JsonSchema, service: string): JsonSchema {
  return mapSchema(schema, (s) => {
    const ref = s['$ref'];
    if (typeof ref !== 'string' || !ref.startsWith(COMPONENT_SCHEMA_PREFIX)) return s;
    const [, , name = '', ...rest] = fragmentSegments(ref);
    const frag = rest.length > 0 ? `#/${rest.map((r) => encodeURIComponent(escapePointerSegment(r))).join('/')}` : '';
    return { ...s, $ref: `${componentId(service, name)}${frag}` };
  });
}

function compileValidators(models: readonly ServiceModel[], header: readonly string[], warnings: string[]): string {
  const ajvLog: string[] = [];
  const ajv = new Ajv2020({
    allErrors: true,
    validateFormats: false,
    strictSchema: true,
    strictNumbers: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    code: { source: true, esm: true, lines: true },
    logger: {
      log: (...a: unknown[]) => ajvLog.push(a.map(String).join(' ')),
      warn: (...a: unknown[]) => ajvLog.push(a.map(String).join(' ')),
      error: (...a: unknown[]) => ajvLog.push(a.map(String).join(' ')),
    },
  });
  const keywords = new Set(OPENAPI_SCHEMA_KEYWORDS);
  for (const m of models) for (const k of extensionKeywords(m.spec.doc)) keywords.add(k);
  ajv.addVocabulary([...keywords].sort());

  const exportsMap: Record<string, string> = {};
  // Components first (with $ids) so that every reference resolves; then the operation schemas.
  for (const m of models) {
    for (const [name, schema] of Object.entries(m.schemas.components.schemas)) {
      const id = componentId(m.spec.service, name);
      const rewritten = rewriteRefs(schema, m.spec.service);
      const withId: JsonSchemaObject = isSchemaObject(rewritten) ? { ...rewritten, $id: id } : { $id: id, allOf: [rewritten] };
      addOrExplain(ajv, withId, undefined, m, `/components/schemas/${escapePointerSegment(name)}`);
      exportsMap[m.schemas.componentValidators[name] ?? ''] = id;
    }
  }
  for (const m of models) {
    const componentNames = new Set(Object.values(m.schemas.componentValidators));
    for (const v of m.validators) {
      if (componentNames.has(v.name)) continue;
      addOrExplain(ajv, rewriteRefs(v.schema, m.spec.service), v.name, m, v.where);
      exportsMap[v.name] = v.name;
    }
  }
  let code: string;
  try {
    code = standaloneCode(ajv, exportsMap);
  } catch (e) {
    throw new Error(`ajv could not compile the validators: ${(e as Error).message}`);
  }
  for (const l of ajvLog) warnings.push(`ajv: ${l}`);
  return `${header.map((l) => `// ${l}`).join('\n')}\n${inlineRuntime(code)}\n`;
}

function addOrExplain(
  ajv: InstanceType<typeof Ajv2020>,
  schema: JsonSchema,
  key: string | undefined,
  m: ServiceModel,
  where: string,
): void {
  try {
    ajv.addSchema(schema as JsonSchemaObject, key);
  } catch (e) {
    throw new Error(`${m.spec.file} at ${where}: ${(e as Error).message}`);
  }
}

/**
 * Ajv's ESM standalone output still says `require("ajv/dist/runtime/x").name` for its helpers (ajv#2209):
 * replace each by the helper's own source so validators.js imports nothing and runs anywhere.
 */
function inlineRuntime(code: string): string {
  const require = createRequire(import.meta.url);
  const helpers = new Map<string, string>();
  const body = code.replace(/require\("([^"]+)"\)\.([A-Za-z_$][\w$]*)/g, (_m, mod: string, prop: string) => {
    const key = `${mod}#${prop}`;
    let id = helpers.get(key);
    if (!id) {
      id = `__ajvRuntime${helpers.size}`;
      helpers.set(key, id);
    }
    return id;
  });
  if (/\brequire\(/.test(body)) throw new Error('validators.js: ajv emitted a require() this generator cannot inline');
  const decls = [...helpers.entries()].map(([key, id]) => {
    const [mod = '', prop = ''] = key.split('#');
    const fn = (require(mod) as Record<string, unknown>)[prop];
    if (typeof fn !== 'function') throw new Error(`validators.js: cannot inline ${key} (not a function)`);
    return `const ${id} = /* ${mod} */ (${fn.toString()});`;
  });
  const [first, ...rest] = body.split('\n');
  // Keep ajv's "use strict" first, then the helpers.
  return first?.startsWith('"use strict"') ? [first, ...decls, ...rest].join('\n') : [...decls, body].join('\n');
}
