import { fileURLToPath } from 'node:url';
import { type CatalogueData, catalogueData, loadGeneratedCatalogue, ruleFiles } from '../../generators/catalogue.ts';
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

export interface Area {
  service: Rule['service'];
  prefix: string;
  area: string;
  description: string;
}

export interface Catalogue {
  rules: Map<string, Rule>;
  areas: Map<string, Area>;
}

export const RULES_DIR = fileURLToPath(new URL('../../specs/rules/', import.meta.url));

let cached: Catalogue | undefined;

/**
 * The rule catalogue of both services, specs/rules/*.yaml: from the generated JSON (generators/out/catalogue.jsonc,
 * checked against the YAML files' sha256 and written again when stale), or parsed from the YAML files of another `dir`.
 */
export function loadCatalogue(dir = RULES_DIR): Catalogue {
  if (cached && dir === RULES_DIR) return cached;
  const data: CatalogueData = dir === RULES_DIR ? loadGeneratedCatalogue() : catalogueData(ruleFiles(dir));
  const catalogue: Catalogue = {
    rules: new Map(data.rules.map((r) => [r.id, r as unknown as Rule])),
    areas: new Map(data.areas as [string, Area][]),
  };
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
