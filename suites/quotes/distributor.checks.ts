/**
 * The distributor path (Gateway, REST): the same parameters and response types as the key path, a JWT as
 * `Authorization: Bearer <JWT>` or `?auth=<JWT>`, always MessagePack. Its error bodies are not shown, so errors are
 * judged by status alone (UNKNOWNS part B). The JWT comes from the run (QUOTES_JWT, or issued by the control API);
 * its claims are the target's business (UNKNOWNS Q8). The Direct stream (WebSocket) is not tested (Q1, Q9).
 */
import fc from 'fast-check';
import type { ServiceClient } from '../harness/client.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { isObject, randomToken } from '../shared/values.ts';
import { QUOTE_DEFAULTS } from './fixtures.ts';
import {
  Judge,
  MSGPACK_TYPE,
  QUOTE_PATH,
  discover,
  maxNumQuotes,
  queryString,
  quoteParams,
  quoteRuns,
  type QuoteCall,
  type QuoteParams,
} from './quote-support.ts';
import { quote, wallet } from './samples.ts';
import { associatedTokenAccounts, instructionsOf, uniqueWritableAccounts } from './solana.ts';
import { malformedPubkey } from './arbitraries.ts';

const DISCOVERY = ['/api/v1/info', '/api/v1/venues', '/api/v1/providers'];

function gatewayOf(t: CheckContext): { gateway: ServiceClient; jwt: string } {
  const jwt = t.env.credentials.quotesJwt;
  if (!t.gateway || !jwt)
    t.skip('no distributor path in this run (QUOTES_JWT with --gateway-url, or a control API that issues JWTs with a gateway URL)');
  return { gateway: t.gateway, jwt };
}

/** A syntactically valid JWT nobody signed ({"alg":"none"}), and the run's JWT with its signature altered. */
function badTokens(jwt: string): Array<[string, string]> {
  const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const unsigned = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ sub: 'conformance', exp: 4102444800 })}.`;
  const parts = jwt.split('.');
  const tampered =
    parts.length === 3 && parts[2]
      ? // The first signature character carries six significant bits, so changing it always changes the signature.
        `${parts[0]}.${parts[1]}.${parts[2][0] === 'A' ? 'B' : 'A'}${parts[2].slice(1)}`
      : `${jwt}x`;
  return [
    ['a garbage token', randomToken('not-a-jwt')],
    ['an unsigned JWT (alg none)', unsigned],
    ["the run's JWT with an altered signature", tampered],
  ];
}

/**
 * Requests expected to fail: the distributor client checks their status against the spec but not their bodies or
 * media types, which the document does not show for this path; these checks judge the status alone.
 */
const STATUS_ONLY = { retry: false } as const;

function statusDetail(ex: Exchange, documented: string) {
  return { documented, received: { status: ex.response.status, contentType: ex.response.headers['content-type'] }, exchange: ex };
}

export const distributorServesBearerJwtInMsgpack = defineCheck({
  name: 'distributor-path-serves-a-bearer-jwt-in-msgpack-with-key-path-shapes',
  service: 'quotes',
  rules: ['Q-DIST-001', 'Q-DIST-006', 'Q-DIST-007'],
  profile: 'smoke', // smoke's one read of the distributor path (README, Profiles)
  async run(t: CheckContext) {
    const { gateway } = gatewayOf(t);
    for (const path of DISCOVERY) {
      const ex = await gateway.request({ path });
      t.expect('Q-DIST-001', ex.response.status === 200, statusDetail(ex, `GET ${path} with Authorization: Bearer <JWT> answered 200`));
      t.expect(
        'Q-DIST-006',
        ex.response.mediaType === MSGPACK_TYPE && !ex.response.decodeError,
        statusDetail(ex, `GET ${path} on the distributor path is MessagePack`),
      );
    }
    // Same parameters and response types: the key path's invariants hold on the distributor's quotes too.
    const d = await discover(t, gateway);
    const j = new Judge(t);
    for (const params of [quoteParams(), quoteParams({ numQuotes: maxNumQuotes(d), includeAltContents: true })]) {
      const call = await quote(t, j, d, params, { client: gateway });
      t.expect(
        'Q-DIST-007',
        call.status === 200 || call.status === 404,
        statusDetail(call.ex, 'a well-formed quote request on the distributor path is served (200, or 404 without a route)'),
      );
      t.expect('Q-DIST-006', call.ex.response.mediaType === MSGPACK_TYPE, statusDetail(call.ex, 'the distributor quote is MessagePack'));
    }
  },
});

export const distributorAcceptsJwtAsQuery = defineCheck({
  name: 'distributor-path-accepts-the-jwt-as-auth-query-parameter',
  service: 'quotes',
  rules: ['Q-DIST-002'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const { gateway, jwt } = gatewayOf(t);
    for (const path of [...DISCOVERY, QUOTE_PATH]) {
      const query =
        path === QUOTE_PATH ? `${queryString(quoteParams())}&auth=${encodeURIComponent(jwt)}` : `auth=${encodeURIComponent(jwt)}`;
      const ex = await gateway.request({ path, query, headers: { authorization: undefined } });
      const ok = path === QUOTE_PATH ? ex.response.status === 200 || ex.response.status === 404 : ex.response.status === 200;
      t.expect('Q-DIST-002', ok, statusDetail(ex, `GET ${path}?auth=<JWT> without an Authorization header is served`));
    }
  },
});

export const distributorRejectsMissingOrInvalidJwt = defineCheck({
  name: 'distributor-path-rejects-a-missing-or-invalid-jwt-with-401',
  service: 'quotes',
  rules: ['Q-DIST-003', 'Q-DIST-011', 'Q-DIST-012'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const { gateway, jwt } = gatewayOf(t);
    const query = (path: string) => (path === QUOTE_PATH ? queryString(quoteParams()) : '');
    // The quote first: Q-DIST-003 is about every distributor request; Q-DIST-011 repeats it for the discovery ones.
    for (const path of [QUOTE_PATH, ...DISCOVERY]) {
      const rule = path === QUOTE_PATH ? 'Q-DIST-003' : 'Q-DIST-011';
      const missing = await gateway.request({ path, query: query(path), headers: { authorization: undefined }, ...STATUS_ONLY });
      t.expect(rule, missing.response.status === 401, statusDetail(missing, `GET ${path} without a JWT answered 401`));
      for (const [what, token] of badTokens(jwt)) {
        const asHeader = await gateway.request({ path, query: query(path), headers: { authorization: `Bearer ${token}` }, ...STATUS_ONLY });
        t.expect(rule, asHeader.response.status === 401, statusDetail(asHeader, `GET ${path} with ${what} as Bearer answered 401`));
        const asQuery = await gateway.request({
          path,
          query: [query(path), `auth=${encodeURIComponent(token)}`].filter(Boolean).join('&'),
          headers: { authorization: undefined },
          ...STATUS_ONLY,
        });
        t.expect(rule, asQuery.response.status === 401, statusDetail(asQuery, `GET ${path} with ${what} as ?auth= answered 401`));
      }
      const body = missing.response.body;
      t.note(
        `Q-DIST-012: distributor 401 body of ${path}: ${missing.response.mediaType ?? 'no content-type'} ${typeof body === 'string' ? body.slice(0, 80) : JSON.stringify(isObject(body) ? body : String(body)).slice(0, 80)}`,
      );
    }
  },
});

export const distributorRejectsApiKey = defineCheck({
  name: 'distributor-path-rejects-a-key-path-api-key-with-401',
  service: 'quotes',
  rules: ['Q-DIST-004'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const { gateway } = gatewayOf(t);
    const key = t.env.credentials.quotesApiKey;
    if (!key) t.skip('no key-path API key in this run');
    for (const path of [...DISCOVERY, QUOTE_PATH]) {
      const ex = await gateway.request({
        path,
        query: path === QUOTE_PATH ? queryString(quoteParams()) : undefined,
        headers: { authorization: undefined, 'x-api-key': key },
        ...STATUS_ONLY,
      });
      t.expect(
        'Q-DIST-004',
        ex.response.status === 401,
        statusDetail(ex, `GET ${path} on the distributor path with x-api-key (a key-path credential) answered 401`),
      );
    }
  },
});

export const jwtOnKeyPathIsRejected = defineCheck({
  name: 'distributor-jwt-on-the-key-path-gives-401-invalid-api-key',
  service: 'quotes',
  rules: ['Q-DIST-005'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const jwt = t.env.credentials.quotesJwt;
    if (!jwt) t.skip('no distributor JWT in this run (QUOTES_JWT, or a control API that issues JWTs)');
    for (const path of [...DISCOVERY, QUOTE_PATH]) {
      const base = path === QUOTE_PATH ? queryString(quoteParams()) : '';
      const tries = [
        await t.quotes.request({ path, query: base, headers: { 'x-api-key': undefined, authorization: `Bearer ${jwt}` }, retry: false }),
        await t.quotes.request({
          path,
          query: [base, `auth=${encodeURIComponent(jwt)}`].filter(Boolean).join('&'),
          headers: { 'x-api-key': undefined },
          retry: false,
        }),
      ];
      for (const ex of tries) {
        const body = ex.response.body;
        t.expect(
          'Q-DIST-005',
          ex.response.status === 401 && isObject(body) && isObject(body.error) && body.error.code === 'invalid_api_key',
          {
            documented: `a distributor JWT sent to the key path (GET ${path}, no x-api-key) gives 401 with the invalid_api_key platform body`,
            received: { status: ex.response.status, body },
            exchange: ex,
          },
        );
      }
    }
  },
});

/** The fee is collected into feeAccount: every route whose instructions are shown writes to it. */
function expectFeeAccountWritable(t: CheckContext, call: QuoteCall, feeAccount: string): void {
  const quotes = isObject(call.body) && isObject(call.body.quotes) ? call.body.quotes : {};
  for (const [provider, route] of Object.entries(quotes)) {
    const ixs = instructionsOf(route);
    if (!ixs) continue; // instructions not shown in the documented shape: Q-ROUTE rules judge that
    const writable = uniqueWritableAccounts(ixs);
    t.expect('Q-DIST-015', writable.has(feeAccount), {
      documented: `with feeAccount ${feeAccount} and feeBps ${String(call.params.feeBps)} the route of ${provider} carries feeAccount as a writable account (it collects the fee)`,
      received: { writable: [...writable] },
      exchange: call.ex,
    });
  }
}

export const distributorAcceptsFeeParameters = defineCheck({
  name: 'distributor-path-accepts-well-formed-fee-parameters',
  service: 'quotes',
  rules: ['Q-DIST-008', 'Q-DIST-015'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const { gateway } = gatewayOf(t);
    const d = await discover(t, gateway);
    const j = new Judge(t);
    const feeWallet = wallet(t, 'fee-collector');
    // feeBps starts at 0 (accepted too) and stops at 100: the document gives no cap to probe (Q-DIST-016).
    const fees = fc.record({ feeBps: fc.integer({ min: 0, max: 100 }), feeFromInputMint: fc.option(fc.boolean(), { nil: undefined }) });
    await t.property(
      'Q-DIST-008',
      fees,
      async ({ feeBps, feeFromInputMint }) => {
        // The fee account is a token account of the mint the fee is taken in.
        const mint = feeFromInputMint ? QUOTE_DEFAULTS.inputMint : QUOTE_DEFAULTS.outputMint;
        const params: QuoteParams = quoteParams({ feeAccount: associatedTokenAccounts(feeWallet, mint)[0], feeBps, feeFromInputMint });
        const call = await quote(t, j, d, params, { client: gateway });
        t.expect(
          'Q-DIST-008',
          call.status === 200 || call.status === 404,
          statusDetail(
            call.ex,
            `feeBps=${feeBps}${feeFromInputMint === undefined ? '' : ` feeFromInputMint=${feeFromInputMint}`} with a feeAccount is accepted (not 400)`,
          ),
        );
        if (call.status === 200 && feeBps > 0) expectFeeAccountWritable(t, call, String(params.feeAccount));
      },
      quoteRuns(t, 6),
    );
  },
});

export const distributorRejectsInvalidParameters = defineCheck({
  name: 'distributor-path-rejects-invalid-parameters-with-400',
  service: 'quotes',
  rules: ['Q-DIST-009', 'Q-DIST-011'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const { gateway } = gatewayOf(t);
    const d = await discover(t, gateway);
    const slippageMax = d.ranges.get('slippageBps')?.max ?? 10000;
    const rows: Array<[string, QuoteParams]> = [
      ['without amount', quoteParams({ amount: undefined })],
      ['without userPublicKey', quoteParams({ userPublicKey: undefined })],
      [
        `numQuotes=${(d.ranges.get('numQuotes')?.min ?? 1) - 1} (below the published range)`,
        quoteParams({ numQuotes: (d.ranges.get('numQuotes')?.min ?? 1) - 1 }),
      ],
      [`slippageBps=${slippageMax + 1} (above the published range)`, quoteParams({ slippageBps: slippageMax + 1 })],
      ['amount=1.5', quoteParams({ amount: '1.5' })],
    ];
    for (const [what, params] of rows) {
      const ex = await gateway.request({ path: QUOTE_PATH, query: queryString(params), ...STATUS_ONLY });
      t.expect('Q-DIST-009', ex.response.status === 400, statusDetail(ex, `a distributor quote ${what} answered 400`));
    }
    await t.property(
      'Q-DIST-009',
      fc.tuple(fc.constantFrom('inputMint', 'userPublicKey', 'feeAccount'), malformedPubkey),
      async ([name, value]) => {
        const ex = await gateway.request({ path: QUOTE_PATH, query: queryString(quoteParams({ [name]: value })), ...STATUS_ONLY });
        t.expect(
          'Q-DIST-009',
          ex.response.status === 400,
          statusDetail(ex, `a distributor quote with ${name}=${JSON.stringify(value)} (malformed pubkey) answered 400`),
        );
      },
      quoteRuns(t, 8),
    );
    for (const [path, flag] of [
      ['/api/v1/venues', 'includeProgramIds'],
      ['/api/v1/providers', 'includeIcons'],
    ] as const) {
      const ex = await gateway.request({ path, query: `${flag}=maybe`, ...STATUS_ONLY });
      t.expect(
        'Q-DIST-011',
        ex.response.status === 400,
        statusDetail(ex, `GET ${path}?${flag}=maybe on the distributor path answered 400`),
      );
    }
  },
});

export const distributorNoRouteIs404 = defineCheck({
  name: 'distributor-path-answers-404-when-no-route-exists',
  service: 'quotes',
  rules: ['Q-DIST-010'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const { gateway } = gatewayOf(t);
    const d = await discover(t, gateway);
    let label = `no-such-venue-${t.env.seed}`;
    while (d.labels.includes(label)) label += '-x';
    const ex = await gateway.request({ path: QUOTE_PATH, query: queryString(quoteParams({ dexes: [label] })), ...STATUS_ONLY });
    t.expect(
      'Q-DIST-010',
      ex.response.status === 404,
      statusDetail(ex, `a distributor quote restricted to an unknown venue (dexes=${label}) answered 404`),
    );
  },
});

export const distributorPriceEndpointIsObserved = defineCheck({
  name: 'distributor-quote-price-endpoint-is-reported',
  service: 'quotes',
  rules: ['Q-DIST-013', 'Q-DIST-014'],
  profile: 'smoke', // smoke's one read of GET /api/v1/quote/price
  async run(t: CheckContext) {
    const { gateway } = gatewayOf(t);
    // Parameters and response not shown (UNKNOWNS Q7): observed only, never validated.
    const ex = await gateway.request({ path: '/api/v1/quote/price', query: queryString(quoteParams()), validate: false, retry: false });
    t.note(`GET /api/v1/quote/price on the distributor path answered ${ex.response.status} ${ex.response.mediaType ?? ''}`);
    t.note('Q-DIST-014: the Direct stream (/api/v1/ws) and its correspondence with the Gateway are not tested (wire messages not shown)');
  },
});
