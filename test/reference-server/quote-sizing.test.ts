import { PublicKey, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { referenceAddress } from '../../fixtures/server/quotes/engine/chain.ts';
import {
  createAssociatedTokenAccountIdempotent,
  type Instruction,
  toWeb3,
  transferLamports,
} from '../../fixtures/server/quotes/engine/instructions.ts';
import { LOOKUP_TABLES } from '../../fixtures/server/quotes/engine/lookup-tables.ts';
import { compileTransaction, countedFormatZeroBytes, formatOneBytes, formatZeroBytes } from '../../fixtures/server/quotes/engine/sizing.ts';
import { MINTS, OTHER_WALLET, WALLET } from './quote-support.ts';

/** The sizing module on its own: the byte counts agree with web3.js, format 1 is the layout web3.js reads. */

/** A transaction of `n` instructions, each with a few accounts, some of them in the lookup tables. */
function instructions(n: number): Instruction[] {
  const pool = LOOKUP_TABLES[0]!.addresses;
  return Array.from({ length: n }, (_, i) => ({
    ...createAssociatedTokenAccountIdempotent(WALLET, pool[(i * 3) % pool.length]!, WALLET, MINTS.USDC),
    a: [
      { p: WALLET, s: true, w: true },
      { p: pool[(i * 5 + 1) % pool.length]!, s: false, w: true },
      { p: OTHER_WALLET, s: false, w: false },
    ],
  }));
}

function message(ixs: Instruction[], withTables: boolean) {
  return new TransactionMessage({
    payerKey: new PublicKey(WALLET),
    recentBlockhash: WALLET,
    instructions: ixs.map(toWeb3),
  }).compileToV0Message(withTables ? LOOKUP_TABLES.map((t) => t.account) : []);
}

describe('transaction sizing', () => {
  it('counts the v0 layout byte for byte as web3.js serializes it', () => {
    for (const n of [1, 3, 8]) {
      for (const withTables of [true, false]) {
        const m = message(instructions(n), withTables);
        expect(countedFormatZeroBytes(m)).toBe(new VersionedTransaction(m).serialize().length);
        expect(formatZeroBytes(m)).toBe(new VersionedTransaction(m).serialize().length);
      }
    }
  });

  it('measures v0 transactions beyond one packet by counting (web3.js cannot serialize them)', () => {
    const many = Array.from({ length: 40 }, (_, i) => transferLamports(WALLET, referenceAddress('sizing-test', String(i)), 1n));
    const m = message(many, false);
    expect(() => new VersionedTransaction(m).serialize()).toThrow(RangeError);
    expect(formatZeroBytes(m)).toBeGreaterThan(1232);
  });

  it('writes format 1 as the version-1 layout web3.js deserializes', () => {
    const m = message([...instructions(4), transferLamports(WALLET, OTHER_WALLET, 5n)], false);
    const bytes = formatOneBytes(m);
    const decoded = VersionedTransaction.deserialize(bytes);
    expect(decoded.version).toBe(1);
    expect(decoded.message.staticAccountKeys.map(String)).toEqual(m.staticAccountKeys.map(String));
    expect(decoded.message.compiledInstructions.map((ix) => [ix.programIdIndex, [...ix.accountKeyIndexes], [...ix.data]])).toEqual(
      m.compiledInstructions.map((ix) => [ix.programIdIndex, [...ix.accountKeyIndexes], [...ix.data]]),
    );
    expect(decoded.signatures).toHaveLength(m.header.numRequiredSignatures);
  });

  it('counts accounts and writable accounts as the transaction loads them, and keeps only used tables', () => {
    const compiled = compileTransaction(instructions(2), WALLET, LOOKUP_TABLES, 0);
    const m = message(instructions(2), true);
    expect(compiled.lookupTables).toEqual(m.addressTableLookups.map((l) => l.accountKey.toBase58()));
    expect(compiled.lookupTables.length).toBeLessThan(LOOKUP_TABLES.length);
    expect(compiled.accounts).toBe(m.getAccountKeys({ addressLookupTableAccounts: LOOKUP_TABLES.map((t) => t.account) }).length);
    expect(compileTransaction(instructions(2), WALLET, LOOKUP_TABLES, 1).lookupTables).toEqual([]);
    expect(compileTransaction(instructions(2), WALLET, [], 0).writableAccounts).toBe(compiled.writableAccounts);
  });
});
