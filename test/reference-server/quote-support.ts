import { AddressLookupTableAccount, PublicKey, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { pubkeysAsBase58 } from '../../suites/quotes/msgpack-keys.ts';

/** Reading quote responses the way a client does: routes by provider id, compiled transactions, encodings compared. */

export type Json = Record<string, unknown>;

export const MINTS = {
  SOL: 'So11111111111111111111111111111111111111112',
  USDC: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  USDT: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
  JUP: 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN',
  BONK: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263',
  mSOL: 'mSoLzYCxHdYgdzU16g5QSh3i5K3z3KZK7ytfqcJm7So',
} as const;

/** An ordinary wallet (on the ed25519 curve). */
export const WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
export const OTHER_WALLET = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const ATA_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';

/** 100 SOL to USDC: both providers quote, titan splits over two pools, dflow takes one. */
export const SOL_TO_USDC = { inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '100000000000', userPublicKey: WALLET };

export interface Instruction {
  p: string;
  a: { p: string; s: boolean; w: boolean }[];
  d: string;
}

export interface Step extends Json {
  ammKey: string;
  label: string;
  inputMint: string;
  outputMint: string;
  inAmount: number;
  outAmount: number;
  allocPpb: number;
}

export interface Route extends Json {
  inAmount: number;
  outAmount: number;
  slippageBps: number;
  steps: Step[];
  instructions: Instruction[];
  addressLookupTables: string[];
}

export interface QuoteBody extends Json {
  id: string;
  quotes: Record<string, Route>;
  metadata: Json;
  alts?: { p: string; a: string[] }[];
}

export function routesOf(body: unknown): [string, Route][] {
  return Object.entries((body as QuoteBody).quotes);
}

export function associatedTokenAccount(owner: string, mint: string): string {
  return PublicKey.findProgramAddressSync(
    [new PublicKey(owner).toBuffer(), new PublicKey(TOKEN_PROGRAM).toBuffer(), new PublicKey(mint).toBuffer()],
    new PublicKey(ATA_PROGRAM),
  )[0].toBase58();
}

/** Steps grouped by input mint, with their allocPpb sum. */
export function allocationSums(route: Route): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const step of route.steps) sums[step.inputMint] = (sums[step.inputMint] ?? 0) + step.allocPpb;
  return sums;
}

/** The route compiled the way a client does: its instructions, its lookup tables from `alts`, the fee payer. */
export function compileRoute(
  route: Route,
  alts: readonly { p: string; a: string[] }[],
  feePayer = WALLET,
): {
  bytes: number;
  accounts: number;
  writable: number;
} {
  const instructions = route.instructions.map(
    (ix) =>
      new TransactionInstruction({
        programId: new PublicKey(ix.p),
        keys: ix.a.map((m) => ({ pubkey: new PublicKey(m.p), isSigner: m.s, isWritable: m.w })),
        data: Buffer.from(ix.d, 'base64'),
      }),
  );
  const tables = route.addressLookupTables.map((key) => {
    const contents = alts.find((alt) => alt.p === key);
    if (!contents) throw new Error(`alts has no table ${key}`);
    return new AddressLookupTableAccount({
      key: new PublicKey(key),
      state: {
        deactivationSlot: 2n ** 64n - 1n,
        lastExtendedSlot: 0,
        lastExtendedSlotStartIndex: 0,
        addresses: contents.a.map((a) => new PublicKey(a)),
      },
    });
  });
  const message = new TransactionMessage({ payerKey: new PublicKey(feePayer), recentBlockhash: WALLET, instructions }).compileToV0Message(
    tables,
  );
  const lookups = message.addressTableLookups;
  return {
    bytes: new VersionedTransaction(message).serialize().length,
    accounts: message.staticAccountKeys.length + lookups.reduce((n, l) => n + l.writableIndexes.length + l.readonlyIndexes.length, 0),
    writable:
      message.staticAccountKeys.filter((_, i) => message.isAccountWritable(i)).length +
      lookups.reduce((n, l) => n + l.writableIndexes.length, 0),
  };
}

/**
 * A decoded MessagePack value in its JSON form, read as the suite reads it: a public key sent as 32 raw bytes as its
 * base58 string, other bytes as base64, safe bigints as numbers.
 */
export function asJson(value: unknown): unknown {
  return plainJson(pubkeysAsBase58(value));
}

function plainJson(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Array.isArray(value)) return value.map(plainJson);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainJson(v)]));
  return value;
}

/** A quote response without the fields that change from one request to the next (ids, slots, timing, expiry). */
export function withoutVolatileFields(body: unknown): unknown {
  const volatile = new Set(['id', 'contextSlot', 'timeTakenNs', 'expiresAtMs', 'expiresAfterSlot', 'referenceId', 'tag', 'seq']);
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value)
          .filter(([k]) => !volatile.has(k))
          .map(([k, v]) => [k, strip(v)]),
      );
    }
    return value;
  };
  return strip(body);
}
