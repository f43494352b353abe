import { Keypair } from '@solana/web3.js';
import { request } from 'undici';
import { renderSiwsMessage, SIWS_CONFIG, signSiwsMessage, siwsDeployment } from '../../../../fixtures/siws.ts';
import { Target } from '../../support.ts';
import { failure, type Probe } from '../probe.ts';
import { userOnFreshTenant } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/orders/onboarding.ts (OA-ONB, OA-ME): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

async function onboardingProbe(t: Target, message: (wallet: Keypair) => Promise<string>, signer?: Keypair) {
  const { apiKey } = await t.createTenant();
  const wallet = Keypair.generate();
  return failure(await t.onboardRaw(apiKey, await t.onboardBody('probe-sub', wallet, { message: await message(wallet), signer })));
}

const pubkeyOf = (wallet: Keypair) => wallet.publicKey.toBase58();

/** A tenant whose SIWS statement is multi-byte, and its canonical message of exactly `bytes` UTF-8 bytes. */
async function multiByteStatementProbe(t: Target, bytes: number) {
  const config = { ...SIWS_CONFIG, statement: 'Grüße — bestätigen 🔐' };
  const { apiKey } = await t.createTenant({ siwsStatement: config.statement });
  const wallet = Keypair.generate();
  const issuedAt = (await t.now()).toISOString();
  const render = (nonce: string) =>
    renderSiwsMessage({ ...siwsDeployment(t.server.ordersUrl, 'staging', config), userPubkey: pubkeyOf(wallet), issuedAt, nonce }, config);
  const message = render('n'.repeat(8 + bytes - Buffer.byteLength(render('n'.repeat(8)), 'utf8')));
  return failure(await t.onboardRaw(apiKey, await t.onboardBody('probe-sub', wallet, { message })));
}

export const ONBOARDING_PROBES: Record<string, Probe> = {
  // ---- OA-ONB: POST /partner/onboard (SIWS canonical form, idempotency by sub, onboarding errors) ----
  'onboarding-user-id-as-number': async (t) => typeof (await userOnFreshTenant(t)).user.userId,
  'manager-is-the-user-wallet': async (t) => {
    const { user } = await userOnFreshTenant(t);
    return user.walletAddress === user.wallet.publicKey.toBase58();
  },
  'onboarding-not-idempotent': async (t) => {
    const { apiKey, user } = await userOnFreshTenant(t);
    const again = await t.onboardRaw(apiKey, await t.onboardBody('probe-sub', user.wallet));
    return (again.body as { data: { userId: string } }).data.userId === user.userId;
  },
  'missing-onboarding-field-answered-validation-error': async (t) => {
    const { apiKey } = await t.createTenant();
    const { sub: _sub, ...body } = await t.onboardBody('probe-sub', Keypair.generate());
    return failure(await t.onboardRaw(apiKey, body));
  },
  'invalid-onboarding-json-answered-validation-error': async (t) => {
    const { apiKey } = await t.createTenant();
    const raw = await request(`${t.server.ordersUrl}/partner/onboard`, {
      method: 'POST',
      headers: { 'x-service-key': apiKey, 'content-type': 'application/json' },
      body: '{"sub":',
    });
    return { status: raw.statusCode, code: ((await raw.body.json()) as { error: { code: unknown } }).error.code };
  },
  'siws-signature-not-verified': async (t) => {
    const { apiKey } = await t.createTenant();
    const wallet = Keypair.generate();
    const body = await t.onboardBody('probe-sub', wallet);
    body.siws.signature = signSiwsMessage(`${body.siws.message}!`, wallet.secretKey);
    return failure(await t.onboardRaw(apiKey, body));
  },
  'siws-crlf-accepted': (t) => onboardingProbe(t, async (w) => (await t.siwsMessage(pubkeyOf(w))).replace(/\n/g, '\r\n')),
  'siws-without-trailing-newline-accepted': (t) => onboardingProbe(t, async (w) => (await t.siwsMessage(pubkeyOf(w))).slice(0, -1)),
  'siws-freshness-not-checked': (t) => onboardingProbe(t, (w) => t.siwsMessage(pubkeyOf(w), -3600)),
  'siws-future-issued-at-accepted': (t) => onboardingProbe(t, (w) => t.siwsMessage(pubkeyOf(w), 3600)),
  'siws-issued-ahead-of-service-time-rejected': (t) => onboardingProbe(t, (w) => t.siwsMessage(pubkeyOf(w), 9 * 60)),
  'siws-named-wallet-taken-as-signer': (t) => {
    const other = Keypair.generate();
    return onboardingProbe(t, () => t.siwsMessage(pubkeyOf(other)), other);
  },
  'siws-of-exactly-1024-bytes-rejected': (t) =>
    onboardingProbe(t, async (w) => {
      const short = await t.siwsMessage(pubkeyOf(w), 0, 'n'.repeat(8));
      return t.siwsMessage(pubkeyOf(w), 0, 'n'.repeat(8 + 1024 - Buffer.byteLength(short, 'utf8')));
    }),
  'siws-oversize-accepted': (t) => onboardingProbe(t, (w) => t.siwsMessage(pubkeyOf(w), 0, 'n'.repeat(1100))),
  'siws-size-counted-in-utf-16-units': (t) => multiByteStatementProbe(t, 1025),
  'siws-size-counted-in-code-points': (t) => multiByteStatementProbe(t, 1025),
  'partner-not-configured-ignored': async (t) => {
    const { apiKey } = await t.createTenant({ partnerOnboarding: false });
    return failure(await t.onboardRaw(apiKey, await t.onboardBody('probe-sub', Keypair.generate())));
  },
  'user-pubkey-conflict-not-raised': async (t) => {
    const { apiKey } = await t.createTenant();
    const a = await t.onboard(apiKey, 'probe-a');
    await t.onboard(apiKey, 'probe-b');
    return failure(await t.onboardRaw(apiKey, await t.onboardBody('probe-b', a.wallet)));
  },
  'wallet-needing-consent-gets-a-manager': async (t) => {
    const { apiKey } = await t.createTenant();
    const wallet = Keypair.generate();
    await t.provision('POST', '/wallet-states', { wallet: pubkeyOf(wallet), state: 'needs-user-consent' });
    return failure(await t.onboardRaw(apiKey, await t.onboardBody('probe-sub', wallet)));
  },
  'incomplete-manager-served': async (t) => {
    const { apiKey, user } = await userOnFreshTenant(t);
    await t.provision('POST', '/wallet-states', { wallet: user.walletAddress, state: 'manager-incomplete' });
    return failure(await t.asUser(apiKey, 'probe-sub', '/me'));
  },
  'upstream-provisioning-failure-answered-500': async (t) => {
    await t.faults({ provisioning: 'upstream' });
    try {
      return await onboardingProbe(t, (w) => t.siwsMessage(pubkeyOf(w)));
    } finally {
      await t.faults({ provisioning: 'ok' });
    }
  },
  'siws-canonical-form-not-checked': (t) =>
    onboardingProbe(t, async (w) => (await t.siwsMessage(pubkeyOf(w))).replace(/^[^ ]+/, 'evil.example')),
  'users-of-a-tenant-share-one-manager': async (t) => {
    const { apiKey } = await t.createTenant();
    return (await t.onboard(apiKey, 'probe-a')).walletAddress === (await t.onboard(apiKey, 'probe-b')).walletAddress;
  },

  // ---- OA-ME: GET /me, the identity of the request ----
  'me-without-session-id': async (t) => {
    const { apiKey } = await userOnFreshTenant(t);
    return 'sessionId' in ((await t.asUser(apiKey, 'probe-sub', '/me')).body as { data: object }).data;
  },
  'session-id-not-empty': async (t) => {
    const { apiKey } = await userOnFreshTenant(t);
    return ((await t.asUser(apiKey, 'probe-sub', '/me')).body as { data: { sessionId: unknown } }).data.sessionId;
  },
  'me-user-id-differs-from-onboarding': async (t) => {
    const { apiKey, user } = await userOnFreshTenant(t);
    return ((await t.asUser(apiKey, 'probe-sub', '/me')).body as { data: { userId: unknown } }).data.userId === user.userId;
  },
};
