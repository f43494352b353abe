/**
 * Real Solana pieces the quote checks need: program ids, associated token accounts, the few instructions the
 * document names (create-token-account, close account, compute budget), and the size of a route assembled into a
 * real v0 transaction with its lookup tables (@solana/web3.js).
 */
import bs58 from 'bs58';
import {
  AddressLookupTableAccount,
  PublicKey,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
  type MessageV0,
} from '@solana/web3.js';
import { isObject } from '../shared/values.ts';

export const ATA_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
/** Token program instruction tag of CloseAccount (SPL Token and Token-2022 share it). */
export const CLOSE_ACCOUNT_TAG = 9;
/** Associated token account program instruction tag of CreateIdempotent (0 or no data is the plain Create). */
export const CREATE_IDEMPOTENT_TAG = 1;
/** Largest v0 transaction (Transaction sizing parameters: clamped to 1232 for format 0). */
export const FORMAT_0_SIZE_LIMIT = 1232;
export const FORMAT_1_SIZE_LIMIT = 4096;

export interface AccountMeta {
  p: string;
  s: boolean;
  w: boolean;
}
export interface Instruction {
  p: string;
  a: AccountMeta[];
  d: string;
}

/** Is `value` a base58 string of a 32-byte public key? */
export function isPubkey(value: unknown): value is string {
  if (typeof value !== 'string' || !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(value)) return false;
  try {
    return bs58.decode(value).length === 32;
  } catch {
    return false;
  }
}

/** The instructions of a route when every one has the documented shape (JSON view: `d` base64), else undefined. */
export function instructionsOf(route: unknown): Instruction[] | undefined {
  if (!isObject(route) || !Array.isArray(route.instructions)) return undefined;
  const out: Instruction[] = [];
  for (const ix of route.instructions) {
    if (!isObject(ix) || !isPubkey(ix.p) || !Array.isArray(ix.a) || typeof ix.d !== 'string') return undefined;
    const metas: AccountMeta[] = [];
    for (const m of ix.a) {
      if (!isObject(m) || !isPubkey(m.p) || typeof m.s !== 'boolean' || typeof m.w !== 'boolean') return undefined;
      metas.push({ p: m.p, s: m.s, w: m.w });
    }
    out.push({ p: ix.p, a: metas, d: ix.d });
  }
  return out;
}

export function dataOf(ix: Instruction): Buffer {
  return Buffer.from(ix.d, 'base64');
}

const ataCache = new Map<string, string[]>();

/** The associated token account of `owner` for `mint`, under SPL Token and under Token-2022. */
export function associatedTokenAccounts(owner: string, mint: string): string[] {
  const key = `${owner}/${mint}`;
  let found = ataCache.get(key);
  if (!found) {
    const seeds = (program: string) => [new PublicKey(owner).toBuffer(), new PublicKey(program).toBuffer(), new PublicKey(mint).toBuffer()];
    found = [TOKEN_PROGRAM, TOKEN_2022_PROGRAM].map((program) =>
      PublicKey.findProgramAddressSync(seeds(program), new PublicKey(ATA_PROGRAM))[0].toBase58(),
    );
    ataCache.set(key, found);
  }
  return found;
}

/** Create-token-account instructions of the associated token account program for `mint`. */
export function createAccountInstructions(instructions: Instruction[], mint: string): Instruction[] {
  return instructions.filter((ix) => ix.p === ATA_PROGRAM && ix.a.some((m) => m.p === mint));
}

export function isIdempotentCreate(ix: Instruction): boolean {
  const data = dataOf(ix);
  return data.length === 1 && data[0] === CREATE_IDEMPOTENT_TAG;
}

/** CloseAccount instructions of either token program: accounts [account, destination, owner]. */
export function closeAccountInstructions(instructions: Instruction[]): Array<{ ix: Instruction; closed: string; owner?: string }> {
  return instructions
    .filter((ix) => (ix.p === TOKEN_PROGRAM || ix.p === TOKEN_2022_PROGRAM) && dataOf(ix)[0] === CLOSE_ACCOUNT_TAG && ix.a.length >= 1)
    .map((ix) => ({ ix, closed: ix.a[0]!.p, owner: ix.a[2]?.p }));
}

/** Unique addresses of the accounts the instructions pass (program ids only where they are passed as accounts). */
export function uniqueAccounts(instructions: Instruction[]): Set<string> {
  return new Set(instructions.flatMap((ix) => ix.a.map((m) => m.p)));
}

/** Unique addresses passed writable by at least one instruction (they are writable in the transaction). */
export function uniqueWritableAccounts(instructions: Instruction[]): Set<string> {
  return new Set(instructions.flatMap((ix) => ix.a.filter((m) => m.w).map((m) => m.p)));
}

export function signerAccounts(instructions: Instruction[]): Set<string> {
  return new Set(instructions.flatMap((ix) => ix.a.filter((m) => m.s).map((m) => m.p)));
}

function shortVecLength(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : 3;
}

/** Bytes of a serialized v0 transaction carrying this message and its (empty) signatures. */
export function v0TransactionSize(message: MessageV0): number {
  const signatures = message.header.numRequiredSignatures;
  let size = shortVecLength(signatures) + 64 * signatures;
  size += 1 + 3 + shortVecLength(message.staticAccountKeys.length) + 32 * message.staticAccountKeys.length + 32;
  size += shortVecLength(message.compiledInstructions.length);
  for (const ix of message.compiledInstructions) {
    size += 1 + shortVecLength(ix.accountKeyIndexes.length) + ix.accountKeyIndexes.length + shortVecLength(ix.data.length) + ix.data.length;
  }
  size += shortVecLength(message.addressTableLookups.length);
  for (const lookup of message.addressTableLookups) {
    size +=
      32 +
      shortVecLength(lookup.writableIndexes.length) +
      lookup.writableIndexes.length +
      shortVecLength(lookup.readonlyIndexes.length) +
      lookup.readonlyIndexes.length;
  }
  return size;
}

export interface CompiledRoute {
  /** Serialized size in bytes (VersionedTransaction.serialize when it fits a packet, else counted the same way). */
  size: number;
  /** Accounts the transaction lists statically (not loaded through a lookup table). */
  staticAccounts: number;
  /** The lookup tables the smallest compilation used. */
  tablesUsed: string[];
  /** Every subset of the tables was tried (at most MAX_TABLE_SUBSETS tables), so `size` is the smallest web3.js reaches. */
  exhaustive: boolean;
}

/** Up to this many lookup tables every subset is compiled (2^6 compilations); beyond it only all and none. */
export const MAX_TABLE_SUBSETS = 6;

/**
 * The route's instructions compiled into a v0 transaction (user as fee payer, a placeholder blockhash, empty
 * signatures), with lookup tables taken from `tables` (address -> contents). web3.js puts every account it can into
 * a lookup table even where a table costs more than it saves, so every subset of the route's tables is compiled and
 * the smallest transaction is kept: a quote engine that packs better than web3.js is never reported. Returns
 * undefined when web3.js cannot compile the instructions at all.
 */
export function compileRoute(
  instructions: Instruction[],
  payer: string,
  tables: ReadonlyMap<string, readonly string[]>,
  tableKeys: readonly string[],
): CompiledRoute | undefined {
  // A pure function of its inputs, and up to 2^6 compilations: a route seen before (the same quote sampled again, by
  // another check or property) is compiled once.
  const used = [...new Set(tableKeys)].filter((k) => tables.has(k));
  const key = JSON.stringify([instructions.map((ix) => [ix.p, ix.a, ix.d]), payer, used.map((k) => [k, tables.get(k)])]);
  if (!compiled.has(key)) {
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(key, compileRouteOnce(instructions, payer, tables, used));
  }
  const hit = compiled.get(key);
  return hit && { ...hit, tablesUsed: [...hit.tablesUsed] };
}

/** compileRoute's results, by their inputs; forgotten all at once when full. */
const compiled = new Map<string, CompiledRoute | undefined>();
const MAX_COMPILED = 2_000;

function compileRouteOnce(
  instructions: Instruction[],
  payer: string,
  tables: ReadonlyMap<string, readonly string[]>,
  tableKeys: readonly string[],
): CompiledRoute | undefined {
  const ixs = instructions.map(
    (ix) =>
      new TransactionInstruction({
        programId: new PublicKey(ix.p),
        keys: ix.a.map((m) => ({ pubkey: new PublicKey(m.p), isSigner: m.s, isWritable: m.w })),
        data: dataOf(ix),
      }),
  );
  const accounts = tableKeys.map(
    (key) =>
      new AddressLookupTableAccount({
        key: new PublicKey(key),
        state: {
          deactivationSlot: BigInt('18446744073709551615'),
          lastExtendedSlot: 0,
          lastExtendedSlotStartIndex: 0,
          addresses: (tables.get(key) ?? []).map((a) => new PublicKey(a)),
        },
      }),
  );
  const blockhash = bs58.encode(Buffer.alloc(32, 7));
  const exhaustive = accounts.length <= MAX_TABLE_SUBSETS;
  const subsets = exhaustive
    ? Array.from({ length: 1 << accounts.length }, (_, mask) => accounts.filter((__, i) => (mask >> i) & 1))
    : [[], accounts];
  let best: CompiledRoute | undefined;
  for (const subset of subsets) {
    let message: MessageV0;
    try {
      message = new TransactionMessage({
        payerKey: new PublicKey(payer),
        recentBlockhash: blockhash,
        instructions: ixs,
      }).compileToV0Message(subset);
    } catch {
      continue;
    }
    let size = v0TransactionSize(message);
    if (size <= FORMAT_0_SIZE_LIMIT) {
      try {
        size = new VersionedTransaction(message).serialize().length;
      } catch {
        /* counted above */
      }
    }
    const staticAccounts = message.staticAccountKeys.length;
    if (!best || size < best.size) {
      best = {
        size,
        staticAccounts: Math.min(staticAccounts, best?.staticAccounts ?? Infinity),
        tablesUsed: subset.map((a) => a.key.toBase58()),
        exhaustive,
      };
    } else best.staticAccounts = Math.min(best.staticAccounts, staticAccounts);
  }
  return best;
}
