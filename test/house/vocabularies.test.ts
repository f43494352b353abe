/**
 * One source for the vocabularies the suite and the reference server share (issue 14). The capability list is
 * generated from specs/capabilities.yaml, the order types and statuses from the order spec (generators/
 * vocabulary-build.ts); the control spec, the harness and the server must say the same. The order service's error codes are written on both sides of the wall (the suite's status table,
 * the server's catalogue), which may not import each other: here, where both may be imported, they must agree with
 * each other and with the codes the spec's error responses allow.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { IMPLEMENTED_CAPABILITIES } from '../../fixtures/server/control/capabilities.ts';
import { ERROR_CATALOGUE } from '../../fixtures/server/orders/error-catalogue.ts';
import * as server from '../../fixtures/server/store/orders.ts';
import { CAPABILITIES, ORDER_STATUSES, ORDER_TYPES, TERMINAL_ORDER_STATUSES } from '../../generators/vocabulary.ts';
import { CAPABILITIES as HARNESS_CAPABILITIES } from '../../suites/harness/types.ts';
import { ERROR_STATUSES } from '../../suites/orders/error-table.ts';
import * as suite from '../../suites/orders/orders.ts';

const spec = (file: string): unknown => parse(readFileSync(new URL(`../../specs/${file}`, import.meta.url), 'utf8'));

/**
 * `[status, code]` for every code an error response of the spec allows (`error.code` enums); the status is '' for a
 * shared response of components/responses (its status is where it is referenced).
 */
function specErrorCodes(doc: unknown): Array<[status: string, code: string]> {
  const out: Array<[string, string]> = [];
  const walk = (node: unknown, status: string | undefined): void => {
    if (Array.isArray(node)) return node.forEach((n) => walk(n, status));
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      const here = /^[1-5](\d\d|XX)$/.test(key) ? key : status;
      const code = key === 'code' && value && typeof value === 'object' ? (value as { enum?: unknown }).enum : undefined;
      if (Array.isArray(code)) for (const c of code) out.push([here ?? '', String(c)]);
      walk(value, here);
    }
  };
  walk((doc as { paths?: unknown }).paths, undefined);
  walk((doc as { components?: { responses?: unknown } }).components?.responses, undefined);
  return out;
}

describe('capabilities: one list, from specs/capabilities.yaml', () => {
  test('the list is generated and not empty', () => {
    const yaml = spec('capabilities.yaml') as { capabilities: Record<string, string> };
    expect([...CAPABILITIES]).toEqual(Object.keys(yaml.capabilities));
    expect(CAPABILITIES.length).toBeGreaterThan(0);
  });

  test('the control spec enumerates the same capabilities', () => {
    const control = spec('control.openapi.yaml') as { components: { schemas: { Capability: { enum: string[] } } } };
    expect(control.components.schemas.Capability.enum).toEqual([...CAPABILITIES]);
  });

  test('the harness uses the generated list', () => {
    expect(HARNESS_CAPABILITIES).toBe(CAPABILITIES);
  });

  test('the reference server implements every capability (it offers all of them, DESIGN.md)', () => {
    expect([...IMPLEMENTED_CAPABILITIES]).toEqual([...CAPABILITIES]);
  });
});

describe('order types and statuses: one list each, from the order spec', () => {
  test('generated from components.schemas OrderType, OrderStatus and TerminalOrderStatus', () => {
    const schemas = (spec('order-automation.openapi.yaml') as { components: { schemas: Record<string, { enum: string[] }> } }).components
      .schemas;
    expect([...ORDER_TYPES]).toEqual(schemas.OrderType!.enum);
    expect([...ORDER_STATUSES]).toEqual(schemas.OrderStatus!.enum);
    expect([...TERMINAL_ORDER_STATUSES]).toEqual(schemas.TerminalOrderStatus!.enum);
  });

  test('the reference server uses the generated lists', () => {
    expect(server.ORDER_TYPES).toBe(ORDER_TYPES);
    expect(server.ORDER_STATUSES).toBe(ORDER_STATUSES);
    expect(server.TERMINAL_STATUSES).toBe(TERMINAL_ORDER_STATUSES);
  });

  test('the suite uses the generated lists', () => {
    expect(suite.ORDER_TYPES).toBe(ORDER_TYPES);
    expect(suite.TERMINAL_STATUSES).toBe(TERMINAL_ORDER_STATUSES);
  });
});

describe('order-service error codes: the suite and the server agree, with each other and with the spec', () => {
  const server = Object.fromEntries(
    Object.entries(ERROR_CATALOGUE).map(([code, e]) => [code, [e.status, ...('alsoStatus' in e ? e.alsoStatus : [])]]),
  );

  test('the same codes with the same statuses', () => {
    expect(Object.keys(ERROR_STATUSES).sort()).toEqual(Object.keys(server).sort());
    for (const [code, statuses] of Object.entries(ERROR_STATUSES))
      expect([...statuses].sort(), code).toEqual([...(server[code] ?? [])].sort());
  });

  test('every code an error response of the spec allows is in the catalogue, under one of its statuses', () => {
    const pairs = specErrorCodes(spec('order-automation.openapi.yaml'));
    expect(pairs.length).toBeGreaterThan(50);
    const problems = pairs.flatMap(([status, code]) => {
      const statuses = server[code];
      if (!statuses) return [`${code} (${status}): not in the catalogue`];
      const fits = status === '' || statuses.some((s) => (status.endsWith('XX') ? String(s)[0] === status[0] : String(s) === status));
      return fits ? [] : [`${code}: the spec allows it under ${status}, the catalogue gives ${statuses.join(' or ')}`];
    });
    expect([...new Set(problems)]).toEqual([]);
  });
});
