// The runtime API over generated output (fixture spec): operation lookup, response validation, rule attribution.
import * as fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { invalidValue, requestArbitraries, schemaRoot } from '../../generators/arbitraries.ts';
import { attributeRule } from '../../generators/rule-map.ts';
import { FC, announceSeed, generateFixture, removeDir, type Generated } from './helpers.ts';

announceSeed('runtime.test.ts');

let g: Generated;
beforeAll(async () => {
  g = await generateFixture('runtime');
});
afterAll(() => removeDir(g.outDir));

const INFO_OK = { protocolVersion: { major: 1, minor: 2, patch: 3 }, numQuotes: 3, venues: ['a', 'b'] };
const FILL_OK = { amount: '10', at: '2024-01-02T03:04:05Z' };
const ORDER_OK = {
  id: '123e4567-e89b-42d3-a456-426614174000',
  status: 'open',
  side: 'buy',
  fills: [FILL_OK],
  createdAt: '2024-01-02T03:04:05.123Z',
};

describe('operations index', () => {
  test('getOperation returns the operation, with rule, security and parameters', () => {
    const op = g.api.getOperation('fixture', 'createOrder');
    expect(op).toMatchObject({ method: 'POST', path: '/api/v1/orders', rule: 'FX-ORD-001', security: ['apiKey'] });
    expect(op.parameters.map((p) => [p.in, p.name, p.required, p.assumed, p.schemaRef])).toEqual([
      ['header', 'Idempotency-Key', true, true, '#/components/schemas/UuidV4'],
    ]);
    expect(op.requestBody?.required).toBe(true);
    expect(op.responses['201']?.headers).toEqual(['Location']);
    expect(op.responses['201']?.rule).toBe('FX-ORD-002');
  });

  test('getOperation throws on an unknown operationId, naming the known ones', () => {
    expect(() => g.api.getOperation('fixture', 'nope')).toThrow(/unknown operation fixture\.nope \(known: getInfo/);
  });

  test('an operation without x-rule carries the document x-default-rule; security [] means no auth', () => {
    expect(g.api.getOperation('fixture', 'getOrderSummary').rule).toBe('FX-SHAPE-001');
    expect(g.api.getOperation('fixture', 'getInfo').security).toEqual([]);
    expect(g.api.getOperation('fixture', 'getHealth').securityAlternatives).toEqual([[], ['apiKey']]);
  });

  test('path-level parameters are merged into each operation', () => {
    expect(g.api.getOperation('fixture', 'cancelOrder').parameters.map((p) => p.name)).toEqual(['orderId']);
  });

  test('listOperations lists every operation of a service', () => {
    expect(
      g.api
        .listOperations('fixture')
        .map((o) => o.operationId)
        .sort(),
    ).toEqual(
      ['cancelOrder', 'createOrder', 'getFill', 'getHealth', 'getInfo', 'getOrder', 'getOrderSummary', 'listOrders', 'putTree'].sort(),
    );
    expect(g.api.listOperations('orders')).toEqual([]);
  });
});

describe('findOperation', () => {
  const find = (m: string, p: string): string | undefined => g.api.findOperation('fixture', m, p)?.operationId;

  test('matches templated paths, ignores the query string, and prefers concrete paths', () => {
    expect(find('GET', '/api/v1/orders/123e4567-e89b-42d3-a456-426614174000')).toBe('getOrder');
    expect(find('delete', '/api/v1/orders/abc')).toBe('cancelOrder');
    expect(find('GET', '/api/v1/orders/summary')).toBe('getOrderSummary');
    expect(find('GET', '/api/v1/orders/abc/fills/7?x=1#frag')).toBe('getFill');
    expect(find('GET', '/api/v1/orders?limit=5')).toBe('listOrders');
  });

  test('rejects unknown paths, unknown methods and partial matches', () => {
    expect(find('GET', '/api/v1/nope')).toBeUndefined();
    expect(find('PATCH', '/api/v1/orders/abc')).toBeUndefined();
    expect(find('GET', '/api/v1/orders/abc/')).toBeUndefined();
    expect(find('GET', '/api/v1/orders/a/b')).toBeUndefined();
    expect(find('GET', '/prefix/api/v1/info')).toBeUndefined();
  });

  test('property: every generated valid request path finds its own operation', () => {
    for (const op of g.api.listOperations('fixture')) {
      const { valid } = requestArbitraries('fixture', op.operationId, { index: g.api.index });
      fc.assert(
        fc.property(valid, (req) => {
          const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(req.path[name] ?? ''));
          expect(g.api.findOperation('fixture', op.method, path)?.operationId).toBe(op.operationId);
        }),
        { ...FC, numRuns: 30 },
      );
    }
  });
});

describe('validateResponse', () => {
  test('a documented status and media type (charset ignored) with a valid body has no errors', () => {
    expect(g.api.validateResponse('fixture', 'getInfo', 200, 'application/json; charset=utf-8', INFO_OK)).toEqual({
      documentedStatus: true,
      documentedMediaType: true,
      errors: [],
    });
    expect(g.api.validateResponse('fixture', 'getInfo', 200, 'application/vnd.msgpack', INFO_OK).errors).toEqual([]);
    expect(g.api.validateResponse('fixture', 'getHealth', 200, 'text/plain', 'ok').errors).toEqual([]);
  });

  test('the status falls back to its range, then to default', () => {
    const r404 = g.api.validateResponse('fixture', 'getInfo', 404, 'application/json', { error: { code: 'nope' } });
    expect(r404).toEqual({ documentedStatus: true, documentedMediaType: true, errors: [] });
    const r503 = g.api.validateResponse('fixture', 'getInfo', 503, 'text/plain', 'down');
    expect(r503).toEqual({ documentedStatus: true, documentedMediaType: true, errors: [] });
    const r500 = g.api.validateResponse('fixture', 'getInfo', 500, 'application/json', {});
    expect(r500.documentedMediaType).toBe(false);
  });

  test('an undocumented status or media type is reported as such', () => {
    expect(g.api.validateResponse('fixture', 'getOrder', 418, 'application/json', {})).toEqual({
      documentedStatus: false,
      documentedMediaType: false,
      errors: [],
    });
    expect(g.api.validateResponse('fixture', 'getOrder', 200, 'text/html', '<p>')).toMatchObject({
      documentedStatus: true,
      documentedMediaType: false,
    });
    expect(g.api.validateResponse('fixture', 'getOrder', 200, undefined, ORDER_OK).documentedMediaType).toBe(false);
  });

  test('a response documented without content accepts no body only', () => {
    expect(g.api.validateResponse('fixture', 'cancelOrder', 204, undefined, undefined).documentedMediaType).toBe(true);
    expect(g.api.validateResponse('fixture', 'cancelOrder', 204, 'application/json', { a: 1 }).documentedMediaType).toBe(false);
  });

  test('validateSchema validates a component schema by name and throws on an unknown one', () => {
    expect(g.api.validateSchema('fixture', 'Order', ORDER_OK)).toEqual([]);
    expect(g.api.validateSchema('fixture', 'Fill', { amount: '01', at: 'x' }).map((e) => [e.instancePath, e.rule])).toEqual([
      ['/amount', 'FX-FILL-001'],
      ['/at', 'FX-SHAPE-001'],
    ]);
    expect(() => g.api.validateSchema('fixture', 'Nope', {})).toThrow(/unknown schema fixture\.Nope/);
  });

  test('error messages name enum values', () => {
    const r = g.api.validateResponse('fixture', 'getHealth', 200, 'text/plain', 'meh');
    expect(r.errors[0]?.message).toBe('must be equal to one of the allowed values: "ok", "degraded"');
  });
});

describe('rule attribution via ruleMap', () => {
  test('ruleMap lists the x-rule pointers of a response validator, through $ref, allOf and items', () => {
    const op = g.api.getOperation('fixture', 'createOrder');
    expect(op.ruleMap['fixture_createOrder_201_application_json']).toEqual(
      expect.arrayContaining([
        { pointer: '', rule: 'FX-ORD-002' },
        { pointer: '/status', rule: 'FX-ORD-005' },
        { pointer: '/fills/*/amount', rule: 'FX-FILL-001' },
      ]),
    );
    const tree = g.api.getOperation('fixture', 'putTree').ruleMap['fixture_putTree_200_application_json'];
    expect(tree).toEqual(
      expect.arrayContaining([
        { pointer: '/label', rule: 'FX-TREE-002' },
        { pointer: '/children/*/label', rule: 'FX-TREE-002' },
      ]),
    );
  });

  test('an error at a nested annotated property gets that rule; an unannotated one gets the operation rule', () => {
    const body = { ...INFO_OK, protocolVersion: { major: -1, minor: 0, patch: 0 }, motd: 5, venues: [''] };
    const r = g.api.validateResponse('fixture', 'getInfo', 200, 'application/json', body);
    expect(r.errors.map((e) => [e.instancePath, e.rule])).toEqual([
      ['/protocolVersion/major', 'FX-INFO-002'],
      ['/motd', 'FX-INFO-001'],
      ['/venues/0', 'FX-INFO-004'],
    ]);
  });

  test('a missing required property is attributed to that property rule', () => {
    const { numQuotes: _n, ...body } = INFO_OK;
    const r = g.api.validateResponse('fixture', 'getInfo', 200, 'application/json', body);
    expect(r.errors.map((e) => [e.instancePath, e.rule, e.message])).toEqual([
      ['', 'FX-INFO-003', "must have required property 'numQuotes'"],
    ]);
  });

  test('a response-level x-rule covers everything under it not covered by a nearer one', () => {
    const body = { ...ORDER_OK, status: 'bogus', note: 5, fills: [{ ...FILL_OK, amount: 'x' }] };
    const r = g.api.validateResponse('fixture', 'createOrder', 201, 'application/json', body);
    expect(r.errors.map((e) => [e.instancePath, e.rule])).toEqual(
      expect.arrayContaining([
        ['/status', 'FX-ORD-005'],
        ['/note', 'FX-ORD-002'],
        ['/fills/0/amount', 'FX-FILL-001'],
      ]),
    );
    const other = g.api.validateResponse('fixture', 'createOrder', 400, 'application/json', { error: { code: 'other' } });
    expect(other.errors.map((e) => [e.instancePath, e.rule])).toEqual([['/error/code', 'FX-ORD-001']]);
  });

  test('attributeRule: longest pattern wins, literal segments beat wildcards, else the fallback', () => {
    const pointers = [
      { pointer: '', rule: 'R0' },
      { pointer: '/a', rule: 'R1' },
      { pointer: '/a/*/b', rule: 'R2' },
      { pointer: '/a/0/b', rule: 'R3' },
    ];
    expect(attributeRule(pointers, '/a/1/b/c', 'F')).toBe('R2');
    expect(attributeRule(pointers, '/a/0/b', 'F')).toBe('R3');
    expect(attributeRule(pointers, '/a/1', 'F')).toBe('R1');
    expect(attributeRule(pointers, '/z', 'F')).toBe('R0');
    expect(attributeRule([], '/z', 'F')).toBe('F');
    expect(attributeRule([{ pointer: '/a~1b', rule: 'R' }], '/a~1b/c', 'F')).toBe('R');
  });

  test('property: every error of an invalid Info body is attributed to the nearest enclosing x-rule', () => {
    const expected = (path: string): string => {
      if (path.startsWith('/protocolVersion')) return 'FX-INFO-002';
      if (path === '/numQuotes') return 'FX-INFO-003';
      if (/^\/venues\/\d+/.test(path)) return 'FX-INFO-004';
      return 'FX-INFO-001';
    };
    const arb = invalidValue({ $ref: '#/components/schemas/Info' }, { root: schemaRoot('fixture', g.api.index) });
    fc.assert(
      fc.property(arb, ({ value }) => {
        const r = g.api.validateResponse('fixture', 'getInfo', 200, 'application/json', value);
        expect(r.errors.length).toBeGreaterThan(0);
        for (const e of r.errors) {
          const missing = /must have required property '([^']+)'/.exec(e.message)?.[1];
          expect(e.rule, `${e.instancePath} ${e.message}`).toBe(expected(missing ? `${e.instancePath}/${missing}` : e.instancePath));
        }
      }),
      FC,
    );
  });
});
