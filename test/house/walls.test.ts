/**
 * The walls of the house (DESIGN.md, CONTRIBUTING.md), over the import graph of every module under suites/,
 * fixtures/, generators/, bin/ and test/ (static, re-exported and dynamic imports, parsed by TypeScript):
 * - the suites reach a target only over HTTP: suites/ never imports fixtures/, fixtures/ never imports suites/
 *   (both may import generators/, which makes its output from specs/);
 * - data flows one way: generators/ imports neither suites/, fixtures/, bin/ nor test/; suites/ and fixtures/ never
 *   import bin/; only test/ imports test/; generators/out/ is reached through generators/ only;
 * - checks are leaves: nothing imports a `*.checks.ts` but the registry, suites/index.ts, and the registry of each
 *   service it joins (suites/<service>/registry.ts, which that service's vitest file loads alone);
 * - the harness is below the registry: suites/harness/ never imports a registry.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TOPS = ['suites', 'fixtures', 'generators', 'bin', 'test'];
const REGISTRY = 'suites/index.ts';
/** The registry by service, which suites/index.ts joins: each service's vitest file loads its own (issue 17). */
const REGISTRIES = [REGISTRY, 'suites/orders/registry.ts', 'suites/quotes/registry.ts'];

/**
 * Known breaches, each with the issue that removes it. The test fails on a breach not listed here and on a listed
 * one that is gone (delete its line then).
 * (None today: the vitest reporters that read the registry are the CLI's, under bin/reporters/.)
 */
const KNOWN: readonly string[] = [];

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || path === join(ROOT, 'generators', 'out') ? [] : modules(path);
    return /\.(ts|mts|js|mjs)$/.test(e.name) ? [path] : [];
  });
}

const rel = (path: string): string => relative(ROOT, path).split('\\').join('/');

/** `from -> to` for every relative import of the project's modules (targets as written, `.js` read as `.ts`). */
function importGraph(): Array<{ from: string; to: string }> {
  return TOPS.flatMap((top) => modules(join(ROOT, top))).flatMap((path) => {
    const { importedFiles } = ts.preProcessFile(readFileSync(path, 'utf8'), true, true);
    return importedFiles
      .filter((i) => i.fileName.startsWith('.'))
      .map((i) => ({ from: rel(path), to: rel(resolve(dirname(path), i.fileName)).replace(/\.js$/, '.ts') }));
  });
}

const graph = importGraph();
const under = (path: string, top: string): boolean => path === top || path.startsWith(`${top}/`);

/** The breaches of one wall. */
function breaches(wall: (edge: { from: string; to: string }) => boolean): string[] {
  return [...new Set(graph.filter(wall).map((e) => `${e.from} -> ${e.to}`))].sort();
}

const WALLS: Record<string, (edge: { from: string; to: string }) => boolean> = {
  'suites/ never imports fixtures/': (e) => under(e.from, 'suites') && under(e.to, 'fixtures'),
  'fixtures/ never imports suites/': (e) => under(e.from, 'fixtures') && under(e.to, 'suites'),
  'generators/ imports neither suites/, fixtures/, bin/ nor test/': (e) =>
    under(e.from, 'generators') && ['suites', 'fixtures', 'bin', 'test'].some((top) => under(e.to, top)),
  'suites/ and fixtures/ never import bin/': (e) => (under(e.from, 'suites') || under(e.from, 'fixtures')) && under(e.to, 'bin'),
  'only test/ imports test/': (e) => !under(e.from, 'test') && under(e.to, 'test'),
  'generated code is imported through generators/index.ts and vocabulary.ts, never from generators/out/': (e) =>
    !under(e.from, 'generators') && under(e.to, 'generators/out'),
  'nothing imports a *.checks.ts but a registry (suites/index.ts, suites/<service>/registry.ts)': (e) =>
    /\.checks\.ts$/.test(e.to) && !REGISTRIES.includes(e.from),
  'suites/harness/ never imports a registry': (e) => under(e.from, 'suites/harness') && REGISTRIES.includes(e.to),
};

describe('walls of the import graph', () => {
  test('the graph is read: the registry imports the check files, the suites import generators/', () => {
    expect(graph.filter((e) => REGISTRIES.includes(e.from) && e.to.endsWith('.checks.ts')).length).toBeGreaterThan(20);
    expect(graph.some((e) => under(e.from, 'suites') && under(e.to, 'generators'))).toBe(true);
  });

  for (const [wall, breaks] of Object.entries(WALLS)) {
    test(wall, () => {
      expect(breaches(breaks).filter((b) => !KNOWN.includes(b))).toEqual([]);
    });
  }

  test('every known breach still exists (delete the line of one that is gone)', () => {
    const all = new Set(Object.values(WALLS).flatMap(breaches));
    expect(KNOWN.filter((b) => !all.has(b))).toEqual([]);
  });
});
