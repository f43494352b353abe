import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { findOperation, validateResponse } from '../../generators/index.ts';
import { dataOf, errorCode, is2xx } from '../harness/answers.ts';
import type { CheckContext } from '../harness/check.ts';
import type { RequestSpec } from '../harness/client.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed, Unsupported } from '../harness/failure.ts';
import { httpDateMs } from '../harness/http-date.ts';
import { estimatedServiceTime, learnServiceTime } from '../harness/service-time.ts';
import { randomToken } from '../shared/values.ts';
import { protectWallet } from './signing-gate.ts';
import { onboardBody, type OnboardBody, type SiwsEnvironment, type SiwsOptions } from './siws.ts';
import { type RuleId, specRule } from '../../generators/vocabulary.ts';

/**
 * Check an answer against the orders spec as the harness does (violations surface after the check's assertions); an
 * undocumented status or media type is a violation of `statusRule` (the operation's own rule where the caller has it).
 */
export function validateAgainstSpec(t: CheckContext, operationId: string, ex: Exchange, statusRule: RuleId = 'OA-SHAPE-001'): void {
  const r = validateResponse('orders', operationId, ex.response.status, ex.response.mediaType, ex.response.body);
  if (!r.documentedStatus || !r.documentedMediaType) {
    t.violations.push({
      rule: statusRule,
      detail: {
        documented: `a documented status and media type for ${operationId}`,
        received: { status: ex.response.status, mediaType: ex.response.mediaType, body: ex.response.body },
        exchange: ex,
      },
    });
    return;
  }
  for (const err of r.errors) {
    t.violations.push({
      rule: specRule(err.rule),
      detail: {
        documented: `the ${ex.response.status} body of ${operationId} matches the spec`,
        received: { violation: `${err.instancePath || '(body)'} ${err.message}`, body: ex.response.body },
        exchange: ex,
      },
    });
  }
}

/**
 * A request to an operation of the orders document, its answer validated against the spec. Every operation the
 * document defines is one a target serves: a `404 NOT_FOUND` is judged like any other answer, never taken for "not
 * served" (which would skip the check on an error answer, e.g. a 404 where the Errors table gives 401 for an unknown
 * X-Service-User). Where the operation documents no 404, the answer fails OA-SHAPE-001, saying the target may not
 * serve the operation at all.
 */
export async function servedRequest(t: CheckContext, spec: RequestSpec): Promise<Exchange> {
  const method = (spec.method ?? 'GET').toUpperCase();
  const op = findOperation('orders', method, spec.path);
  if (!op) throw new Error(`${method} ${spec.path} is no operation of the orders spec`);
  const ex = await t.orders.request({ ...spec, retry: spec.retry ?? false, validate: false, operationId: op.operationId });
  rateLimited(ex);
  if (spec.validate === false) return ex;
  if (ex.response.status === 404 && errorCode(ex) === 'NOT_FOUND' && !('404' in op.responses)) {
    t.violations.push({
      rule: 'OA-SHAPE-001',
      detail: {
        documented: `${method} ${op.path} is an operation of the document, with no 404 among its answers: the target serves it (404 NOT_FOUND means it does not serve the operation at all, or answers it 404 where the document gives another answer)`,
        received: { status: 404, code: 'NOT_FOUND', body: ex.response.body },
        exchange: ex,
      },
    });
    return ex;
  }
  validateAgainstSpec(t, op.operationId, ex);
  return ex;
}

/** A 429 is an environment problem, not a conformance failure (UNKNOWNS O13: no rate-limit answer is documented). */
export function rateLimited(ex: Exchange): void {
  if (ex.response.status === 429) throw new SetupFailed(`rate limited by the target (429, UNKNOWNS O13): lower --max-rps`, ex);
}

/**
 * The service's time: the target's virtual clock when it has one; else the `Date` header (an HTTP-date, GMT, one-second
 * resolution) of its answer to GET /health, or with `lastAnswer` of the check's latest answer that carries one (no
 * extra request: for a wait that has just read), so that a staging whose clock is not ours, or runs faster than the
 * wall clock as the staging-like sandbox's may, is met on its own time; else the local clock.
 */
export async function serviceNow(t: CheckContext, { lastAnswer = false } = {}): Promise<{ now: Date; exact: boolean }> {
  if (t.control.has('clock')) return { now: new Date(await t.control.clock()), exact: true };
  let date: number | undefined;
  if (lastAnswer)
    for (let i = t.exchanges.length - 1; i >= 0 && date === undefined; i--) date = httpDateMs(t.exchanges[i]!.response.headers.date);
  else date = learnDate(t, await t.orders.request({ path: '/health', validate: false }));
  return { now: new Date(date ?? Date.now()), exact: false };
}

/** The `Date` of an answer of the order service (ms), learned as its time (service-time.ts). */
function learnDate(t: CheckContext, ex: Exchange): number | undefined {
  const date = httpDateMs(ex.response.headers.date);
  if (date !== undefined) learnServiceTime(t.orders.baseUrl, date);
  return date;
}

/**
 * The service's time for the SIWS `Issued At` of a plain onboarding (within 10 minutes of it either side): what this
 * process learned of it in the last minute (service-time.ts: the virtual clock's last answer, else the order service's
 * last `Date`), with no request; else an exact read (serviceNow). `estimated` says which: a sign-in on an estimate
 * that is refused is made again on an exact read (onboardedOnce).
 */
async function onboardingNow(t: CheckContext): Promise<{ now: Date; estimated: boolean }> {
  const known = t.control.has('clock') ? t.control.knownClockMs() : estimatedServiceTime(t.orders.baseUrl);
  if (known !== undefined) return { now: new Date(known), estimated: true };
  return { now: (await serviceNow(t)).now, estimated: false };
}

/**
 * A canonical onboarding of `wallet` (on the tenant of `key`, else the run's) at the service's time as this process
 * knows it: a refusal (400, any code) of a sign-in dated by an estimate is sent again, once, dated by an exact read,
 * so that a clock moved behind the suite's back costs a request, never a verdict. The answer it ends with.
 */
async function onboardedOnce(t: CheckContext, wallet: TestWallet, key?: string): Promise<Exchange> {
  // In a window of the check: no other check moves the clock between the time read and the sign-in it dates.
  return await t.window(async () => {
    const { now, estimated } = await onboardingNow(t);
    let ex = await postOnboard(t, onboardBody(t.orders.baseUrl, wallet.sub, wallet.keypair, now), key);
    if (estimated && ex.response.status === 400) {
      t.note(
        `an onboarding dated by the service's time as last learned was refused (400 ${String(errorCode(ex))}): sent again on a fresh read`,
      );
      ex = await postOnboard(t, await correctBody(t, wallet.sub, wallet.keypair), key);
    }
    if (!t.control.has('clock')) learnDate(t, ex);
    return ex;
  });
}

export interface TestWallet {
  keypair: Keypair;
  /** A sub for onboarding: random for a generated wallet, stable for the run's funded wallet (idempotent reruns). */
  sub: string;
  generated: boolean;
}

/** The wallets this process onboarded, by sub: the end-of-run cleanup signs their withdrawals (cleanup.ts). */
const walletsBySub = new Map<string, Keypair>();

export function walletOfSub(sub: string): Keypair | undefined {
  return walletsBySub.get(sub);
}

/**
 * Which of the partner's wallets stands in for a generated one where the target cannot fund: `own` the run's
 * TEST_WALLET_SECRET_KEY, `second` TEST_WALLET_SECRET_KEY_ALT (a second user of the tenant, beside the first).
 */
export type PartnerWallet = 'own' | 'second';

const PARTNER_WALLET_ENV = { own: 'TEST_WALLET_SECRET_KEY', second: 'TEST_WALLET_SECRET_KEY_ALT' } as const;

/** The partner's wallets (not generated) this process onboarded, by public key, and the variable each came from. */
const partnerWallets = new Map<string, string>();

/**
 * The wallet a check onboards: a fresh generated keypair when the target simulates the chain (`funding`), else the
 * partner's wallet `which` (TEST_WALLET_SECRET_KEY, or TEST_WALLET_SECRET_KEY_ALT for a second user) with a sub
 * derived from it (so reruns repeat the same binding); without it the check skips (own) or is unsupported (second).
 */
export function testWallet(t: CheckContext, which: PartnerWallet = 'own'): TestWallet {
  const wallet = chooseWallet(t, which);
  walletsBySub.set(wallet.sub, wallet.keypair);
  return wallet;
}

function chooseWallet(t: CheckContext, which: PartnerWallet): TestWallet {
  if (t.control.has('funding')) return { keypair: Keypair.generate(), sub: randomToken('conformance-sub'), generated: true };
  const name = PARTNER_WALLET_ENV[which];
  const secret = which === 'own' ? t.env.credentials.walletSecretKey : t.env.credentials.walletSecretKeyAlt;
  if (!secret && which === 'own')
    t.skip('needs a wallet: TEST_WALLET_SECRET_KEY, or a target offering the funding capability (generated wallets)');
  if (!secret) throw new Unsupported('funding (or TEST_WALLET_SECRET_KEY_ALT, a second funded wallet: a second user of the tenant)');
  if (which === 'second' && secret === t.env.credentials.walletSecretKey)
    throw new SetupFailed('TEST_WALLET_SECRET_KEY_ALT is TEST_WALLET_SECRET_KEY: a second wallet is needed');
  let keypair: Keypair;
  try {
    keypair = Keypair.fromSecretKey(bs58.decode(secret));
  } catch (e) {
    throw new SetupFailed(`${name} is not a base58 64-byte secret key: ${(e as Error).message}`);
  }
  protectWallet(keypair);
  partnerWallets.set(keypair.publicKey.toBase58(), name);
  return { keypair, sub: `conformance-${keypair.publicKey.toBase58().slice(0, 16)}`, generated: false };
}

/** The variable of the partner's wallet `wallet` is (TEST_WALLET_SECRET_KEY or _ALT), if it is one this process onboarded. */
export function partnerWalletOf(wallet: string): string | undefined {
  return partnerWallets.get(wallet);
}

/**
 * Funds for a check that needs only enough money, never an exact amount it asserts against: through the control API
 * when the target offers `funding` (false: the caller funds), else the partner's funded wallet (TEST_WALLET_SECRET_KEY,
 * or _ALT for a second user) stands in when `wallet` is one (true: nothing to fund; a deposit it cannot pay is a broken
 * precondition of the check, never its rule; its fees count against --budget-lamports); else unsupported, naming what
 * would make it judgeable.
 */
export function partnerWalletFunds(t: CheckContext, wallet: string, what: string): boolean {
  if (t.control.has('funding')) return false;
  const name = partnerWalletOf(wallet);
  if (!name) throw new Unsupported('funding (or TEST_WALLET_SECRET_KEY, a funded wallet the check onboards)');
  t.note(`funds: the partner's wallet (${name}) pays for ${what}; no funding capability`);
  return true;
}

/**
 * A wallet of a check's own that nobody funds, under a fresh sub, generated anywhere: for a check whose wallet must
 * hold nothing, or must never be the partner's (an onboarding that may rebind it).
 */
export function unfundedWallet(): TestWallet {
  return { keypair: throwawayWallet(), sub: randomToken('conformance-sub'), generated: true };
}

/** A wallet used only to sign or to name, never onboarded: generated anywhere. */
export function throwawayWallet(): Keypair {
  return Keypair.generate();
}

export async function postOnboard(t: CheckContext, body: unknown, key?: string): Promise<Exchange> {
  return await servedRequest(t, {
    method: 'POST',
    path: '/partner/onboard',
    json: body,
    headers: { 'X-Service-User': undefined, ...(key ? { 'X-Service-Key': key } : {}) },
  });
}

/** A correct onboarding body at the service's time. */
export async function correctBody(
  t: CheckContext,
  sub: string,
  wallet: Keypair,
  opts: SiwsOptions & { signer?: Keypair; nonce?: string; environment?: SiwsEnvironment; offsetSeconds?: number } = {},
): Promise<OnboardBody> {
  const { now } = await serviceNow(t);
  return onboardBody(t.orders.baseUrl, sub, wallet, new Date(now.getTime() + (opts.offsetSeconds ?? 0) * 1000), opts);
}

export interface OnboardedUser {
  sub: string;
  userPubkey: string;
  userId: string;
  walletAddress: string;
}

/**
 * Onboard the check's wallet; a failure here is a broken precondition of the check (setup-failed), not its rule. The
 * canonical sign-in accepted confirms the SIWS form for this check (assumptions.ts `siws-form`).
 */
export async function onboardedUser(t: CheckContext, wallet: TestWallet = testWallet(t)): Promise<OnboardedUser> {
  const ex = await onboardedOnce(t, wallet);
  const d = dataOf(ex);
  if (!is2xx(ex) || typeof d?.userId !== 'string' || typeof d.walletAddress !== 'string') {
    throw new SetupFailed(`onboarding ${wallet.sub} answered ${ex.response.status} ${JSON.stringify(ex.response.body)}`, ex);
  }
  t.confirm('siws-form');
  return { sub: wallet.sub, userPubkey: wallet.keypair.publicKey.toBase58(), userId: d.userId, walletAddress: d.walletAddress };
}

/**
 * The check's wallet (or `wallet`) onboarded on the tenant of `apiKey` (another than the run's); a failure is a broken
 * precondition of the check.
 */
export async function onboardedOnTenant(t: CheckContext, apiKey: string, wallet: TestWallet = testWallet(t)): Promise<TestWallet> {
  const onboard = await onboardedOnce(t, wallet, apiKey);
  if (!is2xx(onboard))
    throw new SetupFailed(
      `onboarding on a fresh tenant answered ${onboard.response.status} ${JSON.stringify(onboard.response.body).slice(0, 300)}`,
      onboard,
    );
  return wallet;
}

/**
 * The positive case of a check that probes the SIWS form: a canonical sign-in, of the run's wallet when there is one
 * (onboarding it again changes nothing), else of a throwaway wallet under a fresh sub. 2xx confirms the form for this
 * check; 400 SIWS_INVALID rejects it (the check skips: the suite's form is not this target's, set CONFORMANCE_SIWS_*).
 */
export async function canonicalSignIn(t: CheckContext): Promise<Exchange> {
  const wallet =
    t.control.has('funding') || t.env.credentials.walletSecretKey
      ? testWallet(t)
      : { keypair: throwawayWallet(), sub: randomToken('conformance-sub') };
  const ex = await postOnboard(t, await correctBody(t, wallet.sub, wallet.keypair));
  if (ex.response.status === 400 && errorCode(ex) === 'SIWS_INVALID') {
    t.rejectAssumption(
      'siws-form',
      `the target rejects the suite's canonical SIWS sign-in (specs/siws.yaml; CONFORMANCE_SIWS_DOMAIN, _URI, _CHAIN_ID, _STATEMENT) with 400 SIWS_INVALID: ${JSON.stringify(ex.response.body).slice(0, 300)}`,
    );
  }
  if (!is2xx(ex))
    throw new SetupFailed(
      `a canonical sign-in of ${wallet.sub} answered ${ex.response.status} ${JSON.stringify(ex.response.body).slice(0, 300)}`,
      ex,
    );
  t.confirm('siws-form');
  return ex;
}

/** A user-scoped request as `sub`. */
export async function asUser(t: CheckContext, sub: string, spec: RequestSpec): Promise<Exchange> {
  return await servedRequest(t, { ...spec, headers: { ...(spec.headers ?? {}), 'X-Service-User': sub } });
}

/**
 * A key of a tenant other than the run's: a fresh tenant when the target offers `tenants`, else ORDERS_API_KEY_ALT
 * (a second tenant's key, README); unsupported without either. `alt` tells which.
 */
export async function otherTenantKey(t: CheckContext): Promise<{ apiKey: string; alt: boolean; environment?: string }> {
  if (t.control.has('tenants')) {
    const { apiKey, environment } = await t.control.createTenant();
    return { apiKey, alt: false, environment };
  }
  const alt = t.env.credentials.ordersApiKeyAlt;
  if (!alt) throw new Unsupported("tenants (or ORDERS_API_KEY_ALT, a second tenant's key)");
  if (alt === t.env.credentials.ordersApiKey) throw new SetupFailed("ORDERS_API_KEY_ALT is ORDERS_API_KEY: another tenant's key is needed");
  const ex = await t.orders.request({
    path: '/partners/me/orders',
    headers: { 'X-Service-Key': alt, 'X-Service-User': undefined },
    validate: false,
  });
  rateLimited(ex);
  if (!is2xx(ex)) throw new SetupFailed(`ORDERS_API_KEY_ALT is not accepted: GET /partners/me/orders answered ${ex.response.status}`, ex);
  return { apiKey: alt, alt: true };
}
