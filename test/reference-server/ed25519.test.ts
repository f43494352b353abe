import { Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isOnCurve, programAddress, verifySignatures } from '../../fixtures/server/ed25519.ts';
import { referenceAddress } from '../../fixtures/server/quotes/engine/chain.ts';
import { transferLamports } from '../../fixtures/server/quotes/engine/instructions.ts';
import { LOOKUP_TABLES } from '../../fixtures/server/quotes/engine/lookup-tables.ts';
import { compileTransaction } from '../../fixtures/server/quotes/engine/sizing.ts';
import { WALLET } from './quote-support.ts';

/**
 * The server's signature verification on node:crypto (fixtures/server/ed25519.ts) gives web3.js's verdict on every
 * signature (valid, tampered, missing, malleable, small-order and non-canonical keys), its program-derived addresses
 * are web3.js's, and the sizing cache answers as a fresh compilation.
 */

const payer = Keypair.fromSeed(new Uint8Array(32).fill(7));
const user = Keypair.fromSeed(new Uint8Array(32).fill(9));

function transfer(feePayer: PublicKey = payer.publicKey, from: PublicKey = user.publicKey): Transaction {
  const t = new Transaction({ feePayer, recentBlockhash: referenceAddress('ed25519-test', 'blockhash') });
  return t.add(SystemProgram.transfer({ fromPubkey: from, toPubkey: payer.publicKey, lamports: 5 }));
}

function signedByBoth(): Transaction {
  const t = transfer();
  t.partialSign(payer, user);
  return t;
}

/** web3.js's verdicts and the server's, both ways of requiring signatures. */
function verdicts(t: Transaction): { web3: boolean[]; server: boolean[] } {
  const copy = () => Transaction.from(t.serialize({ requireAllSignatures: false, verifySignatures: false }));
  return {
    web3: [copy().verifySignatures(true), copy().verifySignatures(false)],
    server: [verifySignatures(copy(), true), verifySignatures(copy(), false)],
  };
}

const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const littleEndian = (n: bigint) => Buffer.from(n.toString(16).padStart(64, '0'), 'hex').reverse();

describe("the reference server's ed25519", () => {
  it('verifies valid, missing and tampered signatures as web3.js does', () => {
    const valid = verdicts(signedByBoth());
    expect(valid.web3).toEqual([true, true]);
    expect(valid.server).toEqual(valid.web3);
    const half = transfer();
    half.partialSign(payer);
    expect(verdicts(half).server).toEqual([false, true]);
    expect(verdicts(half).web3).toEqual([false, true]);
    fc.assert(
      fc.property(fc.nat(63), fc.integer({ min: 1, max: 255 }), fc.boolean(), (at, flip, second) => {
        const t = signedByBoth();
        const entry = t.signatures[second ? 1 : 0]!;
        const signature = Buffer.from(entry.signature!);
        signature[at]! ^= flip;
        entry.signature = signature;
        const { web3, server } = verdicts(t);
        expect(server).toEqual(web3);
      }),
      { numRuns: 40, seed: 17 },
    );
  });

  it('refuses a malleable signature (S + L) as web3.js does', () => {
    const t = signedByBoth();
    const signature = Buffer.from(t.signatures[1]!.signature!);
    littleEndian(BigInt(`0x${Buffer.from(signature.subarray(32)).reverse().toString('hex')}`) + L).copy(signature, 32);
    t.signatures[1]!.signature = signature;
    expect(verdicts(t)).toEqual({ web3: [false, false], server: [false, false] });
  });

  it('judges small-order and non-canonical keys as web3.js does (ZIP-215 accepts the identity)', () => {
    const identity = new Uint8Array(32);
    identity[0] = 1;
    const withSignBit = Uint8Array.from(identity);
    withSignBit[31] = 0x80;
    const aboveP = new Uint8Array(32).fill(0xff);
    aboveP[0] = 0xee;
    aboveP[31] = 0x7f;
    // R = the identity, S = 0: [8]([S]B - R - [k]A) is the identity for a key of small order, whatever the message.
    const identitySignature = Buffer.concat([identity, Buffer.alloc(32)]);
    const seen: boolean[] = [];
    for (const key of [identity, withSignBit, aboveP]) {
      const t = transfer(new PublicKey(key), new PublicKey(key));
      t.addSignature(new PublicKey(key), identitySignature);
      const { web3, server } = verdicts(t);
      expect(server).toEqual(web3);
      seen.push(web3[0]!);
    }
    expect(seen[0]).toBe(true);
  });

  it('derives program addresses and curve membership as web3.js does', () => {
    const program = new PublicKey(referenceAddress('ed25519-test', 'program'));
    for (const seed of ['a', 'b', 'a']) {
      const seeds = [payer.publicKey.toBuffer(), Buffer.from(seed)];
      expect(programAddress(seeds, program).toBase58()).toBe(PublicKey.findProgramAddressSync(seeds, program)[0].toBase58());
    }
    const offCurve = programAddress([Buffer.from('x')], program).toBase58();
    expect([isOnCurve(payer.publicKey.toBase58()), isOnCurve(offCurve), isOnCurve(offCurve)]).toEqual([true, false, false]);
  });

  it('answers a repeated compilation as a fresh one, in a copy of its own', () => {
    const instructions = [transferLamports(WALLET, referenceAddress('ed25519-test', 'to'), 1n)];
    const first = compileTransaction(instructions, WALLET, LOOKUP_TABLES, 0);
    (first.lookupTables as string[]).push('changed by a reply post-processor');
    const again = compileTransaction(instructions, WALLET, LOOKUP_TABLES, 0);
    expect(again.lookupTables).not.toContain('changed by a reply post-processor');
    expect(compileTransaction(instructions, WALLET, LOOKUP_TABLES, 1)).not.toEqual(again);
    const other = [transferLamports(WALLET, referenceAddress('ed25519-test', 'to'), 2n)];
    expect(compileTransaction(other, WALLET, LOOKUP_TABLES, 0).bytes).toBe(again.bytes);
  });
});
