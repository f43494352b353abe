import { errorCode, is2xx } from '../harness/answers.ts';
import { type CheckContext, defineCheck } from '../harness/check.ts';
import { SetupFailed } from '../harness/failure.ts';
import { randomToken } from '../shared/values.ts';
import { runEnvironment, siwsConfig, siwsNonce } from './siws.ts';
import { expectError } from './steps/expect.ts';
import { correctBody, postOnboard, throwawayWallet } from './users.ts';

/**
 * Limits, SIWS message: "At most 1024 bytes." Every line of the assumed canonical form is ASCII but the deployment's
 * optional statement, so bytes and characters part only with a multi-byte statement: the run's own
 * (CONFORMANCE_SIWS_STATEMENT), or a tenant's the control API sets (`POST /tenants` `siwsStatement`, capability
 * tenants). With one, a canonical message of exactly 1024 bytes is accepted and one of 1025 bytes (and at most 1024
 * characters, UTF-16 units or code points) is refused, as any message over the limit.
 */

/** Two-, three- and four-byte UTF-8 characters (a four-byte one is two UTF-16 units, one code point). */
const MULTI_BYTE_STATEMENT = 'Grüße aus Zürich — Anmeldung bestätigen 🔐';

interface MultiByteForm {
  /** The statement the messages carry: undefined for the run's own. */
  statement?: string;
  /** The X-Service-Key of the tenant whose users sign it: undefined for the run's key. */
  key?: string;
  what: string;
}

const multiByte = (text: string) => Buffer.byteLength(text, 'utf8') > text.length;

async function multiByteForm(t: CheckContext): Promise<MultiByteForm> {
  const probe = await correctBody(t, randomToken('conformance-sub'), throwawayWallet());
  if (multiByte(probe.siws.message)) return { what: "this deployment's canonical form (its multi-byte statement)" };
  if (!t.control.has('tenants'))
    t.skip(
      "the run's canonical SIWS form is all ASCII, so bytes and characters cannot be told apart: set CONFORMANCE_SIWS_STATEMENT to the deployment's statement when it holds non-ASCII text, or give a control URL offering tenants (POST /tenants with siwsStatement)",
    );
  try {
    const tenant = await t.control.createTenant({ environment: runEnvironment(), siwsStatement: MULTI_BYTE_STATEMENT });
    return { statement: MULTI_BYTE_STATEMENT, key: tenant.apiKey, what: `a tenant whose SIWS statement is "${MULTI_BYTE_STATEMENT}"` };
  } catch (e) {
    if (!(e instanceof SetupFailed)) throw e;
    t.skip(
      `the target cannot give a tenant a SIWS statement of its own (control POST /tenants with siwsStatement): ${e.message.slice(0, 200)}`,
    );
  }
}

export const siwsSizeCountsUtf8Bytes = defineCheck({
  name: 'siws-size-limit-counts-utf-8-bytes-not-characters',
  service: 'orders',
  rules: ['OA-ONB-022'],
  profile: 'full',
  async run(t: CheckContext) {
    const form = await multiByteForm(t);
    const max = siwsConfig().limits.maxBytes;
    // A fresh wallet per message: its base58 address is 43 or 44 characters, so the room is measured with that wallet.
    const body = (nonceLength: number, wallet = throwawayWallet()) =>
      correctBody(t, randomToken('conformance-sub'), wallet, { nonce: siwsNonce(nonceLength), statement: form.statement });

    // The positive case: a short canonical message with the multi-byte statement signs a user in.
    t.exercise('siws-form');
    const short = await body(8);
    const signIn = await postOnboard(t, short, form.key);
    if (!is2xx(signIn))
      t.rejectAssumption(
        'siws-form',
        `the target refuses a canonical SIWS sign-in of ${form.what} with ${signIn.response.status} ${String(errorCode(signIn))}: ${JSON.stringify(signIn.response.body).slice(0, 300)}`,
      );
    t.confirm('siws-form');

    for (const extra of [0, 1]) {
      const wallet = throwawayWallet();
      const room = max - Buffer.byteLength((await body(8, wallet)).siws.message, 'utf8');
      if (room < 0) t.skip(`the canonical form of ${form.what} is already longer than ${max} bytes with an 8-character nonce`);
      const sent = await body(8 + room + extra, wallet);
      const { message } = sent.siws;
      const bytes = Buffer.byteLength(message, 'utf8');
      if (bytes !== max + extra) t.skip(`could not build a ${max + extra}-byte message (got ${bytes}): the Issued At length changed`);
      const size = `${bytes} bytes, ${message.length} UTF-16 units, ${[...message].length} code points`;
      const ex = await postOnboard(t, sent, form.key);
      if (extra === 0)
        t.expect('OA-ONB-022', is2xx(ex), {
          documented: `a canonical SIWS message of ${form.what} of exactly ${max} bytes (${size}) is accepted`,
          received: { status: ex.response.status, body: ex.response.body },
          exchange: ex,
        });
      else
        expectError(t, 'OA-ONB-022', ex, {
          status: 400,
          codes: ['SIWS_INVALID', 'BAD_REQUEST'],
          documented: `a SIWS message of ${form.what} of ${size} (over ${max} bytes, not over ${max} characters) is refused with 400 SIWS_INVALID or BAD_REQUEST`,
        });
    }
  },
});
