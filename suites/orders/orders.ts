import { Keypair, SystemProgram, Transaction } from '@solana/web3.js';
import { dataOf, errorCode, is2xx } from '../harness/answers.ts';
import type { CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed } from '../harness/failure.ts';
import { inOrder } from '../harness/pacer.ts';
import { isObject } from '../shared/values.ts';
import {
  associatedTokenAccount,
  NATIVE_MINT,
  SigningRefused,
  signForStep,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  type GateUser,
} from './signing-gate.ts';
import { JUP_MINT, USDC_MINT, USDT_MINT } from './mints.ts';
import { fill, orderTemplates } from './templates.ts';
import { noteSignedDeposit, SIGNATURE_LAMPORTS, spendOnSend } from './lamports.ts';
import { asUser, onboardedUser, type PartnerWallet, partnerWalletFunds, partnerWalletOf, testWallet, type OnboardedUser } from './users.ts';
import { ORDER_TYPES, TERMINAL_ORDER_STATUSES } from '../../generators/vocabulary.ts';
import { pooledUser } from './user-pool.ts';

/**
 * Order creation as every orders check needs it: the assumed intent templates of the five order types (UNKNOWNS.md
 * O7; the spec's Assumed*IntentRequest), intent -> sign with the user's wallet -> confirm, and the deposit
 * transaction decoders. A target that rejects an assumed template with 400 VALIDATION_ERROR makes the check skip,
 * never fail: the template is the suite's guess, not the document.
 */

export { NATIVE_MINT, TOKEN_PROGRAM, TOKEN_2022_PROGRAM } from './signing-gate.ts';
/** The order types and terminal statuses of the order spec (generators/vocabulary.ts), one list each. */
export { ORDER_TYPES };
export type OrderType = (typeof ORDER_TYPES)[number];
export const TERMINAL_STATUSES: readonly string[] = TERMINAL_ORDER_STATUSES;
export const INT = /^(0|[1-9][0-9]*)$/;
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
export const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
export const FIVE_MINUTES_MS = 5 * 60 * 1000;

/** USDC (6 decimals) of this deployment: the mainnet mint unless CONFORMANCE_USDC_MINT names another. */
export const usdc = () => process.env.CONFORMANCE_USDC_MINT ?? USDC_MINT;
export const usdt = () => process.env.CONFORMANCE_USDT_MINT ?? USDT_MINT;

/** 36 USDC over three cycles of 12 USDC (above the default 10 USD minimum), hourly, into the native asset. */
export const DCA_TOTAL = '36000000';
export const DCA_PER_CYCLE = '12000000';
export const DCA_FREQUENCY = 3600;
/** 12 USDC sold by a trigger or slice order (above the default 10 USD minimum). */
export const TRIGGER_AMOUNT = '12000000';
/**
 * Trigger prices are "a pair ratio scaled by priceDecimals" (output per input). With priceDecimals 18 a stop at 1
 * (1e-18 native per USDC) is never reached and a take-profit at 1e30 (1e12 native per USDC) never either, whatever
 * the market: the orders stay armed, on any target.
 */
export const PRICE_DECIMALS = 18;
export const UNREACHABLE_LOW_PRICE = '1';
export const UNREACHABLE_HIGH_PRICE = '1000000000000000000000000000000';

/**
 * An intent body, from the order type's template (suites/orders/templates.ts). With the default templates it has
 * this shape; with a partner's own templates (CONFORMANCE_ORDER_TEMPLATES) it may not: read what was asked for with
 * valuesOf(request), never from the body.
 */
export interface IntentRequest {
  orderType: unknown;
  inputMint: string;
  outputMint: string;
  config: Record<string, unknown>;
  onboardIfNeeded?: boolean;
  userPubkey?: string;
}

export interface IntentOverrides {
  inputMint?: string;
  outputMint?: string;
  /** Inline onboarding (assumed: the wallet travels as a top-level userPubkey). */
  onboardIfNeeded?: boolean;
  userPubkey?: string;
  /** Named values over the type's defaults; a value set to undefined leaves its field out. */
  config?: Record<string, unknown>;
}

/** The default values of each order type (their names are the template placeholders). */
export function defaultConfig(orderType: OrderType): Record<string, unknown> {
  switch (orderType) {
    case 'dca':
      return { totalAmount: DCA_TOTAL, amountPerCycle: DCA_PER_CYCLE, cycleFrequencySeconds: DCA_FREQUENCY };
    case 'stop_loss':
      return { amount: TRIGGER_AMOUNT, triggerPrice: UNREACHABLE_LOW_PRICE, priceDecimals: PRICE_DECIMALS };
    case 'take_profit':
      return { amount: TRIGGER_AMOUNT, triggerPrice: UNREACHABLE_HIGH_PRICE, priceDecimals: PRICE_DECIMALS };
    case 'oco':
      return {
        amount: TRIGGER_AMOUNT,
        stopLossPrice: UNREACHABLE_LOW_PRICE,
        takeProfitPrice: UNREACHABLE_HIGH_PRICE,
        priceDecimals: PRICE_DECIMALS,
      };
    case 'slice':
      return { amount: TRIGGER_AMOUNT, sliceCount: 3 };
  }
}

const askedFor = new WeakMap<object, Readonly<Record<string, unknown>>>();

/** The named values an intent body was made from (orderType, mints and the type's values). */
export function valuesOf(request: IntentRequest): Readonly<Record<string, unknown>> {
  const values = askedFor.get(request);
  if (!values) throw new Error('valuesOf: this body was not made by intentRequest (a spread copy loses its values)');
  return values;
}

/**
 * An intent body of `orderType` from its template: USDC into the native asset by default. A value the template has
 * no placeholder for goes into the body's `config` (so that a check can still send a field the template lacks).
 */
export function intentRequest(orderType: OrderType, over: IntentOverrides = {}): IntentRequest {
  const template = orderTemplates()[orderType];
  if (!template)
    throw new Error(`no request template for order type ${orderType} (specs/order-templates.yaml, CONFORMANCE_ORDER_TEMPLATES)`);
  const values: Record<string, unknown> = {
    orderType,
    inputMint: over.inputMint ?? usdc(),
    outputMint: over.outputMint ?? NATIVE_MINT,
    onboardIfNeeded: over.onboardIfNeeded,
    userPubkey: over.userPubkey,
    ...defaultConfig(orderType),
    ...(over.config ?? {}),
  };
  const used = new Set<string>();
  const body = fill(template, values, used) as Record<string, unknown>;
  const rest = Object.entries(over.config ?? {}).filter(([name, value]) => !used.has(name) && value !== undefined);
  if (rest.length > 0) body.config = { ...(isObject(body.config) ? body.config : {}), ...Object.fromEntries(rest) };
  askedFor.set(body, values);
  return body as unknown as IntentRequest;
}

/** The DCA template with values (and mints) at the top level, as the DCA checks write them. */
export function dcaRequest(over: Record<string, unknown> & { inputMint?: string; outputMint?: string } = {}): IntentRequest {
  const { inputMint, outputMint, ...config } = over;
  return intentRequest('dca', { inputMint, outputMint, config });
}

/** The amount of input an intent of this body deposits (DCA: totalAmount; the others: amount). */
export function depositAmount(request: IntentRequest): string {
  const values = valuesOf(request);
  return String(values.orderType === 'dca' ? values.totalAmount : values.amount);
}

/**
 * POST /orders/intent as `sub`. A body made by intentRequest rests on its type's template (assumptions.ts
 * `intent-template`): sending it exercises the template, a 2xx confirms it for this check.
 */
export async function postIntent(
  t: CheckContext,
  sub: string,
  body: unknown,
  headers: Record<string, string | undefined> = {},
): Promise<Exchange> {
  const type = isObject(body) ? askedFor.get(body)?.orderType : undefined;
  if (typeof type === 'string') t.exercise('intent-template', type);
  const ex = await asUser(t, sub, { method: 'POST', path: '/orders/intent', json: body, headers });
  if (typeof type === 'string' && is2xx(ex)) t.confirm('intent-template', type);
  return ex;
}

export async function postConfirm(
  t: CheckContext,
  sub: string,
  body: unknown,
  headers: Record<string, string | undefined> = {},
): Promise<Exchange> {
  if (isObject(body)) spendOnSend(t, body.signedTransaction);
  return await asUser(t, sub, { method: 'POST', path: '/orders/confirm', json: body, headers });
}

export interface Funded extends OnboardedUser {
  keypair: Keypair;
}

/**
 * An onboarded user whose external wallet holds deposits (`usdcAmount` of USDC, 100 by default, and 1 native) when `fund` is set. Without the
 * funding capability the user is the partner's wallet `which` (users.ts testWallet): `second` for another user of the tenant.
 * A default-funded user of the 'own' wallet may have been made ahead for the check (user-pool.ts): its onboarding was
 * accepted as onboardedUser requires, so it confirms `siws-form` here as well.
 */
export async function intentUser(t: CheckContext, fund: boolean, which: PartnerWallet = 'own', usdcAmount?: string): Promise<Funded> {
  const pooled = fund && which === 'own' && usdcAmount === undefined ? await pooledUser<Funded>(t) : undefined;
  if (pooled) {
    t.confirm('siws-form');
    return pooled;
  }
  return await madeUser(t, fund, which, usdcAmount);
}

/** The user of intentUser, made now (user-pool.ts makes its users ahead with it). */
export async function madeUser(t: CheckContext, fund: boolean, which: PartnerWallet = 'own', usdcAmount?: string): Promise<Funded> {
  const wallet = testWallet(t, which);
  if (fund && t.control.has('funding')) {
    // Funding a wallet through the control API needs no user: the onboarding and the funding go out at once.
    const [user] = await atOnce(
      t,
      () => onboardedUser(t, wallet),
      () => fundUser(t, wallet.keypair.publicKey.toBase58(), usdcAmount),
    );
    return { ...user, keypair: wallet.keypair };
  }
  const user = await onboardedUser(t, wallet);
  if (fund) await fundUser(t, user.userPubkey, usdcAmount);
  return { ...user, keypair: wallet.keypair };
}

/**
 * Independent steps of a check's setup, at once; one after the other under `--max-concurrency 1` (one request in flight
 * at a time, control requests included). Every step ends before the first failure, in the given order, is thrown.
 */
export function atOnce<T extends unknown[]>(t: CheckContext, ...steps: { [K in keyof T]: () => Promise<T[K]> }): Promise<T> {
  return inOrder<T>(t.env.maxConcurrency === 1, ...steps);
}

/**
 * A user whose wallet pays a deposit's fees but holds none of its input, and the DCA intent body of that deposit (which
 * cannot land): with `funding` a fresh wallet given 1 native and `request`; else the partner's wallet and a DCA order
 * of JUP, a mint the suite never deposits nor buys (a partner's wallet that holds some lands it: see unpaidLanded).
 */
export async function unpaidDeposit(t: CheckContext, request: IntentRequest): Promise<{ user: Funded; request: IntentRequest }> {
  if (!t.control.has('funding')) {
    const user = await intentUser(t, false);
    t.note(`no funding capability: the partner's wallet pays the fees of a DCA deposit of ${JUP_MINT}, which it is assumed not to hold`);
    // 1000 JUP a cycle, well above the minimum notional (an intent refused for its amount makes the check skip).
    return { user, request: dcaRequest({ inputMint: JUP_MINT, totalAmount: '3000000000', amountPerCycle: '1000000000' }) };
  }
  const wallet = testWallet(t);
  const pubkey = wallet.keypair.publicKey.toBase58();
  const [user] = await atOnce(
    t,
    () => onboardedUser(t, wallet),
    () => t.control.fund(pubkey, 'native', '1000000000'),
  );
  return { user: { ...user, keypair: wallet.keypair }, request };
}

/**
 * Skips when the partner's wallet held the JUP of an unpaidDeposit after all: its manager's JUP row shows a balance
 * (the deposit landed; never with `funding`, whose wallet is fresh). A service that makes an order of a deposit that
 * did not land shows none.
 */
export async function skipIfUnpaidLanded(t: CheckContext, user: Funded): Promise<void> {
  if (t.control.has('funding')) return;
  const rows = dataOf(await asUser(t, user.sub, { path: '/me/balance' }))?.balances;
  const jup = Array.isArray(rows) ? rows.find((row) => isObject(row) && row.mint === JUP_MINT) : undefined;
  if (isObject(jup) && /^[1-9][0-9]*$/.test(String(jup.totalBalance)))
    t.skip(
      `the partner's wallet held ${JUP_MINT}: its manager now holds ${String(jup.totalBalance)}, the deposit landed; a wallet without it judges this`,
    );
}

/**
 * 1 native (fees) and 100 USDC into `wallet` through the control API, both at once (one after the other under
 * `--max-concurrency 1`); skipped when the target cannot fund USDC, a broken precondition when it cannot fund the native
 * asset. Without `funding`, the run's funded wallet pays (users.ts partnerWalletFunds): only for checks that need
 * enough, not exact, funds.
 */
export async function fundUser(t: CheckContext, wallet: string, usdcAmount = '100000000'): Promise<void> {
  if (partnerWalletFunds(t, wallet, `${usdcAmount} of ${usdc()} and fees`)) return;
  const [, funded] = await atOnce(
    t,
    () => t.control.fund(wallet, 'native', '1000000000'),
    async () => (await Promise.allSettled([t.control.fund(wallet, usdc(), usdcAmount)]))[0]!,
  );
  if (funded.status === 'rejected')
    t.skip(
      `the target cannot fund ${usdc()} (set CONFORMANCE_USDC_MINT to this deployment's USDC): ${(funded.reason as Error).message.slice(0, 200)}`,
    );
}

/**
 * The answer to a check's positive intent: a template the target does not accept (400 VALIDATION_ERROR) is rejected
 * for this check, which skips: nothing of the checks built on it can be judged (UNKNOWNS O7, assumptions.ts).
 */
export function skipIfTemplateRejected(t: CheckContext, ex: Exchange): void {
  if (ex.response.status === 400 && errorCode(ex) === 'VALIDATION_ERROR') {
    const type = /"orderType":"([a-z_]+)"/.exec(ex.request.body ?? '')?.[1] ?? 'intent';
    t.rejectAssumption(
      'intent-template',
      `the target rejects the assumed ${type} intent template (UNKNOWNS.md O7; this deployment's templates go in a file named by CONFORMANCE_ORDER_TEMPLATES) with 400 VALIDATION_ERROR: ${JSON.stringify(ex.response.body).slice(0, 300)}`,
      type,
    );
  }
}

export interface Intent {
  ex: Exchange;
  request: IntentRequest;
  data: Record<string, unknown>;
  transaction: string;
  pendingOrderId: string;
}

/** A pending order of `user` (a broken intent is a broken precondition here, not the confirm rule). */
export async function pendingIntent(
  t: CheckContext,
  user: Funded,
  request: IntentRequest = dcaRequest(),
  headers: Record<string, string | undefined> = {},
): Promise<Intent> {
  const ex = await postIntent(t, user.sub, request, headers);
  skipIfTemplateRejected(t, ex);
  const data = dataOf(ex);
  if (!is2xx(ex) || typeof data?.transaction !== 'string' || typeof data.pendingOrderId !== 'string') {
    throw new SetupFailed(
      `POST /orders/intent (${String(request.orderType)}) answered ${ex.response.status} ${JSON.stringify(ex.response.body).slice(0, 300)}`,
      ex,
    );
  }
  return { ex, request, data, transaction: data.transaction, pendingOrderId: data.pendingOrderId };
}

export interface Created {
  intent: Intent;
  confirm: Exchange;
  order: Record<string, unknown>;
  orderId: string;
  txSignature: string;
}

/**
 * intent -> sign with the user's wallet -> confirm, in a window of the check (the pending and transaction windows: no
 * other check moves the clock in between, `CheckContext.window`); any failure is a broken precondition (setup-failed).
 */
export async function createOrder(t: CheckContext, user: Funded, request: IntentRequest = dcaRequest()): Promise<Created> {
  const { intent, confirm } = await t.window(async () => {
    const intent = await pendingIntent(t, user, request);
    const signedTransaction = signedDeposit(intent, user);
    return { intent, confirm: await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction }) };
  });
  const d = dataOf(confirm);
  if (!is2xx(confirm) || !isObject(d?.order) || typeof d.order.id !== 'string') {
    throw new SetupFailed(
      `POST /orders/confirm (${String(request.orderType)}) answered ${confirm.response.status} ${JSON.stringify(confirm.response.body).slice(0, 300)}`,
      confirm,
    );
  }
  return { intent, confirm, order: d.order, orderId: d.order.id, txSignature: String(d.txSignature) };
}

export function decodeTransaction(base64: string): Transaction | undefined {
  try {
    return Transaction.from(Buffer.from(base64, 'base64'));
  } catch {
    return undefined;
  }
}

/**
 * The intent's deposit transaction signed by `user` through the signing gate (signing-gate.ts): only a deposit of
 * exactly what was asked (the request's input mint and amount, echoed by the intent) plus feeLamports to the user's
 * manager is signed; anything else fails OA-INT-018 unsigned. `transaction` replaces the intent's own (a probe that
 * changed it: `suiteTampered`).
 */
export function signedDeposit(
  intent: { data: Record<string, unknown>; ex?: Exchange; request?: IntentRequest },
  user: Funded,
  opts: { transaction?: string; suiteTampered?: boolean } = {},
): string {
  const { data, ex } = intent;
  const step = { kind: 'deposit' as const, inputMint: String(data.inputMint), inputAmount: 0n, feeLamports: 0n };
  const problems: string[] = [];
  if (typeof data.inputAmount === 'string' && INT.test(data.inputAmount)) step.inputAmount = BigInt(data.inputAmount);
  else problems.push(`the intent's inputAmount ${JSON.stringify(data.inputAmount)} is no integer string`);
  if (typeof data.feeLamports === 'string' && INT.test(data.feeLamports)) step.feeLamports = BigInt(data.feeLamports);
  else problems.push(`the intent's feeLamports ${JSON.stringify(data.feeLamports)} is no integer string`);
  const asked =
    intent.request && askedFor.has(intent.request)
      ? { mint: String(valuesOf(intent.request).inputMint), amount: depositAmount(intent.request) }
      : undefined;
  if (asked && (asked.mint !== step.inputMint || asked.amount !== String(data.inputAmount))) {
    problems.push(
      `the intent asks for a deposit of ${String(data.inputAmount)} of ${step.inputMint}; the request was for ${asked.amount} of ${asked.mint}`,
    );
  }
  const base64 = opts.transaction ?? data.transaction;
  if (typeof base64 !== 'string') problems.push('the intent carries no transaction');
  if (problems.length > 0) throw new SigningRefused(step, problems, [], ex);
  const signed = signForStep(base64 as string, step, user, { exchange: ex, suiteTampered: opts.suiteTampered });
  if (partnerWalletOf(user.userPubkey))
    noteSignedDeposit(signed, step.feeLamports + SIGNATURE_LAMPORTS, `the deposit of a ${String(data.orderType ?? 'new')} order`);
  return signed;
}

/**
 * A withdrawal transaction built by `build` (POST /withdraw/transaction or POST /orders/{id}/withdraw) signed by
 * `user` through the signing gate: funds only from the manager to the user's own wallet, of the mint the request
 * named (wallet-level) or the mints of the preview (order-level); anything else fails OA-WDW-015 / OA-OWD-031 unsigned.
 */
export function signedWithdrawal({ ex: build, base64 }: { ex: Exchange; base64: string }, user: GateUser): string {
  const wallet = /\/withdraw\/transaction$/.test(new URL(build.request.url).pathname);
  let mints: string[] = [];
  if (wallet) {
    try {
      const body = JSON.parse(build.request.body ?? '{}') as Record<string, unknown>;
      if (typeof body.tokenMint === 'string') mints = [body.tokenMint];
    } catch {
      /* a body the suite did not write as JSON: the mints stay open, the destination does not */
    }
  } else {
    const preview = dataOf(build)?.withdrawalAmounts;
    const rows = Array.isArray(preview) ? preview : isObject(preview) ? Object.entries(preview).map(([mint]) => ({ mint })) : [];
    mints = rows
      .filter(isObject)
      .map((row) => row.mint)
      .filter((mint): mint is string => typeof mint === 'string');
  }
  return signForStep(base64, { kind: wallet ? 'wallet-withdrawal' : 'order-withdrawal', mints }, user, { exchange: build });
}

/** Amount of `mint` the transaction's transfers move to `manager` (its associated token account for a token mint). */
export function depositedTo(tx: Transaction, manager: string, mint: string): { amount: bigint; recognised: number } {
  let amount = 0n;
  let recognised = 0;
  for (const ix of tx.instructions) {
    const program = ix.programId.toBase58();
    if (mint === NATIVE_MINT && ix.programId.equals(SystemProgram.programId) && ix.data.length >= 12 && ix.data.readUInt32LE(0) === 2) {
      recognised++;
      if (ix.keys[1]?.pubkey.toBase58() === manager) amount += ix.data.readBigUInt64LE(4);
    } else if (mint !== NATIVE_MINT && (program === TOKEN_PROGRAM || program === TOKEN_2022_PROGRAM) && ix.data.length >= 9) {
      const kind = ix.data[0];
      const target = associatedTokenAccount(manager, mint, program);
      if (kind === 12 && ix.keys[1]?.pubkey.toBase58() === mint) {
        recognised++;
        if (ix.keys[2]?.pubkey.toBase58() === target) amount += ix.data.readBigUInt64LE(1);
      } else if (kind === 3) {
        recognised++;
        if (ix.keys[1]?.pubkey.toBase58() === target) amount += ix.data.readBigUInt64LE(1);
      }
    }
  }
  return { amount, recognised };
}

/** Lamports the transaction's system transfers move from `from` (to anyone). */
export function lamportTransfers(tx: Transaction, from: string): bigint[] {
  return tx.instructions
    .filter(
      (ix) =>
        ix.programId.equals(SystemProgram.programId) &&
        ix.data.length >= 12 &&
        ix.data.readUInt32LE(0) === 2 &&
        ix.keys[0]?.pubkey.toBase58() === from,
    )
    .map((ix) => ix.data.readBigUInt64LE(4));
}

/**
 * The transaction of a DCA totalAmount change (PATCH /dca/{id}) signed by `user` through the signing gate: it may
 * move only the raise of the order's input mint from the user's wallet to its manager (nothing when totalAmount
 * falls); anything else fails OA-DCA-022 unsigned.
 */
export function signedModify(patch: Exchange, base64: string, user: GateUser, order: Record<string, unknown>, totalAmount: string): string {
  const before = typeof order.totalAmount === 'string' && INT.test(order.totalAmount) ? BigInt(order.totalAmount) : undefined;
  const step = {
    kind: 'dca-modify' as const,
    inputMint: String(order.inputMint),
    raise: before === undefined ? 0n : BigInt(totalAmount) - before,
  };
  if (before === undefined)
    throw new SigningRefused(
      step,
      [`the order's totalAmount ${JSON.stringify(order.totalAmount)} is no integer string: the raise is unknown`],
      [],
      patch,
    );
  return signForStep(base64, step, user, { exchange: patch });
}
