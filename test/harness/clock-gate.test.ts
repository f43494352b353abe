/**
 * The run's clock gate (suites/harness/clock-gate.ts): a company member's windows and advances of the clock never
 * overlap; each kind waits for the other in the order they asked. Driven by promises the test settles, no timers.
 */
import { describe, expect, test } from 'vitest';
import { ClockGate } from '../../suites/harness/clock-gate.ts';

/** A span that lasts until the test ends it; `entered` says whether it began. */
function span() {
  let end!: () => void;
  const over = new Promise<void>((resolve) => (end = resolve));
  const s = {
    entered: false,
    end,
    body: async () => {
      s.entered = true;
      await over;
    },
  };
  return s;
}

/** Let every promise callback that can run, run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('ClockGate', () => {
  test('windows share the gate; an advance waits until every open window has ended', async () => {
    const gate = new ClockGate();
    const [w1, w2, adv] = [span(), span(), span()];
    const done = [gate.window(w1.body), gate.window(w2.body)];
    const advanced = gate.advance(adv.body);
    await settle();
    expect([w1.entered, w2.entered, adv.entered]).toEqual([true, true, false]);
    w1.end();
    await settle();
    expect(adv.entered).toBe(false);
    w2.end();
    await settle();
    expect(adv.entered).toBe(true);
    expect(gate.underWay).toEqual({ kind: 'advance', count: 1 });
    adv.end();
    await Promise.all([...done, advanced]);
    expect(gate.underWay).toEqual({ kind: undefined, count: 0 });
  });

  test('first come, first served: a window asked after a waiting advance waits for it (no starvation either way)', async () => {
    const gate = new ClockGate();
    const [w1, adv, w2, adv2] = [span(), span(), span(), span()];
    const all = [gate.window(w1.body), gate.advance(adv.body), gate.window(w2.body), gate.advance(adv2.body)];
    await settle();
    expect([w1.entered, adv.entered, w2.entered, adv2.entered]).toEqual([true, false, false, false]);
    w1.end();
    await settle();
    expect([adv.entered, w2.entered]).toEqual([true, false]);
    adv.end();
    await settle();
    expect([w2.entered, adv2.entered]).toEqual([true, false]);
    w2.end();
    await settle();
    expect(adv2.entered).toBe(true);
    adv2.end();
    await Promise.all(all);
  });

  test('advances share the gate with advances; the next batch is every waiter of one kind up to the other kind', async () => {
    const gate = new ClockGate();
    const [w, a1, a2, w2, w3] = [span(), span(), span(), span(), span()];
    const all = [gate.window(w.body), gate.advance(a1.body), gate.advance(a2.body), gate.window(w2.body), gate.window(w3.body)];
    await settle();
    w.end();
    await settle();
    expect([a1.entered, a2.entered, w2.entered]).toEqual([true, true, false]);
    expect(gate.underWay).toEqual({ kind: 'advance', count: 2 });
    a1.end();
    await settle();
    expect(w2.entered).toBe(false);
    a2.end();
    await settle();
    expect([w2.entered, w3.entered]).toEqual([true, true]);
    w2.end();
    w3.end();
    await Promise.all(all);
  });

  test('a span that throws leaves the gate; its error reaches the caller', async () => {
    const gate = new ClockGate();
    await expect(gate.window(async () => Promise.reject(new Error('confirm failed')))).rejects.toThrow('confirm failed');
    await expect(gate.advance(async () => 'moved')).resolves.toBe('moved');
    expect(gate.underWay.count).toBe(0);
  });

  test('a window inside a window is the same window; an advance inside one is a suite error, not a deadlock', async () => {
    const gate = new ClockGate();
    const inner = await gate.window(async () => await gate.window(async () => gate.underWay.count));
    expect(inner).toBe(1);
    // A window within a window while another check's advance waits for the outer one: the inner does not queue behind it.
    const outer = span();
    let nested = false;
    const opened = gate.window(async () => {
      await outer.body();
      await gate.window(async () => {
        nested = true;
      });
    });
    const queued = gate.advance(async () => 'after');
    await settle();
    outer.end();
    await opened;
    expect(nested).toBe(true);
    await expect(queued).resolves.toBe('after');
    await expect(gate.window(async () => await gate.advance(async () => 'never'))).rejects.toThrow(/inside a window/);
    // Another async context (another check) is not inside this one's window: its advance waits, then goes.
    const w = span();
    const open = gate.window(w.body);
    const moved = gate.advance(async () => 'moved');
    await settle();
    w.end();
    await expect(moved).resolves.toBe('moved');
    await open;
  });
});
