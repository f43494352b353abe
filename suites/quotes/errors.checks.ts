/**
 * The engine's error answers on the key path, each against its body layer (Errors, body shapes):
 * - 400 plain text naming the field: a missing or malformed parameter;
 * - 400 {code, message}: a well-formed value outside the published bounds (bounds.checks.ts);
 * - 404 {code: -7, message, quoteId: {kind, tag, seq}, metadata}: no acceptable route, with metadata.errors when
 *   providers tried and without it when validation failed first.
 */
import fc from 'fast-check';
import { PublicKey } from '@solana/web3.js';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { isObject } from '../shared/values.ts';
import {
  discover,
  expectCallStatus,
  isPlainText,
  Judge,
  MSGPACK_TYPE,
  namesField,
  type QuoteCall,
  type QuoteParams,
  quoteParams,
  quoteRuns,
  requestQuote,
} from './quote-support.ts';
import { quote } from './samples.ts';
import { malformedPubkey } from './arbitraries.ts';
import { TOKEN_PROGRAM } from './solana.ts';
import type { RuleId } from '../../generators/vocabulary.ts';

/** Engine 400, plain text naming the field. */
function expectTextNaming(t: CheckContext, rule: RuleId, call: QuoteCall, field: string, what: string): void {
  expectCallStatus(t, rule, call, 400, `${what} answered 400`);
  t.expect('Q-ERR-002', isPlainText(call.ex) && namesField(call.ex, field), {
    documented: `the 400 for ${what} is plain text naming ${field}`,
    received: { contentType: call.ex.response.headers['content-type'], body: call.body },
    exchange: call.ex,
  });
}

const REQUIRED = ['inputMint', 'outputMint', 'amount', 'userPublicKey'] as const;

export const missingRequiredParametersAreNamed = defineCheck({
  name: 'each-missing-required-parameter-gives-400-text-naming-it',
  service: 'quotes',
  rules: ['Q-PARAM-001', 'Q-ERR-002'],
  profile: 'readonly',
  async run(t: CheckContext) {
    for (const name of REQUIRED) {
      const call = await requestQuote(t, quoteParams({ [name]: undefined }), { noRetry: true });
      expectTextNaming(t, 'Q-PARAM-001', call, name, `a request without ${name}`);
    }
  },
});

/** The pubkey parameters of the key path (Required, Routing and Transaction parameters). */
const PUBKEY_PARAMETERS = [
  'inputMint',
  'outputMint',
  'userPublicKey',
  'venueAllowlist',
  'venueBanlist',
  'outputAccount',
  'payer',
  'positiveSlippageFeeReceiver',
] as const;

export const malformedPubkeysAreNamed = defineCheck({
  name: 'malformed-public-keys-give-400-text-naming-the-field',
  service: 'quotes',
  rules: ['Q-PARAM-002', 'Q-ERR-002'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const judge = async (name: string, value: string) => {
      const call = await requestQuote(t, quoteParams({ [name]: value }), { noRetry: true });
      expectTextNaming(t, 'Q-PARAM-002', call, name, `${name}=${JSON.stringify(value)} (not a base58 public key)`);
    };
    for (const name of PUBKEY_PARAMETERS) await judge(name, 'not-a-public-key');
    await t.property(
      'Q-PARAM-002',
      fc.tuple(fc.constantFrom(...PUBKEY_PARAMETERS), malformedPubkey),
      async ([name, value]) => judge(name, value),
      quoteRuns(t, 25),
    );
  },
});

/** Not a decimal string of digits: a decimal point, a sign, an exponent, letters, separators. */
const malformedAmount: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.integer({ min: 0, max: 10 ** 9 }), fc.integer({ min: 0, max: 999 })).map(([a, b]) => `${a}.${b}`),
  fc.integer({ min: 1, max: 10 ** 9 }).map((a) => `-${a}`),
  fc.integer({ min: 1, max: 10 ** 9 }).map((a) => `+${a}`),
  fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 12 })).map(([a, e]) => `${a}e${e}`),
  fc.integer({ min: 1, max: 10 ** 6 }).map((a) => `0x${a.toString(16)}`),
  fc.stringMatching(/^[0-9]{0,4}[a-zA-Z_][a-zA-Z0-9_]{0,6}$/),
  fc.integer({ min: 1000, max: 10 ** 9 }).map((a) => a.toLocaleString('en-US')),
);

export const malformedAmountsAreNamed = defineCheck({
  name: 'malformed-amounts-give-400-text-naming-amount',
  service: 'quotes',
  rules: ['Q-PARAM-003', 'Q-ERR-002'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const judge = async (value: string) => {
      const call = await requestQuote(t, quoteParams({ amount: value }), { noRetry: true });
      expectTextNaming(t, 'Q-PARAM-003', call, 'amount', `amount=${JSON.stringify(value)} (amounts are decimal strings of digits)`);
    };
    await judge('1.5');
    await t.property('Q-PARAM-003', malformedAmount, judge, quoteRuns(t, 20));
  },
});

function unknownLabel(t: CheckContext, labels: string[]): string {
  let label = `no-such-venue-${t.env.seed}`;
  while (labels.includes(label)) label += '-x';
  return label;
}

export const unknownDexesLabelGivesNoRoute = defineCheck({
  name: 'unknown-dexes-label-gives-404-code-minus-7-with-a-reason-per-provider',
  service: 'quotes',
  rules: ['Q-PARAM-010', 'Q-ERR-003', 'Q-ERR-004', 'Q-ERR-005', 'Q-ERR-007', 'Q-META-009', 'Q-META-010'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const served = await quote(t, j, d, quoteParams());
    const label = unknownLabel(t, d.labels);
    const call = await quote(t, j, d, quoteParams({ dexes: [label] }), { noRetry: true });
    t.expect('Q-PARAM-010', call.status === 404 && isObject(call.body) && call.body.code === -7, {
      documented: `dexes=${label} (no such venue) is no validation error: it restricts routing to nothing, 404 code -7`,
      received: { status: call.status, body: call.body },
      exchange: call.ex,
    });
    // A list mixing a real label with an unknown one is no validation error either: it routes through the real one.
    const known = d.labels.find((l) => !l.includes(','));
    if (known) {
      const mixed = await quote(t, j, d, quoteParams({ dexes: [known, label] }), { noRetry: true });
      t.expect('Q-PARAM-010', mixed.status === 200 || (mixed.status === 404 && isObject(mixed.body) && mixed.body.code === -7), {
        documented: `dexes=${known},${label} (one unknown label) is no validation error: a route through ${known} or 404 code -7`,
        received: { status: mixed.status, body: mixed.body },
        exchange: mixed.ex,
      });
    }
    const meta = isObject(call.body) && isObject(call.body.metadata) ? call.body.metadata : undefined;
    const errors = meta?.errors;
    t.expect('Q-ERR-005', isObject(errors) && Object.keys(errors).length > 0, {
      documented: 'providers tried (the label is no validation error), so metadata.errors gives a reason per provider that tried',
      received: meta,
      exchange: call.ex,
    });
    // metadata also carries the mint decimals and USD prices: those the 200 for the same pair carried.
    const servedMeta = served.status === 200 && isObject(served.body) && isObject(served.body.metadata) ? served.body.metadata : undefined;
    for (const key of ['inputPriceUSD', 'outputPriceUSD', 'inputMintDecimals', 'outputMintDecimals']) {
      if (servedMeta?.[key] === undefined || servedMeta[key] === null) continue;
      t.expect('Q-ERR-007', meta?.[key] !== undefined && meta[key] !== null, {
        documented: `the 404 metadata carries ${key}, as the 200 for the same pair did`,
        received: meta,
        exchange: call.ex,
      });
    }
  },
});

/**
 * "A 404 without metadata.errors indicates a request-level problem, most often a userPublicKey that is not a usable
 * wallet." Which wallets a target refuses is not shown, and it may well quote for any address, so this is judged
 * only where the wallet alone decides: the same request is served (200) for the configured wallet just before and
 * just after, and answered 404 for a wallet that can never sign (an address off the ed25519 curve, the system
 * program). Providers cannot have failed on anything but the wallet, a request-level problem, so the 404 carries no
 * metadata.errors. Any other outcome is reported and the check skips.
 */
export const validationFirstNoRouteHasNoReasons = defineCheck({
  name: 'validation-first-404-carries-no-provider-reasons',
  service: 'quotes',
  rules: ['Q-ERR-006', 'Q-ERR-003', 'Q-ERR-007'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const offCurve = PublicKey.findProgramAddressSync(
      [Buffer.from(`conformance-${t.env.seed}`)],
      new PublicKey(TOKEN_PROGRAM),
    )[0].toBase58();
    let judged = false;
    for (const wallet of [offCurve, '11111111111111111111111111111111']) {
      const before = await quote(t, j, d, quoteParams());
      const call = await quote(t, j, d, quoteParams({ userPublicKey: wallet }), { noRetry: true });
      const after = await quote(t, j, d, quoteParams());
      const meta = isObject(call.body) && isObject(call.body.metadata) ? call.body.metadata : undefined;
      if (before.status !== 200 || after.status !== 200 || call.status !== 404) {
        t.note(
          `userPublicKey ${wallet} (cannot sign) answered ${call.status}, the configured wallet ${before.status} and ${after.status}: not judged`,
        );
        continue;
      }
      t.expect('Q-ERR-006', meta !== undefined && meta.errors == null, {
        documented: `only the wallet differs from a request served just before and after, so the 404 for userPublicKey ${wallet} (cannot sign) is a request-level problem: no metadata.errors`,
        received: call.body,
        exchange: call.ex,
      });
      judged = true;
    }
    if (!judged)
      t.skip('the target answered no unusable wallet with a 404 (it may quote for any address or refuse it otherwise); nothing to judge');
  },
});

export const errorBodyEncodingIsObserved = defineCheck({
  name: 'error-body-encodings-under-messagepack-are-reported',
  service: 'quotes',
  rules: ['Q-ENC-008'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const rows: Array<[string, QuoteParams]> = [
      ['malformed amount', quoteParams({ amount: '1.5' })],
      ['numQuotes out of bounds', quoteParams({ numQuotes: 0 })],
      ['no route', quoteParams({ dexes: [unknownLabel(t, d.labels)] })],
    ];
    for (const [what, params] of rows) {
      const call = await requestQuote(t, params, { accept: null, noRetry: true });
      t.note(
        `${what} with MessagePack requested: ${call.status} ${call.ex.response.mediaType ?? 'no content-type'}${call.ex.response.mediaType === MSGPACK_TYPE ? ' (MessagePack)' : ''}`,
      );
    }
  },
});
