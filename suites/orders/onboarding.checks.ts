import { dataOf, errorCode, is2xx } from '../harness/answers.ts';
import { defineCheck, type Check, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { SetupFailed } from '../harness/failure.ts';
import { randomToken } from '../shared/values.ts';
import { runEnvironment, siwsChainId, siwsConfig, siwsNonce, siwsTemplate, type SiwsEnvironment } from './siws.ts';
import { expectError, expectErrorEnvelope } from './steps/expect.ts';
import { atOnce } from './orders.ts';
import {
  asUser,
  canonicalSignIn,
  correctBody,
  onboardedUser,
  postOnboard,
  servedRequest,
  serviceNow,
  testWallet,
  throwawayWallet,
  unfundedWallet,
} from './users.ts';
import type { RuleId } from '../../generators/vocabulary.ts';

/**
 * POST /partner/onboard (Onboarding; Limits, SIWS message; Errors, onboarding). The SIWS canonical form is the suite's
 * assumption (specs/siws.yaml, basis: assumed); the freshness window, LF endings, trailing newline and the 1024-byte
 * limit are documented. Negative probes use throwaway generated wallets, so a conforming target creates nothing; they
 * are profile full all the same, as are the checks that do create a user: a target whose SIWS verification is broken
 * would onboard the throwaway wallet (readonly sends safe methods only, suites/harness/safe-methods.ts).
 */

/** A refused onboarding: `status` with one of `codes` for `what`, in the failure envelope (OA-ENV-002). */
function expectRejection(t: CheckContext, rule: RuleId, ex: Exchange, status: number, codes: readonly string[], what: string): void {
  expectError(t, rule, ex, { status, codes, documented: `${what}: ${status} ${codes.join(' or ')}` });
  expectErrorEnvelope(t, ex);
}

/** A rejected onboarding of a fresh throwaway wallet, its body shaped by `make`. */
function siwsRejection(
  name: string,
  rule: RuleId,
  what: string,
  make: (t: CheckContext, sub: string) => Promise<unknown>,
  codes: readonly string[] = ['SIWS_INVALID'],
): Check {
  return defineCheck({
    name,
    service: 'orders',
    rules: [rule, 'OA-ENV-002'],
    profile: 'full',
    async run(t: CheckContext) {
      // The positive case first: the suite's canonical form signs a user in here (or the check skips).
      await canonicalSignIn(t);
      const ex = await postOnboard(t, await make(t, randomToken('conformance-sub')));
      expectRejection(t, rule, ex, 400, codes, what);
    },
  });
}

/** Issued At offsets (seconds) that lie outside ±tolerance for sure: the margin covers local clock skew. */
async function outsideWindow(t: CheckContext): Promise<number> {
  const { exact } = await serviceNow(t);
  const tolerance = siwsConfig().limits.issuedAtToleranceSeconds;
  return tolerance + (exact ? 60 : 20 * 60);
}

export const onboardingWorks = defineCheck({
  name: 'onboarding-with-a-correct-siws-sign-in-returns-user-id-and-manager-wallet',
  service: 'orders',
  rules: ['OA-ONB-001', 'OA-ONB-002', 'OA-ENV-001'],
  profile: 'full',
  async run(t: CheckContext) {
    const wallet = testWallet(t);
    const ex = await postOnboard(t, await correctBody(t, wallet.sub, wallet.keypair));
    if (ex.response.status === 400 && errorCode(ex) === 'SIWS_INVALID') {
      t.rejectAssumption(
        'siws-form',
        `the target rejects the suite's canonical SIWS sign-in (specs/siws.yaml; CONFORMANCE_SIWS_*) with 400 SIWS_INVALID: ${JSON.stringify(ex.response.body).slice(0, 300)}`,
      );
    }
    if (is2xx(ex)) t.confirm('siws-form');
    const d = dataOf(ex);
    t.expect('OA-ONB-001', is2xx(ex) && typeof d?.userId === 'string' && typeof d.walletAddress === 'string', {
      documented: '2xx with data {userId: string, walletAddress: string}',
      received: { status: ex.response.status, body: ex.response.body },
      exchange: ex,
    });
    t.expect('OA-ENV-001', (ex.response.body as { success?: unknown }).success === true, {
      documented: 'the success envelope {success: true, data}',
      received: ex.response.body,
      exchange: ex,
    });
    t.expect('OA-ONB-002', d.walletAddress !== wallet.keypair.publicKey.toBase58(), {
      documented: 'walletAddress is the manager, not the external wallet userPubkey',
      received: d.walletAddress,
      exchange: ex,
    });
  },
});

export const onboardingIsIdempotentBySub = defineCheck({
  name: 'onboarding-twice-with-the-same-sub-returns-the-same-user-and-manager',
  service: 'orders',
  rules: ['OA-ONB-003'],
  profile: 'full',
  async run(t: CheckContext) {
    const wallet = testWallet(t);
    const first = await onboardedUser(t, wallet);
    // A fresh message (new nonce, new Issued At), same sub and wallet, no X-Idempotency-Key.
    const ex = await postOnboard(t, await correctBody(t, wallet.sub, wallet.keypair));
    const d = dataOf(ex);
    t.expect('OA-ONB-003', is2xx(ex) && d?.userId === first.userId && d.walletAddress === first.walletAddress, {
      documented: `the same data {userId: ${first.userId}, walletAddress: ${first.walletAddress}} for the same sub`,
      received: { status: ex.response.status, body: ex.response.body },
      exchange: ex,
    });
  },
});

export const siwsWindowAccepts = defineCheck({
  name: 'siws-issued-nine-minutes-before-or-after-the-service-time-is-accepted',
  service: 'orders',
  rules: ['OA-ONB-010'],
  profile: 'full',
  async run(t: CheckContext) {
    const wallet = testWallet(t);
    await onboardedUser(t, wallet);
    const { exact } = await serviceNow(t);
    const tolerance = siwsConfig().limits.issuedAtToleranceSeconds;
    // With the target's clock: 60 s inside the window; with the local clock, half the window (skew margin).
    const offset = exact ? tolerance - 60 : Math.floor(tolerance / 2);
    const ex = await postOnboard(t, await correctBody(t, wallet.sub, wallet.keypair, { offsetSeconds: -offset }));
    t.expect('OA-ONB-010', is2xx(ex), {
      documented: `Issued At ${offset} s before the service's time (window ±${tolerance} s) is accepted`,
      received: { status: ex.response.status, body: ex.response.body },
      exchange: ex,
    });
    // Ahead of the service's time too, but only against the target's own clock (a local clock may run behind it).
    if (!exact) return t.note('Issued At ahead of the service time not probed: the target offers no clock');
    const ahead = await postOnboard(t, await correctBody(t, wallet.sub, wallet.keypair, { offsetSeconds: offset }));
    t.expect('OA-ONB-010', is2xx(ahead), {
      documented: `Issued At ${offset} s after the service's time (window ±${tolerance} s) is accepted`,
      received: { status: ahead.response.status, body: ahead.response.body },
      exchange: ahead,
    });
  },
});

export const siwsOf1024BytesAccepted = defineCheck({
  name: 'siws-message-of-exactly-1024-bytes-is-accepted',
  service: 'orders',
  rules: ['OA-ONB-012'],
  profile: 'full',
  async run(t: CheckContext) {
    const wallet = testWallet(t);
    const max = siwsConfig().limits.maxBytes;
    const probe = await correctBody(t, wallet.sub, wallet.keypair, { nonce: 'A'.repeat(8) });
    const room = max - Buffer.byteLength(probe.siws.message, 'utf8');
    if (room < 0) t.skip(`the configured SIWS template is already longer than ${max} bytes with an 8-character nonce`);
    const body = await correctBody(t, wallet.sub, wallet.keypair, { nonce: siwsNonce(8 + room) });
    const bytes = Buffer.byteLength(body.siws.message, 'utf8');
    if (bytes !== max) t.skip(`could not build a ${max}-byte message (got ${bytes}): the Issued At length changed between renders`);
    const ex = await postOnboard(t, body);
    t.expect('OA-ONB-012', is2xx(ex), {
      documented: `a canonical SIWS message of exactly ${max} bytes is accepted`,
      received: { status: ex.response.status, body: ex.response.body },
      exchange: ex,
    });
  },
});

export const siwsRejections: Check[] = [
  siwsRejection(
    'siws-signature-over-other-bytes-is-rejected-with-siws-invalid',
    'OA-ONB-006',
    'a signature that does not verify over the exact message bytes',
    async (t, sub) => {
      const w = throwawayWallet();
      const body = await correctBody(t, sub, w);
      const other = await correctBody(t, sub, w);
      return { ...body, siws: { message: body.siws.message, signature: other.siws.signature } };
    },
  ),
  siwsRejection(
    'siws-signed-by-another-wallet-is-rejected-with-siws-invalid',
    'OA-ONB-011',
    'a message naming userPubkey but signed by another key',
    async (t, sub) => correctBody(t, sub, throwawayWallet(), { signer: throwawayWallet() }),
  ),
  siwsRejection(
    'siws-naming-another-wallet-is-rejected-with-siws-invalid',
    'OA-ONB-011',
    'a message naming a wallet other than userPubkey, signed by that other wallet',
    async (t, sub) => {
      const named = throwawayWallet();
      const body = await correctBody(t, sub, named);
      return { ...body, userPubkey: throwawayWallet().publicKey.toBase58() };
    },
  ),
  siwsRejection(
    'siws-issued-too-long-ago-is-rejected-with-siws-invalid',
    'OA-ONB-009',
    'Issued At more than 10 minutes before the service time',
    async (t, sub) => correctBody(t, sub, throwawayWallet(), { offsetSeconds: -(await outsideWindow(t)) }),
  ),
  siwsRejection(
    'siws-issued-in-the-future-is-rejected-with-siws-invalid',
    'OA-ONB-009',
    'Issued At more than 10 minutes after the service time',
    async (t, sub) => correctBody(t, sub, throwawayWallet(), { offsetSeconds: await outsideWindow(t) }),
  ),
  siwsRejection(
    'siws-with-crlf-line-endings-is-rejected-with-siws-invalid',
    'OA-ONB-007',
    'CRLF line endings (signed as sent)',
    async (t, sub) => correctBody(t, sub, throwawayWallet(), { lineEnding: '\r\n' }),
  ),
  siwsRejection(
    'siws-without-trailing-newline-is-rejected-with-siws-invalid',
    'OA-ONB-008',
    'no newline after the nonce line (signed as sent)',
    async (t, sub) => correctBody(t, sub, throwawayWallet(), { trailingNewline: false }),
  ),
  // Over the limit the code is not given (UNKNOWNS part B, SIWS over 1024 bytes): SIWS_INVALID or BAD_REQUEST.
  siwsRejection(
    'siws-message-over-1024-bytes-is-rejected-with-400',
    'OA-ONB-013',
    'a canonical message of more than 1024 bytes (signed as sent)',
    async (t, sub) => {
      const max = siwsConfig().limits.maxBytes;
      return correctBody(t, sub, throwawayWallet(), { nonce: siwsNonce(max) });
    },
    ['SIWS_INVALID', 'BAD_REQUEST'],
  ),
  // The canonical form beyond what the document fixes (specs/siws.yaml): the deployment's domain, chain id, lines.
  siwsRejection(
    'siws-naming-another-domain-is-rejected-with-siws-invalid',
    'OA-ONB-020',
    "a message naming another domain than the deployment's (signed as sent)",
    async (t, sub) => correctBody(t, sub, throwawayWallet(), { values: { domain: 'conformance.invalid' } }),
  ),
  siwsRejection(
    'siws-with-the-other-environments-chain-id-is-rejected-with-siws-invalid',
    'OA-ONB-020',
    'a message with the chain id of the other environment (signed as sent)',
    async (t, sub) => {
      const other = runEnvironment() === 'staging' ? 'production' : 'staging';
      const chainId = siwsConfig().chainId[other];
      if (chainId === siwsChainId()) t.skip(`both environments have chain id ${chainId} in the SIWS configuration`);
      return correctBody(t, sub, throwawayWallet(), { values: { chainId } });
    },
  ),
  siwsRejection(
    'siws-missing-a-template-line-is-rejected-with-siws-invalid',
    'OA-ONB-020',
    'a message without one line of the template (signed as sent)',
    async (t, sub) => {
      // A fixed line (no placeholder, not empty): "Version: 1" in the default template.
      const line = siwsTemplate().findIndex((text) => text !== '' && !/\{\w+\}/.test(text));
      if (line < 0) t.skip('the configured SIWS template has no fixed line to leave out');
      return correctBody(t, sub, throwawayWallet(), { omitLine: line });
    },
  ),
];

export const managerPerUser = defineCheck({
  name: 'two-users-onboarded-by-a-tenant-get-two-different-managers',
  service: 'orders',
  rules: ['OA-ONB-021'],
  profile: 'full',
  async run(t: CheckContext) {
    const first = await onboardedUser(t);
    // A second user with a wallet of its own: onboarding needs only its signature, never funds.
    const wallet = throwawayWallet();
    const ex = await postOnboard(t, await correctBody(t, randomToken('conformance-sub'), wallet));
    const d = dataOf(ex);
    if (!is2xx(ex) || typeof d?.walletAddress !== 'string')
      throw new SetupFailed(`onboarding a second user answered ${ex.response.status}`, ex);
    const users = [first, { userPubkey: wallet.publicKey.toBase58(), walletAddress: d.walletAddress }];
    t.expect('OA-ONB-021', first.walletAddress !== d.walletAddress && users.every((u) => u.walletAddress !== u.userPubkey), {
      documented: 'two users of one tenant: two different walletAddress values (a manager per user), neither equal to its userPubkey',
      received: users.map((u) => ({ userPubkey: u.userPubkey, walletAddress: u.walletAddress })),
      exchange: ex,
    });
  },
});

/** OA-ONB-004: each of the four required fields missing in turn. */
export const missingFieldsAreBadRequests = defineCheck({
  name: 'onboarding-missing-sub-user-pubkey-message-or-signature-is-rejected-with-bad-request',
  service: 'orders',
  rules: ['OA-ONB-004', 'OA-ENV-002'],
  profile: 'full',
  async run(t: CheckContext) {
    const w = throwawayWallet();
    const variants: Array<[string, (b: Record<string, unknown> & { siws: Record<string, unknown> }) => unknown]> = [
      ['sub', ({ sub: _s, ...rest }) => rest],
      ['userPubkey', ({ userPubkey: _u, ...rest }) => rest],
      ['siws.message', (b) => ({ ...b, siws: { signature: b.siws.signature } })],
      ['siws.signature', (b) => ({ ...b, siws: { message: b.siws.message } })],
      ['siws', ({ siws: _s, ...rest }) => rest],
    ];
    for (const [field, drop] of variants) {
      const body = await correctBody(t, randomToken('conformance-sub'), w);
      const ex = await postOnboard(t, drop(body as unknown as Record<string, unknown> & { siws: Record<string, unknown> }));
      expectRejection(t, 'OA-ONB-004', ex, 400, ['BAD_REQUEST'], `onboarding without ${field}`);
    }
  },
});

export const invalidJsonIsBadRequest = defineCheck({
  name: 'onboarding-body-that-is-not-json-is-rejected-with-bad-request',
  service: 'orders',
  rules: ['OA-ONB-005', 'OA-ENV-002'],
  profile: 'full',
  async run(t: CheckContext) {
    const ex = await servedRequest(t, {
      method: 'POST',
      path: '/partner/onboard',
      body: '{"sub": "conformance", "userPubkey": ',
      headers: { 'content-type': 'application/json', 'X-Service-User': undefined },
    });
    expectRejection(t, 'OA-ONB-005', ex, 400, ['BAD_REQUEST'], 'a body that is not valid JSON');
  },
});

export const tenantWithoutOnboarding = defineCheck({
  name: 'onboarding-on-a-tenant-not-enabled-is-rejected-with-partner-not-configured',
  service: 'orders',
  rules: ['OA-ONB-014', 'OA-ENV-002'],
  profile: 'full',
  needs: ['tenants'],
  async run(t: CheckContext) {
    await canonicalSignIn(t);
    const tenant = await t.control.createTenant({ partnerOnboarding: false });
    const body = await correctBody(t, randomToken('conformance-sub'), throwawayWallet(), {
      environment: tenant.environment as SiwsEnvironment,
    });
    const ex = await postOnboard(t, body, tenant.apiKey);
    expectRejection(
      t,
      'OA-ONB-014',
      ex,
      400,
      ['PARTNER_NOT_CONFIGURED'],
      'a correct onboarding on a tenant not enabled for partner onboarding',
    );
  },
});

export const identityConflict = defineCheck({
  name: 'onboarding-a-known-sub-with-another-known-subs-wallet-is-rejected-with-409',
  service: 'orders',
  // Only the unambiguous case (UNKNOWNS part B, onboarding conflicts): both sub and wallet are bound, to two users.
  rules: ['OA-ONB-015', 'OA-ENV-002'],
  profile: 'full',
  async run(t: CheckContext) {
    const a = testWallet(t);
    const b = testWallet(t, 'second');
    await onboardedUser(t, a);
    await onboardedUser(t, b);
    const ex = await postOnboard(t, await correctBody(t, a.sub, b.keypair));
    expectRejection(
      t,
      'OA-ONB-015',
      ex,
      409,
      ['USER_PUBKEY_CONFLICT'],
      `sub ${a.sub} (bound to one wallet) with the wallet bound to ${b.sub}`,
    );
  },
});

export const ambiguousRebindings = defineCheck({
  name: 'onboarding-a-bound-wallet-under-a-new-sub-or-a-known-sub-with-a-new-wallet-answers-2xx-or-409',
  service: 'orders',
  // UNKNOWNS part B, onboarding conflicts: the document does not say; both answers are tolerated, nothing else.
  rules: ['OA-ONB-016'],
  profile: 'full',
  async run(t: CheckContext) {
    // A wallet of its own, never the partner's: a 2xx answer rebinds it.
    const a = unfundedWallet();
    await onboardedUser(t, a);
    const cases = [
      { what: 'a new sub with a wallet bound to another sub', body: await correctBody(t, randomToken('conformance-sub'), a.keypair) },
      { what: 'a known sub with a new, unbound wallet', body: await correctBody(t, a.sub, throwawayWallet()) },
    ];
    for (const { what, body } of cases) {
      const ex = await postOnboard(t, body);
      t.expect('OA-ONB-016', is2xx(ex) || (ex.response.status === 409 && errorCode(ex) === 'USER_PUBKEY_CONFLICT'), {
        documented: `${what}: 2xx or 409 USER_PUBKEY_CONFLICT`,
        received: { status: ex.response.status, body: ex.response.body },
        exchange: ex,
      });
      t.note(`${what}: ${ex.response.status} ${String(errorCode(ex) ?? '')}`);
    }
  },
});

/**
 * The onboarding states of the Errors table a sandbox sets up through the control API (`tenants`: POST
 * /wallet-states; `faults`: provisioning). Throwaway wallets and fresh subs, so that nothing else is touched.
 */
export const walletNeedingConsent = defineCheck({
  name: 'onboarding-a-wallet-that-needs-user-consent-is-rejected-with-409-wallet-needs-user-consent',
  service: 'orders',
  rules: ['OA-ONB-017', 'OA-ENV-002'],
  profile: 'full',
  needs: ['tenants'],
  async run(t: CheckContext) {
    const wallet = throwawayWallet();
    await t.control.setWalletState(wallet.publicKey.toBase58(), 'needs-user-consent');
    const ex = await postOnboard(t, await correctBody(t, randomToken('conformance-sub'), wallet));
    expectRejection(
      t,
      'OA-ONB-017',
      ex,
      409,
      ['WALLET_NEEDS_USER_CONSENT'],
      'a new sub with a wallet that exists with no manager set up, none attachable server-side',
    );
  },
});

export const incompleteManager = defineCheck({
  name: 'a-manager-not-fully-provisioned-answers-409-onboarding-incomplete-until-onboarded-again',
  service: 'orders',
  rules: ['OA-ONB-018', 'OA-ENV-002'],
  profile: 'full',
  needs: ['tenants'],
  async run(t: CheckContext) {
    const wallet = testWallet(t);
    const user = await onboardedUser(t, wallet);
    // The run's own wallet is never left incomplete, whatever happens below.
    if (!wallet.generated)
      t.defer(async () => {
        await postOnboard(t, await correctBody(t, wallet.sub, wallet.keypair));
      });
    await t.control.setWalletState(user.walletAddress, 'manager-incomplete');
    // The balances are read from the manager itself: a call that surely hits it (GET /me may only resolve the identity).
    const hit = await asUser(t, user.sub, { path: '/me/balance' });
    expectRejection(
      t,
      'OA-ONB-018',
      hit,
      409,
      ['ONBOARDING_INCOMPLETE'],
      'GET /me/balance of a user whose manager is not fully provisioned',
    );
    // "Call onboard again, then retry."
    const again = await postOnboard(t, await correctBody(t, wallet.sub, wallet.keypair));
    t.expect('OA-ONB-018', is2xx(again), {
      documented: 'onboarding the same sub and wallet again answers 2xx',
      received: { status: again.response.status, body: again.response.body },
      exchange: again,
    });
    const retry = await asUser(t, user.sub, { path: '/me/balance' });
    t.expect('OA-ONB-018', is2xx(retry), {
      documented: 'after onboarding again the same GET /me/balance succeeds',
      received: { status: retry.response.status, body: retry.response.body },
      exchange: retry,
    });
  },
});

export const provisioningFailures = defineCheck({
  name: 'provisioning-failures-answer-502-upstream-or-500-unexpected-and-a-later-repeat-succeeds',
  service: 'orders',
  rules: ['OA-ONB-019', 'OA-ENV-002'],
  profile: 'full',
  needs: ['faults'],
  async run(t: CheckContext) {
    t.defer(() => t.control.setFaults({ provisioning: 'ok' }));
    const sub = randomToken('conformance-sub');
    const wallet = throwawayWallet();
    // A fresh SIWS message (new nonce, Issued At) each time: the same sub and wallet, never a replayed message.
    for (const [mode, status] of [
      ['upstream', 502],
      ['unexpected', 500],
    ] as const) {
      // The fault set and the sign-in dated (a clock or /health read) at once: neither depends on the other.
      const [, body] = await atOnce(
        t,
        () => t.control.setFaults({ provisioning: mode }),
        () => correctBody(t, sub, wallet),
      );
      const ex = await postOnboard(t, body);
      expectRejection(t, 'OA-ONB-019', ex, status, ['PROVISIONING_FAILED'], `onboarding a new user while provisioning fails (${mode})`);
    }
    const [, body] = await atOnce(
      t,
      () => t.control.setFaults({ provisioning: 'ok' }),
      () => correctBody(t, sub, wallet),
    );
    const repeat = await postOnboard(t, body);
    const d = dataOf(repeat);
    t.expect('OA-ONB-019', is2xx(repeat) && typeof d?.userId === 'string' && typeof d.walletAddress === 'string', {
      documented:
        'PROVISIONING_FAILED is safe to retry: the same onboarding, repeated once provisioning works, answers 2xx {userId, walletAddress}',
      received: { status: repeat.response.status, body: repeat.response.body },
      exchange: repeat,
    });
  },
});
