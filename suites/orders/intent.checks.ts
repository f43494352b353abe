import type { Transaction } from '@solana/web3.js';
import fc from 'fast-check';
import { dataOf, failureOf, is2xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed } from '../harness/failure.ts';
import { isObject, randomToken } from '../shared/values.ts';
import {
  dcaRequest,
  decodeTransaction,
  depositedTo,
  type Funded,
  FIVE_MINUTES_MS,
  INT,
  type IntentRequest,
  intentRequest,
  ISO_8601,
  lamportTransfers,
  ORDER_TYPES,
  postConfirm,
  postIntent,
  signedDeposit,
  skipIfTemplateRejected,
  usdc,
  UUID_V4,
  valuesOf,
  intentUser,
  pendingIntent,
} from './orders.ts';
import { requestOf, richUser, validConfig } from './steps/create.ts';
import { expectAccepted, expectError } from './steps/expect.ts';
import { asUser, onboardedOnTenant, onboardedUser, serviceNow, throwawayWallet } from './users.ts';

/**
 * POST /orders/intent (area INT: "Orders: create"; Errors): the pending order and its unsigned deposit, for every order
 * type, inline onboarding, unknown order types and users, and the fee the tenant's sponsorship sets. The intent's
 * top-level mints and each type's `config` are ASSUMED (UNKNOWNS.md O7; the spec's Assumed*IntentRequest, orders.ts
 * `defaultConfig`): a target that rejects the assumed template with VALIDATION_ERROR makes the check skip, never fail.
 */

/** OA-INT-001, OA-INT-004: the answer to an intent of `request` is its pending order, with the documented fields; its data. */
function expectPendingOrder(t: CheckContext, ex: Exchange, request: IntentRequest): Record<string, unknown> {
  const asked = valuesOf(request);
  const d = dataOf(ex);
  t.expect(
    'OA-INT-001',
    is2xx(ex) &&
      d !== undefined &&
      UUID_V4.test(String(d.pendingOrderId)) &&
      typeof d.memoId === 'string' &&
      typeof d.transaction === 'string' &&
      typeof d.expiresAt === 'string' &&
      ISO_8601.test(d.expiresAt) &&
      typeof d.outputRecipientAddress === 'string' &&
      typeof d.inputMint === 'string' &&
      typeof d.inputAmount === 'string' &&
      INT.test(d.inputAmount) &&
      typeof d.feeLamports === 'string' &&
      INT.test(d.feeLamports),
    {
      documented: `2xx with data {pendingOrderId: UUIDv4, memoId, transaction, encoding, expiresAt: ISO-8601, orderType, outputRecipientAddress, inputMint, inputAmount, feeLamports: integer strings} for a ${String(asked.orderType)} intent`,
      received: failureOf(ex),
      exchange: ex,
    },
  );
  t.expect('OA-INT-004', d.orderType === asked.orderType && d.inputMint === asked.inputMint, {
    documented: `orderType "${String(asked.orderType)}" and inputMint ${String(asked.inputMint)}`,
    received: { orderType: d.orderType, inputMint: d.inputMint },
    exchange: ex,
  });
  return d;
}

/** OA-CONF-001, OA-CONF-002: the answer to the confirm of the pending order `d` is the order it created; the order. */
function expectConfirmedOrder(t: CheckContext, cex: Exchange, d: Record<string, unknown>): Record<string, unknown> {
  const c = dataOf(cex);
  t.expect('OA-CONF-001', is2xx(cex) && isObject(c?.order) && typeof c.txSignature === 'string' && typeof c.pendingOrderId === 'string', {
    documented: `2xx with data {order, txSignature, pendingOrderId} for a signed ${String(d.orderType)} deposit`,
    received: failureOf(cex),
    exchange: cex,
  });
  const order = c.order as Record<string, unknown>;
  t.expect(
    'OA-CONF-002',
    c.pendingOrderId === d.pendingOrderId &&
      order.orderType === d.orderType &&
      order.inputMint === d.inputMint &&
      order.outputRecipientAddress === d.outputRecipientAddress,
    {
      documented: `pendingOrderId ${String(d.pendingOrderId)}; order with orderType ${String(d.orderType)}, inputMint ${String(d.inputMint)}, outputRecipientAddress ${String(d.outputRecipientAddress)}`,
      received: {
        pendingOrderId: c.pendingOrderId,
        orderType: order.orderType,
        inputMint: order.inputMint,
        outputRecipientAddress: order.outputRecipientAddress,
      },
      exchange: cex,
    },
  );
  return order;
}

const dcaIntentAndConfirm = defineCheck({
  name: 'dca-intent-returns-an-unsigned-deposit-and-confirm-activates-the-order',
  service: 'orders',
  rules: [
    'OA-INT-001',
    'OA-INT-002',
    'OA-INT-003',
    'OA-INT-004',
    'OA-INT-005',
    'OA-INT-006',
    'OA-INT-007',
    'OA-INT-010',
    'OA-INT-017',
    'OA-INT-018',
    'OA-CONF-001',
    'OA-CONF-002',
    'OA-CONF-005',
    'OA-CONF-022',
  ],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const request = dcaRequest();
    const { now, exact } = await serviceNow(t);
    const ex = await postIntent(t, user.sub, request);
    skipIfTemplateRejected(t, ex);
    const d = expectPendingOrder(t, ex, request);
    t.expect('OA-INT-002', d.encoding === 'base64', { documented: 'encoding "base64"', received: d.encoding, exchange: ex });
    const asked = valuesOf(request);
    const lag = Date.parse(d.expiresAt as string) - now.getTime();
    const slack = exact ? 5_000 : 60_000;
    t.expect('OA-INT-005', Math.abs(lag - FIVE_MINUTES_MS) <= slack, {
      documented: `expiresAt 5 minutes after the request (${now.toISOString()}, ${exact ? 'virtual clock' : 'local clock'}, tolerance ${slack / 1000}s)`,
      received: d.expiresAt,
      exchange: ex,
    });
    t.expect('OA-INT-006', d.outputRecipientAddress === user.walletAddress || d.outputRecipientAddress === user.userPubkey, {
      documented: `outputRecipientAddress the manager (${user.walletAddress}) or the user's wallet (${user.userPubkey})`,
      received: d.outputRecipientAddress,
      exchange: ex,
    });
    t.expect('OA-INT-007', d.feeLamports === '0' || d.feeLamports === '5000000', {
      documented: 'feeLamports "0" or "5000000"',
      received: d.feeLamports,
      exchange: ex,
    });

    // The deposit transaction, before signing.
    const tx = decodeTransaction(d.transaction as string);
    t.expect('OA-INT-003', tx !== undefined, {
      documented: 'transaction is base64 of a serialized Solana transaction',
      received: (d.transaction as string).slice(0, 120),
      exchange: ex,
    });
    const message = tx.compileMessage();
    const signers = message.accountKeys.slice(0, message.header.numRequiredSignatures).map((k) => k.toBase58());
    t.expect('OA-INT-017', tx.feePayer?.toBase58() === user.userPubkey && signers.length === 1 && signers[0] === user.userPubkey, {
      documented: `the user's wallet ${user.userPubkey} is the fee payer and the only required signer`,
      received: { feePayer: tx.feePayer?.toBase58(), signers },
      exchange: ex,
    });
    t.expect(
      'OA-INT-003',
      tx.signatures.every((s) => s.signature === null || s.signature.every((b) => b === 0)),
      {
        documented: "the transaction does not yet carry the user's signature",
        received: tx.signatures.map((s) => ({ key: s.publicKey.toBase58(), signed: s.signature !== null })),
        exchange: ex,
      },
    );
    const deposit = depositedTo(tx, user.walletAddress, d.inputMint as string);
    if (deposit.recognised === 0) {
      t.note('the deposit uses no transfer instruction this check can decode: the moved amount is not judged');
    } else {
      t.expect('OA-INT-017', deposit.amount === BigInt(d.inputAmount as string), {
        documented: `the deposit moves inputAmount ${String(d.inputAmount)} of ${String(d.inputMint)} from the user's wallet to the manager ${user.walletAddress}`,
        received: deposit.amount.toString(),
        exchange: ex,
      });
    }
    if (d.feeLamports === '5000000') {
      const lamports = lamportTransfers(tx, user.userPubkey);
      t.expect('OA-INT-010', lamports.includes(5_000_000n), {
        documented: 'with feeLamports 5000000 the deposit includes a transfer of 5000000 lamports',
        received: lamports.map(String),
        exchange: ex,
      });
    } else t.note('feeLamports is 0 (execution fees sponsored): OA-INT-010 not exercised');

    // Sign with the user's wallet and confirm.
    const pendingOrderId = d.pendingOrderId as string;
    const cex = await postConfirm(t, user.sub, { pendingOrderId, signedTransaction: signedDeposit({ data: d, ex, request }, user) });
    const order = expectConfirmedOrder(t, cex, d);
    t.expect(
      'OA-CONF-022',
      order.outputMint === asked.outputMint &&
        order.totalAmount === asked.totalAmount &&
        order.amountPerCycle === asked.amountPerCycle &&
        order.cycleFrequencySeconds === asked.cycleFrequencySeconds,
      {
        documented: `the order carries the intent's config: outputMint ${String(asked.outputMint)}, totalAmount ${String(asked.totalAmount)}, amountPerCycle ${String(asked.amountPerCycle)}, cycleFrequencySeconds ${String(asked.cycleFrequencySeconds)}`,
        received: {
          outputMint: order.outputMint,
          totalAmount: order.totalAmount,
          amountPerCycle: order.amountPerCycle,
          cycleFrequencySeconds: order.cycleFrequencySeconds,
        },
        exchange: cex,
      },
    );
    t.expect('OA-CONF-005', order.status === 'active' || order.status === 'executing', {
      documented: 'a confirmed DCA order without startAt is active or executing, never pending',
      received: order.status,
      exchange: cex,
    });
  },
});

const createsEveryType = defineCheck({
  name: 'every-order-type-is-created-end-to-end-with-its-generated-config',
  service: 'orders',
  rules: [
    'OA-INT-001',
    'OA-INT-003',
    'OA-INT-004',
    'OA-INT-017',
    'OA-INT-018',
    'OA-CONF-001',
    'OA-CONF-002',
    'OA-CONF-022',
    'OA-TRIG-001',
    'OA-TRIG-002',
  ],
  profile: 'full',
  async run(t: CheckContext) {
    for (const orderType of ['dca', 'stop_loss', 'take_profit', 'oco', 'slice'] as const) {
      // The partner's wallet (no `funding`) runs one slice order at a time, for minutes: generated ones would collide.
      if (orderType === 'slice' && !t.control.has('funding')) {
        t.note(
          "slice left out: the partner's wallet runs one slice order at a time (OA-CONF-020); its generated configs are judged with funding",
        );
        continue;
      }
      await t.property(
        'OA-CONF-022',
        validConfig(orderType),
        async (generated) => {
          const user = await richUser(t);
          const request = await requestOf(t, orderType, generated);
          const ex = await postIntent(t, user.sub, request);
          skipIfTemplateRejected(t, ex);
          const d = expectPendingOrder(t, ex, request);
          const asked = valuesOf(request);
          inspectDeposit(t, ex, user);

          const cex = await postConfirm(t, user.sub, {
            pendingOrderId: d.pendingOrderId,
            signedTransaction: signedDeposit({ data: d, ex, request }, user),
          });
          const order = expectConfirmedOrder(t, cex, d);
          const carried = carriedConfig(request);
          const received = Object.fromEntries(Object.keys(carried).map((k) => [k, order[k]]));
          t.expect('OA-CONF-022', JSON.stringify(received) === JSON.stringify(carried), {
            documented: `the ${orderType} order carries the intent's config ${JSON.stringify(carried)}`,
            received,
            exchange: cex,
          });
          if (orderType === 'dca' || orderType === 'slice') return;
          t.expect('OA-TRIG-001', order.amount === d.inputAmount && d.inputAmount === asked.amount, {
            documented: `amount of the ${orderType} order equals the deposited inputAmount ${String(d.inputAmount)} (the config's amount ${String(asked.amount)})`,
            received: order.amount,
            exchange: cex,
          });
          if (orderType === 'oco') return;
          t.expect('OA-TRIG-002', order.triggerPrice === asked.triggerPrice, {
            documented: `triggerPrice ${String(asked.triggerPrice)} as given at creation`,
            received: order.triggerPrice,
            exchange: cex,
          });
        },
        Math.min(t.env.numRuns, 2),
      );
    }
  },
});

/** The config fields an order echoes (CONF-022): outputMint, and the type's own fields (slice: none, UNKNOWNS O2). */
function carriedConfig(request: IntentRequest): Record<string, unknown> {
  const c = valuesOf(request);
  const pick = (...names: string[]) => Object.fromEntries(names.filter((n) => c[n] !== undefined).map((n) => [n, c[n]]));
  switch (c.orderType) {
    case 'dca':
      return { outputMint: c.outputMint, ...pick('totalAmount', 'amountPerCycle', 'cycleFrequencySeconds') };
    case 'stop_loss':
    case 'take_profit':
      return { outputMint: c.outputMint, ...pick('priceDecimals', 'minOutputAmount') };
    case 'oco':
      return { outputMint: c.outputMint, ...pick('priceDecimals', 'stopLossPrice', 'takeProfitPrice') };
    default:
      return { outputMint: c.outputMint };
  }
}

/** The deposit transaction before signing: base64 of an unsigned transaction, paid by the user, moving inputAmount. */
function inspectDeposit(t: CheckContext, ex: Exchange, user: Funded): void {
  const d = dataOf(ex)!;
  const tx = decodeTransaction(d.transaction as string);
  const unsigned = (decoded: Transaction) => decoded.signatures.every((s) => s.signature === null || s.signature.every((b) => b === 0));
  t.expect('OA-INT-003', tx !== undefined && unsigned(tx), {
    documented: "transaction is base64 of a serialized Solana transaction that does not yet carry the user's signature",
    received: tx
      ? tx.signatures.map((s) => ({ key: s.publicKey.toBase58(), signed: s.signature !== null }))
      : String(d.transaction).slice(0, 120),
    exchange: ex,
  });
  const message = tx.compileMessage();
  const signers = message.accountKeys.slice(0, message.header.numRequiredSignatures).map((k) => k.toBase58());
  const deposit = depositedTo(tx, user.walletAddress, d.inputMint as string);
  t.expect(
    'OA-INT-017',
    tx.feePayer?.toBase58() === user.userPubkey &&
      signers.length === 1 &&
      signers[0] === user.userPubkey &&
      (deposit.recognised === 0 || deposit.amount === BigInt(d.inputAmount as string)),
    {
      documented: `the user's wallet ${user.userPubkey} pays and alone signs; the deposit moves inputAmount ${String(d.inputAmount)} to the manager ${user.walletAddress}`,
      received: {
        feePayer: tx.feePayer?.toBase58(),
        signers,
        moved: deposit.recognised === 0 ? '(no decodable transfer)' : deposit.amount.toString(),
      },
      exchange: ex,
    },
  );
}

const INVALID_ORDER_TYPE = fc
  .oneof(fc.constantFrom('DCA', 'limit', 'market', 'stop-loss', 'twap', 'Slice'), fc.string({ minLength: 1, maxLength: 12 }))
  .filter((s) => !(ORDER_TYPES as readonly string[]).includes(s));

const intentOrderType = defineCheck({
  name: 'intent-with-an-unknown-order-type-answers-400-invalid-order-type',
  service: 'orders',
  rules: ['OA-INT-015', 'OA-INT-016'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    await t.property(
      'OA-INT-015',
      INVALID_ORDER_TYPE,
      async (orderType) => {
        const ex = await postIntent(t, user.sub, { ...dcaRequest(), orderType });
        expectError(t, 'OA-INT-015', ex, {
          status: 400,
          codes: ['INVALID_ORDER_TYPE'],
          documented: `400 INVALID_ORDER_TYPE for orderType ${JSON.stringify(orderType)}`,
        });
      },
      Math.min(t.env.numRuns, 8),
    );
    const { orderType: _omitted, ...withoutType } = dcaRequest();
    const ex = await postIntent(t, user.sub, withoutType);
    expectError(t, 'OA-INT-016', ex, {
      status: 400,
      codes: ['INVALID_ORDER_TYPE', 'VALIDATION_ERROR'],
      documented: '400 INVALID_ORDER_TYPE or 400 VALIDATION_ERROR for an intent without orderType',
    });
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
      const wallet = await onboardedOnTenant(t, tenant.apiKey);
      const userPubkey = wallet.keypair.publicKey.toBase58();
      await t.control.fund(userPubkey, 'native', '1000000000');
      try {
        await t.control.fund(userPubkey, usdc(), '100000000');
      } catch (e) {
        t.skip(
          `the target cannot fund ${usdc()} (set CONFORMANCE_USDC_MINT to this deployment's USDC): ${(e as Error).message.slice(0, 200)}`,
        );
      }
      const ex = await postIntent(t, wallet.sub, dcaRequest(), headers);
      skipIfTemplateRejected(t, ex);
      const d = dataOf(ex);
      if (!is2xx(ex) || typeof d?.transaction !== 'string')
        throw new SetupFailed(`POST /orders/intent answered ${ex.response.status} ${JSON.stringify(ex.response.body).slice(0, 300)}`, ex);
      t.expect('OA-INT-007', d.feeLamports === '0' || d.feeLamports === '5000000', {
        documented: 'feeLamports "0" or "5000000"',
        received: d.feeLamports,
        exchange: ex,
      });
      if (feeSponsored) {
        t.expect('OA-INT-008', d.feeLamports === '0', {
          documented: 'feeLamports "0" on a tenant whose execution fees are sponsored',
          received: d.feeLamports,
          exchange: ex,
        });
        continue;
      }
      t.expect('OA-INT-009', d.feeLamports === '5000000', {
        documented: 'feeLamports "5000000" on a tenant whose execution fees are not sponsored',
        received: d.feeLamports,
        exchange: ex,
      });
      const tx = decodeTransaction(d.transaction);
      const lamports = tx ? lamportTransfers(tx, userPubkey) : [];
      t.expect('OA-INT-010', lamports.includes(5_000_000n), {
        documented: 'with feeLamports 5000000 the deposit transaction includes a transfer of 5000000 lamports',
        received: lamports.map(String),
        exchange: ex,
      });
    }
  },
});

// ---- onboardIfNeeded ----

const inlineOnboarding = defineCheck({
  name: 'intent-with-onboard-if-needed-provisions-a-never-onboarded-user',
  service: 'orders',
  rules: ['OA-INT-012'],
  profile: 'full',
  async run(t: CheckContext) {
    const sub = randomToken('conformance-inline');
    const ex = await postIntent(
      t,
      sub,
      intentRequest('dca', { onboardIfNeeded: true, userPubkey: throwawayWallet().publicKey.toBase58() }),
    );
    skipIfTemplateRejected(t, ex);
    if (is2xx(ex)) t.confirm('inline-onboarding');
    expectAccepted(t, 'OA-INT-012', ex, `2xx for an intent with onboardIfNeeded true for the never-onboarded sub ${sub}`);
    const me = await asUser(t, sub, { method: 'GET', path: '/me' });
    expectAccepted(t, 'OA-INT-012', me, `GET /me answers 2xx for ${sub} once the intent onboarded it inline`);
  },
});

const inlineOnboardingConflict = defineCheck({
  name: 'intent-with-onboard-if-needed-for-a-wallet-of-another-account-answers-409-user-pubkey-conflict',
  service: 'orders',
  rules: ['OA-INT-013'],
  profile: 'full',
  async run(t: CheckContext) {
    const owner = await onboardedUser(t);
    // The positive case first: inline onboarding of a wallet nobody holds (the wallet's place is assumed, UNKNOWNS O7).
    const fresh = await postIntent(
      t,
      randomToken('conformance-inline'),
      intentRequest('dca', { onboardIfNeeded: true, userPubkey: throwawayWallet().publicKey.toBase58() }),
    );
    skipIfTemplateRejected(t, fresh);
    if (is2xx(fresh)) t.confirm('inline-onboarding');
    const ex = await postIntent(
      t,
      randomToken('conformance-inline'),
      intentRequest('dca', { onboardIfNeeded: true, userPubkey: owner.userPubkey }),
    );
    expectError(t, 'OA-INT-013', ex, {
      status: 409,
      codes: ['USER_PUBKEY_CONFLICT'],
      documented: `409 USER_PUBKEY_CONFLICT for onboardIfNeeded with the wallet ${owner.userPubkey}, already bound to ${owner.sub}`,
    });
  },
});

const unknownUserIntent = defineCheck({
  name: 'intent-for-a-never-onboarded-user-without-onboard-if-needed-answers-401-unauthorized',
  service: 'orders',
  rules: ['OA-INT-014'],
  profile: 'full',
  async run(t: CheckContext) {
    for (const body of [
      intentRequest('dca'),
      intentRequest('dca', { onboardIfNeeded: false, userPubkey: throwawayWallet().publicKey.toBase58() }),
    ]) {
      const ex = await postIntent(t, randomToken('conformance-never-onboarded'), body);
      expectError(t, 'OA-INT-014', ex, {
        status: 401,
        codes: ['UNAUTHORIZED'],
        documented: `401 UNAUTHORIZED for an intent of a never-onboarded user (onboardIfNeeded ${String((body as { onboardIfNeeded?: boolean }).onboardIfNeeded)})`,
      });
    }
  },
});

const intentCreatesNothing = defineCheck({
  name: 'an-intent-alone-creates-no-order',
  service: 'orders',
  rules: ['OA-INT-011'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    // The run's one wallet (no funding capability) may hold orders of earlier checks: the intents must add none.
    const listed = async () => {
      const ex = await asUser(t, user.sub, { method: 'GET', path: '/me/orders' });
      const data = dataOf(ex) ?? (isObject(ex.response.body) ? ex.response.body.data : undefined);
      return { ex, count: Array.isArray(data) ? data.length : undefined };
    };
    const before = await listed();
    for (const orderType of ['dca', 'stop_loss', 'slice'] as const) await pendingIntent(t, user, intentRequest(orderType));
    const { ex, count } = await listed();
    expectAccepted(
      t,
      'OA-INT-011',
      ex,
      `GET /me/orders lists no more orders after three intents and no confirm than the ${String(before.count)} before them`,
      count !== undefined && count === before.count,
    );
  },
});

/** The group in running order (a module namespace lists its exports alphabetically, an array keeps this order). */
export const intentChecks = [
  dcaIntentAndConfirm,
  createsEveryType,
  intentOrderType,
  feeFollowsSponsorship,
  inlineOnboarding,
  inlineOnboardingConflict,
  unknownUserIntent,
  intentCreatesNothing,
];
