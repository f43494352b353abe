import { Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import fc from 'fast-check';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { SetupFailed } from '../harness/failure.ts';
import { isObject } from '../shared/values.ts';
import { expectErrorEnvelope } from './auth.checks.ts';
import {
  dcaRequest, decodeTransaction, depositedTo, failureOf, FIVE_MINUTES_MS, INT, intentUser, ISO_8601, lamportTransfers, ORDER_TYPES, pendingIntent, postConfirm, postIntent, signedDeposit, skipIfTemplateRejected, usdc, usdt, UUID_V4, valuesOf,
} from './orders.ts';
import { correctBody, dataOf, errorCode, is2xx, postOnboard, serviceNow, testWallet } from './users.ts';

/**
 * POST /orders/intent and POST /orders/confirm for DCA orders (Orders: create; Errors, Orders and transactions;
 * Limits). The intent's top-level mints and the DCA `config` are ASSUMED (UNKNOWNS.md O7; the spec's
 * AssumedIntentCommon / AssumedDcaConfig): a target that rejects the assumed template with VALIDATION_ERROR makes
 * the checks that need an intent skip, never fail.
 */


const dcaIntentAndConfirm = defineCheck({
  name: 'dca-intent-returns-an-unsigned-deposit-and-confirm-activates-the-order',
  service: 'orders',
  rules: ['OA-INT-001', 'OA-INT-002', 'OA-INT-003', 'OA-INT-004', 'OA-INT-005', 'OA-INT-006', 'OA-INT-007', 'OA-INT-010',
    'OA-INT-017', 'OA-INT-018', 'OA-CONF-001', 'OA-CONF-002', 'OA-CONF-005', 'OA-CONF-022'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const request = dcaRequest();
    const { now, exact } = await serviceNow(t);
    const ex = await postIntent(t, user.sub, request);
    skipIfTemplateRejected(t, ex);
    const d = dataOf(ex);
    t.expect('OA-INT-001', is2xx(ex) && d !== undefined && UUID_V4.test(String(d.pendingOrderId)) && typeof d.memoId === 'string' &&
      typeof d.transaction === 'string' && typeof d.expiresAt === 'string' && ISO_8601.test(d.expiresAt) && typeof d.outputRecipientAddress === 'string' &&
      typeof d.inputMint === 'string' && typeof d.inputAmount === 'string' && INT.test(d.inputAmount) && typeof d.feeLamports === 'string' && INT.test(d.feeLamports), {
      documented: '2xx with data {pendingOrderId: UUIDv4, memoId, transaction, encoding, expiresAt: ISO-8601, orderType, outputRecipientAddress, inputMint, inputAmount, feeLamports: integer strings}',
      received: { status: ex.response.status, body: ex.response.body }, exchange: ex,
    });
    t.expect('OA-INT-002', d.encoding === 'base64', { documented: 'encoding "base64"', received: d.encoding, exchange: ex });
    const asked = valuesOf(request);
    t.expect('OA-INT-004', d.orderType === 'dca' && d.inputMint === asked.inputMint, {
      documented: `orderType "dca" and inputMint ${String(asked.inputMint)}`, received: { orderType: d.orderType, inputMint: d.inputMint }, exchange: ex,
    });
    const lag = Date.parse(d.expiresAt as string) - now.getTime();
    const slack = exact ? 5_000 : 60_000;
    t.expect('OA-INT-005', Math.abs(lag - FIVE_MINUTES_MS) <= slack, {
      documented: `expiresAt 5 minutes after the request (${now.toISOString()}, ${exact ? 'virtual clock' : 'local clock'}, tolerance ${slack / 1000}s)`, received: d.expiresAt, exchange: ex,
    });
    t.expect('OA-INT-006', d.outputRecipientAddress === user.walletAddress || d.outputRecipientAddress === user.userPubkey, {
      documented: `outputRecipientAddress the manager (${user.walletAddress}) or the user's wallet (${user.userPubkey})`, received: d.outputRecipientAddress, exchange: ex,
    });
    t.expect('OA-INT-007', d.feeLamports === '0' || d.feeLamports === '5000000', { documented: 'feeLamports "0" or "5000000"', received: d.feeLamports, exchange: ex });

    // The deposit transaction, before signing.
    const tx = decodeTransaction(d.transaction as string);
    t.expect('OA-INT-003', tx !== undefined, { documented: 'transaction is base64 of a serialized Solana transaction', received: (d.transaction as string).slice(0, 120), exchange: ex });
    const message = tx.compileMessage();
    const signers = message.accountKeys.slice(0, message.header.numRequiredSignatures).map((k) => k.toBase58());
    t.expect('OA-INT-017', tx.feePayer?.toBase58() === user.userPubkey && signers.length === 1 && signers[0] === user.userPubkey, {
      documented: `the user's wallet ${user.userPubkey} is the fee payer and the only required signer`, received: { feePayer: tx.feePayer?.toBase58(), signers }, exchange: ex,
    });
    t.expect('OA-INT-003', tx.signatures.every((s) => s.signature === null || s.signature.every((b) => b === 0)), {
      documented: 'the transaction does not yet carry the user\'s signature', received: tx.signatures.map((s) => ({ key: s.publicKey.toBase58(), signed: s.signature !== null })), exchange: ex,
    });
    const deposit = depositedTo(tx, user.walletAddress, d.inputMint as string);
    if (deposit.recognised === 0) {
      t.note('the deposit uses no transfer instruction this check can decode: the moved amount is not judged');
    } else {
      t.expect('OA-INT-017', deposit.amount === BigInt(d.inputAmount as string), {
        documented: `the deposit moves inputAmount ${String(d.inputAmount)} of ${String(d.inputMint)} from the user's wallet to the manager ${user.walletAddress}`,
        received: deposit.amount.toString(), exchange: ex,
      });
    }
    if (d.feeLamports === '5000000') {
      const lamports = lamportTransfers(tx, user.userPubkey);
      t.expect('OA-INT-010', lamports.includes(5_000_000n), {
        documented: 'with feeLamports 5000000 the deposit includes a transfer of 5000000 lamports', received: lamports.map(String), exchange: ex,
      });
    } else t.note('feeLamports is 0 (execution fees sponsored): OA-INT-010 not exercised');

    // Sign with the user's wallet and confirm.
    const pendingOrderId = d.pendingOrderId as string;
    const cex = await postConfirm(t, user.sub, { pendingOrderId, signedTransaction: signedDeposit({ data: d, ex, request }, user) });
    const c = dataOf(cex);
    t.expect('OA-CONF-001', is2xx(cex) && isObject(c?.order) && typeof c.txSignature === 'string' && typeof c.pendingOrderId === 'string', {
      documented: '2xx with data {order, txSignature, pendingOrderId}', received: { status: cex.response.status, body: cex.response.body }, exchange: cex,
    });
    const order = c.order as Record<string, unknown>;
    t.expect('OA-CONF-002', c.pendingOrderId === pendingOrderId && order.orderType === 'dca' && order.inputMint === d.inputMint &&
      order.outputRecipientAddress === d.outputRecipientAddress, {
      documented: `pendingOrderId ${pendingOrderId}; order with orderType dca, inputMint ${String(d.inputMint)}, outputRecipientAddress ${String(d.outputRecipientAddress)}`,
      received: { pendingOrderId: c.pendingOrderId, orderType: order.orderType, inputMint: order.inputMint, outputRecipientAddress: order.outputRecipientAddress }, exchange: cex,
    });
    t.expect('OA-CONF-022', order.outputMint === asked.outputMint && order.totalAmount === asked.totalAmount &&
      order.amountPerCycle === asked.amountPerCycle && order.cycleFrequencySeconds === asked.cycleFrequencySeconds, {
      documented: `the order carries the intent's config: outputMint ${String(asked.outputMint)}, totalAmount ${String(asked.totalAmount)}, amountPerCycle ${String(asked.amountPerCycle)}, cycleFrequencySeconds ${String(asked.cycleFrequencySeconds)}`,
      received: { outputMint: order.outputMint, totalAmount: order.totalAmount, amountPerCycle: order.amountPerCycle, cycleFrequencySeconds: order.cycleFrequencySeconds }, exchange: cex,
    });
    t.expect('OA-CONF-005', order.status === 'active' || order.status === 'executing', {
      documented: 'a confirmed DCA order without startAt is active or executing, never pending', received: order.status, exchange: cex,
    });
  },
});

const confirmMissingParams = defineCheck({
  name: 'confirm-without-pending-order-id-or-signed-transaction-answers-400-missing-params',
  service: 'orders',
  rules: ['OA-CONF-015', 'OA-ENV-002'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const intent = await pendingIntent(t, user);
    const signedTransaction = signedDeposit(intent, user);
    for (const body of [{ pendingOrderId: intent.pendingOrderId }, { signedTransaction }, {}]) {
      const ex = await postConfirm(t, user.sub, body);
      t.expect('OA-CONF-015', ex.response.status === 400 && errorCode(ex) === 'MISSING_PARAMS', {
        documented: `400 MISSING_PARAMS for a confirm body with only ${JSON.stringify(Object.keys(body))}`, received: failureOf(ex), exchange: ex,
      });
      expectErrorEnvelope(t, ex);
    }
  },
});

const confirmBadBase64 = defineCheck({
  name: 'confirm-with-a-signed-transaction-that-is-not-base64-answers-500-submit-failed',
  service: 'orders',
  rules: ['OA-CONF-016', 'OA-ENV-002'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const intent = await pendingIntent(t, user);
    const ex = await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction: '%%% not base64 %%%' });
    t.expect('OA-CONF-016', ex.response.status === 500 && errorCode(ex) === 'SUBMIT_FAILED', {
      documented: '500 SUBMIT_FAILED for a signedTransaction that is not base64 (Errors table; the spec lists SUBMIT_FAILED under 500 only)', received: failureOf(ex), exchange: ex,
    });
    expectErrorEnvelope(t, ex);
  },
});

const confirmNotATransaction = defineCheck({
  name: 'confirm-with-base64-that-is-no-transaction-answers-500-submit-failed',
  service: 'orders',
  rules: ['OA-CONF-016', 'OA-ENV-002'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const intent = await pendingIntent(t, user);
    const bytes = Buffer.from(intent.transaction, 'base64');
    // Valid base64 of bytes that are no transaction of the expected shape: too short, text, the deposit cut in half.
    const shapes: Record<string, string> = {
      'three zero bytes': 'AAAA',
      'a line of text': Buffer.from('this is not a solana transaction').toString('base64'),
      'the deposit transaction cut in half': bytes.subarray(0, Math.floor(bytes.length / 2)).toString('base64'),
    };
    for (const [what, signedTransaction] of Object.entries(shapes)) {
      const ex = await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction });
      t.expect('OA-CONF-016', ex.response.status === 500 && errorCode(ex) === 'SUBMIT_FAILED', {
        documented: `500 SUBMIT_FAILED for a signedTransaction that is base64 of ${what}, no transaction ("bad base64, wrong shape")`, received: failureOf(ex), exchange: ex,
      });
      expectErrorEnvelope(t, ex);
    }
  },
});

const confirmTampered = defineCheck({
  name: 'confirm-of-a-transaction-whose-message-changed-answers-400-transaction-tampered',
  service: 'orders',
  rules: ['OA-CONF-010', 'OA-ENV-002'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const intent = await pendingIntent(t, user);
    // One byte of the message (its recent blockhash) flipped, then signed by the user: a valid signature over other bytes.
    const tx = Transaction.from(Buffer.from(intent.transaction, 'base64'));
    const hash = Buffer.from(bs58.decode(tx.recentBlockhash!));
    hash[0] = hash[0]! ^ 0x01;
    tx.recentBlockhash = bs58.encode(hash);
    const signedTransaction = signedDeposit(intent, user, { transaction: tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64') });
    const ex = await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction });
    t.expect('OA-CONF-010', ex.response.status === 400 && errorCode(ex) === 'TRANSACTION_TAMPERED', {
      documented: '400 TRANSACTION_TAMPERED for a signed transaction whose message differs by one byte from the unsigned one', received: failureOf(ex), exchange: ex,
    });
    expectErrorEnvelope(t, ex);
  },
});

const confirmTwice = defineCheck({
  name: 'second-confirm-of-a-consumed-pending-order-answers-400-invalid-status',
  service: 'orders',
  rules: ['OA-CONF-001', 'OA-CONF-012', 'OA-ENV-002'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const intent = await pendingIntent(t, user);
    const body = { pendingOrderId: intent.pendingOrderId, signedTransaction: signedDeposit(intent, user) };
    const first = await postConfirm(t, user.sub, body);
    t.expect('OA-CONF-001', is2xx(first), { documented: 'the first confirm of the signed, unchanged transaction answers 2xx', received: failureOf(first), exchange: first });
    const ex = await postConfirm(t, user.sub, body);
    t.expect('OA-CONF-012', ex.response.status === 400 && errorCode(ex) === 'INVALID_STATUS', {
      documented: '400 INVALID_STATUS for a second confirm of a consumed pendingOrderId (no idempotency key)', received: failureOf(ex), exchange: ex,
    });
    expectErrorEnvelope(t, ex);
  },
});

const INVALID_ORDER_TYPE = fc.oneof(
  fc.constantFrom('DCA', 'limit', 'market', 'stop-loss', 'twap', 'Slice'),
  fc.string({ minLength: 1, maxLength: 12 }),
).filter((s) => !(ORDER_TYPES as readonly string[]).includes(s));

const intentOrderType = defineCheck({
  name: 'intent-with-an-unknown-order-type-answers-400-invalid-order-type',
  service: 'orders',
  rules: ['OA-INT-015', 'OA-INT-016'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    await t.property('OA-INT-015', INVALID_ORDER_TYPE, async (orderType) => {
      const ex = await postIntent(t, user.sub, { ...dcaRequest(), orderType });
      t.expect('OA-INT-015', ex.response.status === 400 && errorCode(ex) === 'INVALID_ORDER_TYPE', {
        documented: `400 INVALID_ORDER_TYPE for orderType ${JSON.stringify(orderType)}`, received: failureOf(ex), exchange: ex,
      });
    }, Math.min(t.env.numRuns, 8));
    const { orderType: _omitted, ...withoutType } = dcaRequest();
    const ex = await postIntent(t, user.sub, withoutType);
    t.expect('OA-INT-016', ex.response.status === 400 && ['INVALID_ORDER_TYPE', 'VALIDATION_ERROR'].includes(errorCode(ex) as string), {
      documented: '400 INVALID_ORDER_TYPE or 400 VALIDATION_ERROR for an intent without orderType', received: failureOf(ex), exchange: ex,
    });
  },
});

const intentSameMints = defineCheck({
  name: 'dca-intent-with-the-same-input-and-output-mint-answers-400-invalid-mints',
  service: 'orders',
  rules: ['OA-LIM-001'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    // The assumed template first: a target that reads it otherwise (400 VALIDATION_ERROR) leaves nothing to judge.
    skipIfTemplateRejected(t, await postIntent(t, user.sub, dcaRequest()));
    // Stablecoins, so that the per-cycle notional (12 USD) is above the minimum whatever the price oracle says.
    await t.property('OA-LIM-001', fc.constantFrom(usdc(), usdt()), async (mint) => {
      const ex = await postIntent(t, user.sub, dcaRequest({ inputMint: mint, outputMint: mint }));
      t.expect('OA-LIM-001', ex.response.status === 400 && errorCode(ex) === 'INVALID_MINTS', {
        documented: `400 INVALID_MINTS for inputMint = outputMint = ${mint}`, received: failureOf(ex), exchange: ex,
      });
    }, Math.min(t.env.numRuns, 4));
  },
});

const intentCycleFrequency = defineCheck({
  name: 'dca-intent-with-cycle-frequency-below-60-answers-400-validation-error',
  service: 'orders',
  rules: ['OA-LIM-011', 'OA-LIM-012'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    // The assumed template first (a target rejecting it gives the checks nothing to stand on), then exactly 60.
    skipIfTemplateRejected(t, await postIntent(t, user.sub, dcaRequest()));
    const at60 = await postIntent(t, user.sub, dcaRequest({ cycleFrequencySeconds: 60 }));
    t.expect('OA-LIM-012', is2xx(at60), { documented: '2xx for a DCA intent with cycleFrequencySeconds 60', received: failureOf(at60), exchange: at60 });
    await t.property('OA-LIM-011', fc.integer({ min: 0, max: 59 }), async (cycleFrequencySeconds) => {
      const ex = await postIntent(t, user.sub, dcaRequest({ cycleFrequencySeconds }));
      t.expect('OA-LIM-011', ex.response.status === 400 && errorCode(ex) === 'VALIDATION_ERROR', {
        documented: `400 VALIDATION_ERROR for cycleFrequencySeconds ${cycleFrequencySeconds} (minimum 60)`, received: failureOf(ex), exchange: ex,
      });
    }, Math.min(t.env.numRuns, 8));
  },
});

const intentMinNotional = defineCheck({
  name: 'dca-intent-below-the-minimum-notional-answers-400-min-notional-not-met-with-details',
  service: 'orders',
  rules: ['OA-LIM-002', 'OA-LIM-005', 'OA-LIM-006'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    skipIfTemplateRejected(t, await postIntent(t, user.sub, dcaRequest()));
    // 9.99 USDC per cycle first, to learn the tenant's minimum (OA-LIM-007: configurable per tenant).
    const probe = await postIntent(t, user.sub, dcaRequest({ amountPerCycle: '9990000' }));
    skipIfTemplateRejected(t, probe);
    if (is2xx(probe)) t.skip('9.99 USDC per cycle is accepted: this tenant\'s minimum is below the default 10 USD (an override), nothing is generated below it');
    const probeDetails = (isObject(probe.response.body) && isObject(probe.response.body.error) && isObject(probe.response.body.error.details)) ? probe.response.body.error.details : undefined;
    t.expect('OA-LIM-002', probe.response.status === 400 && errorCode(probe) === 'MIN_NOTIONAL_NOT_MET' && Number.isInteger(probeDetails?.requiredCents), {
      documented: '400 MIN_NOTIONAL_NOT_MET (details.requiredCents an integer) for 9.99 USDC per cycle, below the default 10 USD minimum', received: failureOf(probe), exchange: probe,
    });
    const required = probeDetails!.requiredCents as number;
    if (required !== 1000) t.note(`this tenant's minimum is ${required} cents (not the default 1000)`);
    // Both stablecoins, each with its own generated amounts: "USDC and USDT count as 1.00" (6 decimals each).
    for (const [symbol, mint] of [['USDC', usdc()], ['USDT', usdt()]] as const) {
      await t.property('OA-LIM-005', fc.integer({ min: 1, max: Math.max(1, required - 1) }), async (cents) => {
        const amount = String(BigInt(cents) * 10_000n);
        const ex = await postIntent(t, user.sub, dcaRequest({ inputMint: mint, amountPerCycle: amount, totalAmount: String(BigInt(cents) * 30_000n) }));
        t.expect('OA-LIM-002', ex.response.status === 400 && errorCode(ex) === 'MIN_NOTIONAL_NOT_MET', {
          documented: `400 MIN_NOTIONAL_NOT_MET for amountPerCycle ${amount} (${cents} cents of ${symbol}, minimum ${required})`, received: failureOf(ex), exchange: ex,
        });
        const body = ex.response.body as { error: { details?: unknown } };
        const details = isObject(body.error.details) ? body.error.details : undefined;
        t.expect('OA-LIM-005', details !== undefined && details.mint === mint && details.amount === amount && Number.isInteger(details.usdCents) &&
          details.requiredCents === required && (details.usdCents as number) < required, {
          documented: `error.details {mint: ${mint}, amount: "${amount}", usdCents < requiredCents, requiredCents: ${required}}`, received: details ?? '(no details)', exchange: ex,
        });
        t.expect('OA-LIM-006', details.usdCents === cents, {
          documented: `${symbol} counts as 1.00 USD: usdCents ${cents} for ${amount} (6 decimals)`, received: details.usdCents, exchange: ex,
        });
      }, Math.min(t.env.numRuns, 6));
    }
  },
});

const feeFollowsSponsorship = defineCheck({
  name: 'intent-fee-lamports-follow-the-tenant-fee-sponsorship',
  service: 'orders',
  rules: ['OA-INT-007', 'OA-INT-008', 'OA-INT-009', 'OA-INT-010'],
  profile: 'full',
  needs: ['tenants', 'funding'],
  async run(t: CheckContext) {
    for (const feeSponsored of [true, false]) {
      const tenant = await t.control.createTenant({ feeSponsored });
      const headers = { 'X-Service-Key': tenant.apiKey };
      const wallet = testWallet(t);
      const onboard = await postOnboard(t, await correctBody(t, wallet.sub, wallet.keypair), tenant.apiKey);
      if (!is2xx(onboard)) throw new SetupFailed(`onboarding on a fresh tenant answered ${onboard.response.status} ${JSON.stringify(onboard.response.body).slice(0, 300)}`, onboard);
      const userPubkey = wallet.keypair.publicKey.toBase58();
      await t.control.fund(userPubkey, 'native', '1000000000');
      try {
        await t.control.fund(userPubkey, usdc(), '100000000');
      } catch (e) {
        t.skip(`the target cannot fund ${usdc()} (set CONFORMANCE_USDC_MINT to this deployment's USDC): ${(e as Error).message.slice(0, 200)}`);
      }
      const ex = await postIntent(t, wallet.sub, dcaRequest(), headers);
      skipIfTemplateRejected(t, ex);
      const d = dataOf(ex);
      if (!is2xx(ex) || typeof d?.transaction !== 'string') throw new SetupFailed(`POST /orders/intent answered ${ex.response.status} ${JSON.stringify(ex.response.body).slice(0, 300)}`, ex);
      t.expect('OA-INT-007', d.feeLamports === '0' || d.feeLamports === '5000000', { documented: 'feeLamports "0" or "5000000"', received: d.feeLamports, exchange: ex });
      if (feeSponsored) {
        t.expect('OA-INT-008', d.feeLamports === '0', { documented: 'feeLamports "0" on a tenant whose execution fees are sponsored', received: d.feeLamports, exchange: ex });
        continue;
      }
      t.expect('OA-INT-009', d.feeLamports === '5000000', { documented: 'feeLamports "5000000" on a tenant whose execution fees are not sponsored', received: d.feeLamports, exchange: ex });
      const tx = decodeTransaction(d.transaction);
      const lamports = tx ? lamportTransfers(tx, userPubkey) : [];
      t.expect('OA-INT-010', lamports.includes(5_000_000n), {
        documented: 'with feeLamports 5000000 the deposit transaction includes a transfer of 5000000 lamports', received: lamports.map(String), exchange: ex,
      });
    }
  },
});

/**
 * Last of the group on purpose: it moves the target's virtual clock 5 minutes and 1 second forward, shared time for
 * every later check (the service's time is read from the clock by the checks that need it).
 */
const confirmLate = defineCheck({
  name: 'confirm-after-the-five-minute-window-answers-400-expired',
  service: 'orders',
  rules: ['OA-CONF-007', 'OA-CONF-009', 'OA-ENV-002'],
  profile: 'full',
  needs: ['funding', 'clock'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const intent = await pendingIntent(t, user);
    const signedTransaction = signedDeposit(intent, user);
    await t.control.advanceClock(5 * 60 + 1);
    t.note('the target\'s virtual clock was advanced by 301 seconds (shared time)');
    const ex = await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction });
    const code = errorCode(ex);
    // OA-CONF-009 (UNKNOWNS): TRANSACTION_EXPIRED and INVALID_STATE also describe a late confirm; only another class of answer fails.
    if (ex.response.status === 400 && (code === 'TRANSACTION_EXPIRED' || code === 'INVALID_STATE')) {
      t.note(`a late confirm answered 400 ${code} (accepted, OA-CONF-009) rather than 400 EXPIRED`);
    }
    t.expect('OA-CONF-007', ex.response.status === 400 && ['EXPIRED', 'TRANSACTION_EXPIRED', 'INVALID_STATE'].includes(code as string), {
      documented: '400 EXPIRED for a confirm after the 5-minute window (TRANSACTION_EXPIRED or INVALID_STATE also accepted, OA-CONF-009)', received: failureOf(ex), exchange: ex,
    });
    expectErrorEnvelope(t, ex);
  },
});

/**
 * The group in running order (a module namespace lists its exports alphabetically, an array keeps this order):
 * the clock-advancing late confirm runs last.
 */
export const intentChecks = [
  dcaIntentAndConfirm, confirmMissingParams, confirmBadBase64, confirmNotATransaction, confirmTampered, confirmTwice,
  intentOrderType, intentSameMints, intentCycleFrequency, intentMinNotional, feeFollowsSponsorship, confirmLate,
];
