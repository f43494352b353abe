/**
 * Checks of both services run concurrently up to --max-concurrency, except those that share the target's state, which
 * run alone on the whole target (suites/harness/schedule.ts); --max-concurrency 1 is a strictly sequential run. Judged
 * from when each check ran (`ran` of every result in matrix.json), never from wall time.
 */
import { describe, expect, test } from 'vitest';
import { allChecks, checkGroups } from '../../suites/index.ts';
import type { Check } from '../../suites/harness/check.ts';
import { ControlAdapter } from '../../suites/harness/control.ts';
import type { CheckResult } from '../../suites/harness/runner.ts';
import { guardSharedState, placeOf, runOrder, runsAlone, runsInCompany, segments } from '../../suites/harness/schedule.ts';
import { cli, matrixOf, reportDir } from './run-cli.ts';

/** A few groups of both services, with checks that run alone among and between checks that may overlap. */
const GREP = 'quotes/(info|prices|venues) |orders/(health|request-id|auth) ';

async function run(extra: string[], grep = GREP): Promise<CheckResult[]> {
  const dir = reportDir('conformance-concurrency-');
  const r = await cli(['--seed', '7', '--report-dir', dir, '--grep', grep, ...extra]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return matrixOf(dir).checks;
}

const overlap = (a: CheckResult, b: CheckResult) => a.ran!.from < b.ran!.to && b.ran!.from < a.ran!.to;

/** Pairs of checks (of either service: one process, one target) that ran at the same time. */
function overlapping(results: CheckResult[]): Array<[string, string]> {
  const ran = results.filter((r) => r.ran);
  return ran.flatMap((a, i) =>
    ran
      .slice(i + 1)
      .filter((b) => overlap(a, b))
      .map((b): [string, string] => [a.check, b.check]),
  );
}

/** The most checks that ran at one moment. */
function peak(results: CheckResult[]): number {
  const ran = results.filter((r) => r.ran);
  return Math.max(...ran.map((a) => ran.filter((b) => b.ran!.from <= a.ran!.from && a.ran!.from < b.ran!.to).length));
}

const byName = new Map(allChecks.map((c) => [c.name, c]));
const verdicts = (results: CheckResult[]) => Object.fromEntries(results.map((r) => [r.check, r.verdict]));

describe('which checks run alone', () => {
  test('checks of shared capabilities and of the metering and reporting areas run alone; others may overlap', () => {
    for (const check of allChecks) {
      const shared = (check.needs ?? []).some((c) => ['clock', 'prices', 'faults', 'rate-limits'].includes(c));
      const counting = check.rules.some((id) => id.startsWith('Q-RATE-') || id.startsWith('OA-REP-'));
      const company =
        check.ownMarket === true && !check.alone && !counting && !(check.needs ?? []).some((c) => ['faults', 'rate-limits'].includes(c));
      expect(placeOf(check), check.name).toBe(!(shared || counting || check.alone) ? 'overlap' : company ? 'company' : 'alone');
    }
    expect(allChecks.filter((c) => runsInCompany(c)).length).toBeGreaterThan(0);
    expect(allChecks.filter((c) => runsAlone(c)).length).toBeGreaterThan(0);
    expect(allChecks.filter((c) => !runsAlone(c)).length).toBeGreaterThan(0);
  });

  test('segments keep the declaration order and hold a check that runs alone by itself', () => {
    for (const checks of Object.values(checkGroups)) {
      const cut = segments(checks);
      expect(cut.flatMap((s) => s.checks)).toEqual(checks);
      for (const s of cut) {
        if (s.place === 'alone') expect(s.checks).toHaveLength(1);
        for (const c of s.checks) expect(placeOf(c)).toBe(s.place);
      }
    }
  });

  test("the run's checks that may overlap start first, both services' together, then the company's, then each that runs alone, in declaration order", () => {
    const groups = Object.entries(checkGroups);
    const declared = groups.flatMap(([, checks]) => checks);
    const order = runOrder(groups, false);
    const firstCompany = order.findIndex((c) => runsInCompany(c));
    const firstAlone = order.findIndex((c) => runsAlone(c));
    expect(firstCompany).toBeGreaterThan(0);
    expect(firstAlone).toBeGreaterThan(firstCompany);
    expect(order.slice(0, firstCompany)).toEqual(declared.filter((c) => placeOf(c) === 'overlap'));
    expect(order.slice(firstCompany, firstAlone)).toEqual(declared.filter((c) => runsInCompany(c)));
    expect(order.slice(firstAlone)).toEqual(declared.filter((c) => runsAlone(c)));
    // Sequential (--max-concurrency 1): the declaration order.
    expect(runOrder(groups, true)).toEqual(declared);
  });

  test('a check that may overlap others is stopped before it changes the clock, prices, pools or faults', async () => {
    const check: Check = { name: 'x', service: 'orders', rules: ['OA-ENV-003'], profile: 'smoke', run: async () => {} };
    const control = new ControlAdapter('http://127.0.0.1:9', ['clock', 'prices', 'faults'], 1000);
    guardSharedState(control, check);
    await expect(control.advanceClock(60)).rejects.toThrow(/runs? alone|alone: true/);
    await expect(control.setFaults({ rpc: 'down' })).rejects.toThrow(/alone: true/);
    await expect(control.setPrice('So11111111111111111111111111111111111111112', '1')).rejects.toThrow(/alone: true/);
    const marked = new ControlAdapter('http://127.0.0.1:9', ['clock'], 1000);
    guardSharedState(marked, { ...check, alone: true });
    expect(marked.advanceClock).toBe(ControlAdapter.prototype.advanceClock);
  });
});

describe('checks at once, against the embedded server', () => {
  test('by default checks overlap, of both services, at most --max-concurrency (8) at once, and one that runs alone overlaps none', async () => {
    const results = await run([]);
    const pairs = overlapping(results);
    for (const service of ['orders', 'quotes'])
      expect(
        pairs.some(([a, b]) => byName.get(a)?.service === service && byName.get(b)?.service === service),
        service,
      ).toBe(true);
    // The quote checks run beside the order checks, in one process.
    expect(pairs.some(([a, b]) => byName.get(a)?.service !== byName.get(b)?.service)).toBe(true);
    expect(peak(results)).toBeLessThanOrEqual(8);
    const alone = results.filter((r) => runsAlone(byName.get(r.check)!) && r.ran);
    expect(alone.length).toBeGreaterThanOrEqual(2);
    for (const r of alone)
      expect(
        pairs.filter((p) => p.includes(r.check)),
        r.check,
      ).toEqual([]);

    const sequential = await run(['--max-concurrency', '1']);
    expect(overlapping(sequential)).toEqual([]);
    expect(peak(sequential)).toBe(1);
    // One at a time, in declaration order (the order checks', then the quote checks').
    const ran = sequential.filter((r) => r.ran).sort((a, b) => a.ran!.from - b.ran!.from);
    const declared = (['orders', 'quotes'] as const).flatMap((service) =>
      allChecks.filter((c) => c.service === service && ran.some((r) => r.check === c.name)).map((c) => c.name),
    );
    expect(ran.map((r) => r.check)).toEqual(declared);
    expect(verdicts(sequential)).toEqual(verdicts(results));
  });

  test("the company's checks (trigger checks in markets of their own) run beside each other, beside no other check, and pass", async () => {
    const results = await run([], 'orders/(trigger-fills|health) ');
    const pairs = overlapping(results);
    const members = results.filter((r) => runsInCompany(byName.get(r.check)!) && r.ran);
    expect(members.length).toBeGreaterThanOrEqual(3);
    for (const r of members) {
      expect(r.verdict, r.check).toBe('pass');
      const beside = pairs.flatMap(([a, b]) => (a === r.check ? [b] : b === r.check ? [a] : []));
      for (const other of beside) expect(runsInCompany(byName.get(other)!), `${r.check} beside ${other}`).toBe(true);
    }
    expect(pairs.some(([a, b]) => runsInCompany(byName.get(a)!) && runsInCompany(byName.get(b)!))).toBe(true);
  });
});
