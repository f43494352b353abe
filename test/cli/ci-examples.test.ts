/**
 * The CI examples (ci-examples/) parse as YAML and hold what a service team copies: the suite run as the package from
 * the service's own repository (npx at a pinned ref, no clone), the GitHub workflow against the essentials of the
 * workflow syntax (a hand-written schema: @schemastore/github-workflow ships TypeScript types only, no schema JSON), the
 * GitLab job by hand.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { describe, expect, test } from 'vitest';
import { parseDocument } from 'yaml';

const DIR = fileURLToPath(new URL('../../ci-examples/', import.meta.url));

/** The document as data; a YAML error (a `${{ }}` in a flow mapping, a duplicate key) fails here. */
function load(file: string): Record<string, unknown> {
  const doc = parseDocument(readFileSync(DIR + file, 'utf8'), { uniqueKeys: true, strict: true });
  expect(doc.errors.map((e) => e.message)).toEqual([]);
  expect(doc.warnings.map((e) => e.message)).toEqual([]);
  return doc.toJS() as Record<string, unknown>;
}

/** The workflow keys GitHub accepts where the example uses them; a misspelt or misplaced key fails. */
const stringMap = { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] } };
const step = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    if: { type: 'string' },
    uses: { type: 'string', pattern: '^[\\w.-]+/[\\w./-]+@[\\w.-]+$' },
    run: { type: 'string', minLength: 1 },
    with: stringMap,
    env: stringMap,
    shell: { type: 'string' },
    'working-directory': { type: 'string' },
    'continue-on-error': { type: 'boolean' },
    'timeout-minutes': { type: 'number' },
  },
  oneOf: [{ required: ['uses'] }, { required: ['run'] }],
};
const workflowSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['on', 'jobs'],
  properties: {
    name: { type: 'string' },
    on: { type: ['string', 'array', 'object'] },
    permissions: { type: ['string', 'object'] },
    env: stringMap,
    concurrency: { type: ['string', 'object'] },
    jobs: {
      type: 'object',
      minProperties: 1,
      propertyNames: { pattern: '^[_a-zA-Z][\\w-]*$' },
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        required: ['runs-on', 'steps'],
        properties: {
          name: { type: 'string' },
          needs: { type: ['string', 'array'] },
          if: { type: 'string' },
          'runs-on': { type: ['string', 'array', 'object'] },
          'timeout-minutes': { type: 'number' },
          permissions: {
            type: 'object',
            additionalProperties: { enum: ['read', 'write', 'none'] },
          },
          environment: { type: ['string', 'object'] },
          env: stringMap,
          strategy: { type: 'object' },
          steps: { type: 'array', minItems: 1, items: step },
        },
      },
    },
  },
};

describe('ci-examples/github-actions.yml', () => {
  const workflow = load('github-actions.yml');
  const job = (workflow.jobs as Record<string, Record<string, unknown>>).conformance!;
  const steps = job.steps as Record<string, unknown>[];

  test('is a workflow GitHub accepts (the essentials of its syntax)', () => {
    const validate = new Ajv({ allErrors: true, strict: false }).compile(workflowSchema);
    expect(validate(workflow) ? [] : validate.errors).toEqual([]);
    // Every expression is closed and names a context the workflow has.
    const text = readFileSync(`${DIR}github-actions.yml`, 'utf8');
    expect(text.split('${{').length).toBe(text.split('}}').length);
    for (const [, expr] of text.matchAll(/\$\{\{(.*?)\}\}/g)) expect(expr).toMatch(/^\s*(github|vars|secrets|env|steps|runner)\./);
  });

  test('runs on a successful deployment status only, against the URL it published', () => {
    expect(Object.keys(workflow.on as object)).toEqual(['deployment_status']);
    expect(job.if).toBe("github.event.deployment_status.state == 'success'");
    expect((job.env as Record<string, string>).CONFORMANCE_ORDERS_URL).toBe('${{ github.event.deployment_status.environment_url }}');
  });

  test('on Node 22 with the npm cache; the suite run as the package at a pinned ref, no checkout of it', () => {
    const node = steps.find((s) => String(s.uses).startsWith('actions/setup-node@'))!;
    expect(node.with).toMatchObject({ 'node-version': 22 });
    const cache = steps.find((s) => String(s.uses).startsWith('actions/cache@'))!;
    expect(cache.with).toEqual({ path: '~/.npm', key: 'conformance-npm-${{ env.SUITE_REF }}' });
    const env = job.env as Record<string, string>;
    expect(env.SUITE).toMatch(/^github:[\w-]+\/solana-trading-conformance$/);
    expect(env.SUITE_REF).toMatch(/^v\d+\.\d+\.\d+$/);
    expect(steps.some((s) => String(s.uses).startsWith('actions/checkout@'))).toBe(false);
    const run = steps.find((s) => String(s.run).includes('npx'))!;
    expect(run.run).toMatch(/^npx --yes "\$SUITE#\$SUITE_REF" .*--report-dir reports$/);
    expect(run['working-directory']).toBeUndefined();
  });

  test('writes matrix.md to the job summary and shows the JUnit results, whatever the verdict', () => {
    const summary = steps.find((s) => String(s.run).includes('$GITHUB_STEP_SUMMARY'))!;
    expect(summary.run).toMatch(/matrix\.md/);
    const junit = steps.find((s) => String(s.uses).startsWith('mikepenz/action-junit-report@'))!;
    expect((junit.with as Record<string, string>).report_paths).toMatch(/junit\.xml$/);
    expect((job.permissions as Record<string, string>).checks).toBe('write');
    for (const s of [summary, junit]) expect(s.if).toBe('always()');
  });
});

describe('ci-examples/gitlab-ci.yml', () => {
  const pipeline = load('gitlab-ci.yml');
  const job = pipeline.conformance as Record<string, unknown>;

  test('a pipeline GitLab accepts: declared stages, each job in one with a script of commands', () => {
    const stages = pipeline.stages as string[];
    expect(Array.isArray(stages)).toBe(true);
    const jobs = Object.entries(pipeline).filter(([k]) => k !== 'stages' && k !== 'variables' && k !== 'default' && !k.startsWith('.'));
    expect(jobs.length).toBeGreaterThan(0);
    for (const [, j] of jobs as [string, Record<string, unknown>][]) {
      expect(stages).toContain(j.stage);
      expect(Array.isArray(j.script) && (j.script as unknown[]).every((c) => typeof c === 'string' && c.length > 0)).toBe(true);
    }
  });

  test('on Node 22, the npm cache kept under a key, junit published as a report whatever the verdict', () => {
    expect(job.image).toBe('node:22');
    const cache = job.cache as { key: string; paths: string[] };
    expect(typeof cache.key).toBe('string');
    expect(cache.paths).toContain('.npm/');
    expect((job.variables as Record<string, string>).npm_config_cache).toBe('$CI_PROJECT_DIR/.npm');
    const artifacts = job.artifacts as { when: string; reports: { junit: string } };
    expect(artifacts.when).toBe('always');
    expect(artifacts.reports.junit).toMatch(/junit\.xml$/);
  });

  test('the suite run as the package at a pinned ref (no clone of it), its reports where the artifacts are taken', () => {
    const variables = job.variables as Record<string, string>;
    expect(variables.SUITE_REPO).toMatch(/^git\+https:\/\/.+\/solana-trading-conformance\.git$/);
    expect(variables.SUITE_REF).toMatch(/^v\d+\.\d+\.\d+$/);
    expect((job.cache as { key: string }).key).toContain('$SUITE_REF');
    const script = job.script as string[];
    expect(script.some((c) => /git clone|npm ci/.test(c))).toBe(false);
    expect(script).toContain('npx --yes "$SUITE_REPO#$SUITE_REF" --profile readonly --report-dir "$CI_PROJECT_DIR/reports"');
    expect((job.artifacts as { reports: { junit: string } }).reports.junit.startsWith('reports/')).toBe(true);
  });
});
