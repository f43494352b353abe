import { Keypair, SystemProgram, Transaction, type TransactionInstruction } from '@solana/web3.js';
import fc from 'fast-check';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed } from '../harness/failure.ts';
import { isObject, randomToken } from '../shared/values.ts';
import { signedByThrowaway, throwawaySignature } from './signing-gate.ts';
import {
  createOrder, dcaRequest, decodeTransaction, depositAmount, depositedTo, failureOf, type Funded, fundUser, INT, type Intent, intentRequest, type IntentRequest, intentUser, ISO_8601, NATIVE_MINT, ORDER_TYPES, type OrderType, pendingIntent, postConfirm, postIntent, signedDeposit, skipIfTemplateRejected, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, usdc, usdt, UUID_V4, valuesOf,
} from './orders.ts';
import { asUser, dataOf, errorCode, is2xx, onboardedUser, postOnboard, correctBody, serviceNow, testWallet, throwawayWallet, otherTenantKey } from './users.ts';

/**
 * Creating orders of all five types (Orders: create; Resources: Order, Trigger-order fields, Slice order; Errors;
 * Limits), end to end: intent -> the deposit inspected before signing -> signed with the user's wallet -> confirm.
 * The intent `config` of each type is ASSUMED (UNKNOWNS.md O7; the spec's Assumed*IntentRequest, orders.ts
 * `defaultConfig`): a target that rejects the assumed template with VALIDATION_ERROR makes the check skip.
 * Prices are "a pair ratio scaled by priceDecimals"; the generated ones never need the market to be anywhere.
 */

const TRIGGER_TYPES = ['stop_loss', 'take_profit', 'oco'] as const;
type TriggerType = (typeof TRIGGER_TYPES)[number];

/** USDC amounts (6 decimals) from whole cents. */
const usdcCents = (min: number, max: number) => fc.integer({ min, max }).map((cents) => String(BigInt(cents) * 10_000n));
const PRICE = fc.bigInt({ min: 1n, max: 10n ** 24n }).map(String);
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

/** A valid config of each type; `expiresIn` (seconds from the service's now) becomes expiresAt at request time. */
export interface Generated { config: Record<string, unknown>; expiresIn?: number }

export function validConfig(orderType: OrderType): fc.Arbitrary<Generated> {
  const trigger = { amount: usdcCents(1000, 10_000), priceDecimals: fc.integer({ min: 0, max: 18 }), trailingStopBps: optional(fc.integer({ min: 1, max: 9999 })) };
  const expiresIn = optional(fc.integer({ min: 3600, max: 30 * 86_400 }));
  switch (orderType) {
    case 'dca':
      return fc.record({ perCycle: fc.integer({ min: 1000, max: 5000 }), cycles: fc.integer({ min: 1, max: 4 }), frequency: fc.integer({ min: 60, max: 86_400 }) })
        .map(({ perCycle, cycles, frequency }) => ({ config: {
          totalAmount: String(BigInt(perCycle * cycles) * 10_000n), amountPerCycle: String(BigInt(perCycle) * 10_000n), cycleFrequencySeconds: frequency,
        } }));
    case 'stop_loss':
    case 'take_profit':
      // minOutputAmount at most 1000 smallest units: far below what 10 USDC is worth in any output, never unsatisfiable.
      return fc.record({ config: fc.record({ ...trigger, triggerPrice: PRICE, minOutputAmount: optional(fc.integer({ min: 1, max: 1000 }).map(String)) }), expiresIn });
    case 'oco':
      return fc.record({ config: fc.record({ ...trigger, prices: fc.uniqueArray(fc.bigInt({ min: 1n, max: 10n ** 24n }), { minLength: 2, maxLength: 2 }) }), expiresIn })
        .map(({ config: { prices, ...rest }, expiresIn: e }) => {
          const [low, high] = [...prices].sort((a, b) => (a < b ? -1 : 1));
          return { config: { ...rest, stopLossPrice: String(low), takeProfitPrice: String(high) }, expiresIn: e };
        });
    case 'slice':
      return fc.record({ config: fc.record({ amount: usdcCents(1000, 10_000), sliceCount: fc.integer({ min: 1, max: 10 }) }) });
  }
}

export async function requestOf(t: CheckContext, orderType: OrderType, generated: Generated): Promise<IntentRequest> {
  const expiresAt = generated.expiresIn === undefined ? undefined : await unixSecondsFromNow(t, generated.expiresIn);
  return intentRequest(orderType, { config: { ...generated.config, expiresAt } });
}

async function unixSecondsFromNow(t: CheckContext, seconds: number): Promise<number> {
  return Math.floor((await serviceNow(t)).now.getTime() / 1000) + seconds;
}

/** A user whose wallet holds 1000 USDC and 1 native. */
async function richUser(t: CheckContext): Promise<Funded> {
  const user = await intentUser(t, false);
  await fundUser(t, user.userPubkey, '1000000000');
  return user;
}

const createsEveryType = defineCheck({
  name: 'every-order-type-is-created-end-to-end-with-its-generated-config',
  service: 'orders',
  rules: ['OA-INT-001', 'OA-INT-003', 'OA-INT-004', 'OA-INT-017', 'OA-INT-018', 'OA-CONF-001', 'OA-CONF-002', 'OA-CONF-022', 'OA-TRIG-001', 'OA-TRIG-002'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    for (const orderType of ['dca', 'stop_loss', 'take_profit', 'oco', 'slice'] as const) {
      await t.property('OA-CONF-022', validConfig(orderType), async (generated) => {
        const user = await richUser(t);
        const request = await requestOf(t, orderType, generated);
        const ex = await postIntent(t, user.sub, request);
        skipIfTemplateRejected(t, ex);
        const d = dataOf(ex);
        t.expect('OA-INT-001', is2xx(ex) && d !== undefined && UUID_V4.test(String(d.pendingOrderId)) && typeof d.memoId === 'string' &&
          typeof d.transaction === 'string' && typeof d.expiresAt === 'string' && ISO_8601.test(d.expiresAt) && typeof d.outputRecipientAddress === 'string' &&
          typeof d.inputMint === 'string' && typeof d.inputAmount === 'string' && INT.test(d.inputAmount) && typeof d.feeLamports === 'string' && INT.test(d.feeLamports), {
          documented: `2xx with data {pendingOrderId: UUIDv4, memoId, transaction, encoding, expiresAt: ISO-8601, orderType, outputRecipientAddress, inputMint, inputAmount, feeLamports} for a ${orderType} intent`,
          received: failureOf(ex), exchange: ex,
        });
        const asked = valuesOf(request);
        t.expect('OA-INT-004', d.orderType === orderType && d.inputMint === asked.inputMint, {
          documented: `orderType "${orderType}" and inputMint ${String(asked.inputMint)}`, received: { orderType: d.orderType, inputMint: d.inputMint }, exchange: ex,
        });
        inspectDeposit(t, ex, user);

        const cex = await postConfirm(t, user.sub, { pendingOrderId: d.pendingOrderId, signedTransaction: signedDeposit({ data: d, ex, request }, user) });
        const c = dataOf(cex);
        t.expect('OA-CONF-001', is2xx(cex) && isObject(c?.order) && typeof c.txSignature === 'string' && typeof c.pendingOrderId === 'string', {
          documented: `2xx with data {order, txSignature, pendingOrderId} for a signed ${orderType} deposit`, received: failureOf(cex), exchange: cex,
        });
        const order = c.order as Record<string, unknown>;
        t.expect('OA-CONF-002', c.pendingOrderId === d.pendingOrderId && order.orderType === orderType && order.inputMint === d.inputMint &&
          order.outputRecipientAddress === d.outputRecipientAddress, {
          documented: `pendingOrderId ${String(d.pendingOrderId)}; order with orderType ${orderType}, inputMint ${String(d.inputMint)}, outputRecipientAddress ${String(d.outputRecipientAddress)}`,
          received: { pendingOrderId: c.pendingOrderId, orderType: order.orderType, inputMint: order.inputMint, outputRecipientAddress: order.outputRecipientAddress }, exchange: cex,
        });
        const carried = carriedConfig(request);
        const received = Object.fromEntries(Object.keys(carried).map((k) => [k, order[k]]));
        t.expect('OA-CONF-022', JSON.stringify(received) === JSON.stringify(carried), {
          documented: `the ${orderType} order carries the intent's config ${JSON.stringify(carried)}`, received, exchange: cex,
        });
        if (orderType === 'dca' || orderType === 'slice') return;
        t.expect('OA-TRIG-001', order.amount === d.inputAmount && d.inputAmount === asked.amount, {
          documented: `amount of the ${orderType} order equals the deposited inputAmount ${String(d.inputAmount)} (the config's amount ${String(asked.amount)})`,
          received: order.amount, exchange: cex,
        });
        if (orderType === 'oco') return;
        t.expect('OA-TRIG-002', order.triggerPrice === asked.triggerPrice, {
          documented: `triggerPrice ${String(asked.triggerPrice)} as given at creation`, received: order.triggerPrice, exchange: cex,
        });
      }, Math.min(t.env.numRuns, 2));
    }
  },
});

/** The config fields an order echoes (CONF-022): outputMint, and the type's own fields (slice: none, UNKNOWNS O2). */
function carriedConfig(request: IntentRequest): Record<string, unknown> {
  const c = valuesOf(request);
  const pick = (...names: string[]) => Object.fromEntries(names.filter((n) => c[n] !== undefined).map((n) => [n, c[n]]));
  switch (c.orderType) {
    case 'dca': return { outputMint: c.outputMint, ...pick('totalAmount', 'amountPerCycle', 'cycleFrequencySeconds') };
    case 'stop_loss': case 'take_profit': return { outputMint: c.outputMint, ...pick('priceDecimals', 'minOutputAmount') };
    case 'oco': return { outputMint: c.outputMint, ...pick('priceDecimals', 'stopLossPrice', 'takeProfitPrice') };
    default: return { outputMint: c.outputMint };
  }
}

/** The deposit transaction before signing: base64 of an unsigned transaction, paid by the user, moving inputAmount. */
function inspectDeposit(t: CheckContext, ex: Exchange, user: Funded): void {
  const d = dataOf(ex)!;
  const tx = decodeTransaction(d.transaction as string);
  t.expect('OA-INT-003', tx !== undefined && tx.signatures.every((s) => s.signature === null || s.signature.every((b) => b === 0)), {
    documented: 'transaction is base64 of a serialized Solana transaction that does not yet carry the user\'s signature',
    received: tx ? tx.signatures.map((s) => ({ key: s.publicKey.toBase58(), signed: s.signature !== null })) : String(d.transaction).slice(0, 120), exchange: ex,
  });
  const message = tx.compileMessage();
  const signers = message.accountKeys.slice(0, message.header.numRequiredSignatures).map((k) => k.toBase58());
  const deposit = depositedTo(tx, user.walletAddress, d.inputMint as string);
  t.expect('OA-INT-017', tx.feePayer?.toBase58() === user.userPubkey && signers.length === 1 && signers[0] === user.userPubkey &&
    (deposit.recognised === 0 || deposit.amount === BigInt(d.inputAmount as string)), {
    documented: `the user's wallet ${user.userPubkey} pays and alone signs; the deposit moves inputAmount ${String(d.inputAmount)} to the manager ${user.walletAddress}`,
    received: { feePayer: tx.feePayer?.toBase58(), signers, moved: deposit.recognised === 0 ? '(no decodable transfer)' : deposit.amount.toString() }, exchange: ex,
  });
}

const dcaCounters = defineCheck({
  name: 'confirmed-dca-order-carries-integer-string-amounts-and-an-integer-frequency',
  service: 'orders',
  rules: ['OA-DCA-001'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const { order, confirm } = await createOrder(t, await intentUser(t, true));
    t.expect('OA-DCA-001', typeof order.totalAmount === 'string' && INT.test(order.totalAmount) && typeof order.amountPerCycle === 'string' && INT.test(order.amountPerCycle) &&
      Number.isInteger(order.cycleFrequencySeconds) && (order.cycleFrequencySeconds as number) >= 60, {
      documented: 'totalAmount and amountPerCycle integer strings, cycleFrequencySeconds an integer >= 60',
      received: { totalAmount: order.totalAmount, amountPerCycle: order.amountPerCycle, cycleFrequencySeconds: order.cycleFrequencySeconds }, exchange: confirm,
    });
  },
});

const confirmNeverInvalidTransaction = defineCheck({
  name: 'confirm-never-answers-invalid-transaction-for-a-structural-problem',
  service: 'orders',
  rules: ['OA-CONF-018'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const intent = await pendingIntent(t, user);
    for (const signedTransaction of ['%%% not base64 %%%', 'AAAA', intent.transaction]) {
      const ex = await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction });
      t.expect('OA-CONF-018', errorCode(ex) !== 'INVALID_TRANSACTION', {
        documented: 'POST /orders/confirm reports structural problems as SUBMIT_FAILED, never INVALID_TRANSACTION', received: failureOf(ex), exchange: ex,
      });
    }
  },
});

/** One order of each trigger kind the creation-time facts need, with an expiry and (but for the first) a trail. */
async function triggerOrders(t: CheckContext, expiresAt: number) {
  const user = await intentUser(t, true);
  const make = async (orderType: TriggerType, config: Record<string, unknown>) => (await createOrder(t, user, intentRequest(orderType, { config: { ...config, expiresAt } })));
  return {
    plainStop: await make('stop_loss', {}),
    trailingStop: await make('stop_loss', { trailingStopBps: 500, trailingMode: 'stop_and_trail' }),
    takeProfit: await make('take_profit', { trailingStopBps: 250 }),
    oco: await make('oco', { trailingStopBps: 100 }),
  };
}

const triggerCreationFacts = defineCheck({
  name: 'trigger-orders-are-created-active-with-their-creation-time-fields',
  service: 'orders',
  rules: ['OA-CONF-004', 'OA-TRIG-005', 'OA-TRIG-006', 'OA-TRIG-007', 'OA-TRIG-008', 'OA-TRIG-012', 'OA-TRIG-013', 'OA-TRIG-014', 'OA-TRIG-016',
    'OA-TRIG-017', 'OA-TRIG-020', 'OA-TRIG-023'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const expiresAt = await unixSecondsFromNow(t, 86_400);
    const orders = await triggerOrders(t, expiresAt);
    for (const [label, created] of Object.entries(orders)) {
      const { order, confirm: ex } = created;
      const sent = valuesOf(created.intent.request);
      const what = `${label} (${String(order.orderType)})`;
      t.expect('OA-CONF-004', order.status === 'active' || (order.status === 'executing' && order.previousStatus === 'active'), {
        documented: `a confirmed ${what} is active (or executing with previousStatus active)`, received: { status: order.status, previousStatus: order.previousStatus }, exchange: ex,
      });
      t.expect('OA-TRIG-005', Number.isInteger(order.priceDecimals) && (order.priceDecimals as number) >= 0 && (order.priceDecimals as number) <= 18, {
        documented: `priceDecimals of the ${what} an integer from 0 to 18`, received: order.priceDecimals, exchange: ex,
      });
      t.expect('OA-TRIG-006', typeof order.expiresAt === 'string' && ISO_8601.test(order.expiresAt) && Date.parse(order.expiresAt) === expiresAt * 1000, {
        documented: `expiresAt sent as Unix seconds ${expiresAt} comes back as the ISO-8601 timestamp ${new Date(expiresAt * 1000).toISOString()}`, received: order.expiresAt, exchange: ex,
      });
      if (sent.trailingStopBps !== undefined) {
        t.expect('OA-TRIG-007', order.trailingStopBps === sent.trailingStopBps, {
          documented: `the ${what} created with trailingStopBps ${String(sent.trailingStopBps)} returns it`, received: order.trailingStopBps, exchange: ex,
        });
      }
      t.expect('OA-TRIG-023', order.nextExecutionAt === null, { documented: `trigger orders have no schedule: nextExecutionAt null on the ${what}`, received: order.nextExecutionAt, exchange: ex });
      if (order.orderType !== 'take_profit') {
        t.expect('OA-TRIG-013', !('highestObservedPrice' in order), {
          documented: `highestObservedPrice absent on the ${what} before the price first sets a new high`, received: order.highestObservedPrice, exchange: ex,
        });
      }
    }
    const plain = orders.plainStop.order;
    t.expect('OA-TRIG-008', plain.currentTriggerPrice === plain.triggerPrice, {
      documented: 'on a stop_loss that does not trail, currentTriggerPrice equals triggerPrice', received: { triggerPrice: plain.triggerPrice, currentTriggerPrice: plain.currentTriggerPrice }, exchange: orders.plainStop.confirm,
    });
    const trailing = orders.trailingStop.order;
    t.expect('OA-TRIG-017', !('trailingMode' in trailing) || trailing.trailingMode === 'pure' || trailing.trailingMode === 'stop_and_trail', {
      documented: 'trailingMode of a stop_loss, when present, is pure or stop_and_trail', received: trailing.trailingMode, exchange: orders.trailingStop.confirm,
    });
    const tp = orders.takeProfit.order;
    t.expect('OA-TRIG-016', !('currentTriggerPrice' in tp), { documented: 'take_profit reads carry no currentTriggerPrice', received: tp.currentTriggerPrice, exchange: orders.takeProfit.confirm });
    if (tp.trailingActivated !== true) {
      t.expect('OA-TRIG-014', !('highestObservedPrice' in tp), {
        documented: 'highestObservedPrice absent on a take_profit whose trail has not armed', received: { trailingActivated: tp.trailingActivated, highestObservedPrice: tp.highestObservedPrice }, exchange: orders.takeProfit.confirm,
      });
    }
    const oco = orders.oco.order;
    // OA-TRIG-012 (info): the initial currentTriggerPrice of an oco is presumably stopLossPrice; only recorded.
    t.note(`oco currentTriggerPrice ${JSON.stringify(oco.currentTriggerPrice)} (integer string: ${typeof oco.currentTriggerPrice === 'string' && INT.test(oco.currentTriggerPrice)}; ` +
      `${oco.currentTriggerPrice === oco.stopLossPrice ? 'equals' : 'differs from'} stopLossPrice ${String(oco.stopLossPrice)})`);
    t.expect('OA-TRIG-020', oco.status === 'executing' || !('pendingLeg' in oco), {
      documented: 'pendingLeg absent on an oco that is not executing', received: { status: oco.status, pendingLeg: oco.pendingLeg }, exchange: orders.oco.confirm,
    });
  },
});

const ocoMinOutput = defineCheck({
  name: 'oco-intent-with-min-output-amount-is-rejected-or-never-reports-it',
  service: 'orders',
  rules: ['OA-LIM-022'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const request = intentRequest('oco', { config: { minOutputAmount: '1' } });
    const ex = await postIntent(t, user.sub, request);
    if (!is2xx(ex)) {
      t.expect('OA-LIM-022', ex.response.status === 400, { documented: '400 (or 2xx) for an oco intent carrying minOutputAmount, "not supported on oco"', received: failureOf(ex), exchange: ex });
      return;
    }
    const { orderId } = await createOrder(t, user, request);
    const detail = await asUser(t, user.sub, { method: 'GET', path: `/oco/${orderId}` });
    const order = dataOf(detail);
    t.expect('OA-LIM-022', is2xx(detail) && order !== undefined && (order.minOutputAmount === undefined || order.minOutputAmount === null), {
      documented: 'an oco accepted with minOutputAmount does not report it on its detail read', received: failureOf(detail), exchange: detail,
    });
  },
});

// ---- Create-time limits (Limits; Errors, VALIDATION_ERROR: trigger-specific causes) ----

/** An invalid config class: its rule, the types it applies to, boundary values, and generated ones. */
interface InvalidClass {
  rule: string;
  what: string;
  types: readonly TriggerType[];
  /** Config overrides from a generated value and the service's now (Unix seconds). */
  edges: readonly ((now: number) => Record<string, unknown>)[];
  arb: fc.Arbitrary<(now: number) => Record<string, unknown>>;
}

const outside = (below: number, above: number) => fc.oneof(fc.integer({ min: below - 1000, max: below }), fc.integer({ min: above, max: above + 100_000 }));
const INVALID_CLASSES: readonly InvalidClass[] = [
  { rule: 'OA-LIM-013', what: 'priceDecimals outside 0 to 18', types: TRIGGER_TYPES, edges: [() => ({ priceDecimals: -1 }), () => ({ priceDecimals: 19 })],
    arb: outside(-1, 19).map((priceDecimals) => () => ({ priceDecimals })) },
  { rule: 'OA-LIM-015', what: 'trailingStopBps outside 1 to 9999', types: TRIGGER_TYPES, edges: [() => ({ trailingStopBps: 0 }), () => ({ trailingStopBps: 10_000 })],
    arb: outside(0, 10_000).map((trailingStopBps) => () => ({ trailingStopBps })) },
  // At least 10 minutes in the past: the suite's idea of now may be the local clock, not the service's.
  { rule: 'OA-LIM-017', what: 'expiresAt in the past', types: TRIGGER_TYPES, edges: [(now) => ({ expiresAt: now - 600 })],
    arb: fc.integer({ min: 600, max: 10_000_000 }).map((ago) => (now: number) => ({ expiresAt: now - ago })) },
  { rule: 'OA-LIM-019', what: 'amount 0', types: TRIGGER_TYPES, edges: [() => ({ amount: '0' })], arb: fc.constant(() => ({ amount: '0' })) },
  { rule: 'OA-LIM-020', what: 'a price of 0', types: TRIGGER_TYPES, edges: [() => ({ triggerPrice: '0' })],
    arb: fc.constantFrom('triggerPrice', 'stopLossPrice').map((name) => () => ({ [name]: '0' })) },
  { rule: 'OA-LIM-021', what: 'minOutputAmount 0', types: ['stop_loss', 'take_profit'], edges: [() => ({ minOutputAmount: '0' })], arb: fc.constant(() => ({ minOutputAmount: '0' })) },
];

/** The price field of a type a class names ("a price": triggerPrice on stop_loss/take_profit, stopLossPrice on oco). */
function applicable(orderType: TriggerType, over: Record<string, unknown>): Record<string, unknown> {
  if ('triggerPrice' in over || 'stopLossPrice' in over) {
    const value = over.triggerPrice ?? over.stopLossPrice;
    return orderType === 'oco' ? { stopLossPrice: value } : { triggerPrice: value };
  }
  return over;
}

/** Each trigger type's default template is accepted here, or the limit checks have nothing to stand on (skip). */
async function templatesAccepted(t: CheckContext, sub: string): Promise<void> {
  for (const orderType of TRIGGER_TYPES) {
    const ex = await postIntent(t, sub, intentRequest(orderType));
    skipIfTemplateRejected(t, ex);
    if (!is2xx(ex)) throw new SetupFailed(`the default ${orderType} intent answered ${ex.response.status} ${JSON.stringify(ex.response.body).slice(0, 300)}`, ex);
  }
}

const invalidTriggerConfigs = defineCheck({
  name: 'trigger-intents-outside-the-create-time-limits-answer-400-validation-error',
  service: 'orders',
  rules: ['OA-LIM-013', 'OA-LIM-015', 'OA-LIM-017', 'OA-LIM-019', 'OA-LIM-020', 'OA-LIM-021'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    await templatesAccepted(t, user.sub);
    const attempt = async (cls: InvalidClass, orderType: TriggerType, over: (now: number) => Record<string, unknown>) => {
      const config = applicable(orderType, over(await unixSecondsFromNow(t, 0)));
      const ex = await postIntent(t, user.sub, intentRequest(orderType, { config }));
      t.expect(cls.rule, ex.response.status === 400 && errorCode(ex) === 'VALIDATION_ERROR', {
        documented: `400 VALIDATION_ERROR for a ${orderType} intent with ${cls.what}: ${JSON.stringify(config)}`, received: failureOf(ex), exchange: ex,
      });
    };
    for (const cls of INVALID_CLASSES) {
      for (const orderType of cls.types) for (const edge of cls.edges) await attempt(cls, orderType, edge);
      await t.property(cls.rule, fc.tuple(fc.constantFrom(...cls.types), cls.arb), async ([orderType, over]) => attempt(cls, orderType, over), Math.min(t.env.numRuns, 3));
    }
  },
});

const limitsAccepted = defineCheck({
  name: 'trigger-intents-at-the-create-time-limits-are-accepted',
  service: 'orders',
  rules: ['OA-LIM-014', 'OA-LIM-016'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    await templatesAccepted(t, user.sub);
    const cases = [
      ['OA-LIM-014', { priceDecimals: 0 }], ['OA-LIM-014', { priceDecimals: 18 }],
      ['OA-LIM-016', { trailingStopBps: 1 }], ['OA-LIM-016', { trailingStopBps: 9999 }],
    ] as const;
    for (const orderType of TRIGGER_TYPES) {
      for (const [rule, config] of cases) {
        const ex = await postIntent(t, user.sub, intentRequest(orderType, { config }));
        t.expect(rule, is2xx(ex), { documented: `2xx for a ${orderType} intent with ${JSON.stringify(config)} (inside the limits)`, received: failureOf(ex), exchange: ex });
      }
    }
  },
});

const ocoPriceOrder = defineCheck({
  name: 'oco-intents-are-rejected-exactly-when-stop-loss-price-is-not-below-take-profit-price',
  service: 'orders',
  rules: ['OA-LIM-018', 'OA-LIM-026'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    const attempt = async ([stopLoss, takeProfit]: readonly [bigint, bigint]) => {
      const config = { stopLossPrice: String(stopLoss), takeProfitPrice: String(takeProfit) };
      const ex = await postIntent(t, user.sub, intentRequest('oco', { config }));
      if (stopLoss < takeProfit) {
        t.expect('OA-LIM-026', is2xx(ex), { documented: `2xx for an oco intent with stopLossPrice ${stopLoss} < takeProfitPrice ${takeProfit}`, received: failureOf(ex), exchange: ex });
      } else {
        t.expect('OA-LIM-018', ex.response.status === 400 && errorCode(ex) === 'VALIDATION_ERROR', {
          documented: `400 VALIDATION_ERROR for an oco intent with stopLossPrice ${stopLoss} >= takeProfitPrice ${takeProfit}`, received: failureOf(ex), exchange: ex,
        });
      }
    };
    skipIfTemplateRejected(t, await postIntent(t, user.sub, intentRequest('oco')));
    // The boundary first: one apart (accepted), equal and one apart the other way (rejected).
    for (const pair of [[1000n, 1001n], [1000n, 1000n], [1001n, 1000n]] as const) await attempt(pair);
    const price = fc.bigInt({ min: 1n, max: 10n ** 24n });
    await t.property('OA-LIM-018', fc.oneof(fc.tuple(price, price), price.map((p) => [p, p] as const), price.map((p) => [p, p + 1n] as const)),
      async (pair) => attempt(pair as readonly [bigint, bigint]), Math.min(t.env.numRuns, 10));
  },
});

/** error.details of a failure, when an object. */
function detailsOf(ex: Exchange): Record<string, unknown> | undefined {
  const b = ex.response.body;
  return isObject(b) && isObject(b.error) && isObject(b.error.details) ? b.error.details : undefined;
}

const triggerMinNotional = defineCheck({
  name: 'trigger-intents-are-held-to-the-minimum-notional-on-their-full-amount',
  service: 'orders',
  rules: ['OA-LIM-003', 'OA-LIM-004'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    await templatesAccepted(t, user.sub);
    // 9.99 USDC first, to learn the tenant's minimum (OA-LIM-007: configurable per tenant).
    const probe = await postIntent(t, user.sub, intentRequest('stop_loss', { config: { amount: '9990000' } }));
    skipIfTemplateRejected(t, probe);
    if (is2xx(probe)) t.skip('9.99 USDC is accepted: this tenant\'s minimum is below the default 10 USD (an override)');
    const required = Number.isInteger(detailsOf(probe)?.requiredCents) ? detailsOf(probe)!.requiredCents as number : 1000;
    for (const orderType of TRIGGER_TYPES) {
      for (const cents of [required - 1, Math.max(1, Math.floor(required / 3))]) {
        const amount = String(BigInt(cents) * 10_000n);
        const ex = await postIntent(t, user.sub, intentRequest(orderType, { config: { amount } }));
        t.expect('OA-LIM-003', ex.response.status === 400 && errorCode(ex) === 'MIN_NOTIONAL_NOT_MET', {
          documented: `400 MIN_NOTIONAL_NOT_MET for a ${orderType} intent whose full amount is ${cents} cents of USDC (minimum ${required})`, received: failureOf(ex), exchange: ex,
        });
      }
    }
    const exact = String(BigInt(required) * 10_000n);
    for (const request of [...TRIGGER_TYPES.map((orderType) => intentRequest(orderType, { config: { amount: exact } })),
      intentRequest('dca', { config: { amountPerCycle: exact, totalAmount: String(BigInt(exact) * 3n) } })]) {
      const ex = await postIntent(t, user.sub, request);
      t.expect('OA-LIM-004', is2xx(ex), {
        documented: `2xx for a ${String(request.orderType)} intent worth exactly the minimum (${required} cents of USDC ${request.orderType === 'dca' ? 'per cycle' : 'in full'})`, received: failureOf(ex), exchange: ex,
      });
    }
  },
});

const tenantMinimum = defineCheck({
  name: 'the-minimum-notional-is-the-tenants-configured-minimum',
  service: 'orders',
  rules: ['OA-LIM-007'],
  profile: 'full',
  needs: ['tenants'],
  async run(t: CheckContext) {
    const tenant = await t.control.createTenant({ minNotionalUsdCents: 2500 });
    const wallet = testWallet(t);
    const onboard = await postOnboard(t, await correctBody(t, wallet.sub, wallet.keypair), tenant.apiKey);
    if (!is2xx(onboard)) throw new SetupFailed(`onboarding on a fresh tenant answered ${onboard.response.status} ${JSON.stringify(onboard.response.body).slice(0, 300)}`, onboard);
    const post = (amount: string) => postIntent(t, wallet.sub, intentRequest('stop_loss', { config: { amount } }), { 'X-Service-Key': tenant.apiKey });
    // At the minimum first: the assumed template accepted (or the check skips), then below it.
    const at = await post('25000000');
    skipIfTemplateRejected(t, at);
    t.expect('OA-LIM-007', is2xx(at), { documented: '2xx for 25 USDC on a tenant whose minimum is 25 USD', received: failureOf(at), exchange: at });
    const below = await post('20000000');
    t.expect('OA-LIM-007', below.response.status === 400 && errorCode(below) === 'MIN_NOTIONAL_NOT_MET' && detailsOf(below)?.requiredCents === 2500, {
      documented: '400 MIN_NOTIONAL_NOT_MET with requiredCents 2500 for 20 USDC on a tenant whose minimum is 25 USD', received: failureOf(below), exchange: below,
    });
  },
});

/** A mint the target creates on first funding (control API: 6 decimals by default), priced only by what the check sets. */
async function testMint(t: CheckContext, holder: string): Promise<string> {
  const mint = Keypair.generate().publicKey.toBase58();
  await t.control.fund(holder, mint, '1');
  return mint;
}

const oracleNotional = defineCheck({
  name: 'non-stable-inputs-are-valued-at-the-oracle-price-for-the-minimum-notional',
  service: 'orders',
  rules: ['OA-LIM-008'],
  profile: 'full',
  needs: ['prices', 'funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    const mint = await testMint(t, user.userPubkey);
    await t.property('OA-LIM-008', fc.record({ dollars: fc.integer({ min: 1, max: 5 }), amount: fc.integer({ min: 1, max: 30_000_000 }) }), async ({ dollars, amount }) => {
      await t.control.setPrice(mint, String(dollars));
      const ex = await postIntent(t, user.sub, intentRequest('stop_loss', { inputMint: mint, outputMint: usdc(), config: { amount: String(amount) } }));
      skipIfTemplateRejected(t, ex);
      const cents = Math.floor((amount * dollars * 100) / 1_000_000);
      if (is2xx(ex)) return;
      const details = detailsOf(ex);
      t.expect('OA-LIM-008', errorCode(ex) === 'MIN_NOTIONAL_NOT_MET' && details?.usdCents === cents, {
        documented: `usdCents ${cents} for ${amount} units (6 decimals) of a mint the oracle prices at ${dollars} USD`, received: failureOf(ex), exchange: ex,
      });
    }, Math.min(t.env.numRuns, 8));
  },
});

const oracleDown = defineCheck({
  name: 'intent-with-an-unpriceable-input-answers-503-price-oracle-unavailable',
  service: 'orders',
  rules: ['OA-LIM-009'],
  profile: 'full',
  needs: ['faults'],
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    // The stop_loss template accepted with the oracle up first (or the check skips).
    skipIfTemplateRejected(t, await postIntent(t, user.sub, intentRequest('stop_loss')));
    await t.control.setFaults({ oracle: 'down' });
    t.defer(() => t.control.setFaults({ oracle: 'up' }));
    const ex = await postIntent(t, user.sub, intentRequest('stop_loss', { inputMint: NATIVE_MINT, outputMint: usdc(), config: { amount: '1000000000' } }));
    skipIfTemplateRejected(t, ex);
    t.expect('OA-LIM-009', ex.response.status === 503 && errorCode(ex) === 'PRICE_ORACLE_UNAVAILABLE', {
      documented: '503 PRICE_ORACLE_UNAVAILABLE for a native-asset input while the oracle is down', received: failureOf(ex), exchange: ex,
    });
  },
});

const stablecoinsNeedNoOracle = defineCheck({
  name: 'usdc-and-usdt-inputs-are-accepted-while-the-price-oracle-is-down',
  service: 'orders',
  rules: ['OA-LIM-027'],
  profile: 'full',
  needs: ['faults'],
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    const requests = [usdc(), usdt()].map((inputMint) => dcaRequest({ inputMint }));
    // With the oracle up first: each body is one this target accepts, so that only the outage can change the answer.
    for (const request of requests) {
      const ex = await postIntent(t, user.sub, request);
      skipIfTemplateRejected(t, ex);
      if (!is2xx(ex)) throw new SetupFailed(`a DCA intent from ${request.inputMint} answered ${ex.response.status} with the oracle up`, ex);
    }
    await t.control.setFaults({ oracle: 'down' });
    t.defer(() => t.control.setFaults({ oracle: 'up' }));
    for (const request of requests) {
      const ex = await postIntent(t, user.sub, request);
      t.expect('OA-LIM-027', is2xx(ex), {
        documented: `2xx (never 503 PRICE_ORACLE_UNAVAILABLE) for a DCA intent of 12 per cycle from the stablecoin ${request.inputMint} while the oracle is down: it counts as 1.00`,
        received: failureOf(ex), exchange: ex,
      });
    }
  },
});

const minOutputUnsatisfiable = defineCheck({
  name: 'crossed-trigger-with-an-unreachable-minimum-output-answers-400-min-output-unsatisfiable',
  service: 'orders',
  rules: ['OA-LIM-023', 'OA-LIM-024'],
  profile: 'full',
  needs: ['prices', 'funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    const mint = await testMint(t, user.userPubkey);
    await t.control.setPrice(mint, '2');
    for (const orderType of ['stop_loss', 'take_profit'] as const) skipIfTemplateRejected(t, await postIntent(t, user.sub, intentRequest(orderType)));
    // 12 USDC (about 1 USD each) into a mint at 2 USD: about 0.5 per USDC, about 6 whole tokens (6000000 units) of
    // market value. priceDecimals 6: a stop at 1.0 and a take-profit at 0.1 are both already crossed.
    for (const [orderType, triggerPrice] of [['stop_loss', '1000000'], ['take_profit', '100000']] as const) {
      const ex = await postIntent(t, user.sub, intentRequest(orderType, { outputMint: mint, config: { priceDecimals: 6, triggerPrice, minOutputAmount: '7000000' } }));
      t.expect('OA-LIM-023', ex.response.status === 400 && errorCode(ex) === 'MIN_OUTPUT_UNSATISFIABLE', {
        documented: `400 MIN_OUTPUT_UNSATISFIABLE for a ${orderType} already crossed (pair 0.5, trigger ${triggerPrice} at 6 decimals) whose minOutputAmount 7000000 exceeds the about 6000000 the input is worth`,
        received: failureOf(ex), exchange: ex,
      });
      const details = detailsOf(ex);
      t.expect('OA-LIM-024', details !== undefined && ['triggerPrice', 'currentPairPrice', 'minOutputAmount', 'fairOutputAmount'].every((k) => k in details), {
        documented: 'details {triggerPrice, currentPairPrice, minOutputAmount, fairOutputAmount}', received: details ?? '(no details)', exchange: ex,
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
    const ex = await postIntent(t, sub, intentRequest('dca', { onboardIfNeeded: true, userPubkey: throwawayWallet().publicKey.toBase58() }));
    skipIfTemplateRejected(t, ex);
    if (is2xx(ex)) t.confirm('inline-onboarding');
    t.expect('OA-INT-012', is2xx(ex), { documented: `2xx for an intent with onboardIfNeeded true for the never-onboarded sub ${sub}`, received: failureOf(ex), exchange: ex });
    const me = await asUser(t, sub, { method: 'GET', path: '/me' });
    t.expect('OA-INT-012', is2xx(me), { documented: `GET /me answers 2xx for ${sub} once the intent onboarded it inline`, received: failureOf(me), exchange: me });
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
    const fresh = await postIntent(t, randomToken('conformance-inline'), intentRequest('dca', { onboardIfNeeded: true, userPubkey: throwawayWallet().publicKey.toBase58() }));
    skipIfTemplateRejected(t, fresh);
    if (is2xx(fresh)) t.confirm('inline-onboarding');
    const ex = await postIntent(t, randomToken('conformance-inline'), intentRequest('dca', { onboardIfNeeded: true, userPubkey: owner.userPubkey }));
    t.expect('OA-INT-013', ex.response.status === 409 && errorCode(ex) === 'USER_PUBKEY_CONFLICT', {
      documented: `409 USER_PUBKEY_CONFLICT for onboardIfNeeded with the wallet ${owner.userPubkey}, already bound to ${owner.sub}`, received: failureOf(ex), exchange: ex,
    });
  },
});

const unknownUserIntent = defineCheck({
  name: 'intent-for-a-never-onboarded-user-without-onboard-if-needed-answers-401-unauthorized',
  service: 'orders',
  rules: ['OA-INT-014'],
  profile: 'full',
  async run(t: CheckContext) {
    for (const body of [intentRequest('dca'), intentRequest('dca', { onboardIfNeeded: false, userPubkey: throwawayWallet().publicKey.toBase58() })]) {
      const ex = await postIntent(t, randomToken('conformance-never-onboarded'), body);
      t.expect('OA-INT-014', ex.response.status === 401 && errorCode(ex) === 'UNAUTHORIZED', {
        documented: `401 UNAUTHORIZED for an intent of a never-onboarded user (onboardIfNeeded ${String((body as { onboardIfNeeded?: boolean }).onboardIfNeeded)})`, received: failureOf(ex), exchange: ex,
      });
    }
  },
});

// ---- POST /orders/confirm ----

const confirmOtherUser = defineCheck({
  name: 'confirm-of-another-users-pending-order-answers-403-forbidden',
  service: 'orders',
  rules: ['OA-CONF-013'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const owner = await intentUser(t, true);
    const other = await intentUser(t, true);
    const intent = await pendingIntent(t, owner);
    const ex = await postConfirm(t, other.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction: signedDeposit(intent, owner) });
    t.expect('OA-CONF-013', ex.response.status === 403 && errorCode(ex) === 'FORBIDDEN', {
      documented: `403 FORBIDDEN when ${other.sub} confirms the pending order of ${owner.sub} (same tenant)`, received: failureOf(ex), exchange: ex,
    });
  },
});

const confirmOtherTenant = defineCheck({
  name: 'confirm-of-another-tenants-pending-order-answers-403-forbidden',
  service: 'orders',
  rules: ['OA-CONF-014'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const owner = await intentUser(t, true);
    const intent = await pendingIntent(t, owner);
    const tenant = await otherTenantKey(t);
    const wallet = testWallet(t);
    const onboard = await postOnboard(t, await correctBody(t, wallet.sub, wallet.keypair), tenant.apiKey);
    if (!is2xx(onboard)) throw new SetupFailed(`onboarding on a fresh tenant answered ${onboard.response.status} ${JSON.stringify(onboard.response.body).slice(0, 300)}`, onboard);
    const ex = await asUser(t, wallet.sub, {
      method: 'POST', path: '/orders/confirm', headers: { 'X-Service-Key': tenant.apiKey },
      json: { pendingOrderId: intent.pendingOrderId, signedTransaction: signedDeposit(intent, owner) },
    });
    t.expect('OA-CONF-014', ex.response.status === 403 && errorCode(ex) === 'FORBIDDEN', {
      documented: '403 FORBIDDEN when a user of another tenant confirms the pending order', received: failureOf(ex), exchange: ex,
    });
  },
});

const confirmUnsigned = defineCheck({
  name: 'confirm-of-the-unsigned-transaction-answers-500-submit-failed',
  service: 'orders',
  rules: ['OA-CONF-017'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const intent = await pendingIntent(t, user);
    const ex = await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction: intent.transaction });
    t.expect('OA-CONF-017', ex.response.status === 500 && errorCode(ex) === 'SUBMIT_FAILED', {
      documented: '500 SUBMIT_FAILED for the unsigned transaction sent back without the user\'s signature', received: failureOf(ex), exchange: ex,
    });
  },
});

const confirmUnknown = defineCheck({
  name: 'confirm-of-an-unknown-pending-order-answers-4xx',
  service: 'orders',
  rules: ['OA-CONF-019'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    // A well-formed signed transaction, so that only the unknown pendingOrderId is wrong.
    const payer = throwawayWallet();
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: throwawayWallet().publicKey.toBase58() })
      .add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: throwawayWallet().publicKey, lamports: 1 }));
    const signedTransaction = signedByThrowaway(tx, payer);
    const ex = await postConfirm(t, user.sub, { pendingOrderId: '3f2b8c1e-9a4d-4e7b-8c21-5d6f7a8b9c0d', signedTransaction });
    t.expect('OA-CONF-019', ex.response.status >= 400 && ex.response.status < 500, {
      documented: '4xx (NOT_FOUND or INVALID_STATE) for a confirm of a pendingOrderId that was never issued', received: failureOf(ex), exchange: ex,
    });
  },
});

/**
 * The byte range of a legacy message holding the recent blockhash: changing it changes nothing else of the
 * transaction's shape, so the only thing wrong is the difference from the unsigned transaction.
 */
function blockhashBytes(message: Buffer): [number, number] {
  const keys = message[3]!; // fewer than 128 keys: a one-byte compact length
  return [4 + 32 * keys, 4 + 32 * (keys + 1)];
}

const tamperedEveryType = defineCheck({
  name: 'one-byte-changed-in-the-deposit-of-any-order-type-answers-400-transaction-tampered',
  service: 'orders',
  rules: ['OA-CONF-010'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await richUser(t);
    await t.property('OA-CONF-010', fc.record({ orderType: fc.constantFrom('dca', 'stop_loss', 'take_profit', 'oco', 'slice' as const), at: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), bit: fc.integer({ min: 0, max: 7 }) }),
      async ({ orderType, at, bit }) => {
        const intent = await pendingIntent(t, user, intentRequest(orderType));
        const tx = Transaction.from(Buffer.from(intent.transaction, 'base64'));
        const message = tx.serializeMessage();
        const [from, to] = blockhashBytes(message);
        const offset = from + Math.floor(at * (to - from));
        message[offset] = message[offset]! ^ (1 << bit);
        // The changed message, then signed by the user (through the signing gate: only the blockhash differs, the deposit
        // is the intent's): a valid signature over other bytes than the intent's.
        const changed = Transaction.from(Buffer.concat([Buffer.from([1]), Buffer.alloc(64), message]));
        const signedTransaction = signedDeposit(intent, user, { transaction: serialized(changed) });
        const ex = await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction });
        t.expect('OA-CONF-010', ex.response.status === 400 && errorCode(ex) === 'TRANSACTION_TAMPERED', {
          documented: `400 TRANSACTION_TAMPERED for a ${orderType} deposit whose message byte ${offset} had bit ${bit} flipped, then signed`, received: failureOf(ex), exchange: ex,
        });
      }, Math.min(t.env.numRuns, 8));
  },
});

/**
 * The deposit's transfer of the input (a system transfer, or an SPL TransferChecked / Transfer moving inputAmount):
 * where its amount and its destination sit, or undefined when the transaction carries no such transfer.
 */
function inputTransfer(tx: Transaction, inputAmount: bigint): { ix: TransactionInstruction; amountAt: number; destination: number } | undefined {
  for (const ix of tx.instructions) {
    const program = ix.programId.toBase58();
    if (ix.programId.equals(SystemProgram.programId) && ix.data.length >= 12 && ix.data.readUInt32LE(0) === 2 && ix.data.readBigUInt64LE(4) === inputAmount) {
      return { ix, amountAt: 4, destination: 1 };
    }
    if ((program === TOKEN_PROGRAM || program === TOKEN_2022_PROGRAM) && ix.data.length >= 9 && ix.data.readBigUInt64LE(1) === inputAmount) {
      if (ix.data[0] === 12) return { ix, amountAt: 1, destination: 2 };
      if (ix.data[0] === 3) return { ix, amountAt: 1, destination: 1 };
    }
  }
  return undefined;
}

type DepositPart = 'amount' | 'destination';

/**
 * Changes the input transfer of `tx` in place: one unit less, or the user's own paying account as destination (a
 * transfer to itself). Never more, never to a stranger: the suite signs the result (signing-gate.ts, suiteTampered).
 * False without a transfer it can decode.
 */
function changeDeposit(tx: Transaction, inputAmount: bigint, part: DepositPart): boolean {
  const transfer = inputTransfer(tx, inputAmount);
  if (!transfer) return false;
  if (part === 'amount') {
    const data = Buffer.from(transfer.ix.data);
    data.writeBigUInt64LE(inputAmount - 1n, transfer.amountAt);
    transfer.ix.data = data;
  } else {
    transfer.ix.keys[transfer.destination] = { ...transfer.ix.keys[transfer.destination]!, pubkey: transfer.ix.keys[0]!.pubkey };
  }
  return true;
}

const serialized = (tx: Transaction) => tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');

const changedDepositSigned = defineCheck({
  name: 'a-deposit-whose-amount-or-destination-changed-then-signed-answers-400-transaction-tampered',
  service: 'orders',
  rules: ['OA-CONF-010'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await richUser(t);
    let judged = 0;
    await t.property('OA-CONF-010', fc.record({ orderType: fc.constantFrom(...ORDER_TYPES), part: fc.constantFrom<DepositPart>('amount', 'destination') }), async ({ orderType, part }) => {
      const intent = await pendingIntent(t, user, intentRequest(orderType));
      const tx = Transaction.from(Buffer.from(intent.transaction, 'base64'));
      if (!changeDeposit(tx, BigInt(String(intent.data.inputAmount)), part)) {
        t.note(`the ${orderType} deposit has no transfer of inputAmount this check can decode: its ${part} is not changed`);
        return;
      }
      // The changed message, then signed by the user: a valid signature over other instructions than the intent's.
      const signedTransaction = signedDeposit(intent, user, { transaction: serialized(tx), suiteTampered: true });
      judged++;
      const ex = await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction });
      t.expect('OA-CONF-010', ex.response.status === 400 && errorCode(ex) === 'TRANSACTION_TAMPERED', {
        documented: `400 TRANSACTION_TAMPERED for a ${orderType} deposit whose ${part === 'amount' ? 'transfer amount was lowered by one unit' : 'transfer destination was replaced by the paying account itself'}, then signed by the user`,
        received: failureOf(ex), exchange: ex,
      });
    }, Math.min(t.env.numRuns, 6));
    if (judged === 0) t.skip('no deposit carried a transfer of inputAmount this check can decode: nothing was changed');
  },
});

/**
 * How a deposit's user signature is made wrong: the message unchanged with another key's signature or with flipped
 * signature bytes, or the message changed after the user signed it.
 */
const WRONG_SIGNATURES: Record<string, (intent: Intent, user: Funded) => string | undefined> = {
  'the unchanged message signed by another key': (intent, user) => {
    const tx = Transaction.from(Buffer.from(intent.transaction, 'base64'));
    tx.addSignature(user.keypair.publicKey, throwawaySignature(tx.serializeMessage()));
    return serialized(tx);
  },
  'the unchanged message with the user\'s signature bytes flipped': (intent, user) => {
    const tx = Transaction.from(Buffer.from(signedDeposit(intent, user), 'base64'));
    const signature = Buffer.from(tx.signatures.find((entry) => entry.publicKey.equals(user.keypair.publicKey))!.signature!);
    signature[7] = signature[7]! ^ 0xff;
    tx.addSignature(user.keypair.publicKey, signature);
    return serialized(tx);
  },
  'the amount changed after the user signed': (intent, user) => {
    const tx = Transaction.from(Buffer.from(signedDeposit(intent, user), 'base64'));
    return changeDeposit(tx, BigInt(String(intent.data.inputAmount)), 'amount') ? serialized(tx) : undefined;
  },
  'the destination changed after the user signed': (intent, user) => {
    const tx = Transaction.from(Buffer.from(signedDeposit(intent, user), 'base64'));
    return changeDeposit(tx, BigInt(String(intent.data.inputAmount)), 'destination') ? serialized(tx) : undefined;
  },
};

/**
 * A wrong signature has no code of its own in the document. Accepted (OA-CONF-024): TRANSACTION_TAMPERED ("signed
 * transaction differs from the unsigned one"), SUBMIT_FAILED ("a bad transaction ... missing signatures"), TX_FAILED
 * ("did not confirm") and CONFIRMATION_FAILED (confirming on-chain failed). Not INVALID_STATE (a lost race or a
 * missing stored transaction) nor INVALID_TRANSACTION ("not raised by /orders/confirm").
 */
const WRONG_SIGNATURE_ANSWERS: ReadonlyArray<readonly [number, string]> = [[400, 'TRANSACTION_TAMPERED'], [500, 'SUBMIT_FAILED'], [500, 'TX_FAILED'], [500, 'CONFIRMATION_FAILED']];

const wrongSignatureRejected = defineCheck({
  name: 'a-deposit-whose-signature-does-not-verify-is-never-accepted-and-creates-no-order',
  service: 'orders',
  rules: ['OA-CONF-024'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await richUser(t);
    let judged = 0;
    for (const [what, make] of Object.entries(WRONG_SIGNATURES)) {
      const intent = await pendingIntent(t, user);
      const signedTransaction = make(intent, user);
      if (signedTransaction === undefined) {
        t.note(`${what}: the deposit has no transfer of inputAmount this check can decode, not sent`);
        continue;
      }
      judged++;
      const ex = await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction });
      t.expect('OA-CONF-024', WRONG_SIGNATURE_ANSWERS.some(([status, code]) => ex.response.status === status && errorCode(ex) === code), {
        documented: `a confirm with ${what} is not accepted: 400 TRANSACTION_TAMPERED, or 500 SUBMIT_FAILED, TX_FAILED or CONFIRMATION_FAILED`,
        received: failureOf(ex), exchange: ex,
      });
      t.note(`${what}: ${ex.response.status} ${String(errorCode(ex))}`);
    }
    const { ex: list, ids } = await orderIds(t, user.sub, 'dca');
    t.expect('OA-CONF-024', judged > 0 && ids.length === 0, {
      documented: `no order after ${judged} confirms whose signature does not verify (GET /me/orders)`, received: ids, exchange: list,
    });
  },
});

/** USDC totalBalance of the user's manager (GET /me/balance). */
async function managerUsdc(t: CheckContext, sub: string): Promise<bigint> {
  const ex = await asUser(t, sub, { method: 'GET', path: '/me/balance' });
  const rows = dataOf(ex)?.balances;
  const row = Array.isArray(rows) ? rows.find((r) => isObject(r) && r.mint === usdc()) as Record<string, unknown> | undefined : undefined;
  if (!is2xx(ex)) throw new SetupFailed(`GET /me/balance answered ${ex.response.status}`, ex);
  return typeof row?.totalBalance === 'string' && INT.test(row.totalBalance) ? BigInt(row.totalBalance) : 0n;
}

/** Ids of the user's orders of one type (GET /me/orders?type=...). */
async function orderIds(t: CheckContext, sub: string, type: OrderType): Promise<{ ex: Exchange; ids: unknown[] }> {
  const ex = await asUser(t, sub, { method: 'GET', path: `/me/orders?type=${type}` });
  const data = isObject(ex.response.body) ? ex.response.body.data : undefined;
  if (!is2xx(ex) || !Array.isArray(data)) throw new SetupFailed(`GET /me/orders answered ${ex.response.status} ${JSON.stringify(ex.response.body).slice(0, 300)}`, ex);
  return { ex, ids: data.map((row) => (isObject(row) ? row.id : undefined)) };
}

const sliceRace = defineCheck({
  name: 'second-slice-confirmed-while-one-is-running-answers-409-active-burst-exists-and-the-deposit-lands',
  service: 'orders',
  rules: ['OA-CONF-020', 'OA-CONF-021'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const first = await createOrder(t, user, intentRequest('slice'));
    const second = await pendingIntent(t, user, intentRequest('slice'));
    const before = await managerUsdc(t, user.sub);
    const ex = await postConfirm(t, user.sub, { pendingOrderId: second.pendingOrderId, signedTransaction: signedDeposit(second, user) });
    if (is2xx(ex)) {
      // ASSUMED (OA-CONF-020): one running slice per user. Only a first slice that has stopped running excuses a 2xx.
      const detail = await asUser(t, user.sub, { method: 'GET', path: `/slice/${first.orderId}` });
      const status = isObject(dataOf(detail)?.order) ? (dataOf(detail)!.order as Record<string, unknown>).status : undefined;
      if (status !== 'active' && status !== 'executing') t.skip(`the second slice was confirmed after the first stopped running (${String(status)}): no race happened`);
      t.fail('OA-CONF-020', { documented: `409 ACTIVE_BURST_EXISTS for a second slice confirmed while the first (${first.orderId}) is ${String(status)}`, received: failureOf(ex), exchange: ex });
    }
    t.expect('OA-CONF-020', ex.response.status === 409 && errorCode(ex) === 'ACTIVE_BURST_EXISTS', {
      documented: '409 ACTIVE_BURST_EXISTS for a second slice confirmed while the user\'s first slice is running', received: failureOf(ex), exchange: ex,
    });
    const after = await managerUsdc(t, user.sub);
    t.expect('OA-CONF-021', after - before === BigInt(depositAmount(second.request)), {
      documented: `the deposit landed: the manager's USDC grew by ${depositAmount(second.request)}`, received: { before: before.toString(), after: after.toString() }, exchange: ex,
    });
    const { ex: list, ids } = await orderIds(t, user.sub, 'slice');
    t.expect('OA-CONF-021', ids.length === 1 && ids[0] === first.orderId, {
      documented: `no order exists for the lost slice: the user's only slice order is ${first.orderId}`, received: ids, exchange: list,
    });
  },
});

const depositSignature = defineCheck({
  name: 'confirm-tx-signature-is-the-signature-of-the-deposit-record',
  service: 'orders',
  rules: ['OA-CONF-003'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const created = await createOrder(t, user);
    const ex = await asUser(t, user.sub, { method: 'GET', path: `/orders/${created.orderId}/deposit` });
    const d = dataOf(ex);
    t.expect('OA-CONF-003', is2xx(ex) && d?.txSignature === created.txSignature, {
      documented: `the deposit record's txSignature is the confirm's ${created.txSignature}`, received: failureOf(ex), exchange: ex,
    });
  },
});

const sliceListed = defineCheck({
  name: 'confirmed-slice-is-listed-and-served-by-get-slice',
  service: 'orders',
  rules: ['OA-CONF-006'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const created = await createOrder(t, user, intentRequest('slice'));
    const { ex: list, ids } = await orderIds(t, user.sub, 'slice');
    t.expect('OA-CONF-006', ids.includes(created.orderId), { documented: `GET /me/orders lists the confirmed slice ${created.orderId}`, received: ids, exchange: list });
    const ex = await asUser(t, user.sub, { method: 'GET', path: `/slice/${created.orderId}` });
    t.expect('OA-CONF-006', is2xx(ex), { documented: `GET /slice/${created.orderId} answers 2xx for the confirmed slice`, received: failureOf(ex), exchange: ex });
  },
});

const rejectedConfirmCreatesNothing = defineCheck({
  name: 'a-rejected-confirm-creates-no-order',
  service: 'orders',
  rules: ['OA-CONF-011'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const intent = await pendingIntent(t, user);
    const tx = Transaction.from(Buffer.from(intent.transaction, 'base64'));
    tx.recentBlockhash = throwawayWallet().publicKey.toBase58();
    const ex = await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction: signedDeposit(intent, user, { transaction: serialized(tx) }) });
    if (is2xx(ex)) throw new SetupFailed('a confirm of a changed transaction was accepted: nothing rejected to judge (OA-CONF-010 judges that)', ex);
    const { ex: list, ids } = await orderIds(t, user.sub, 'dca');
    t.expect('OA-CONF-011', ids.length === 0, { documented: `no order after the rejected confirm (${ex.response.status} ${String(errorCode(ex))})`, received: ids, exchange: list });
  },
});

const intentCreatesNothing = defineCheck({
  name: 'an-intent-alone-creates-no-order',
  service: 'orders',
  rules: ['OA-INT-011'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, false);
    for (const orderType of ['dca', 'stop_loss', 'slice'] as const) await pendingIntent(t, user, intentRequest(orderType));
    const ex = await asUser(t, user.sub, { method: 'GET', path: '/me/orders' });
    const data = dataOf(ex) ?? (isObject(ex.response.body) ? ex.response.body.data : undefined);
    t.expect('OA-INT-011', is2xx(ex) && Array.isArray(data) && data.length === 0, {
      documented: 'GET /me/orders lists no order after three intents and no confirm', received: failureOf(ex), exchange: ex,
    });
  },
});

const confirmInsideWindow = defineCheck({
  name: 'confirm-just-inside-the-five-minute-window-succeeds',
  service: 'orders',
  rules: ['OA-CONF-008'],
  profile: 'full',
  needs: ['funding', 'clock'],
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const intent = await pendingIntent(t, user);
    await t.control.advanceClock(4 * 60 + 50);
    t.note('the target\'s virtual clock was advanced by 290 seconds (shared time)');
    const ex = await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction: signedDeposit(intent, user) });
    t.expect('OA-CONF-008', is2xx(ex), { documented: '2xx for a confirm 4 minutes 50 seconds after the intent', received: failureOf(ex), exchange: ex });
  },
});

/** The group in running order; the clock-advancing check runs last. */
export const createChecks = [
  createsEveryType, dcaCounters, confirmNeverInvalidTransaction, triggerCreationFacts, ocoMinOutput, invalidTriggerConfigs, limitsAccepted, ocoPriceOrder,
  triggerMinNotional, tenantMinimum, oracleNotional, oracleDown, stablecoinsNeedNoOracle, minOutputUnsatisfiable, inlineOnboarding, inlineOnboardingConflict,
  unknownUserIntent, confirmOtherUser, confirmOtherTenant, confirmUnsigned, confirmUnknown, tamperedEveryType, changedDepositSigned, wrongSignatureRejected,
  sliceRace, depositSignature,
  sliceListed, rejectedConfirmCreatesNothing, intentCreatesNothing, confirmInsideWindow,
];
