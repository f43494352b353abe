import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { intentRequest, valuesOf } from '../../suites/orders/orders.ts';
import { fill } from '../../suites/orders/templates.ts';

describe('intent request templates (UNKNOWNS O7)', () => {
  test("a whole placeholder keeps the value's JSON type, an inner one its text; a missing value drops the key", () => {
    expect(fill({ a: '{n}', b: 'x-{n}-y', c: '{absent}', d: ['{n}', '{absent}'], e: { f: '{s}' } }, { n: 60, s: 'abc' })).toEqual({
      a: 60,
      b: 'x-60-y',
      d: [60],
      e: { f: 'abc' },
    });
  });

  test('the default templates give the assumed bodies of the spec (Assumed*IntentRequest)', () => {
    const dca = intentRequest('dca', { config: { startAt: '2030-01-01T00:00:00Z' } });
    expect(dca).toEqual({
      orderType: 'dca',
      inputMint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
      outputMint: 'So11111111111111111111111111111111111111112',
      config: { totalAmount: '36000000', amountPerCycle: '12000000', cycleFrequencySeconds: 3600, startAt: '2030-01-01T00:00:00Z' },
    });
    const oco = intentRequest('oco', { config: { priceDecimals: undefined, trailingStopBps: 50 }, onboardIfNeeded: true, userPubkey: 'W' });
    expect(oco).toMatchObject({
      orderType: 'oco',
      onboardIfNeeded: true,
      userPubkey: 'W',
      config: { amount: '12000000', trailingStopBps: 50 },
    });
    expect(oco.config).not.toHaveProperty('priceDecimals');
    expect(valuesOf(oco)).toMatchObject({ orderType: 'oco', amount: '12000000', trailingStopBps: 50, userPubkey: 'W' });
  });

  test('a value the template has no placeholder for goes into config', () => {
    expect(intentRequest('slice', { config: { extra: 'x' } }).config).toEqual({ amount: '12000000', sliceCount: 3, extra: 'x' });
  });

  test('CONFORMANCE_ORDER_TEMPLATES replaces the templates of the types it lists', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'templates-'));
    const file = join(dir, 'mine.yaml');
    writeFileSync(
      file,
      'stop_loss:\n  type: STOP\n  pair: "{inputMint}/{outputMint}"\n  params:\n    size: "{amount}"\n    trigger: "{triggerPrice}"\n',
    );
    const { vi } = await import('vitest');
    vi.resetModules();
    process.env.CONFORMANCE_ORDER_TEMPLATES = file;
    try {
      const fresh = await import('../../suites/orders/orders.ts');
      const body = fresh.intentRequest('stop_loss', { inputMint: 'A', outputMint: 'B' }) as unknown as Record<string, unknown>;
      expect(body).toEqual({ type: 'STOP', pair: 'A/B', params: { size: '12000000', trigger: '1' } });
      expect(fresh.valuesOf(body as never)).toMatchObject({ priceDecimals: 18, amount: '12000000' });
      expect(fresh.intentRequest('dca').orderType).toBe('dca');
    } finally {
      delete process.env.CONFORMANCE_ORDER_TEMPLATES;
      vi.resetModules();
    }
  });

  test('an unreadable CONFORMANCE_ORDER_TEMPLATES names the file', async () => {
    const { vi } = await import('vitest');
    vi.resetModules();
    process.env.CONFORMANCE_ORDER_TEMPLATES = '/nonexistent/templates.yaml';
    try {
      const fresh = await import('../../suites/orders/templates.ts');
      expect(() => fresh.orderTemplates()).toThrow(/CONFORMANCE_ORDER_TEMPLATES \/nonexistent\/templates.yaml/);
    } finally {
      delete process.env.CONFORMANCE_ORDER_TEMPLATES;
      vi.resetModules();
    }
  });
});
