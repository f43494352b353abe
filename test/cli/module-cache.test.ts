/**
 * Where the CLI keeps vitest's transformed modules between runs (bin/conformance.ts moduleCacheDir, issue 17): beside
 * the package in a node_modules folder by default, where CONFORMANCE_CACHE_DIR says, nowhere with `off` or when the
 * folder cannot be written.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { moduleCacheDir } from '../../bin/conformance.ts';

const scratch = () => mkdtempSync(join(tmpdir(), 'module-cache-'));

test('a clone keeps it in its own node_modules, an installed package in the node_modules it is installed in', () => {
  const clone = scratch();
  expect(moduleCacheDir({}, clone)).toBe(join(clone, 'node_modules/.cache/solana-trading-conformance/modules'));
  const project = scratch();
  const installed = join(project, 'node_modules', 'solana-trading-conformance');
  const dir = moduleCacheDir({}, installed);
  expect(dir).toBe(join(project, 'node_modules/.cache/solana-trading-conformance/modules'));
  expect(existsSync(dir!)).toBe(true);
});

test('CONFORMANCE_CACHE_DIR names the folder; `off`, or a folder that cannot be made, means no cache', () => {
  const asked = join(scratch(), 'elsewhere');
  // A folder of its own inside: vitest empties it when the lockfile changes.
  expect(moduleCacheDir({ CONFORMANCE_CACHE_DIR: asked }, scratch())).toBe(join(asked, 'modules'));
  expect(moduleCacheDir({ CONFORMANCE_CACHE_DIR: 'off' }, scratch())).toBeUndefined();
  const file = join(scratch(), 'a-file');
  writeFileSync(file, '');
  expect(moduleCacheDir({ CONFORMANCE_CACHE_DIR: join(file, 'cache') }, scratch())).toBeUndefined();
});

test('a folder others may write in is not used: the run would execute what they put there', () => {
  const shared = scratch();
  mkdirSync(join(shared, 'modules'));
  chmodSync(join(shared, 'modules'), 0o777);
  expect(moduleCacheDir({ CONFORMANCE_CACHE_DIR: shared }, scratch())).toBeUndefined();
});
