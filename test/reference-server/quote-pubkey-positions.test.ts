/**
 * Where public keys sit: one list, generated from the spec (generators/vocabulary.ts PUBKEY_POSITIONS: every position
 * specs/swap-quote.openapi.yaml types as Base58Pubkey in a quote or venues response), walked by one function
 * (mapPubkeys). The reference server writes the keys there as 32 raw bytes (binaryPubkeys) and the suite reads them back
 * (pubkeysAsBase58); instruction data `d` is no key and stays as it is.
 */
import { describe, expect, it } from 'vitest';
import { binaryPubkeys } from '../../fixtures/server/quotes/encoding.ts';
import { PUBKEY_POSITIONS } from '../../generators/vocabulary.ts';
import { keysOf, pubkeysAsBase58 } from '../../suites/quotes/msgpack-keys.ts';
import { MINTS } from './quote-support.ts';

const { SOL, USDC, JUP: PROGRAM } = MINTS;

/** A body with a key at every position (a quote response and the venues' programIds in one). */
const BODY = {
  inputMint: SOL,
  outputMint: USDC,
  quotes: {
    titan: {
      steps: [{ ammKey: PROGRAM, inputMint: SOL, outputMint: USDC, feeMint: SOL, label: 'pool' }],
      instructions: [{ p: PROGRAM, a: [{ p: SOL, s: true, w: false }], d: 'AQID' }],
      addressLookupTables: [PROGRAM],
    },
  },
  alts: [{ p: PROGRAM, a: [SOL, USDC] }],
  programIds: [PROGRAM],
};

describe('public key positions', () => {
  it('are the Base58Pubkey positions of the quote and venues responses in the spec', () => {
    expect([...PUBKEY_POSITIONS].sort()).toEqual(
      [
        'inputMint',
        'outputMint',
        'alts.*.p',
        'alts.*.a.*',
        'quotes.*.addressLookupTables.*',
        'quotes.*.instructions.*.p',
        'quotes.*.instructions.*.a.*.p',
        'quotes.*.steps.*.ammKey',
        'quotes.*.steps.*.inputMint',
        'quotes.*.steps.*.outputMint',
        'quotes.*.steps.*.feeMint',
        'programIds.*',
      ].sort(),
    );
  });

  it('the server writes each key there as 32 bytes, the suite reads them back, nothing else is touched', () => {
    const binary = binaryPubkeys(BODY) as typeof BODY;
    const keys = keysOf(binary);
    expect(keys.map((k) => k.at).sort()).toEqual(
      [
        'inputMint',
        'outputMint',
        'quotes.titan.steps.0.ammKey',
        'quotes.titan.steps.0.inputMint',
        'quotes.titan.steps.0.outputMint',
        'quotes.titan.steps.0.feeMint',
        'quotes.titan.instructions.0.p',
        'quotes.titan.instructions.0.a.0.p',
        'quotes.titan.addressLookupTables.0',
        'alts.0.p',
        'alts.0.a.0',
        'alts.0.a.1',
        'programIds.0',
      ].sort(),
    );
    for (const { at, value } of keys) expect(value instanceof Uint8Array && value.length, at).toBe(32);
    expect(binary.quotes.titan.instructions[0]!.d).toBe('AQID');
    expect(binary.quotes.titan.steps[0]!.label).toBe('pool');
    expect(pubkeysAsBase58(binary)).toEqual(BODY);
  });
});
