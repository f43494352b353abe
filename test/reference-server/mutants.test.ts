import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { areaOf, hookPointsOf, MUTANT_FILES, mutants, variants } from '../../fixtures/mutants/index.ts';
import { startReferenceServer } from '../../fixtures/server/index.ts';
import { PROBE_FILES, PROBES } from './probes/index.ts';
import { Target } from './support.ts';

/**
 * Each mutant changes behaviour: one probe per mutant (probes/, cut like fixtures/mutants/ by rule area), run against
 * the faithful server and against the mutant; the two observations differ. The probes observe only what the
 * mutant's rule is about.
 */

describe('mutant catalogue', () => {
  const rules = new Set<string>();
  const areas = new Set<string>();
  for (const [prefix, file] of [
    ['Q', 'specs/rules/swap-quote.yaml'],
    ['OA', 'specs/rules/order-automation.yaml'],
  ] as const) {
    const catalogue = parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')) as {
      areas: Record<string, string>;
      rules: { id: string }[];
    };
    for (const rule of catalogue.rules) rules.add(rule.id);
    for (const area of Object.keys(catalogue.areas)) areas.add(`${prefix}-${area}`);
  }

  it('names are unique kebab-case, descriptions one line, every rule id in the rule catalogue', () => {
    const names = [...mutants.map((m) => m.name), ...variants.map((v) => v.name)];
    expect(new Set(names).size).toBe(names.length);
    for (const m of mutants) {
      expect(m.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(rules.has(m.rule), `${m.name} cites ${m.rule}`).toBe(true);
      expect(m.description).not.toMatch(/\n/);
    }
  });

  it("cuts the mutant files by the rule areas of the catalogue: each area in one file, each mutant in its area's file", () => {
    const listed = MUTANT_FILES.flatMap((f) => f.areas);
    expect(
      listed.filter((area) => !areas.has(area)),
      'areas not in specs/rules',
    ).toEqual([]);
    expect(new Set(listed).size, 'an area listed by two files').toBe(listed.length);
    for (const f of MUTANT_FILES) {
      expect(existsSync(new URL(`../../fixtures/mutants/${f.file}`, import.meta.url)), f.file).toBe(true);
      for (const m of f.mutants) expect(f.areas, `${m.name} (${m.rule}) in ${f.file}`).toContain(areaOf(m.rule));
    }
  });

  it('keeps the probes of each mutant file in the probe file of the same name', () => {
    expect(PROBE_FILES.map((f) => f.file)).toEqual(MUTANT_FILES.map((f) => f.file));
    for (const [i, f] of PROBE_FILES.entries()) {
      expect(Object.keys(f.probes).sort(), f.file).toEqual(MUTANT_FILES[i]!.mutants.map((m) => m.name).sort());
    }
  });

  it('applies each mutant at exactly one named hook point', () => {
    for (const m of mutants) expect(hookPointsOf(m.hooks), m.name).toHaveLength(1);
  });

  it('covers the rules of this slice', () => {
    const covered = new Set<string>(mutants.map((m) => m.rule));
    const slice = [
      'OA-HEALTH-001',
      'OA-HEALTH-002',
      'OA-HEALTH-003',
      'OA-HEALTH-004',
      'OA-HEALTH-005',
      'OA-AUTH-001',
      'OA-AUTH-002',
      'OA-AUTH-003',
      'OA-AUTH-004',
      'OA-AUTH-007',
      'OA-AUTH-008',
      'OA-AUTH-009',
      'OA-AUTH-010',
      'OA-AUTH-011',
      'OA-ENV-001',
      'OA-ENV-002',
      'OA-REQID-001',
      'OA-REQID-002',
      'Q-AUTH-001',
      'Q-AUTH-002',
      'Q-AUTH-003',
      'Q-EDGE-001',
      'Q-EDGE-002',
      'Q-EDGE-003',
      'Q-EDGE-004',
      'Q-DBG-001',
      'Q-ENC-001',
      'Q-ENC-002',
      'Q-ENC-003',
      'Q-ENC-004',
      ...Array.from({ length: 11 }, (_, i) => `Q-INFO-${String(i + 1).padStart(3, '0')}`),
      'Q-VEN-001',
      'Q-VEN-002',
      'Q-VEN-004',
      'Q-VEN-005',
      'Q-PROV-001',
      'Q-PROV-002',
      'Q-PROV-003',
      'Q-PROV-004',
      // GET /api/v1/quote/swap and the distributor path
      'Q-QUOTE-001',
      'Q-QUOTE-002',
      'Q-QUOTE-003',
      'Q-QUOTE-004',
      'Q-QUOTE-005',
      'Q-META-002',
      'Q-META-003',
      'Q-META-005',
      'Q-META-007',
      'Q-META-008',
      'Q-BOUNDS-001',
      'Q-BOUNDS-002',
      'Q-ERR-002',
      'Q-ERR-003',
      'Q-ERR-005',
      'Q-ERR-006',
      'Q-ERR-007',
      'Q-PARAM-004',
      'Q-PARAM-005',
      'Q-PARAM-007',
      'Q-PARAM-009',
      'Q-PARAM-010',
      'Q-PARAM-011',
      'Q-PARAM-014',
      'Q-PARAM-016',
      'Q-PARAM-018',
      'Q-PARAM-020',
      'Q-PARAM-022',
      'Q-PARAM-023',
      'Q-PARAM-025',
      'Q-PARAM-026',
      'Q-PARAM-027',
      'Q-PARAM-028',
      'Q-PARAM-029',
      'Q-PARAM-032',
      'Q-PARAM-033',
      'Q-PARAM-038',
      'Q-PARAM-042',
      'Q-ROUTE-002',
      'Q-ROUTE-006',
      'Q-ROUTE-008',
      'Q-ROUTE-013',
      'Q-ROUTE-015',
      'Q-ENC-005',
      'Q-DIST-003',
      'Q-DIST-004',
      'Q-DIST-005',
      'Q-DIST-006',
      'Q-RATE-002',
      // users: auth rows, onboarding and its states, GET /me
      'OA-AUTH-005',
      'OA-AUTH-006',
      'OA-AUTH-013',
      'OA-AUTH-015',
      ...Array.from({ length: 19 }, (_, i) => `OA-ONB-${String(i + 1).padStart(3, '0')}`).filter((rule) => rule !== 'OA-ONB-016'),
      'OA-ME-001',
      'OA-ME-002',
      'OA-ME-003',
      // X-Idempotency-Key on intent and confirm; balance rows and locks
      ...Array.from({ length: 13 }, (_, i) => `OA-IDEM-${String(i + 1).padStart(3, '0')}`),
      'OA-BAL-001',
      'OA-BAL-003',
      'OA-BAL-007',
      'OA-BAL-008',
      'OA-BAL-009',
      'OA-BAL-010',
      'OA-BAL-011',
      'OA-BAL-014',
      'OA-BAL-016',
      'OA-BAL-017',
      'OA-BAL-018',
      'OA-BAL-019',
      'OA-FMT-001',
    ];
    expect(slice.filter((rule) => !covered.has(rule))).toEqual([]);
  });

  it('has a probe for every mutant and none for a mutant that does not exist', () => {
    expect(Object.keys(PROBES).sort()).toEqual(mutants.map((m) => m.name).sort());
  });

  it('rejects unknown mutant and variant names, listing the valid ones', async () => {
    await expect(startReferenceServer({ mutant: 'no-such-mutant' })).rejects.toThrow(/valid mutants: .*health-requires-key/);
    await expect(startReferenceServer({ variant: 'no-such-variant' })).rejects.toThrow(/valid variants: .*extra-fields/);
  });
});

describe('each mutant changes behaviour', () => {
  let faithful: Target;
  beforeAll(async () => {
    faithful = await Target.start();
  });
  afterAll(() => faithful.close());

  it.each(mutants.map((m) => [m.name, m.rule] as const))('%s (%s)', async (name) => {
    const probe = PROBES[name];
    if (!probe) throw new Error(`no probe for ${name}`);
    const mutated = await Target.start({ mutant: name });
    try {
      expect(mutated.server.mutant).toBe(name);
      const expected = await probe(faithful);
      const received = await probe(mutated);
      expect(received).not.toEqual(expected);
    } finally {
      await mutated.close();
    }
  });
});
