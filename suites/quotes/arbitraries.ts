/** Generators of malformed quote parameter values (fast-check), shared by the key-path and distributor checks. */
import fc from 'fast-check';
import bs58 from 'bs58';

/** Not a public key: characters outside base58 (0 O I l and others), or base58 of fewer or more than 32 bytes. */
export const malformedPubkey: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(fc.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{20,40}$/), fc.constantFrom('0', 'O', 'I', 'l', '-', '_', '+'), fc.nat())
    .map(([s, bad, at]) => {
      const i = at % (s.length + 1);
      return s.slice(0, i) + bad + s.slice(i);
    }),
  fc
    .oneof(fc.uint8Array({ minLength: 1, maxLength: 31 }), fc.uint8Array({ minLength: 33, maxLength: 64 }))
    .map((bytes) => bs58.encode(bytes)),
  fc.constantFrom('not-a-public-key', '0x1234', 'So1111111111111111111111111111111111111111I'),
);
