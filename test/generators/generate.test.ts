// generate.ts and ensure.ts: output files with provenance headers, --check detects staleness and writes
// nothing, missing specs are skipped, ensureGenerated regenerates only when stale.
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureGenerated } from '../../generators/ensure.ts';
import { sha256 } from '../../generators/stamp.ts';
import { FIXTURE_SPEC, REPO, generateFixture, removeDir, tempDir, type Generated } from './helpers.ts';

const TSX = join(REPO, 'node_modules', '.bin', 'tsx');
const GENERATE = join(REPO, 'generators', 'generate.ts');

function runGenerate(args: string[]): { status: number | null; out: string } {
  const r = spawnSync(TSX, [GENERATE, ...args], { cwd: REPO, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Every file under dir with its mtime, to prove a command wrote nothing. */
function snapshot(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  const walk = (d: string, rel: string): void => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p, `${rel}${f}/`);
      else out[`${rel}${f}`] = statSync(p).mtimeMs;
    }
  };
  walk(dir, '');
  return out;
}

describe('generated files', () => {
  let g: Generated;
  beforeAll(async () => {
    g = await generateFixture('files');
  });
  afterAll(() => removeDir(g.outDir));

  test('every output file starts with a header naming the spec and its sha256', () => {
    const hash = sha256(readFileSync(FIXTURE_SPEC));
    expect(g.result.files.sort()).toEqual(
      ['operations.json', 'schemas.json', 'stamp.json', 'types/fixture.ts', 'validators.d.ts', 'validators.js'].sort(),
    );
    for (const f of g.result.files) {
      const text = readFileSync(join(g.outDir, f), 'utf8');
      const head = f.endsWith('.json')
        ? (JSON.parse(text) as { '//': string[] })['//'].join('\n')
        : text.split('\n').slice(0, 3).join('\n');
      expect(head, f).toContain('generated — do not edit');
      expect(head, f).toContain('test/generators/fixture.openapi.yaml');
      expect(head, f).toContain(hash);
      if (f.endsWith('.json')) expect(Object.keys(JSON.parse(text) as object)[0], f).toBe('//');
    }
  });

  test('validators.js exports one validator per response, request body, parameter and component schema', () => {
    const js = readFileSync(join(g.outDir, 'validators.js'), 'utf8');
    expect(js).not.toMatch(/\brequire\(/);
    for (const name of [
      'fixture_schema_Info',
      'fixture_getInfo_200_application_json',
      'fixture_getInfo_200_application_vnd_msgpack',
      'fixture_getInfo_4XX_application_json',
      'fixture_getInfo_default_text_plain',
      'fixture_createOrder_request_application_json',
      'fixture_createOrder_param_header_Idempotency_Key',
      'fixture_getFill_param_path_fillIndex',
    ]) {
      expect(js, name).toContain(`export const ${name} =`);
      expect(g.api.validator(name), name).toBeTypeOf('function');
    }
  });

  test('types/<service>.ts comes from openapi-typescript', () => {
    const ts = readFileSync(join(g.outDir, 'types', 'fixture.ts'), 'utf8');
    expect(ts).toContain('export interface paths');
    expect(ts).toContain('"/api/v1/orders/{orderId}"');
    expect(ts).toContain('CreateOrderRequest');
  });

  test('schemas.json keeps component schemas resolvable and indexes request bodies and parameters', () => {
    const s = g.api.index.schemas.services['fixture'];
    expect(s?.components.schemas['Order']).toBeDefined();
    expect(Object.keys(s?.operations['createOrder']?.requestBody ?? {})).toEqual(['application/json', 'application/vnd.msgpack']);
    expect(Object.keys(s?.operations['listOrders']?.parameters ?? {})).toEqual([
      'query:limit',
      'query:cursor',
      'query:status',
      'header:x-api-key',
    ]);
  });
});

describe('--check and ensureGenerated', () => {
  let work: string;
  let spec: string;
  let out: string;
  beforeAll(() => {
    work = tempDir('check');
    spec = join(work, 'fixture.openapi.yaml');
    out = join(work, 'out');
    copyFileSync(FIXTURE_SPEC, spec);
  });
  afterAll(() => removeDir(work));

  test('--check fails when the output directory is missing', () => {
    const r = runGenerate(['--check', '--specs', `fixture=${spec}`, '--out', out]);
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/stale: .*missing/);
    expect(existsSync(out)).toBe(false);
  });

  test('generate --specs --out writes the directory; --check then passes and writes nothing', () => {
    const g = runGenerate(['--specs', `fixture=${spec}`, '--out', out]);
    expect(g.status, g.out).toBe(0);
    expect(g.out).toMatch(/generated .*: fixture; \d+ operations, \d+ validators in \d+ ms/);
    const before = snapshot(out);
    const c = runGenerate(['--check', '--specs', `fixture=${spec}`, '--out', out]);
    expect(c.status, c.out).toBe(0);
    expect(snapshot(out)).toEqual(before);
  });

  test('--check fails with the spec named when the spec changed, and writes nothing', () => {
    const before = snapshot(out);
    appendFileSync(spec, '\n# edited\n');
    const c = runGenerate(['--check', '--specs', `fixture=${spec}`, '--out', out]);
    expect(c.status).toBe(1);
    expect(c.out).toContain('fixture.openapi.yaml changed (sha256');
    expect(c.out).toContain('npm run generate');
    expect(snapshot(out)).toEqual(before);
  });

  test('ensureGenerated regenerates a stale directory, then finds it fresh and writes nothing', async () => {
    const lines: string[] = [];
    await ensureGenerated({ specs: [{ service: 'fixture', path: spec }], outDir: out, log: (l) => lines.push(l) });
    expect(lines.join('\n')).toMatch(/regenerated .*changed/);
    const c = runGenerate(['--check', '--specs', `fixture=${spec}`, '--out', out]);
    expect(c.status, c.out).toBe(0);
    const before = snapshot(out);
    // No regeneration (its log line) and no file written (the mtimes): what makes it quick, judged without a clock.
    await ensureGenerated({ specs: [{ service: 'fixture', path: spec }], outDir: out, log: (l) => lines.push(l) });
    expect(lines).toHaveLength(1);
    expect(snapshot(out)).toEqual(before);
  });

  test('a missing spec is skipped with a warning and recorded; --check stays fresh while it stays missing', () => {
    const ghost = join(work, 'ghost.openapi.yaml');
    const g = runGenerate(['--specs', `fixture=${spec},ghost=${ghost}`, '--out', out]);
    expect(g.status, g.out).toBe(0);
    expect(g.out).toContain('ghost.openapi.yaml is missing; service ghost skipped');
    const stamp = JSON.parse(readFileSync(join(out, 'stamp.json'), 'utf8')) as { specs: { service: string; sha256: string | null }[] };
    expect(stamp.specs.find((s) => s.service === 'ghost')?.sha256).toBeNull();
    expect(runGenerate(['--check', '--specs', `fixture=${spec},ghost=${ghost}`, '--out', out]).status).toBe(0);
    writeFileSync(ghost, readFileSync(FIXTURE_SPEC));
    const c = runGenerate(['--check', '--specs', `fixture=${spec},ghost=${ghost}`, '--out', out]);
    expect(c.status).toBe(1);
    expect(c.out).toContain('ghost.openapi.yaml appeared');
  });

  test('a spec that does not parse fails generation with the file named', () => {
    const broken = join(work, 'broken.openapi.yaml');
    writeFileSync(broken, 'openapi: 3.1.0\npaths: {\n');
    const g = runGenerate(['--specs', `broken=${broken}`, '--out', join(work, 'out-broken')]);
    expect(g.status).toBe(1);
    expect(g.out).toMatch(/generation failed: .*broken\.openapi\.yaml: YAML does not parse/);
  });
});
