/**
 * The registry (suites/index.ts) and the check files: every check a `*.checks.ts` exports, alone or in an array, is
 * registered exactly once, nothing else is, and each names its own file. That only the registry imports a check file
 * is a wall of test/house/walls.test.ts.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import type { Check } from '../../suites/harness/check.ts';
import { allChecks, checkGroups } from '../../suites/index.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SUITES = join(ROOT, 'suites');

const checkFiles = readdirSync(SUITES, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.checks.ts'))
  .map((file) => join(SUITES, file));

const isCheck = (v: unknown): v is Check => typeof v === 'object' && v !== null && 'run' in v && 'rules' in v;

/** Each check file's exported checks, single or in arrays. */
async function exportedChecks(): Promise<Map<string, Check[]>> {
  const byFile = new Map<string, Check[]>();
  for (const file of checkFiles) {
    const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    byFile.set(
      relative(ROOT, file),
      Object.values(module)
        .flatMap((v) => (Array.isArray(v) ? v : [v]))
        .filter(isCheck),
    );
  }
  return byFile;
}

describe('the check registry', () => {
  test('holds every exported check of every *.checks.ts exactly once, and nothing else', async () => {
    const byFile = await exportedChecks();
    const registered = new Map<Check, number>();
    for (const check of allChecks) registered.set(check, (registered.get(check) ?? 0) + 1);
    const exported = new Set([...byFile.values()].flat());
    const problems = [
      ...[...byFile].flatMap(([file, checks]) =>
        checks.filter((c) => registered.get(c) !== 1).map((c) => `${file}: ${c.name} registered ${registered.get(c) ?? 0} times`),
      ),
      ...allChecks.filter((c) => !exported.has(c)).map((c) => `${c.name} is registered but exported by no *.checks.ts`),
      ...[...byFile].filter(([, checks]) => checks.length === 0).map(([file]) => `${file} exports no check`),
    ];
    expect(problems).toEqual([]);
    expect(Object.values(checkGroups).flat()).toEqual(allChecks);
  });

  test('each check names the file that defines it', async () => {
    const byFile = await exportedChecks();
    const wrong = [...byFile].flatMap(([file, checks]) =>
      checks.filter((c) => !c.source?.startsWith(`${file}:`)).map((c) => `${c.name}: ${c.source ?? '(none)'}, exported by ${file}`),
    );
    expect(wrong).toEqual([]);
  });
});
