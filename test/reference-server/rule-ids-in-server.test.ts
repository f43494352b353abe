import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { mutants } from '../../fixtures/mutants/index.ts';

/**
 * Server code names the rule id where it implements one (issue 14): every rule a mutant breaks greps to the file of
 * fixtures/server/ that implements it, at the row of a decision table or the line of a handler (`// OA-WDW-011`).
 */

const SERVER = fileURLToPath(new URL('../../fixtures/server/', import.meta.url));

/** Rule ids a mutant breaks that no server file names, each with the reason. Keep it short; today it is empty. */
const NOT_IN_SERVER: Readonly<Record<string, string>> = {};

function serverFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return serverFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('rule ids in the reference server', () => {
  const named = new Set(serverFiles(SERVER).flatMap((file) => readFileSync(file, 'utf8').match(/\b(?:OA|Q)-[A-Z]+-\d{3}\b/g) ?? []));
  const broken = [...new Set(mutants.map((mutant) => mutant.rule))].sort();

  it('names every rule id a mutant breaks in some fixtures/server file', () => {
    expect(broken.filter((rule) => !named.has(rule) && !(rule in NOT_IN_SERVER))).toEqual([]);
  });

  it('keeps the allowlist to rule ids that need it, each with a reason', () => {
    for (const [rule, reason] of Object.entries(NOT_IN_SERVER)) {
      expect(broken, `${rule} is broken by no mutant`).toContain(rule);
      expect(named.has(rule), `${rule} is named in fixtures/server now: drop it from the allowlist`).toBe(false);
      expect(reason.trim(), rule).not.toBe('');
    }
  });

  it('names no rule id the catalogue does not have', () => {
    const catalogue = new Set(
      ['order-automation', 'swap-quote'].flatMap((name) => {
        const file = fileURLToPath(new URL(`../../specs/rules/${name}.yaml`, import.meta.url));
        return (parse(readFileSync(file, 'utf8')) as { rules: { id: string }[] }).rules.map((rule) => rule.id);
      }),
    );
    expect([...named].filter((rule) => !catalogue.has(rule)).sort()).toEqual([]);
  });
});
