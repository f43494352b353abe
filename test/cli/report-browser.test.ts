/**
 * matrix.html as users see it: opened in a real browser (headless Chromium from the system's packages, e.g. Debian's
 * `chromium`), the DOM after its script ran shows the failures first, an anchor per rule id, the rule's source beside
 * its statement, the suite's version in the header, check verdicts that agree with their rule's, and a search that
 * filters the rules (given in the URL, `matrix.html?q=…`, as a user may bookmark it). Without Chromium the test skips,
 * saying so.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test } from 'vitest';
import type { Exchange } from '../../suites/harness/exchange.ts';
import { ConformanceFailure } from '../../suites/harness/failure.ts';
import { buildMatrix, writeMatrix } from '../../suites/harness/matrix.ts';
import type { CheckResult } from '../../suites/harness/runner.ts';
import { allChecks } from '../../suites/index.ts';
import { failed, MUTANT_RUN } from './failed-result.ts';

/** The Chromium to use: CHROMIUM_PATH, else the first of the usual names on PATH. */
function findChromium(): string | undefined {
  const candidates = process.env.CHROMIUM_PATH
    ? [process.env.CHROMIUM_PATH]
    : ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'].flatMap((name) =>
        (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, name)),
      );
  return candidates.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The DOM of `url` after its scripts ran, serialised by the browser. */
function dumpDom(chromium: string, url: string): Promise<string> {
  const profile = mkdtempSync(join(tmpdir(), 'conformance-chromium-'));
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', `--user-data-dir=${profile}`, '--dump-dom', url];
  return new Promise((resolve, reject) =>
    execFile(chromium, args, { timeout: 90_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${chromium} failed: ${error.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

const passed = (check: string, rules: CheckResult['rules']): CheckResult => ({
  check,
  service: 'quotes',
  rules,
  verdict: 'pass',
  gating: false,
  notes: [],
  requests: 1,
  waitMs: 0,
  durationMs: 1,
});

/** A matrix.html of a run where /api/v1/info broke Q-INFO-003: one check asserted it, another met it on the way. */
function writeReport(): string {
  const info: Exchange = {
    service: 'quotes',
    request: { method: 'GET', url: 'http://127.0.0.1:9/api/v1/info', headers: { accept: 'application/json' } },
    response: { status: 200, headers: {}, mediaType: 'application/json', body: {}, raw: Buffer.alloc(0) },
    durationMs: 1,
    attempts: 1,
  };
  const results = [
    passed('a-passing-check', ['Q-INFO-005']),
    failed('a-check-on-the-way', ['Q-INFO-004'], new ConformanceFailure('Q-INFO-003', { documented: 'x', exchange: info })),
    failed('the-info-check', ['Q-INFO-003'], new ConformanceFailure('Q-INFO-003', { documented: 'x', exchange: info })),
  ];
  const dir = mkdtempSync(join(tmpdir(), 'conformance-html-'));
  writeMatrix(dir, buildMatrix(results, allChecks, MUTANT_RUN, '9.9.9', { commit: 'abc1234' }));
  return join(dir, 'matrix.html');
}

/** The rule rows of a dumped DOM, in page order: id, verdict, hidden, check badges, text. */
function ruleRows(dom: string) {
  const body = /<table id="rules">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(dom)![1]!;
  return [...body.matchAll(/<tr ([^>]*)>([\s\S]*?)<\/tr>/g)].map(([, attrs, cells]) => ({
    id: /id="([^"]+)"/.exec(attrs!)?.[1],
    verdict: /class="v-([a-z-]+)"/.exec(attrs!)?.[1],
    hidden: /\bhidden\b/.test(attrs!),
    checkBadges: [...cells!.matchAll(/<div class="c">[^:]*: <span class="b"[^>]*>([^<]*)<\/span>/g)].map((m) => m[1]!),
    cells: cells!,
  }));
}

test('matrix.html in headless Chromium: failures first, anchors, sources, search, verdicts that agree', {
  timeout: 180_000,
}, async (ctx) => {
  const chromium = findChromium();
  if (!chromium) {
    const reason =
      'no Chromium found (set CHROMIUM_PATH, or install it: apt-get install -y chromium); matrix.html was not opened in a browser';
    console.warn(`[report-browser.test.ts] skipped: ${reason}`);
    ctx.skip(reason);
    return;
  }
  const file = writeReport();
  const url = pathToFileURL(file).href;
  const dom = await dumpDom(chromium, url);
  // The header names the suite's version and commit; the failures come before the run's details and the rules.
  expect(dom).toContain('Suite: solana-trading-conformance 9.9.9 (commit abc1234)');
  const roots = dom.indexOf('<h2 id="failures">');
  expect(roots).toBeGreaterThan(-1);
  expect(roots).toBeLessThan(dom.indexOf('<th>Orders URL</th>'));
  expect(dom).toContain('1 check could not go further because of it: a-check-on-the-way');
  const rows = ruleRows(dom);
  expect(rows.length).toBeGreaterThan(500);
  expect(rows[0]).toMatchObject({ id: 'Q-INFO-003', verdict: 'fail', hidden: false });
  const firstOther = rows.findIndex((r) => r.verdict !== 'fail');
  expect(rows.slice(firstOther).every((r) => r.verdict !== 'fail')).toBe(true);
  // An anchor per rule id, and its source section beside the statement.
  for (const r of rows) expect(r.cells).toContain(`<a href="#${r.id}">`);
  expect(rows.filter((r) => r.cells.includes('<div class="src">Source: ')).length).toBeGreaterThan(500);
  // Each check's verdict as its rule's row shows it agrees with the rule's verdict.
  for (const r of rows) {
    if (r.checkBadges.length === 0) continue;
    expect(
      r.checkBadges.some((b) => b.startsWith('fail')),
      `${r.id}: ${r.checkBadges.join(', ')}`,
    ).toBe(r.verdict === 'fail');
    if (r.verdict === 'pass') expect(r.checkBadges.some((b) => b.startsWith('pass'))).toBe(true);
  }
  expect(rows.find((r) => r.id === 'Q-INFO-004')).toMatchObject({ verdict: 'pass', checkBadges: ['pass (failed Q-INFO-003)'] });
  expect(rows.find((r) => r.id === 'Q-INFO-003')?.checkBadges).toEqual(['fail']);
  // The search keeps the rows whose text matches, and says how many.
  const searched = await dumpDom(chromium, `${url}?q=${encodeURIComponent('a-passing-check')}`);
  const shown = ruleRows(searched).filter((r) => !r.hidden);
  expect(shown.map((r) => r.id)).toEqual(['Q-INFO-005']);
  expect(searched).toContain('<span id="n">1 shown</span>');
  const byVerdict = ruleRows(await dumpDom(chromium, `${url}?verdict=fail`)).filter((r) => !r.hidden);
  expect(byVerdict.map((r) => r.id)).toEqual(['Q-INFO-003']);
  // The page loads nothing: no external script, stylesheet or image.
  expect(readFileSync(file, 'utf8')).not.toMatch(/<(script|link|img)[^>]+(src|href)=["']?https?:/);
});
