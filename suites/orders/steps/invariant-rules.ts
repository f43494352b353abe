import type { RuleId } from '../../../generators/vocabulary.ts';

/**
 * The rules `expectOrderInvariants` (suites/orders/order-invariants.ts) judges, by what the read lets it judge; a check
 * that reads its orders through it spreads the matching list in its `rules` (t.expect refuses a rule the check does not
 * cite). A grep for one of these ids finds this file; reports/rules.md names, under each rule, the checks that cite it
 * `via` a constant, and lists the expansion under each check that spreads it ("Checks that spread a rule-list constant").
 */

/** On every read, whoever reads it and whether or not the owner is known (a partner's passive read of the tenant). */
export const ORDER_READ_RULES = [
  'OA-SHAPE-002',
  'OA-SHAPE-003',
  'OA-SHAPE-008',
  'OA-SHAPE-009',
  'OA-FMT-001',
  'OA-FMT-002',
  'OA-FMT-003',
  'OA-FMT-004',
  'OA-FMT-005',
  'OA-FMT-006',
  'OA-STATE-001',
  'OA-STATE-003',
  'OA-STATE-004',
  'OA-STATE-005',
  'OA-STATE-006',
  'OA-STATE-007',
  'OA-STATE-009',
  'OA-STATE-010',
  'OA-STATE-011',
  'OA-OWD-008',
  'OA-OWD-009',
  'OA-DCA-002',
] as const satisfies readonly RuleId[];

/** With a known owner and creation: `/partners/me/*` reads of the partner's own orders (no tenant fields there). */
export const PARTNER_ORDER_RULES = [
  'OA-SHAPE-005',
  'OA-SHAPE-006',
  'OA-SHAPE-007',
  ...ORDER_READ_RULES,
] as const satisfies readonly RuleId[];

/** User-scoped reads (tenantId and originatingPartner present), with a known owner and creation. */
export const USER_ORDER_RULES = [...PARTNER_ORDER_RULES, 'OA-SHAPE-004'] as const satisfies readonly RuleId[];
