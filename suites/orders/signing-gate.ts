import { Keypair, PublicKey, SystemProgram, Transaction, VersionedMessage } from '@solana/web3.js';
import bs58 from 'bs58';
import type { Exchange } from '../harness/exchange.ts';
import { ConformanceFailure } from '../harness/failure.ts';
import { type RuleId } from '../../generators/vocabulary.ts';
import { ed25519Signature } from './ed25519.ts';

/**
 * The signing gate: the only place where the suite signs a transaction with a user's wallet (issue 12). The suite
 * holds a partner's funded wallet; a target it does not control hands it transactions to sign. Nothing is signed
 * that was not decoded and verified against what the documents call for at that step:
 *
 * 1. The bytes are one Solana transaction (legacy or v0 without lookup tables: every account is known), at most
 *    1232 bytes, with a 32-byte recent blockhash and one signature slot per required signer.
 * 2. The fee payer is the user's wallet; the only other signer allowed is the user's manager, on withdrawals
 *    (the service co-signs the manager's side at confirm).
 * 3. Every instruction is one the step calls for, with exactly the accounts of its role:
 *    - deposit (POST /orders/intent): the intent's inputAmount of inputMint from the user to the manager, and
 *      feeLamports of the native asset to the manager ("included in the deposit transaction");
 *    - DCA modify (PATCH /dca/{id}, totalAmount raised): the raise of the input mint from the user to the manager;
 *    - withdrawals (wallet-level and order-level): funds only from the manager to the user's own wallet ("What the
 *      service does" 5: withdrawals go only to the user's own external wallet);
 *    - around them, instructions that move nothing of the user's to anyone else: a memo, compute-budget settings
 *      with a bounded priority fee, creating the receiving side's associated token account, syncing wrapped SOL.
 * 4. Nothing else of the user's wallet is debited: the sums moved equal what the step names.
 *
 * Anything else is refused unsigned: a ConformanceFailure of the step's rule (the target handed out a transaction
 * the documents do not describe), printed decoded, so the partner sees what was asked of the wallet. The signature
 * is made over the exact message bytes that were verified and placed in the user's slot of the original bytes.
 */

export const SYSTEM_PROGRAM = SystemProgram.programId.toBase58();
export const NATIVE_MINT = 'So11111111111111111111111111111111111111112';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
const MEMO_PROGRAMS = ['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo'];
/** The packet limit of a Solana transaction. */
export const MAX_TRANSACTION_BYTES = 1232;
/** The most a compute-budget setting may add to the fee (0.005 of the native asset, the documented execution fee). */
export const MAX_PRIORITY_FEE_LAMPORTS = 5_000_000n;
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000n;
const MAX_COMPUTE_UNITS = 1_400_000n;

/** The step a transaction is signed for, and the rule it fails when the target hands out something else. */
export type SigningStep =
  | { kind: 'deposit'; inputMint: string; inputAmount: bigint; feeLamports: bigint }
  | { kind: 'dca-modify'; inputMint: string; raise: bigint }
  | { kind: 'wallet-withdrawal'; mints: readonly string[] }
  | { kind: 'order-withdrawal'; mints: readonly string[] };

export const STEP_RULES: Record<SigningStep['kind'], RuleId> = {
  deposit: 'OA-INT-018',
  'dca-modify': 'OA-DCA-022',
  'wallet-withdrawal': 'OA-WDW-015',
  'order-withdrawal': 'OA-OWD-031',
};

const STEP_WORDS: Record<SigningStep['kind'], string> = {
  deposit: 'the deposit of POST /orders/intent',
  'dca-modify': 'the totalAmount change of PATCH /dca/{orderId}',
  'wallet-withdrawal': 'the wallet-level withdrawal of POST /withdraw/transaction',
  'order-withdrawal': 'the order-level withdrawal of POST /orders/{orderId}/withdraw',
};

/** Who signs: the user's external wallet (its keypair) and its manager. */
export interface GateUser {
  keypair: Keypair;
  userPubkey: string;
  walletAddress: string;
}

export interface GateOptions {
  /** The exchange that handed the transaction out (for the failure report). */
  exchange?: Exchange;
  /**
   * The suite changed the target's transaction itself, to probe the target's tamper checks: its movements may be
   * smaller than the step's and may go back to the user's own accounts, never anywhere else.
   */
  suiteTampered?: boolean;
}

interface Account {
  key: string;
  signer: boolean;
  writable: boolean;
}

interface Instruction {
  program: string;
  accounts: Account[];
  data: Buffer;
}

/** A transaction as the gate reads it. */
export interface DecodedTransaction {
  version: 'legacy' | number;
  size: number;
  feePayer: string;
  signers: string[];
  recentBlockhash: string;
  lookupTables: number;
  instructions: Instruction[];
  /** Where the signature slots start and how many there are; the message bytes follow them. */
  slots: { offset: number; count: number };
  message: Buffer;
}

/** The signature count's compact-u16 prefix: [value, bytes used]. */
function shortVec(bytes: Buffer): [number, number] {
  let value = 0;
  for (let i = 0; i < 3; i++) {
    const byte = bytes[i];
    if (byte === undefined) throw new Error('the transaction ends inside its signature count');
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return [value, i + 1];
  }
  throw new Error('the signature count is longer than three bytes');
}

/** Decode the wire bytes; throws with the reason when they are not exactly one transaction. */
export function decodeForSigning(base64: string): DecodedTransaction {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 !== 0 || base64.length === 0)
    throw new Error('the transaction is not standard base64');
  const bytes = Buffer.from(base64, 'base64');
  const [count, prefix] = shortVec(bytes);
  const offset = prefix;
  const messageBytes = bytes.subarray(offset + 64 * count);
  if (messageBytes.length === 0) throw new Error(`${count} signature slots and no message`);
  const message = VersionedMessage.deserialize(messageBytes);
  if (!Buffer.from(message.serialize()).equals(messageBytes))
    throw new Error('the bytes after the message do not belong to it (trailing or non-canonical bytes)');
  if (message.header.numRequiredSignatures !== count)
    throw new Error(`${count} signature slots for ${message.header.numRequiredSignatures} required signers`);
  const keys = message.staticAccountKeys.map((key) => key.toBase58());
  const account = (index: number): Account => {
    const key = keys[index];
    if (key === undefined)
      throw new Error(`an instruction names account ${index}, beyond the ${keys.length} keys (lookup-table accounts cannot be verified)`);
    return { key, signer: message.isAccountSigner(index), writable: message.isAccountWritable(index) };
  };
  const instructions = message.compiledInstructions.map((ix) => ({
    program: account(ix.programIdIndex).key,
    accounts: ix.accountKeyIndexes.map(account),
    data: Buffer.from(ix.data),
  }));
  return {
    version: message.version,
    size: bytes.length,
    feePayer: keys[0] ?? '(none)',
    signers: keys.slice(0, count),
    recentBlockhash: message.recentBlockhash,
    lookupTables: message.addressTableLookups.length,
    instructions,
    slots: { offset, count },
    message: messageBytes,
  };
}

/** The associated token account of `owner` for `mint` under the token `program` (a pure derivation, each made once). */
export function associatedTokenAccount(owner: string, mint: string, program: string): string {
  const key = `${owner} ${mint} ${program}`;
  let address = derived.get(key);
  if (address === undefined) {
    address = PublicKey.findProgramAddressSync(
      [new PublicKey(owner).toBuffer(), new PublicKey(program).toBuffer(), new PublicKey(mint).toBuffer()],
      new PublicKey(ASSOCIATED_TOKEN_PROGRAM),
    )[0].toBase58();
    if (derived.size >= 10_000) derived.clear();
    derived.set(key, address);
  }
  return address;
}

/** associatedTokenAccount's answers, by owner, mint and program; forgotten all at once when full. */
const derived = new Map<string, string>();

const short = (key: string, names: Record<string, string>) => names[key] ?? key;

/** One line per instruction, in words: what the wallet would be asked to sign. */
export function describeTransaction(tx: DecodedTransaction, names: Record<string, string> = {}): string[] {
  const lines = [
    `${tx.version === 'legacy' ? 'legacy' : `v${tx.version}`} transaction, ${tx.size} bytes, fee payer ${short(tx.feePayer, names)}, ` +
      `signers [${tx.signers.map((s) => short(s, names)).join(', ')}], recent blockhash ${tx.recentBlockhash}` +
      (tx.lookupTables > 0 ? `, ${tx.lookupTables} address lookup table(s)` : ''),
  ];
  tx.instructions.forEach((ix, i) => lines.push(`#${i} ${describeInstruction(ix, names)}`));
  return lines;
}

function describeInstruction(ix: Instruction, names: Record<string, string>): string {
  const n = (account: Account | undefined) => (account ? short(account.key, names) : '(missing)');
  const a = ix.accounts;
  if (ix.program === SYSTEM_PROGRAM && ix.data.length >= 12 && ix.data.readUInt32LE(0) === 2) {
    return `system transfer of ${ix.data.readBigUInt64LE(4)} lamports from ${n(a[0])} to ${n(a[1])}`;
  }
  if ((ix.program === TOKEN_PROGRAM || ix.program === TOKEN_2022_PROGRAM) && ix.data.length >= 9) {
    if (ix.data[0] === 12)
      return `token TransferChecked of ${ix.data.readBigUInt64LE(1)} of mint ${n(a[1])} from ${n(a[0])} to ${n(a[2])}, authority ${n(a[3])}`;
    if (ix.data[0] === 3) return `token Transfer of ${ix.data.readBigUInt64LE(1)} from ${n(a[0])} to ${n(a[1])}, authority ${n(a[2])}`;
  }
  if (MEMO_PROGRAMS.includes(ix.program)) return `memo ${JSON.stringify(ix.data.toString('utf8').slice(0, 80))}`;
  return (
    `program ${short(ix.program, names)}, data ${ix.data.subarray(0, 32).toString('hex')}${ix.data.length > 32 ? '…' : ''} (${ix.data.length} bytes), ` +
    `accounts [${a.map((account) => `${n(account)}${account.signer ? ' (signer)' : ''}${account.writable ? ' (writable)' : ''}`).join(', ')}]`
  );
}

/** What one step lets move: amounts by mint, from the user to the manager, or from the manager to the user. */
interface Allowance {
  /** user -> manager, by mint (native lamports under NATIVE_MINT); the fee is its own entry. */
  toManager: Map<string, bigint>;
  feeLamports: bigint;
  /** manager -> user: the mints that may move (any amount; the withdrawal rules judge the amounts). */
  toUser: ReadonlySet<string> | 'any';
  otherSigners: ReadonlySet<string>;
}

function allowanceOf(step: SigningStep, user: GateUser): Allowance {
  switch (step.kind) {
    case 'deposit':
      return {
        toManager: new Map([[step.inputMint, step.inputAmount]]),
        feeLamports: step.feeLamports,
        toUser: new Set(),
        otherSigners: new Set(),
      };
    case 'dca-modify':
      return {
        toManager: new Map([[step.inputMint, step.raise > 0n ? step.raise : 0n]]),
        feeLamports: 0n,
        toUser: new Set(),
        otherSigners: new Set(),
      };
    case 'wallet-withdrawal':
    case 'order-withdrawal':
      return {
        toManager: new Map(),
        feeLamports: 0n,
        toUser: step.mints.length > 0 ? new Set(step.mints) : 'any',
        otherSigners: new Set([user.walletAddress]),
      };
  }
}

/** The problems that forbid signing; empty when the transaction is what the step calls for. */
export function problemsOf(tx: DecodedTransaction, step: SigningStep, user: GateUser, suiteTampered = false): string[] {
  const problems: string[] = [];
  const allow = allowanceOf(step, user);
  const { userPubkey: me, walletAddress: manager } = user;
  if (tx.size > MAX_TRANSACTION_BYTES) problems.push(`${tx.size} bytes, over the ${MAX_TRANSACTION_BYTES}-byte limit of a transaction`);
  let hash: Uint8Array | undefined;
  try {
    hash = bs58.decode(tx.recentBlockhash);
  } catch {
    /* reported below */
  }
  if (hash?.length !== 32) problems.push(`the recent blockhash ${tx.recentBlockhash} is not 32 bytes`);
  if (tx.lookupTables > 0) problems.push('it loads accounts from address lookup tables, which cannot be verified without the chain');
  if (tx.feePayer !== me) problems.push(`the fee payer is ${tx.feePayer}, not the user's wallet ${me}`);
  for (const signer of tx.signers)
    if (signer !== me && !allow.otherSigners.has(signer))
      problems.push(`it needs the signature of ${signer}, neither the user's wallet nor its manager`);

  const toManager = new Map<string, bigint>();
  let fee = 0n;
  let units: bigint | undefined;
  let microLamports = 0n;
  const add = (map: Map<string, bigint>, mint: string, amount: bigint) => map.set(mint, (map.get(mint) ?? 0n) + amount);
  const mints = [...new Set([...allow.toManager.keys(), ...(allow.toUser === 'any' ? [] : allow.toUser), NATIVE_MINT])];
  const ataOf = (owner: string, mint: string, program: string) => associatedTokenAccount(owner, mint, program);
  const mayReceiveFromManager = (mint: string) => allow.toUser === 'any' || allow.toUser.has(mint);

  tx.instructions.forEach((ix, i) => {
    const where = `instruction #${i}`;
    const a = ix.accounts;
    if (MEMO_PROGRAMS.includes(ix.program)) {
      if (a.some((account) => account.writable)) problems.push(`${where}: a memo that writes to an account`);
      return;
    }
    if (ix.program === COMPUTE_BUDGET_PROGRAM) {
      const kind = ix.data[0];
      if (kind === 2 && ix.data.length >= 5) units = BigInt(ix.data.readUInt32LE(1));
      else if (kind === 3 && ix.data.length >= 9) microLamports = ix.data.readBigUInt64LE(1);
      else if (kind !== 1 && kind !== 4) problems.push(`${where}: a compute-budget instruction of unknown kind ${String(kind)}`);
      return;
    }
    if (ix.program === SYSTEM_PROGRAM) {
      if (ix.data.length !== 12 || ix.data.readUInt32LE(0) !== 2 || a.length !== 2) {
        problems.push(`${where}: a system instruction other than a transfer (${describeInstruction(ix, {})})`);
        return;
      }
      const lamports = ix.data.readBigUInt64LE(4);
      const [from, to] = [a[0]!.key, a[1]!.key];
      if (from === me && (to === manager || to === ataOf(manager, NATIVE_MINT, TOKEN_PROGRAM))) {
        const native = allow.toManager.get(NATIVE_MINT);
        if (native !== undefined && (toManager.get(NATIVE_MINT) ?? 0n) < native) {
          const room = native - (toManager.get(NATIVE_MINT) ?? 0n);
          const part = lamports < room ? lamports : room;
          add(toManager, NATIVE_MINT, part);
          fee += lamports - part;
        } else fee += lamports;
      } else if (from === manager && to === me && mayReceiveFromManager(NATIVE_MINT)) {
        // the manager pays the user back
      } else if (suiteTampered && from === me && to === me) {
        // a transfer to oneself moves nothing
      } else problems.push(`${where}: a system transfer of ${lamports} lamports from ${from} to ${to}, not ${describeAllowed(step)}`);
      return;
    }
    if (ix.program === TOKEN_PROGRAM || ix.program === TOKEN_2022_PROGRAM) {
      const kind = ix.data[0];
      if (
        kind === 17 &&
        a.length === 1 &&
        [ataOf(manager, NATIVE_MINT, ix.program), ataOf(me, NATIVE_MINT, ix.program)].includes(a[0]!.key)
      )
        return; // SyncNative
      const checked = kind === 12 && ix.data.length === 10 && a.length === 4;
      const plain = kind === 3 && ix.data.length === 9 && a.length === 3;
      if (!checked && !plain) {
        problems.push(`${where}: a token instruction other than a transfer (${describeInstruction(ix, {})})`);
        return;
      }
      const amount = ix.data.readBigUInt64LE(1);
      const [source, destination, authority] = checked ? [a[0]!.key, a[2]!.key, a[3]!.key] : [a[0]!.key, a[1]!.key, a[2]!.key];
      const candidates = checked ? [a[1]!.key] : mints;
      const mint = candidates.find(
        (m) =>
          (authority === me &&
            source === ataOf(me, m, ix.program) &&
            (destination === ataOf(manager, m, ix.program) || (suiteTampered && destination === ataOf(me, m, ix.program)))) ||
          (authority === manager && source === ataOf(manager, m, ix.program) && destination === ataOf(me, m, ix.program)),
      );
      if (mint === undefined) {
        problems.push(`${where}: ${describeInstruction(ix, {})}, not ${describeAllowed(step)}`);
        return;
      }
      if (authority === me && destination === ataOf(manager, mint, ix.program)) {
        if (!allow.toManager.has(mint))
          problems.push(`${where}: moves ${amount} of ${mint} from the user to the manager; ${STEP_WORDS[step.kind]} moves none of it`);
        add(toManager, mint, amount);
      } else if (authority === manager && !mayReceiveFromManager(mint)) {
        problems.push(`${where}: pays ${mint} to the user, a mint this withdrawal does not name`);
      }
      return;
    }
    if (ix.program === ASSOCIATED_TOKEN_PROGRAM) {
      const kind = ix.data.length === 0 ? 0 : ix.data[0];
      const [payer, ata, owner, mint, , program] = a.map((account) => account.key);
      const owners = step.kind === 'deposit' || step.kind === 'dca-modify' ? [manager] : [me];
      const createMint = (m: string | undefined) =>
        m !== undefined && (step.kind.endsWith('withdrawal') ? mayReceiveFromManager(m) : allow.toManager.has(m));
      if (
        (kind === 0 || kind === 1) &&
        ix.data.length <= 1 &&
        a.length === 6 &&
        payer === me &&
        owners.includes(owner!) &&
        createMint(mint) &&
        (program === TOKEN_PROGRAM || program === TOKEN_2022_PROGRAM) &&
        ata === ataOf(owner!, mint!, program!)
      )
        return;
      problems.push(
        `${where}: an associated-token-account instruction other than creating ${step.kind.endsWith('withdrawal') ? "the user's" : "the manager's"} account of the step's mint (${describeInstruction(ix, {})})`,
      );
      return;
    }
    problems.push(`${where}: ${describeInstruction(ix, {})}: no instruction of ${STEP_WORDS[step.kind]}`);
  });

  for (const [mint, expected] of allow.toManager) {
    const moved = toManager.get(mint) ?? 0n;
    if (suiteTampered ? moved > expected : moved !== expected)
      problems.push(
        `it moves ${moved} of ${mint} from the user to the manager; ${STEP_WORDS[step.kind]} moves ${suiteTampered ? 'at most ' : ''}${expected}`,
      );
  }
  if (suiteTampered ? fee > allow.feeLamports : fee !== allow.feeLamports)
    problems.push(`it moves ${fee} lamports of fees from the user to the manager; ${STEP_WORDS[step.kind]} moves ${allow.feeLamports}`);
  const budgeted = units ?? DEFAULT_UNITS_PER_INSTRUCTION * BigInt(Math.max(1, tx.instructions.length));
  const priority = ((budgeted > MAX_COMPUTE_UNITS ? MAX_COMPUTE_UNITS : budgeted) * microLamports + 999_999n) / 1_000_000n;
  if (priority > MAX_PRIORITY_FEE_LAMPORTS)
    problems.push(`its compute-budget settings add a priority fee of ${priority} lamports, over ${MAX_PRIORITY_FEE_LAMPORTS}`);
  return problems;
}

function describeAllowed(step: SigningStep): string {
  return step.kind === 'deposit' || step.kind === 'dca-modify'
    ? "from the user's wallet to its manager"
    : "from the manager to the user's own wallet";
}

function documentedFor(step: SigningStep): string {
  switch (step.kind) {
    case 'deposit':
      return (
        `a deposit paid by the user's wallet that moves exactly inputAmount ${step.inputAmount} of ${step.inputMint}` +
        `${step.feeLamports > 0n ? ` and feeLamports ${step.feeLamports}` : ''} to the user's manager, and nothing else of the wallet ` +
        "(memo, compute budget and creating the manager's token account aside)"
      );
    case 'dca-modify':
      return `a totalAmount change that moves ${step.raise > 0n ? step.raise : 0n} of ${step.inputMint} from the user's wallet to its manager, and nothing else of the wallet`;
    default:
      return "a withdrawal paid by the user's wallet that moves funds only from the manager to the user's own wallet, and nothing else of the wallet";
  }
}

/** Refused unsigned: the target handed out a transaction the documents do not describe at this step. */
export class SigningRefused extends ConformanceFailure {
  constructor(
    readonly step: SigningStep,
    readonly problems: string[],
    readonly decoded: string[],
    exchange?: Exchange,
  ) {
    super(STEP_RULES[step.kind], {
      documented: `${STEP_WORDS[step.kind]}: ${documentedFor(step)}. The suite refused to sign it`,
      received: { problems, transaction: decoded },
      exchange,
    });
  }
}

/**
 * The one way the suite signs for a user: decode, verify against `step`, then sign the verified message bytes with
 * the user's wallet. Throws SigningRefused (a failure of the step's rule) with the decoded transaction otherwise.
 */
export function signForStep(base64: string, step: SigningStep, user: GateUser, opts: GateOptions = {}): string {
  const names = { [user.userPubkey]: "the user's wallet", [user.walletAddress]: 'the manager' };
  let tx: DecodedTransaction;
  try {
    tx = decodeForSigning(base64);
  } catch (e) {
    throw new SigningRefused(
      step,
      [`it does not decode as one transaction: ${(e as Error).message}`],
      [`${base64.slice(0, 120)}${base64.length > 120 ? '…' : ''}`],
      opts.exchange,
    );
  }
  if (user.keypair.publicKey.toBase58() !== user.userPubkey) throw new Error("signing gate: the keypair is not the user's wallet");
  const problems = problemsOf(tx, step, user, opts.suiteTampered);
  if (problems.length > 0) throw new SigningRefused(step, problems, describeTransaction(tx, names), opts.exchange);
  const slot = tx.signers.indexOf(user.userPubkey);
  const bytes = Buffer.from(base64, 'base64');
  ed25519Signature(tx.message, user.keypair).copy(bytes, tx.slots.offset + 64 * slot);
  return bytes.toString('base64');
}

/**
 * A signature by a fresh throwaway key (never a user's wallet), for probes that need a well-formed but wrong
 * signature or a transaction nobody owns.
 */
export function throwawaySignature(bytes: Buffer): Buffer {
  return ed25519Signature(bytes, Keypair.generate());
}

/** A legacy transaction signed by a throwaway `payer` the check generated (never a user's wallet). */
export function signedByThrowaway(tx: Transaction, payer: Keypair): string {
  if (protectedWallets.has(payer.publicKey.toBase58())) throw new Error('signing gate: a user wallet used as a throwaway payer');
  tx.sign(payer);
  return tx.serialize().toString('base64');
}

/** The run's own wallet (TEST_WALLET_SECRET_KEY): it never signs a probe (users.ts registers it). */
const protectedWallets = new Set<string>();

export function protectWallet(wallet: Keypair): void {
  protectedWallets.add(wallet.publicKey.toBase58());
}

export function isProtectedWallet(wallet: Keypair): boolean {
  return protectedWallets.has(wallet.publicKey.toBase58());
}
