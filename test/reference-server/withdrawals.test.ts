import { Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { dataOf, dcaIntent, failure, fundedUser, SOL, tenantServer, USDC } from './tenant-support.ts';

/** Withdrawals over HTTP: wallet level, order level (build, confirm, abandon, stuck lock), automatic return. */

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const DCA = dcaIntent('60000000', '20000000');
const STOP_LOSS = {
  orderType: 'stop_loss',
  inputMint: USDC,
  outputMint: SOL,
  config: { amount: '20000000', triggerPrice: '1', priceDecimals: 18 },
};

let counter = 0;

describe('withdrawals', () => {
  const scene = tenantServer();

  async function user() {
    const funded = await fundedUser(scene.target, scene.apiKey, `withdraw-user-${++counter}`);
    return { ...funded, pubkey: funded.wallet.publicKey.toBase58() };
  }
  type U = Awaited<ReturnType<typeof user>>;
  const post = (u: U, path: string, json: unknown = {}) =>
    scene.target.orders(path, { method: 'POST', headers: { 'x-service-key': scene.apiKey, 'x-service-user': u.sub }, json });
  const sign = (base64: string, signer: Keypair) => {
    const transaction = Transaction.from(Buffer.from(base64, 'base64'));
    transaction.partialSign(signer);
    return transaction.serialize({ requireAllSignatures: false }).toString('base64');
  };
  const usdcRow = async (u: U) =>
    dataOf<{ balances: Record<string, unknown>[] }>(await scene.target.asUser(scene.apiKey, u.sub, '/me/balance')).balances.find(
      (row) => row.mint === USDC,
    );
  const order = async (u: U, id: string, path = 'dca') =>
    dataOf<Record<string, unknown>>(await scene.target.asUser(scene.apiKey, u.sub, `/${path}/${id}`));
  async function create(u: U, request: unknown = DCA) {
    const answer = await post(u, '/orders/intent', request);
    expect(answer.body, JSON.stringify(answer.body)).toMatchObject({ success: true });
    const intent = dataOf<Record<string, string>>(answer);
    const confirmed = await post(u, '/orders/confirm', {
      pendingOrderId: intent.pendingOrderId,
      signedTransaction: sign(intent.transaction!, u.wallet),
    });
    expect(confirmed.status).toBe(200);
    return dataOf<{ order: Record<string, string> }>(confirmed).order.id!;
  }
  /** A DCA order whose first swap failed (the swaps fail for its first cycle), with the swaps healthy again. */
  async function failed(u: U) {
    const id = await create(u);
    await scene.target.faults({ swaps: 'fail' });
    try {
      await scene.target.advanceClock(3600);
    } finally {
      await scene.target.faults({ swaps: 'ok' });
    }
    return id;
  }
  async function cancelled(u: U) {
    const id = await create(u);
    expect((await post(u, `/orders/${id}/cancel`, { withdraw: false })).status).toBe(200);
    return id;
  }
  /** The one transfer instruction of a withdrawal: its destination owner is checked through the associated account. */
  const transferOf = (base64: string) => Transaction.from(Buffer.from(base64, 'base64')).instructions;

  it('wallet level: an omitted amount builds the whole availableToWithdraw, paid to the user, and the confirm moves it', async () => {
    const u = await user();
    await create(u);
    await scene.target.fund(u.walletAddress, USDC, '7000000');
    const answer = await post(u, '/withdraw/transaction', { userPubkey: u.pubkey, tokenMint: USDC });
    expect(answer.status).toBe(200);
    const built = dataOf<{ transaction: string; amount: string }>(answer);
    expect(built.amount).toBe('7000000');
    const tx = Transaction.from(Buffer.from(built.transaction, 'base64'));
    expect(tx.feePayer?.toBase58()).toBe(u.pubkey);
    expect(tx.instructions).toHaveLength(1);
    expect(tx.instructions[0]!.programId.toBase58()).toBe(TOKEN_PROGRAM);
    expect(tx.instructions[0]!.data.readBigUInt64LE(1)).toBe(7_000_000n);
    const confirmed = await post(u, '/withdraw/confirm', { signedTransaction: sign(built.transaction, u.wallet) });
    expect(confirmed.status).toBe(200);
    expect(bs58.decode(dataOf<{ txSignature: string }>(confirmed).txSignature)).toHaveLength(64);
    expect(await usdcRow(u)).toMatchObject({ totalBalance: '60000000', availableToWithdraw: '0' });
    // Consumed: the same transaction again is not one that waits.
    expect(failure(await post(u, '/withdraw/confirm', { signedTransaction: sign(built.transaction, u.wallet) }))).toEqual({
      status: 400,
      code: 'INVALID_TRANSACTION',
    });
  });

  it('wallet level: INSUFFICIENT_AVAILABLE, FUNDS_LOCKED with the breakdown, INSUFFICIENT_BALANCE, a foreign key, a bad body', async () => {
    const u = await user();
    expect(failure(await post(u, '/withdraw/transaction', { userPubkey: u.pubkey, tokenMint: USDC }))).toEqual({
      status: 400,
      code: 'INSUFFICIENT_AVAILABLE',
    });
    const id = await create(u);
    await scene.target.fund(u.walletAddress, USDC, '1000000');
    const locked = await post(u, '/withdraw/transaction', { userPubkey: u.pubkey, tokenMint: USDC, amount: '2000000' });
    expect(failure(locked)).toEqual({ status: 400, code: 'FUNDS_LOCKED' });
    expect(
      (locked.body as { error: { details: { lockedBreakdown: { orderId: string }[] } } }).error.details.lockedBreakdown[0]!.orderId,
    ).toBe(id);
    expect(failure(await post(u, '/withdraw/transaction', { userPubkey: u.pubkey, tokenMint: USDC, amount: '61000001' }))).toEqual({
      status: 400,
      code: 'INSUFFICIENT_BALANCE',
    });
    expect(
      failure(await post(u, '/withdraw/transaction', { userPubkey: Keypair.generate().publicKey.toBase58(), tokenMint: USDC })),
    ).toEqual({ status: 403, code: 'FORBIDDEN' });
    expect(failure(await post(u, '/withdraw/transaction', { tokenMint: USDC }))).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    expect(failure(await post(u, '/withdraw/transaction', { userPubkey: u.pubkey, tokenMint: USDC, amount: '0' }))).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
  });

  it('wallet level confirm: INVALID_TRANSACTION, TRANSACTION_TAMPERED, an unsigned copy, TRANSACTION_EXPIRED', async () => {
    const u = await user();
    await scene.target.fund(u.walletAddress, USDC, '3000000');
    expect(failure(await post(u, '/withdraw/confirm', { signedTransaction: 'bm90IGEgdHJhbnNhY3Rpb24=' }))).toEqual({
      status: 400,
      code: 'INVALID_TRANSACTION',
    });
    const built = dataOf<{ transaction: string }>(await post(u, '/withdraw/transaction', { userPubkey: u.pubkey, tokenMint: USDC }));
    const tampered = Transaction.from(Buffer.from(built.transaction, 'base64'));
    tampered.add(SystemProgram.transfer({ fromPubkey: u.wallet.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1 }));
    expect(
      failure(
        await post(u, '/withdraw/confirm', {
          signedTransaction: sign(tampered.serialize({ requireAllSignatures: false }).toString('base64'), u.wallet),
        }),
      ),
    ).toEqual({ status: 400, code: 'TRANSACTION_TAMPERED' });
    expect(failure(await post(u, '/withdraw/confirm', { signedTransaction: built.transaction }))).toEqual({
      status: 400,
      code: 'INVALID_TRANSACTION',
    });
    await scene.target.advanceClock(301);
    expect(failure(await post(u, '/withdraw/confirm', { signedTransaction: sign(built.transaction, u.wallet) }))).toEqual({
      status: 400,
      code: 'TRANSACTION_EXPIRED',
    });
    expect((await usdcRow(u))!.totalBalance).toBe('3000000');
  });

  it('order level: build reserves withdrawalPending, a repeat returns the same transaction, the confirm completes it', async () => {
    const u = await user();
    const id = await cancelled(u);
    const active = await create(u);
    expect(failure(await post(u, `/orders/${active}/withdraw`))).toEqual({ status: 400, code: 'INVALID_STATE' });
    const answer = await post(u, `/orders/${id}/withdraw`);
    expect(answer.status).toBe(200);
    const built = dataOf<{ transaction: string; withdrawalAmounts: unknown }>(answer);
    expect(built.withdrawalAmounts).toEqual([{ mint: USDC, amount: '60000000' }]);
    expect(transferOf(built.transaction)).toHaveLength(1);
    expect(await order(u, id)).toMatchObject({ withdrawalStatus: 'pending', withdrawalTxHash: null, withdrawalCompletedAt: null });
    expect(await usdcRow(u)).toMatchObject({
      totalBalance: '120000000',
      lockedForFutureTxns: '60000000',
      withdrawalPending: '60000000',
      availableToWithdraw: '0',
    });
    expect(dataOf<{ transaction: string }>(await post(u, `/orders/${id}/withdraw`)).transaction).toBe(built.transaction);
    expect((await usdcRow(u))!.withdrawalPending).toBe('60000000');
    const signed = sign(built.transaction, u.wallet);
    const confirmed = await post(u, `/orders/${id}/withdraw/confirm`, { signedTransaction: signed });
    expect(confirmed.status).toBe(200);
    const detail = await order(u, id);
    expect(detail).toMatchObject({
      withdrawalStatus: 'completed',
      withdrawalTxHash: bs58.encode(Transaction.from(Buffer.from(signed, 'base64')).signature!),
    });
    expect(detail.withdrawalCompletedAt).not.toBeNull();
    expect(await usdcRow(u)).toMatchObject({ totalBalance: '60000000', withdrawalPending: '0' });
    expect(failure(await post(u, `/orders/${id}/withdraw`))).toEqual({ status: 400, code: 'ALREADY_WITHDRAWN' });
    expect(failure(await post(u, `/orders/${id}/withdraw/confirm`, { signedTransaction: signed }))).toEqual({
      status: 400,
      code: 'ALREADY_WITHDRAWN',
    });
  });

  it("order level: three builds at once reserve the funds once, and the transaction pays the user's wallet", async () => {
    const u = await user();
    const id = await cancelled(u);
    const answers = await Promise.all([0, 1, 2].map(() => post(u, `/orders/${id}/withdraw`)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((answer) => dataOf<{ transaction: string }>(answer).transaction)).size).toBe(1);
    expect((await usdcRow(u))!.withdrawalPending).toBe('60000000');
    const userAccount = PublicKey.findProgramAddressSync(
      [u.wallet.publicKey.toBuffer(), new PublicKey(TOKEN_PROGRAM).toBuffer(), new PublicKey(USDC).toBuffer()],
      new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL'),
    )[0].toBase58();
    expect(transferOf(dataOf<{ transaction: string }>(answers[0]!).transaction).map((ix) => ix.keys[2]!.pubkey.toBase58())).toEqual([
      userAccount,
    ]);
  });

  it('order level: abandon releases at once and is idempotent; a stuck lock clears itself; NOTHING_TO_WITHDRAW; 404 for another user', async () => {
    const u = await user();
    const id = await cancelled(u);
    expect((await post(u, `/orders/${id}/withdraw`)).status).toBe(200);
    expect(failure(await post(u, `/orders/${id}/withdraw/confirm`, { signedTransaction: '!!' }))).toEqual({
      status: 400,
      code: 'INVALID_TRANSACTION',
    });
    for (let i = 0; i < 2; i++) expect((await post(u, `/orders/${id}/withdraw/abandon`)).status).toBe(200);
    expect(await order(u, id)).toMatchObject({ withdrawalStatus: 'none', withdrawalRequestedAt: null });
    expect((await usdcRow(u))!.withdrawalPending).toBe('0');
    expect((await post(u, `/orders/${id}/withdraw`)).status).toBe(200);
    await scene.target.advanceClock(5 * 60);
    expect((await usdcRow(u))!.withdrawalPending).toBe('0');
    expect((await order(u, id)).withdrawalStatus).toBe('none');
    const other = await user();
    expect(failure(await post(other, `/orders/${id}/withdraw`))).toEqual({ status: 404, code: 'NOT_FOUND' });
    // A wallet-level withdrawal takes the cancelled order's funds (they no longer lock): nothing is left for the order.
    expect((await post(u, '/withdraw/transaction', { userPubkey: u.pubkey, tokenMint: USDC })).status).toBe(200);
    const built = dataOf<{ transaction: string }>(await post(u, '/withdraw/transaction', { userPubkey: u.pubkey, tokenMint: USDC }));
    expect((await post(u, '/withdraw/confirm', { signedTransaction: sign(built.transaction, u.wallet) })).status).toBe(200);
    expect(failure(await post(u, `/orders/${id}/withdraw`))).toEqual({ status: 400, code: 'NOTHING_TO_WITHDRAW' });
  });

  it('two confirms of one order-level withdrawal at once: one 2xx, the other ALREADY_WITHDRAWN, the funds leave once', async () => {
    const u = await user();
    const id = await cancelled(u);
    const built = dataOf<{ transaction: string }>(await post(u, `/orders/${id}/withdraw`));
    const body = { signedTransaction: sign(built.transaction, u.wallet) };
    const answers = await Promise.all([post(u, `/orders/${id}/withdraw/confirm`, body), post(u, `/orders/${id}/withdraw/confirm`, body)]);
    expect(answers.map(failure).sort((a, b) => a.status - b.status)).toEqual([
      { status: 200, code: undefined },
      { status: 400, code: 'ALREADY_WITHDRAWN' },
    ]);
    expect((await usdcRow(u))!.totalBalance).toBe('0');
  });

  it('an automatic return that finds nothing to send completes with a null withdrawalTxHash', async () => {
    const u = await user();
    const id = await failed(u);
    for (const mint of [USDC, SOL]) {
      const built = await post(u, '/withdraw/transaction', { userPubkey: u.pubkey, tokenMint: mint });
      if (built.status === 200)
        expect(
          (await post(u, '/withdraw/confirm', { signedTransaction: sign(dataOf<{ transaction: string }>(built).transaction, u.wallet) }))
            .status,
        ).toBe(200);
    }
    await scene.target.advanceClock(10 * 60);
    expect(await order(u, id)).toMatchObject({ status: 'failed', withdrawalStatus: 'completed', withdrawalTxHash: null });
  });

  it('automatic return: a failed order after its delay, an expired trigger order at expiry; then ALREADY_WITHDRAWN', async () => {
    const u = await user();
    const id = await failed(u);
    expect(await order(u, id)).toMatchObject({ status: 'failed', withdrawalStatus: 'none' });
    await scene.target.advanceClock(10 * 60);
    const returned = await order(u, id);
    expect(returned).toMatchObject({ withdrawalStatus: 'completed' });
    expect(bs58.decode(returned.withdrawalTxHash as string)).toHaveLength(64);
    expect((await usdcRow(u))!.totalBalance).toBe('0');
    expect(failure(await post(u, `/orders/${id}/withdraw`))).toEqual({ status: 400, code: 'ALREADY_WITHDRAWN' });

    const expiresAt = Math.floor((await scene.target.now()).getTime() / 1000) + 3600;
    const trigger = await create(u, { ...STOP_LOSS, config: { ...STOP_LOSS.config, expiresAt } });
    await scene.target.advanceClock(3601);
    const expired = await order(u, trigger, 'stop-loss');
    expect(expired).toMatchObject({ status: 'expired', withdrawalStatus: 'completed' });
    expect(bs58.decode(expired.withdrawalTxHash as string)).toHaveLength(64);
  });
});
