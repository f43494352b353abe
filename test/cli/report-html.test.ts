/**
 * `npm run report:html` (bin/report-html.ts) reads the report folder the run wrote, as the run chose it (--report-dir,
 * CONFORMANCE_REPORT_DIR, the config file's reportDir, else reports), and writes Allure's report as one file that opens
 * from disk: no script or style it would have to fetch. Allure's CLI (Java) takes a few seconds: one generation only.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { reportDirOf } from '../../bin/report-html.ts';
import { ROOT, shell } from './run-cli.ts';

/** Allure's CLI runs on Java: without it the generation is not tried (the test says so in its name). */
const hasJava = spawnSync('java', ['-version']).status === 0;
const tmp = () => mkdtempSync(join(tmpdir(), 'conformance-report-html-'));

test('the report folder is the one the run used: option, then environment, then config file, then reports', () => {
  const dir = tmp();
  writeFileSync(join(dir, 'conformance.config.json'), JSON.stringify({ reportDir: 'from-file' }));
  const config = join(dir, 'conformance.config.json');
  expect(reportDirOf(['--report-dir', '/a', '--config', config], { CONFORMANCE_REPORT_DIR: '/b' })).toBe('/a');
  expect(reportDirOf(['--config', config], { CONFORMANCE_REPORT_DIR: '/b' })).toBe('/b');
  expect(reportDirOf([], { CONFORMANCE_CONFIG: config })).toBe(join(dir, 'from-file'));
  expect(reportDirOf([], {})).toBe(join(process.cwd(), 'reports'));
});

test('a folder without results is one line and exit 2', async () => {
  const dir = tmp();
  const r = await shell(`npm run --silent report:html -- --report-dir ${dir}`);
  expect(r.code).toBe(2);
  expect(r.stderr.trim()).toBe(
    `report:html: no Allure results in ${join(dir, 'allure-results')}: run the suite with --report-dir ${dir} first`,
  );
});

test.skipIf(!hasJava)(
  '--report-dir DIR: DIR/allure-report/index.html, one file that fetches nothing (needs Java)',
  { timeout: 120_000 },
  async () => {
    const dir = tmp();
    mkdirSync(join(dir, 'allure-results'));
    const result = {
      uuid: '00000000-0000-4000-8000-000000000001',
      historyId: 'h1',
      name: 'quote-answers-its-documented-shape [Q-QUOTE-001]',
      fullName: 'quotes > quote-answers-its-documented-shape',
      status: 'failed',
      statusDetails: { message: 'FAIL Q-QUOTE-001' },
      stage: 'finished',
      start: 1,
      stop: 2,
      labels: [],
      steps: [],
      attachments: [],
      parameters: [],
    };
    writeFileSync(join(dir, 'allure-results', `${result.uuid}-result.json`), JSON.stringify(result));
    const r = await shell(`npm run --silent report:html -- --report-dir ${dir}`, { CONFORMANCE_REPORT_DIR: join(ROOT, 'not-this') });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(join(dir, 'allure-report', 'index.html'));
    const html = readFileSync(join(dir, 'allure-report', 'index.html'), 'utf8');
    // The results are inside the page (Allure's single file embeds its data files), and nothing is fetched from elsewhere.
    expect(html).toMatch(/d\('data\/test-cases\/[^']+\.json'/);
    expect([...html.matchAll(/\s(?:src|href)="(?!data:|#)([^"]*)"/g)].map((m) => m[1])).toEqual([]);
  },
);
