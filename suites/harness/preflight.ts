/**
 * The preflight: before the checks, the CLI tries once what most checks rest on, so that a misconfigured run is said
 * once, with its fix, instead of as hundreds of setup failures and as failures of unrelated rules (preconditions.ts).
 * - the run's keys (any profile, GETs only): `GET /partners/me/orders` with ORDERS_API_KEY, `GET /api/v1/info` with
 *   QUOTES_API_KEY; a 401 or 403 (ENV_MISMATCH, KEY_REVOKED, ...) is a key this deployment refuses;
 * - the SIWS form (`full` only: it signs a user in, a write): the suite's canonical sign-in, as a check's positive case
 *   sends it; 400 SIWS_INVALID is a form this deployment does not read, and the target's message names what to set.
 * What the preflight finds travels with the target to the workers (TargetEnv.preconditions): an answer it explains
 * judges no rule there (runner.ts). It judges nothing itself: an answer it cannot read leaves the checks to judge.
 * The intent templates, the funding of the wallet and the rate budget are met by the checks and reported from them.
 */
import { canonicalSignIn } from '../orders/users.ts';
import { boundedRequest } from './client.ts';
import { CheckContext, type Check } from './check.ts';
import { inOrder, runBounds } from './pacer.ts';
import { sendsUnsafeRequests } from './safe-methods.ts';
import type { BrokenPrecondition, TargetEnv } from './types.ts';

/** What the preflight stands in for: no check of its own, the checks' requests and clients. */
const PREFLIGHT: Check = { name: 'preflight', service: 'orders', rules: ['OA-ONB-001'], profile: 'smoke', run: async () => {} };

/** Which services the selected checks reach (a run of quote checks only needs no order-service preflight). */
export interface PreflightScope {
  orders: boolean;
  quotes: boolean;
}

const TENANT_STATES = ['PRODUCT_DISABLED', 'PRODUCT_EXPIRED', 'TENANT_SUSPENDED', 'TENANT_DELETED', 'TENANT_NOT_PROVISIONED'];

function ordersKeyFix(code: string | undefined): string {
  switch (code) {
    case 'ENV_MISMATCH':
      return "set ORDERS_API_KEY to a key of this deployment's environment, and CONFORMANCE_ORDERS_ENVIRONMENT to that environment (staging or production)";
    case 'KEY_REVOKED':
      return 'set ORDERS_API_KEY to a current (not revoked) partner key';
    default:
      return TENANT_STATES.includes(code ?? '')
        ? `set ORDERS_API_KEY to a key of a tenant in good standing (this one is ${code}), or have the operator restore the tenant`
        : 'set ORDERS_API_KEY to a partner key this deployment issued';
  }
}

/** The setting a SIWS_INVALID message points at, and the value it expects when it says so. */
const SIWS_FIELDS: Array<{ pattern: RegExp; setting: string; also?: string }> = [
  { pattern: /\bdomain\b/i, setting: 'CONFORMANCE_SIWS_DOMAIN' },
  { pattern: /\buri\b/i, setting: 'CONFORMANCE_SIWS_URI' },
  {
    pattern: /\bchain ?id\b/i,
    setting: 'CONFORMANCE_SIWS_CHAIN_ID',
    also: " (or CONFORMANCE_ORDERS_ENVIRONMENT to the key's environment)",
  },
  { pattern: /\bstatement\b/i, setting: 'CONFORMANCE_SIWS_STATEMENT' },
];

/** The fix for a rejected canonical sign-in, from the target's message where it names a field (and its expected value). */
export function siwsFix(message: string): string {
  if (/issued ?at/i.test(message))
    return "set this machine's clock to the target's time (Issued At must be within 10 minutes of the service's time)";
  const field = SIWS_FIELDS.map((f) => ({ ...f, at: message.search(f.pattern) }))
    .filter((f) => f.at >= 0)
    .sort((a, b) => a.at - b.at)[0];
  if (!field)
    return "set CONFORMANCE_SIWS_DOMAIN, CONFORMANCE_SIWS_URI, CONFORMANCE_SIWS_CHAIN_ID or CONFORMANCE_SIWS_STATEMENT (or CONFORMANCE_SIWS_CONFIG) to this deployment's SIWS form (README, wallet and SIWS)";
  const expected = /\bexpected:?\s+["'`]?([^\s"'`,;]+)/i.exec(message.slice(field.at))?.[1];
  return expected && expected !== '(none)'
    ? `set ${field.setting}=${expected}${field.also ?? ''}`
    : `set ${field.setting} to the value this deployment expects${field.also ?? ''}`;
}

function errorOf(body: unknown): { code?: string; message: string } {
  const error = typeof body === 'object' && body !== null ? (body as { error?: { code?: unknown; message?: unknown } }).error : undefined;
  return {
    ...(typeof error?.code === 'string' ? { code: error.code } : {}),
    message: typeof error?.message === 'string' ? ` "${error.message.slice(0, 300)}"` : '',
  };
}

/**
 * One GET with the run's key, once: no retry and no wait on a 429 (the preflight spends none of the run's retry-after
 * budget); undefined when no whole answer came.
 */
async function keyProbe(
  env: TargetEnv,
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; code?: string; message: string } | undefined> {
  try {
    const answer = await boundedRequest(
      url,
      { method: 'GET', headers: { accept: 'application/json', ...headers } },
      Math.min(env.timeoutMs, 10_000),
      runBounds().maxBodyBytes,
    );
    let body: unknown;
    try {
      body = JSON.parse(answer.raw.toString('utf8'));
    } catch {
      /* not JSON: the status alone */
    }
    return { status: answer.status, ...errorOf(body) };
  } catch {
    return undefined;
  }
}

const refused = (status: number | undefined) => status === 401 || status === 403;

/** The preconditions of the run the target shows broken, before any check runs. */
export async function preflight(env: TargetEnv, scope: PreflightScope): Promise<BrokenPrecondition[]> {
  const broken: BrokenPrecondition[] = [];
  const { quotesApiKey, ordersApiKey } = env.credentials;
  // Both keys probed at once (one after the other with --max-concurrency 1).
  const [quotesKey, ordersKey] = await inOrder(
    env.maxConcurrency === 1,
    async () =>
      scope.quotes && env.quotesUrl && quotesApiKey
        ? keyProbe(env, `${env.quotesUrl.replace(/\/$/, '')}/api/v1/info`, { 'x-api-key': quotesApiKey })
        : undefined,
    async () =>
      scope.orders && env.ordersUrl && ordersApiKey
        ? keyProbe(env, `${env.ordersUrl.replace(/\/$/, '')}/partners/me/orders`, { 'X-Service-Key': ordersApiKey })
        : undefined,
  );
  if (quotesKey && refused(quotesKey.status)) {
    const { status, code, message } = quotesKey;
    broken.push({
      id: 'quotes-key',
      problem: `the quote service refuses QUOTES_API_KEY: GET /api/v1/info answered ${status}${code ? ` ${code}` : ''}${message}`,
      fix: 'set QUOTES_API_KEY to a key this quote service issued (and QUOTES_JWT for the distributor path)',
      answer: { service: 'quotes', status, ...(code ? { code } : {}), credential: 'quotesApiKey' },
    });
  }
  if (!scope.orders || !env.ordersUrl || !ordersApiKey) return broken;
  const key = ordersKey;
  if (key && refused(key.status)) {
    broken.push({
      id: 'orders-key',
      problem: `the order service refuses ORDERS_API_KEY: GET /partners/me/orders answered ${key.status}${key.code ? ` ${key.code}` : ''}${key.message}`,
      fix: ordersKeyFix(key.code),
      answer: { service: 'orders', status: key.status, ...(key.code ? { code: key.code } : {}), credential: 'ordersApiKey' },
    });
    return broken;
  }
  if (!sendsUnsafeRequests(env.profile)) return broken;
  // The canonical sign-in exactly as a check's positive case sends it (users.ts): a rejection is recorded, not thrown.
  const t = new CheckContext(PREFLIGHT, env);
  try {
    await canonicalSignIn(t);
  } catch {
    /* rejected (recorded in t.assumptions), or no answer to judge by: the checks meet it themselves */
  }
  const rejected = t.exchanges.at(-1);
  if (t.assumptions.summary().rejected?.includes('siws-form') && rejected) {
    const { message } = errorOf(rejected.response.body);
    broken.push({
      id: 'siws-form',
      problem: `the target rejects the suite's canonical SIWS sign-in: POST /partner/onboard answered 400 SIWS_INVALID${message}`,
      fix: siwsFix(message),
      answer: { service: 'orders', status: 400, code: 'SIWS_INVALID' },
    });
  }
  return broken;
}
