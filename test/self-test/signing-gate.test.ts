/**
 * The signing gate (suites/orders/signing-gate.ts): the suite signs with a partner's funded wallet only what it
 * decoded and verified. Unit cases over real serialized transactions, then hostile targets (the signing mutants of
 * the reference server): every forged transaction is refused unsigned, fails the step's rule, and no request of the
 * run carries it signed.
 */
import {
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import { describe, expect, test } from 'vitest';
import { STRANGER } from '../../fixtures/mutants/orders/replies.ts';
import { allChecks } from '../../suites/index.ts';
import {
  associatedTokenAccount,
  decodeForSigning,
  problemsOf,
  protectWallet,
  signForStep,
  SigningRefused,
  TOKEN_PROGRAM,
  type SigningStep,
} from '../../suites/orders/signing-gate.ts';
import { onboardBody } from '../../suites/orders/siws.ts';
import { runAgainstReference } from './run.ts';
import type { RuleId } from '../../generators/vocabulary.ts';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const NATIVE = 'So11111111111111111111111111111111111111112';
const MEMO = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const wallet = Keypair.generate();
const manager = Keypair.generate().publicKey;
const user = { keypair: wallet, userPubkey: wallet.publicKey.toBase58(), walletAddress: manager.toBase58() };
const blockhash = () => bs58.encode(Keypair.generate().publicKey.toBytes());

/** A TransferChecked of `amount` USDC from `owner`'s associated account (authority `authority`) to `to`'s. */
function usdcTransfer(owner: PublicKey, to: PublicKey, amount: bigint, authority = owner): TransactionInstruction {
  const data = Buffer.alloc(10);
  data.writeUInt8(12, 0);
  data.writeBigUInt64LE(amount, 1);
  data.writeUInt8(6, 9);
  const ata = (o: PublicKey) => new PublicKey(associatedTokenAccount(o.toBase58(), USDC, TOKEN_PROGRAM));
  return new TransactionInstruction({
    programId: new PublicKey(TOKEN_PROGRAM),
    keys: [
      { pubkey: ata(owner), isSigner: false, isWritable: true },
      { pubkey: new PublicKey(USDC), isSigner: false, isWritable: false },
      { pubkey: ata(to), isSigner: false, isWritable: true },
      { pubkey: authority, isSigner: true, isWritable: false },
    ],
    data,
  });
}

const memo = () => new TransactionInstruction({ programId: MEMO, keys: [], data: Buffer.from('memo-1234') });
const base64 = (tx: Transaction) => tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');
const legacy = (...ixs: TransactionInstruction[]) =>
  new Transaction({ feePayer: wallet.publicKey, recentBlockhash: blockhash() }).add(...ixs);

const deposit: SigningStep = { kind: 'deposit', inputMint: USDC, inputAmount: 12_000_000n, feeLamports: 5_000_000n };
const goodDeposit = () =>
  legacy(
    usdcTransfer(wallet.publicKey, manager, 12_000_000n),
    SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: manager, lamports: 5_000_000n }),
    memo(),
  );
const problems = (tx: Transaction, step: SigningStep = deposit) => problemsOf(decodeForSigning(base64(tx)), step, user);

describe('the signing gate signs a deposit that is what the intent calls for', () => {
  test("the deposit, its fee and a memo: signed over the verified message, in the user's slot", () => {
    const signed = Transaction.from(Buffer.from(signForStep(base64(goodDeposit()), deposit, user), 'base64'));
    expect(signed.verifySignatures()).toBe(true);
    expect(signed.signatures[0]!.publicKey.toBase58()).toBe(user.userPubkey);
  });

  test("compute budget within the fee cap and creating the manager's token account are allowed", () => {
    const createAta = new TransactionInstruction({
      programId: new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL'),
      data: Buffer.from([1]),
      keys: [
        wallet.publicKey,
        new PublicKey(associatedTokenAccount(manager.toBase58(), USDC, TOKEN_PROGRAM)),
        manager,
        new PublicKey(USDC),
        SystemProgram.programId,
        new PublicKey(TOKEN_PROGRAM),
      ].map((pubkey, i) => ({ pubkey, isSigner: i === 0, isWritable: i < 2 })),
    });
    const tx = legacy(
      ComputeBudgetProgram.setComputeUnitLimit({ units: 200_000 }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 10_000 }),
      createAta,
      ...goodDeposit().instructions,
    );
    expect(problems(tx)).toEqual([]);
  });

  test('a native deposit: inputAmount and the fee, both as system transfers to the manager', () => {
    const step: SigningStep = { kind: 'deposit', inputMint: NATIVE, inputAmount: 100_000_000n, feeLamports: 5_000_000n };
    const tx = legacy(
      SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: manager, lamports: 100_000_000n }),
      SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: manager, lamports: 5_000_000n }),
    );
    expect(problems(tx, step)).toEqual([]);
    const more = legacy(...tx.instructions, SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: manager, lamports: 1n }));
    expect(problems(more, step).join('\n')).toMatch(/lamports of fees/);
  });
});

describe('the signing gate refuses what the deposit does not call for', () => {
  const cases: Record<string, () => Transaction> = {
    'a transfer of 1000 SOL to a stranger': () =>
      legacy(
        ...goodDeposit().instructions,
        SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: STRANGER, lamports: 1_000_000_000_000n }),
      ),
    'the input sent to a stranger instead of the manager': () =>
      legacy(
        usdcTransfer(wallet.publicKey, STRANGER, 12_000_000n),
        SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: manager, lamports: 5_000_000n }),
      ),
    'one unit more than inputAmount': () =>
      legacy(
        usdcTransfer(wallet.publicKey, manager, 12_000_001n),
        SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: manager, lamports: 5_000_000n }),
      ),
    'another fee payer': () => {
      const tx = goodDeposit();
      tx.feePayer = STRANGER;
      return tx;
    },
    'a second signer': () =>
      legacy(
        ...goodDeposit().instructions,
        new TransactionInstruction({
          programId: MEMO,
          keys: [{ pubkey: STRANGER, isSigner: true, isWritable: false }],
          data: Buffer.from('x'),
        }),
      ),
    'an unknown program': () =>
      legacy(
        ...goodDeposit().instructions,
        new TransactionInstruction({
          programId: STRANGER,
          keys: [{ pubkey: wallet.publicKey, isSigner: true, isWritable: true }],
          data: Buffer.from([1]),
        }),
      ),
    "a token Approve of the user's account": () => {
      const approve = usdcTransfer(wallet.publicKey, STRANGER, 1n);
      approve.data = Buffer.from([4, ...Buffer.alloc(8, 0xff)]);
      return legacy(...goodDeposit().instructions, approve);
    },
    "a system Assign of the user's wallet": () =>
      legacy(...goodDeposit().instructions, SystemProgram.assign({ accountPubkey: wallet.publicKey, programId: STRANGER })),
    'a priority fee of 1 SOL': () =>
      legacy(
        ComputeBudgetProgram.setComputeUnitLimit({ units: 1_000_000 }),
        ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000_000_000 }),
        ...goodDeposit().instructions,
      ),
    "a memo that writes to the user's wallet": () =>
      legacy(
        ...goodDeposit().instructions,
        new TransactionInstruction({
          programId: MEMO,
          keys: [{ pubkey: wallet.publicKey, isSigner: false, isWritable: true }],
          data: Buffer.from('x'),
        }),
      ),
  };
  for (const [what, make] of Object.entries(cases)) {
    test(what, () => {
      const tx = make();
      expect(problems(tx)).not.toEqual([]);
      let thrown: unknown;
      try {
        signForStep(base64(tx), deposit, user);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(SigningRefused);
      expect((thrown as SigningRefused).rule).toBe('OA-INT-018');
      expect((thrown as SigningRefused).decoded.length).toBeGreaterThan(1);
    });
  }

  test('bytes that are no transaction, trailing bytes and lookup tables are refused', () => {
    expect(() => signForStep('bm90IGEgdHJhbnNhY3Rpb24=', deposit, user)).toThrow(SigningRefused);
    expect(() =>
      signForStep(Buffer.concat([Buffer.from(base64(goodDeposit()), 'base64'), Buffer.from([0])]).toString('base64'), deposit, user),
    ).toThrow(SigningRefused);
    const message = new TransactionMessage({
      payerKey: wallet.publicKey,
      recentBlockhash: blockhash(),
      instructions: goodDeposit().instructions,
    }).compileToV0Message([
      {
        key: STRANGER,
        state: {
          deactivationSlot: 2n ** 64n - 1n,
          lastExtendedSlot: 0,
          lastExtendedSlotStartIndex: 0,
          authority: undefined,
          addresses: [manager],
        },
      } as never,
    ]);
    const v0 = Buffer.from(new VersionedTransaction(message).serialize()).toString('base64');
    let refused: SigningRefused | undefined;
    try {
      signForStep(v0, deposit, user);
    } catch (e) {
      refused = e as SigningRefused;
    }
    expect(refused).toBeInstanceOf(SigningRefused);
    expect(refused!.problems.join('\n')).toMatch(/lookup-table/);
  });

  test('a v0 transaction with every account in its static keys is verified like a legacy one', () => {
    const message = new TransactionMessage({
      payerKey: wallet.publicKey,
      recentBlockhash: blockhash(),
      instructions: goodDeposit().instructions,
    }).compileToV0Message();
    const signed = VersionedTransaction.deserialize(
      Buffer.from(signForStep(Buffer.from(new VersionedTransaction(message).serialize()).toString('base64'), deposit, user), 'base64'),
    );
    expect(signed.signatures[0]!.some((b) => b !== 0)).toBe(true);
  });
});

describe("withdrawals: only from the manager to the user's own wallet", () => {
  const step: SigningStep = { kind: 'wallet-withdrawal', mints: [USDC] };
  const withdrawal = (...ixs: TransactionInstruction[]) => legacy(...ixs);
  test("manager to the user's account, the manager co-signing: signed", () => {
    expect(problems(withdrawal(usdcTransfer(manager, wallet.publicKey, 2_000_000n)), step)).toEqual([]);
  });
  test('manager to a stranger, the user paying anything, another mint: refused with OA-WDW-015', () => {
    expect(problems(withdrawal(usdcTransfer(manager, STRANGER, 2_000_000n)), step)).not.toEqual([]);
    expect(
      problems(
        withdrawal(
          usdcTransfer(manager, wallet.publicKey, 2_000_000n),
          SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: STRANGER, lamports: 1n }),
        ),
        step,
      ),
    ).not.toEqual([]);
    expect(problems(withdrawal(usdcTransfer(wallet.publicKey, manager, 1n)), step)).not.toEqual([]);
    expect(problems(withdrawal(usdcTransfer(manager, wallet.publicKey, 1n)), { kind: 'wallet-withdrawal', mints: [NATIVE] })).not.toEqual(
      [],
    );
    expect(() => signForStep(base64(withdrawal(usdcTransfer(manager, STRANGER, 1n))), step, user)).toThrow(
      expect.objectContaining({ rule: 'OA-WDW-015' }),
    );
  });
});

describe("SIWS: the run's wallet signs only the canonical message of this run", () => {
  test('a probe that bends the form refuses the protected wallet, and signs with a throwaway one', () => {
    const funded = Keypair.generate();
    protectWallet(funded);
    expect(() => onboardBody('http://127.0.0.1:1', 'sub', funded, new Date())).not.toThrow();
    expect(() => onboardBody('http://127.0.0.1:1', 'sub', funded, new Date(), { values: { domain: 'evil.invalid' } })).toThrow(/SIWS gate/);
    expect(() => onboardBody('http://127.0.0.1:1', 'sub', Keypair.generate(), new Date(), { signer: funded })).toThrow(/SIWS gate/);
    expect(() =>
      onboardBody('http://127.0.0.1:1', 'sub', Keypair.generate(), new Date(), { values: { domain: 'evil.invalid' } }),
    ).not.toThrow();
  });
});

describe("hostile targets: a forged transaction is refused, fails the step's rule, and is never sent signed", () => {
  const MUTANTS: Record<string, RuleId> = {
    'intent-deposit-also-sends-1000-sol-to-a-stranger': 'OA-INT-018',
    'dca-modify-transaction-also-sends-sol-to-a-stranger': 'OA-DCA-022',
    'wallet-withdrawal-transaction-also-debits-the-user-wallet': 'OA-WDW-015',
    'order-withdrawal-transaction-also-debits-the-user-wallet': 'OA-OWD-031',
  };
  /** Keeps the body of every request dispatched in this process (the suite's clients use undici's global dispatcher). */
  class Recorder extends Agent {
    readonly bodies: string[] = [];
    override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
      if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) this.bodies.push(options.body.toString());
      return super.dispatch(options, handler);
    }
  }
  for (const [mutant, rule] of Object.entries(MUTANTS)) {
    test(`${mutant}: ${rule}`, async () => {
      const previous = getGlobalDispatcher();
      const recorder = new Recorder();
      setGlobalDispatcher(recorder);
      const checks = allChecks.filter((c) => c.rules.includes(rule));
      let results;
      try {
        results = await runAgainstReference({ mutant }, checks);
      } finally {
        setGlobalDispatcher(previous);
        await recorder.close();
      }
      const sent = recorder.bodies;
      expect(sent.length).toBeGreaterThan(0);
      expect(results.some((r) => r.verdict === 'fail' && r.rule === rule && /refused to sign/.test(r.message ?? ''))).toBe(true);
      const stranger = STRANGER.toBase58();
      const signedForged = sent
        .flatMap((body) => [...body.matchAll(/"signedTransaction":"([A-Za-z0-9+/=]+)"/g)].map((m) => m[1]!))
        .filter((tx) => {
          try {
            return decodeForSigning(tx).instructions.some((ix) => ix.accounts.some((a) => a.key === stranger));
          } catch {
            return false;
          }
        });
      expect(signedForged).toEqual([]);
    });
  }
});

describe('one gate', () => {
  test('nothing in suites/ signs a transaction or a message but the signing gate and the SIWS signer', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const files = readdirSync('suites', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const signing = files
      .flatMap((file) =>
        readFileSync(`suites/${file}`, 'utf8')
          .split('\n')
          .map((line, i) => ({ file, line, at: i + 1 })),
      )
      .filter(({ line }) => /\.partialSign\(|\.sign\(|\bsign\(null|addSignature\(/.test(line))
      .filter(({ file, line }) => !(file === 'orders/signing-gate.ts' || (file === 'orders/ed25519.ts' && /sign\(null/.test(line))));
    // The raw signer (ed25519.ts) is reached only through the gate and the SIWS signer.
    const rawSigners = files.filter((file) => /from '\.{1,2}\/(orders\/)?ed25519\.ts'/.test(readFileSync(`suites/${file}`, 'utf8')));
    expect(rawSigners.sort()).toEqual(['orders/signing-gate.ts', 'orders/siws.ts']);
    // a probe may put a throwaway key's signature into a slot (signing-gate.ts throwawaySignature), never sign itself
    expect(
      signing
        .filter(({ line }) => !/addSignature\([^)]*throwawaySignature\(|addSignature\(user\.keypair\.publicKey, signature\)/.test(line))
        .map(({ file, at, line }) => `suites/${file}:${at}: ${line.trim()}`),
    ).toEqual([]);
  });
});
