/**
 * The suite's assumptions about what the documents leave open, and what a run learns of them.
 *
 * Two kinds of rule rest on an assumption (CONTRIBUTING.md, rule format):
 * - `basis: assumed`: the rule's *content* is the assumption (a canonical SIWS domain, a catch-up schedule). It fails
 *   the gate only with --strict.
 * - `basis: documented` with `exercise: assumed` and `assumes: [...]`: the document states the behaviour, only the way
 *   to reach it rests on an assumption (the intent template that carries the values, the SIWS form that signs the
 *   user in). It fails the gate as soon as the target confirmed every assumption the rule names *in the same check*:
 *   the check's positive case was accepted (a canonical sign-in onboarded, an intent of the template answered 2xx).
 *   Checks run in separate workers and in any order, so a confirmation counts only in the check that saw it.
 *
 * Some assumptions come in variants: the intent template is one per order type. Such an assumption holds in a check
 * when every variant the check exercised was confirmed there (an oco probe rests on the oco template, not on DCA's).
 * Where the target rejected an assumption (400 VALIDATION_ERROR to the positive case), the check skips with the answer:
 * nothing resting on it fails.
 */

export const ASSUMPTIONS = {
  'siws-form': 'the SIWS canonical form of specs/siws.yaml (CONFORMANCE_SIWS_*): confirmed by a canonical sign-in answered 2xx',
  'intent-template':
    'the POST /orders/intent template of each order type (specs/order-templates.yaml, UNKNOWNS O7): confirmed per type by an intent of that template answered 2xx',
  'inline-onboarding':
    'an intent with onboardIfNeeded carries the wallet as a top-level userPubkey (UNKNOWNS O7): confirmed by such an intent answered 2xx for a never-onboarded user',
  'dca-patch': 'the PATCH /dca/{orderId} bodies (UNKNOWNS O8): confirmed by a PATCH answered 2xx',
  'dca-modify-confirm': 'the POST /dca/{orderId}/modify/confirm body (UNKNOWNS O9): confirmed by a modify confirm answered 2xx',
  'trigger-patch': 'the trigger-order PATCH body {config: {partial}} (UNKNOWNS O10): confirmed by a PATCH answered 2xx',
  'withdrawal-transaction':
    'the unsigned withdrawal transaction under data.transaction (UNKNOWNS O12, CONFORMANCE_WITHDRAWAL_TRANSACTION_FIELD): confirmed by a withdrawal build answered 2xx with a transaction there',
  'order-withdrawal-confirm':
    'the POST /orders/{orderId}/withdraw/confirm body {signedTransaction} (UNKNOWNS O12): confirmed by such a confirm answered 2xx',
} as const;

export type Assumption = keyof typeof ASSUMPTIONS;

export function isAssumption(name: string): name is Assumption {
  return Object.hasOwn(ASSUMPTIONS, name);
}

/** `intent-template:oco`, or the bare name for an assumption without variants. */
export function assumptionLabel(assumption: Assumption, variant = ''): string {
  return variant ? `${assumption}:${variant}` : assumption;
}

/** What one check exercised of the suite's assumptions, and what the target confirmed or rejected of them. */
export class AssumptionLog {
  private readonly exercised = new Map<Assumption, Set<string>>();
  private readonly confirmed = new Map<Assumption, Set<string>>();
  private readonly rejected = new Set<string>();

  private static add(map: Map<Assumption, Set<string>>, assumption: Assumption, variant: string): void {
    const set = map.get(assumption) ?? new Set<string>();
    set.add(variant);
    map.set(assumption, set);
  }

  /** The check sent a request whose meaning rests on `assumption` (of `variant`). */
  exercise(assumption: Assumption, variant = ''): void {
    AssumptionLog.add(this.exercised, assumption, variant);
  }

  /** The target accepted the check's positive case resting on `assumption` (of `variant`). */
  confirm(assumption: Assumption, variant = ''): void {
    AssumptionLog.add(this.exercised, assumption, variant);
    AssumptionLog.add(this.confirmed, assumption, variant);
  }

  reject(assumption: Assumption, variant = ''): void {
    this.rejected.add(assumptionLabel(assumption, variant));
  }

  /** Confirmed in this check: at least one variant, and every variant the check exercised. */
  holds(assumption: Assumption): boolean {
    const confirmed = this.confirmed.get(assumption);
    if (!confirmed || confirmed.size === 0) return false;
    return [...(this.exercised.get(assumption) ?? [])].every((variant) => confirmed.has(variant));
  }

  /** Labels for the report: what the target confirmed and rejected in this check (empty lists left out). */
  summary(): { confirmed?: string[]; rejected?: string[] } {
    const confirmed = [...this.confirmed].flatMap(([a, variants]) => [...variants].map((v) => assumptionLabel(a, v))).sort();
    const rejected = [...this.rejected].sort();
    return { ...(confirmed.length ? { confirmed } : {}), ...(rejected.length ? { rejected } : {}) };
  }
}
