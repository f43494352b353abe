import { Keypair, SystemProgram, Transaction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { dataOf, dcaIntent, failure, fundedUser, SOL, tenantServer, USDC } from './tenant-support.ts';

/** POST /orders/intent and POST /orders/confirm for all five order types, with a real deposit transaction, over HTTP. */

const DCA = dcaIntent('100000000', '20000000');

let counter = 0;

describe('POST /orders/intent and POST /orders/confirm (dca)', () => {
  const scene = tenantServer();

  const user = (key = scene.apiKey) => fundedUser(scene.target, key, `intent-user-${++counter}`);
  const post = (key: string, sub: string, path: string, json: unknown) =>
    scene.target.orders(path, { method: 'POST', headers: { 'x-service-key': key, 'x-service-user': sub }, json });
  const sign = (base64: string, signer: Keypair) => {
    const transaction = Transaction.from(Buffer.from(base64, 'base64'));
    transaction.partialSign(signer);
    return transaction.serialize().toString('base64');
  };
  /** POST /orders/confirm of `intent` signed by `u`'s wallet (sent as `sub` with `key`: `u` and the scene's key unless said). */
  const confirmSigned = (u: { sub: string; wallet: Keypair }, intent: Record<string, string>, key = scene.apiKey, sub = u.sub) =>
    post(key, sub, '/orders/confirm', { pendingOrderId: intent.pendingOrderId, signedTransaction: sign(intent.transaction!, u.wallet) });

  it('returns a pending order whose transaction is an unsigned deposit from the wallet to the manager, with the memo', async () => {
    const u = await user();
    const before = (await scene.target.now()).getTime();
    const answer = await post(scene.apiKey, u.sub, '/orders/intent', DCA);
    const after = (await scene.target.now()).getTime();
    expect(answer.status).toBe(200);
    const data = dataOf<Record<string, string>>(answer);
    expect(data).toMatchObject({
      encoding: 'base64',
      orderType: 'dca',
      inputMint: USDC,
      inputAmount: '100000000',
      feeLamports: '0',
      outputRecipientAddress: u.walletAddress,
    });
    expect(data.pendingOrderId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // Exactly 5 minutes after the intent's time on the server's clock, which lies between the two reads around it (a
    // bound that holds however long the request took on a busy machine).
    const expiresAt = Date.parse(data.expiresAt!);
    expect(expiresAt - 300_000).toBeGreaterThanOrEqual(before);
    expect(expiresAt - 300_000).toBeLessThanOrEqual(after);
    const transaction = Transaction.from(Buffer.from(data.transaction!, 'base64'));
    expect(transaction.feePayer?.toBase58()).toBe(u.wallet.publicKey.toBase58());
    expect(transaction.signatures.every((s) => s.signature === null)).toBe(true);
    const memo = transaction.instructions.at(-1)!;
    expect(memo.programId.toBase58()).toBe('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
    expect(memo.data.toString('utf8')).toBe(data.memoId);
  });

  it('confirms the signed transaction: an active dca order, the deposit lands in the manager and is locked', async () => {
    const u = await user();
    const intent = dataOf<Record<string, string>>(await post(scene.apiKey, u.sub, '/orders/intent', DCA));
    const answer = await confirmSigned(u, intent);
    expect(answer.status).toBe(200);
    const data = dataOf<{ order: Record<string, unknown>; txSignature: string; pendingOrderId: string }>(answer);
    expect(data.pendingOrderId).toBe(intent.pendingOrderId);
    expect(data.order).toMatchObject({
      orderType: 'dca',
      status: 'active',
      previousStatus: null,
      inputMint: USDC,
      outputMint: SOL,
      userId: u.userId,
      walletAddress: u.walletAddress,
      totalAmount: '100000000',
      amountPerCycle: '20000000',
      cycleFrequencySeconds: 3600,
      cyclesCompleted: 0,
      totalCycles: 5,
      withdrawalStatus: 'none',
    });
    expect(data.txSignature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    const rows = dataOf<{ balances: Record<string, unknown>[] }>(await scene.target.asUser(scene.apiKey, u.sub, '/me/balance')).balances;
    expect(rows.find((r) => r.mint === USDC)).toMatchObject({
      totalBalance: '100000000',
      lockedForFutureTxns: '100000000',
      availableToWithdraw: '0',
      lockedBreakdown: [{ orderId: data.order.id, orderType: 'dca', status: 'active', kind: 'locked', amount: '100000000' }],
    });
    // Consumed.
    const again = await confirmSigned(u, intent);
    expect(failure(again)).toEqual({ status: 400, code: 'INVALID_STATUS' });
  });

  it('answers 400 TRANSACTION_TAMPERED for a changed message, 500 SUBMIT_FAILED for bad base64 or a missing signature', async () => {
    const u = await user();
    const intent = dataOf<Record<string, string>>(await post(scene.apiKey, u.sub, '/orders/intent', DCA));
    const tampered = Transaction.from(Buffer.from(intent.transaction!, 'base64'));
    tampered.add(SystemProgram.transfer({ fromPubkey: u.wallet.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1 }));
    tampered.sign(u.wallet);
    const confirm = (signedTransaction: string) =>
      post(scene.apiKey, u.sub, '/orders/confirm', { pendingOrderId: intent.pendingOrderId, signedTransaction });
    expect(failure(await confirm(tampered.serialize().toString('base64')))).toEqual({ status: 400, code: 'TRANSACTION_TAMPERED' });
    expect(failure(await confirm('not base64!'))).toEqual({ status: 500, code: 'SUBMIT_FAILED' });
    expect(failure(await confirm('AAAA'))).toEqual({ status: 500, code: 'SUBMIT_FAILED' });
    expect(failure(await confirm(intent.transaction!))).toEqual({ status: 500, code: 'SUBMIT_FAILED' });
    const forged = Transaction.from(Buffer.from(intent.transaction!, 'base64'));
    forged.addSignature(u.wallet.publicKey, Buffer.alloc(64, 7));
    expect(failure(await confirm(forged.serialize({ verifySignatures: false }).toString('base64')))).toEqual({
      status: 500,
      code: 'SUBMIT_FAILED',
    });
    // Nothing consumed: the right signature still confirms.
    expect((await confirm(sign(intent.transaction!, u.wallet))).status).toBe(200);
  });

  it('answers 400 TRANSACTION_TAMPERED for a changed transfer amount, signed before or after the change', async () => {
    const u = await user();
    const intent = dataOf<Record<string, string>>(await post(scene.apiKey, u.sub, '/orders/intent', DCA));
    const confirm = (signedTransaction: string) =>
      post(scene.apiKey, u.sub, '/orders/confirm', { pendingOrderId: intent.pendingOrderId, signedTransaction });
    const raised = (base64: string) => {
      const transaction = Transaction.from(Buffer.from(base64, 'base64'));
      const data = Buffer.from(transaction.instructions[0]!.data);
      data.writeBigUInt64LE(data.readBigUInt64LE(1) + 1n, 1);
      transaction.instructions[0]!.data = data;
      return transaction;
    };
    expect(
      failure(await confirm(sign(raised(intent.transaction!).serialize({ requireAllSignatures: false }).toString('base64'), u.wallet))),
    ).toEqual({ status: 400, code: 'TRANSACTION_TAMPERED' });
    expect(
      failure(await confirm(raised(sign(intent.transaction!, u.wallet)).serialize({ verifySignatures: false }).toString('base64'))),
    ).toEqual({ status: 400, code: 'TRANSACTION_TAMPERED' });
  });

  it('counts USDT as 1.00 without the oracle, and locks totalAmount - amountSpent once a DCA cycle ran', async () => {
    const u = await user();
    await scene.target.faults({ oracle: 'down' });
    try {
      expect(
        (await post(scene.apiKey, u.sub, '/orders/intent', { ...DCA, inputMint: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB' })).status,
      ).toBe(200);
      expect(failure(await post(scene.apiKey, u.sub, '/orders/intent', { ...DCA, inputMint: SOL, outputMint: USDC }))).toEqual({
        status: 503,
        code: 'PRICE_ORACLE_UNAVAILABLE',
      });
    } finally {
      await scene.target.faults({ oracle: 'up' });
    }
    const intent = dataOf<Record<string, string>>(await post(scene.apiKey, u.sub, '/orders/intent', DCA));
    expect((await confirmSigned(u, intent)).status).toBe(200);
    await scene.target.advanceClock(3601);
    const rows = dataOf<{ balances: Record<string, unknown>[] }>(await scene.target.asUser(scene.apiKey, u.sub, '/me/balance')).balances;
    expect(rows.find((r) => r.mint === USDC)).toMatchObject({ lockedForFutureTxns: '80000000' });
  });

  it('answers 400 EXPIRED after the 5-minute window of virtual time, and succeeds 30 s before its end', async () => {
    const u = await user();
    const late = dataOf<Record<string, string>>(await post(scene.apiKey, u.sub, '/orders/intent', DCA));
    const inTime = dataOf<Record<string, string>>(await post(scene.apiKey, u.sub, '/orders/intent', DCA));
    // The virtual clock goes on with the wall clock: 30 s of slack for a busy machine between the intent and the
    // confirm (a window a minute short still refuses it); the clock only moves forward, so past the window stays past.
    await scene.target.advanceClock(270);
    expect((await confirmSigned(u, inTime)).status).toBe(200);
    await scene.target.advanceClock(31);
    const answer = await confirmSigned(u, late);
    expect(failure(answer)).toEqual({ status: 400, code: 'EXPIRED' });
  });

  it("answers 400 MISSING_PARAMS, 404 for an unknown pending order, 403 FORBIDDEN for another user's", async () => {
    const u = await user();
    const other = await user();
    const intent = dataOf<Record<string, string>>(await post(scene.apiKey, u.sub, '/orders/intent', DCA));
    expect(failure(await post(scene.apiKey, u.sub, '/orders/confirm', { pendingOrderId: intent.pendingOrderId }))).toEqual({
      status: 400,
      code: 'MISSING_PARAMS',
    });
    expect(failure(await post(scene.apiKey, u.sub, '/orders/confirm', { signedTransaction: 'AAAA' }))).toEqual({
      status: 400,
      code: 'MISSING_PARAMS',
    });
    expect(
      failure(
        await post(scene.apiKey, u.sub, '/orders/confirm', {
          pendingOrderId: '3f2b8c1e-9a4d-4e7b-8c21-5d6f7a8b9c0d',
          signedTransaction: 'AAAA',
        }),
      ),
    ).toEqual({ status: 404, code: 'NOT_FOUND' });
    const signed = sign(intent.transaction!, u.wallet);
    expect(
      failure(await post(scene.apiKey, other.sub, '/orders/confirm', { pendingOrderId: intent.pendingOrderId, signedTransaction: signed })),
    ).toEqual({ status: 403, code: 'FORBIDDEN' });
  });

  it('validates the intent: order type, mints, frequency, minimum notional, fee when not sponsored', async () => {
    const u = await user();
    const intent = (json: unknown, key = scene.apiKey, sub = u.sub) => post(key, sub, '/orders/intent', json);
    expect(failure(await intent({ ...DCA, orderType: 'twap' }))).toEqual({ status: 400, code: 'INVALID_ORDER_TYPE' });
    expect(failure(await intent({ ...DCA, orderType: undefined }))).toEqual({ status: 400, code: 'INVALID_ORDER_TYPE' });
    expect(failure(await intent({ ...DCA, outputMint: USDC }))).toEqual({ status: 400, code: 'INVALID_MINTS' });
    expect(failure(await intent({ ...DCA, config: { ...DCA.config, cycleFrequencySeconds: 59 } }))).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
    expect(failure(await intent({ ...DCA, config: { ...DCA.config, totalAmount: 100 } }))).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
    const small = await intent({ ...DCA, config: { ...DCA.config, amountPerCycle: '9999999' } });
    expect(failure(small)).toEqual({ status: 400, code: 'MIN_NOTIONAL_NOT_MET' });
    expect((small.body as { error: { details: unknown } }).error.details).toEqual({
      mint: USDC,
      amount: '9999999',
      usdCents: 999,
      requiredCents: 1000,
    });
    const { apiKey: paying } = await scene.target.createTenant({ feeSponsored: false });
    const payer = await user(paying);
    const withFee = dataOf<Record<string, string>>(await intent(DCA, paying, payer.sub));
    expect(withFee.feeLamports).toBe('5000000');
    const transfers = Transaction.from(Buffer.from(withFee.transaction!, 'base64')).instructions.filter((ix) =>
      ix.programId.equals(SystemProgram.programId),
    );
    expect(transfers.map((ix) => ix.data.readBigUInt64LE(4))).toEqual([5000000n]);
  });

  const FAR = '1000000000000000000000000000000';
  const TRIGGERS: Record<string, Record<string, unknown>> = {
    stop_loss: { amount: '12000000', triggerPrice: '1', priceDecimals: 18 },
    take_profit: { amount: '12000000', triggerPrice: FAR, priceDecimals: 18 },
    oco: { amount: '12000000', stopLossPrice: '1', takeProfitPrice: FAR, priceDecimals: 18 },
    slice: { amount: '12000000', sliceCount: 3 },
  };
  const typed = (orderType: string, config: Record<string, unknown> = {}, top: Record<string, unknown> = {}) => ({
    orderType,
    inputMint: USDC,
    outputMint: SOL,
    ...top,
    config: { ...TRIGGERS[orderType], ...config },
  });
  async function create(u: Awaited<ReturnType<typeof user>>, body: unknown) {
    const intent = dataOf<Record<string, string>>(await post(scene.apiKey, u.sub, '/orders/intent', body));
    return confirmSigned(u, intent);
  }

  it('creates stop_loss, take_profit, oco and slice orders with their type fields; expiresAt goes in as Unix seconds, out as ISO-8601', async () => {
    const u = await user();
    const expiresAt = Math.floor((await scene.target.now()).getTime() / 1000) + 3600;
    const stop = dataOf<{ order: Record<string, unknown> }>(
      await create(u, typed('stop_loss', { expiresAt, trailingStopBps: 300, minOutputAmount: '5' })),
    ).order;
    expect(stop).toMatchObject({
      orderType: 'stop_loss',
      status: 'active',
      amount: '12000000',
      triggerPrice: '1',
      currentTriggerPrice: '1',
      priceDecimals: 18,
      trailingStopBps: 300,
      trailingMode: 'pure',
      minOutputAmount: '5',
      nextExecutionAt: null,
      expiresAt: new Date(expiresAt * 1000).toISOString(),
    });
    expect(stop).not.toHaveProperty('highestObservedPrice');
    const tp = dataOf<{ order: Record<string, unknown> }>(await create(u, typed('take_profit'))).order;
    expect(tp).toMatchObject({
      orderType: 'take_profit',
      status: 'active',
      triggerPrice: FAR,
      trailingActivated: false,
      amountRemaining: '12000000',
      scaleStepsExecuted: 0,
      expiresAt: null,
    });
    expect(tp).not.toHaveProperty('currentTriggerPrice');
    const oco = dataOf<{ order: Record<string, unknown> }>(await create(u, typed('oco', { trailingStopBps: 50 }))).order;
    expect(oco).toMatchObject({
      orderType: 'oco',
      status: 'active',
      stopLossPrice: '1',
      takeProfitPrice: FAR,
      currentTriggerPrice: '1',
      trailingStopBps: 50,
    });
    expect(oco).not.toHaveProperty('pendingLeg');
    const slice = dataOf<{ order: Record<string, unknown> }>(await create(u, typed('slice'))).order;
    expect(slice).toMatchObject({ orderType: 'slice', status: 'active', amount: '12000000', sliceCount: 3 });
    const rows = dataOf<{ balances: Record<string, unknown>[] }>(await scene.target.asUser(scene.apiKey, u.sub, '/me/balance')).balances;
    expect(rows.find((r) => r.mint === USDC)?.totalBalance).toBe('48000000');
  });

  it('enforces the create-time limits of trigger orders with 400 VALIDATION_ERROR', async () => {
    const u = await user();
    const now = Math.floor((await scene.target.now()).getTime() / 1000);
    const intent = (orderType: string, config: Record<string, unknown>) =>
      post(scene.apiKey, u.sub, '/orders/intent', typed(orderType, config));
    for (const [orderType, config] of [
      ['stop_loss', { priceDecimals: 19 }],
      ['take_profit', { priceDecimals: -1 }],
      ['oco', { trailingStopBps: 0 }],
      ['stop_loss', { trailingStopBps: 10000 }],
      ['take_profit', { expiresAt: now - 1 }],
      ['oco', { stopLossPrice: '5', takeProfitPrice: '5' }],
      ['stop_loss', { amount: '0' }],
      ['take_profit', { triggerPrice: '0' }],
      ['stop_loss', { minOutputAmount: '0' }],
      ['oco', { minOutputAmount: '5' }],
      ['slice', { sliceCount: 0 }],
      ['stop_loss', { trailingStopBps: 5, trailingMode: 'fast' }],
    ] as const)
      expect(failure(await intent(orderType, config)), JSON.stringify(config)).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    for (const config of [
      { priceDecimals: 0 },
      { priceDecimals: 18 },
      { trailingStopBps: 1 },
      { trailingStopBps: 9999 },
      { stopLossPrice: '5', takeProfitPrice: '6' },
    ]) {
      expect((await intent('oco', config)).status, JSON.stringify(config)).toBe(200);
    }
    expect(failure(await intent('stop_loss', { amount: '9999999' }))).toEqual({ status: 400, code: 'MIN_NOTIONAL_NOT_MET' });
    expect((await intent('take_profit', { amount: '10000000' })).status).toBe(200);
  });

  it('answers MIN_OUTPUT_UNSATISFIABLE for a crossed trigger whose minimum output exceeds the market value, and 503 without an oracle', async () => {
    const u = await user();
    const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
    // USDC into JUP at 0.5 USD: 2 JUP per USDC; 12 USDC are worth 24 JUP (24000000 units).
    const intent = (config: Record<string, unknown>) =>
      post(
        scene.apiKey,
        u.sub,
        '/orders/intent',
        typed('stop_loss', { priceDecimals: 2, triggerPrice: '300', ...config }, { outputMint: JUP }),
      );
    const unsatisfiable = await intent({ minOutputAmount: '24000001' });
    expect(failure(unsatisfiable)).toEqual({ status: 400, code: 'MIN_OUTPUT_UNSATISFIABLE' });
    expect((unsatisfiable.body as { error: { details: unknown } }).error.details).toEqual({
      triggerPrice: '300',
      currentPairPrice: '200',
      minOutputAmount: '24000001',
      fairOutputAmount: '24000000',
    });
    expect((await intent({ minOutputAmount: '24000000' })).status).toBe(200);
    expect((await intent({ triggerPrice: '100', minOutputAmount: '24000001' })).status).toBe(200);
    await scene.target.faults({ oracle: 'down' });
    try {
      expect(
        failure(
          await post(
            scene.apiKey,
            u.sub,
            '/orders/intent',
            typed('stop_loss', { amount: '1000000000' }, { inputMint: SOL, outputMint: USDC }),
          ),
        ),
      ).toEqual({ status: 503, code: 'PRICE_ORACLE_UNAVAILABLE' });
    } finally {
      await scene.target.faults({ oracle: 'up' });
    }
  });

  it('onboards a never-onboarded user inline with onboardIfNeeded, 409 for a bound wallet, 401 without the flag', async () => {
    const u = await user();
    const wallet = Keypair.generate();
    const body = { ...DCA, onboardIfNeeded: true, userPubkey: wallet.publicKey.toBase58() };
    expect(
      failure(await post(scene.apiKey, 'inline-never', '/orders/intent', { ...DCA, userPubkey: wallet.publicKey.toBase58() })),
    ).toEqual({
      status: 401,
      code: 'UNAUTHORIZED',
    });
    expect(failure(await post(scene.apiKey, 'inline-new', '/orders/intent', { ...body, userPubkey: 'not a key' }))).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
    expect((await post(scene.apiKey, 'inline-new', '/orders/intent', body)).status).toBe(200);
    const me = dataOf<{ userId: string; walletAddress: string }>(await scene.target.asUser(scene.apiKey, 'inline-new', '/me'));
    expect(me.walletAddress).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(
      failure(await post(scene.apiKey, 'inline-other', '/orders/intent', { ...body, userPubkey: u.wallet.publicKey.toBase58() })),
    ).toEqual({
      status: 409,
      code: 'USER_PUBKEY_CONFLICT',
    });
    expect(failure(await scene.target.asUser(scene.apiKey, 'inline-other', '/me'))).toEqual({ status: 401, code: 'UNAUTHORIZED' });
  });

  it('answers 409 ACTIVE_BURST_EXISTS to a second slice while one runs: the deposit lands, the pending order is consumed, no order exists', async () => {
    const u = await user();
    expect((await create(u, typed('slice'))).status).toBe(200);
    const intent = dataOf<Record<string, string>>(await post(scene.apiKey, u.sub, '/orders/intent', typed('slice')));
    const signed = sign(intent.transaction!, u.wallet);
    expect(
      failure(await post(scene.apiKey, u.sub, '/orders/confirm', { pendingOrderId: intent.pendingOrderId, signedTransaction: signed })),
    ).toEqual({ status: 409, code: 'ACTIVE_BURST_EXISTS' });
    expect(
      failure(await post(scene.apiKey, u.sub, '/orders/confirm', { pendingOrderId: intent.pendingOrderId, signedTransaction: signed })),
    ).toEqual({ status: 400, code: 'INVALID_STATUS' });
    const rows = dataOf<{ balances: Record<string, unknown>[] }>(await scene.target.asUser(scene.apiKey, u.sub, '/me/balance')).balances;
    expect(rows.find((r) => r.mint === USDC)?.totalBalance).toBe('24000000');
    expect(dataOf<unknown[]>(await scene.target.asUser(scene.apiKey, u.sub, '/me/orders?type=slice'))).toHaveLength(1);
    // Another user's slice is no burst of this one.
    expect((await create(await user(), typed('slice'))).status).toBe(200);
  });

  it('answers 403 FORBIDDEN for a pending order of another tenant', async () => {
    const u = await user();
    const { apiKey: otherKey } = await scene.target.createTenant();
    const stranger = await user(otherKey);
    const intent = dataOf<Record<string, string>>(await post(scene.apiKey, u.sub, '/orders/intent', DCA));
    expect(failure(await confirmSigned(u, intent, otherKey, stranger.sub))).toEqual({ status: 403, code: 'FORBIDDEN' });
  });
});
