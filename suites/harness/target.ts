import { request } from 'undici';
import { boundedRequest } from './client.ts';
import { ControlAdapter } from './control.ts';
import { SetupFailed } from './failure.ts';
import { parseJsonExact } from './json-exact.ts';
import { configureBounds, inOrder, runBounds, type RunBounds } from './pacer.ts';
import { registerSecret } from './redact.ts';
import { CREDENTIAL_ENV, type Credentials, type Profile, type TargetEnv } from './types.ts';

export interface TargetConfig {
  /** one of the two may be absent: a run of the other service's checks alone */
  ordersUrl?: string;
  quotesUrl?: string;
  controlUrl?: string;
  gatewayUrl?: string;
  profile: Profile;
  seed: number;
  strict: boolean;
  numRuns: number;
  fcPath?: TargetEnv['fcPath'];
  timeoutMs: number;
  maxRps: number;
  /** Requests in flight at once; 0 = no cap; absent = the default (8). */
  maxConcurrency?: number;
  expectedProviders: number;
  /** Partner mode: budgets of the black-box checks and the opt-in probes (TargetEnv). */
  budgetMinutes?: number;
  budgetLamports?: number;
  allowRateLimitProbes?: boolean;
  credentials: Credentials;
  /** How far the run goes whatever the target does (--max-body-bytes, --max-retry-after, ...); defaults when absent. */
  bounds?: Partial<RunBounds>;
}

/** A prepared target; `bounds` travels with it into the workers (applyEnvBounds). */
export type PreparedTarget = TargetEnv & Pick<TargetConfig, 'bounds'>;

/** The target could not be reached at all: exit code 3. */
export class TargetUnreachable extends Error {
  readonly code = 'TARGET_UNREACHABLE';
}

/** Credentials come only from the environment (DESIGN.md, "The commands"). */
export function credentialsFromEnv(env: NodeJS.ProcessEnv = process.env): Credentials {
  const out: Credentials = {};
  for (const [field, name] of Object.entries(CREDENTIAL_ENV) as [keyof typeof CREDENTIAL_ENV, string][]) {
    const value = env[name]?.trim();
    if (value) out[field] = value;
  }
  return out;
}

/** Why a probe got no answer, in words (the code stays in brackets for a search). */
function unreachableReason(e: unknown, timeoutMs: number): string {
  const raw = (e as { code?: unknown }).code;
  const code = typeof raw === 'string' ? raw : undefined; // a DOMException's code is a number
  const name = (e as Error).name;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || name === 'TimeoutError' || name === 'AbortError') {
    return `no answer within ${timeoutMs} ms${code ? ` (${code})` : ''}: the connection was accepted but nothing answered`;
  }
  const words: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'connection reset',
    UND_ERR_SOCKET: 'connection closed without an answer',
    UND_ERR_CLOSED: 'connection closed without an answer',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host name lookup failed',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
    ETIMEDOUT: 'connection timed out',
    UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  };
  return code ? `${words[code] ?? (e as Error).message} (${code})` : (e as Error).message;
}

/**
 * Any HTTP answer means reachable; a refused or dropped connection or no answer in time does not. The whole probe,
 * connect included, ends within `timeoutMs` (undici's own timers tick coarsely and a connect may wait longer).
 */
export async function probe(url: string, timeoutMs: number): Promise<void> {
  try {
    const signal = AbortSignal.timeout(timeoutMs);
    const res = await request(url, { method: 'GET', signal, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    // The status line and headers are the answer: the body is not read (it may be huge, or drip).
    res.body.on('error', () => {}).destroy();
  } catch (e) {
    throw new TargetUnreachable(`${url} could not be reached: ${unreachableReason(e, timeoutMs)}`);
  }
}

/**
 * Make a run's target environment: check that every URL answers, read the control API's capabilities, and
 * provision the credentials the environment does not supply when the target can (tenants, quote-keys).
 */
export async function prepareTarget(config: TargetConfig): Promise<PreparedTarget> {
  configureBounds(config.bounds);
  const probeTimeout = Math.min(config.timeoutMs, 10_000);
  // Independent requests go out at once (one after another with --max-concurrency 1); the first failure in this order
  // is the one said. Only the services the run was given: no request reaches a service outside the run.
  const sequential = config.maxConcurrency === 1;
  const none = async () => undefined;
  const [, , , capabilities = []] = await inOrder(
    sequential,
    config.ordersUrl ? () => probe(`${config.ordersUrl!.replace(/\/$/, '')}/health`, probeTimeout) : none,
    config.quotesUrl ? () => probe(`${config.quotesUrl!.replace(/\/$/, '')}/api/v1/info`, probeTimeout) : none,
    config.controlUrl ? () => probe(`${config.controlUrl!.replace(/\/$/, '')}/capabilities`, probeTimeout) : none,
    config.controlUrl ? () => ControlAdapter.discover(config.controlUrl!, config.timeoutMs) : none,
  );
  const credentials = { ...config.credentials };
  const control = new ControlAdapter(config.controlUrl, capabilities, config.timeoutMs);
  let gatewayUrl = config.gatewayUrl;
  await inOrder(
    sequential,
    async () => {
      if (!config.ordersUrl || credentials.ordersApiKey || !control.has('tenants')) return;
      const tenant = await control.createTenant({});
      credentials.ordersApiKey = tenant.apiKey;
      credentials.ordersTenantId = tenant.tenantId;
    },
    async () => {
      if (config.quotesUrl && !credentials.quotesApiKey && control.has('quote-keys'))
        credentials.quotesApiKey = await control.createQuoteKey({});
    },
    async () => {
      if (!config.quotesUrl || credentials.quotesJwt || !control.has('quote-keys')) return;
      // Best effort: a target may issue keys but no distributor JWTs; the distributor checks then skip, saying why.
      try {
        const issued = await control.createQuoteJwt({});
        credentials.quotesJwt = issued.jwt;
        gatewayUrl ??= issued.gatewayUrl;
      } catch (e) {
        if (!(e instanceof SetupFailed)) throw e;
      }
    },
  );
  for (const [field, name] of Object.entries(CREDENTIAL_ENV) as [keyof typeof CREDENTIAL_ENV, string][]) {
    registerSecret(credentials[field], name);
  }
  const env: PreparedTarget = { ...config, gatewayUrl, capabilities, credentials };
  env.info = await readInfo(env);
  return env;
}

/**
 * The target's /api/v1/info, for the report header; undefined when it cannot be read whole within --timeout and
 * --max-body-bytes, or does not decode (the info checks judge it).
 */
async function readInfo(env: TargetEnv): Promise<unknown> {
  if (!env.quotesUrl || !env.credentials.quotesApiKey) return undefined;
  try {
    const answer = await boundedRequest(
      `${env.quotesUrl.replace(/\/$/, '')}/api/v1/info`,
      {
        method: 'GET',
        headers: { 'x-api-key': env.credentials.quotesApiKey, accept: 'application/json' },
      },
      env.timeoutMs,
      runBounds().maxBodyBytes,
    );
    return answer.status === 200 ? parseJsonExact(answer.raw.toString('utf8')) : undefined;
  } catch {
    return undefined;
  }
}

/** The bounds of the run, in a worker the target crossed into (suites/harness/vitest.ts). */
export function applyEnvBounds(env: PreparedTarget): void {
  configureBounds(env.bounds);
}

/** Secrets of a TargetEnv that crossed into a worker must be registered there too. */
export function registerEnvSecrets(env: TargetEnv): void {
  for (const [field, name] of Object.entries(CREDENTIAL_ENV) as [keyof typeof CREDENTIAL_ENV, string][]) {
    registerSecret(env.credentials[field], name);
  }
}
