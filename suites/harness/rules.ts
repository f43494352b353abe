import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { Assumption } from './assumptions.ts';
import type { Basis, Capability, Level } from './types.ts';

export interface Rule {
  id: string;
  service: 'order-automation' | 'swap-quote';
  area: string;
  statement: string;
  source: string;
  level: Level;
  basis: Basis;
  observe: 'any' | 'capability' | 'opportunistic';
  capabilities: Capability[];
  unknown?: string;
  /**
   * `assumed`: the rule's content is documented (`basis: documented`) but the way to exercise it rests on the suite's
   * assumptions named by `assumes` (assumptions.ts); absent: nothing of the exercise is assumed.
   */
  exercise?: 'assumed';
  assumes?: Assumption[];
  /**
   * The rule states the same fact as these rules together, and is checked and proven through them: it is covered
   * when they are, and takes their verdict. Such a rule is cited by no check and named by no mutant.
   */
  coveredBy?: string[];
}

/** The ids whose checks decide `rule`: its own, or those of the rules it is covered by. */
export function decidingIds(rule: Rule): string[] {
  return rule.coveredBy ?? [rule.id];
}

export interface Catalogue {
  rules: Map<string, Rule>;
  areas: Map<string, { service: Rule['service']; prefix: string; area: string; description: string }>;
}

export const RULES_DIR = fileURLToPath(new URL('../../specs/rules/', import.meta.url));

let cached: Catalogue | undefined;

/** The rule catalogue of both services, read from specs/rules/*.yaml. */
export function loadCatalogue(dir = RULES_DIR): Catalogue {
  if (cached && dir === RULES_DIR) return cached;
  const rules = new Map<string, Rule>();
  const areas: Catalogue['areas'] = new Map();
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()) {
    const doc = parse(readFileSync(`${dir}/${file}`, 'utf8')) as {
      service: Rule['service'];
      areas: Record<string, string>;
      rules: Omit<Rule, 'service'>[];
    };
    const prefix = doc.service === 'order-automation' ? 'OA' : 'Q';
    for (const [area, description] of Object.entries(doc.areas ?? {})) {
      areas.set(`${prefix}-${area}`, { service: doc.service, prefix, area, description });
    }
    for (const r of doc.rules ?? []) {
      if (rules.has(r.id)) throw new Error(`duplicate rule id ${r.id} in ${file}`);
      rules.set(r.id, { ...r, capabilities: r.capabilities ?? [], service: doc.service });
    }
  }
  const catalogue = { rules, areas };
  if (dir === RULES_DIR) cached = catalogue;
  return catalogue;
}

/**
 * Does a failure of this rule fail the gate? Only `must` rules: a documented one, once the check that failed it saw the
 * target confirm every assumption its exercise rests on (`holds`, assumptions.ts); an `assumed` one only with --strict
 * (and with --strict every `must` rule gates).
 */
export function isGating(rule: Rule, strict: boolean, holds: (assumption: Assumption) => boolean = () => false): boolean {
  if (rule.level !== 'must') return false;
  if (strict) return true;
  return rule.basis === 'documented' && (rule.assumes ?? []).every(holds);
}
