import { decode as decodeMsgpack } from '@msgpack/msgpack';
import { Keypair } from '@solana/web3.js';
import { request } from 'undici';
import { renderSiwsMessage, signSiwsMessage, siwsDeployment } from '../../fixtures/siws.ts';
import { startReferenceServer, type ReferenceServerOptions, type RunningServer } from '../../fixtures/server/index.ts';

/** Helpers shared by the reference-server tests: start a server, call it over HTTP, provision through control. */

export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly contentType: string;
  readonly bytes: Buffer;
  /** Decoded body: JSON, MessagePack or text, by content type. */
  readonly body: unknown;
}

export interface CallOptions {
  readonly method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'HEAD' | 'OPTIONS';
  readonly headers?: Record<string, string>;
  readonly json?: unknown;
  /** A raw body, sent as application/json (to send what is not JSON). */
  readonly rawBody?: string;
}

export async function call(url: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.json !== undefined || options.rawBody !== undefined) {
    body = options.rawBody ?? JSON.stringify(options.json);
    headers['content-type'] = 'application/json';
  }
  const response = await request(url, { method: options.method ?? 'GET', headers, body });
  const bytes = Buffer.from(await response.body.arrayBuffer());
  const flat: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(response.headers)) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  const contentType = flat['content-type'] ?? '';
  return { status: response.statusCode, headers: flat, contentType, bytes, body: decodeBody(contentType, bytes) };
}

function decodeBody(contentType: string, bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined;
  if (contentType.startsWith('application/json')) return JSON.parse(bytes.toString('utf8'));
  if (contentType.startsWith('application/vnd.msgpack')) return decodeMsgpack(bytes, { useBigInt64: true });
  return bytes.toString('utf8');
}

export class Target {
  private constructor(readonly server: RunningServer) {}

  static async start(options: ReferenceServerOptions = {}): Promise<Target> {
    return new Target(await startReferenceServer({ port: 0, ...options }));
  }

  close(): Promise<void> {
    return this.server.close();
  }

  orders(path: string, options?: CallOptions): Promise<Answer> {
    return call(`${this.server.ordersUrl}${path}`, options);
  }

  quotes(path: string, options?: CallOptions): Promise<Answer> {
    return call(`${this.server.quotesUrl}${path}`, options);
  }

  control(method: CallOptions['method'], path: string, json?: unknown): Promise<Answer> {
    return call(`${this.server.controlUrl}${path}`, { method, json });
  }

  /** Control call that must succeed; returns its body. */
  async provision<T>(method: CallOptions['method'], path: string, json?: unknown): Promise<T> {
    const answer = await this.control(method, path, json);
    if (answer.status !== 200) throw new Error(`control ${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body as T;
  }

  createTenant(body: Record<string, unknown> = {}): Promise<{ tenantId: string; apiKey: string; environment: string }> {
    return this.provision('POST', '/tenants', body);
  }

  async createKey(tenantId: string, state: string): Promise<string> {
    return (await this.provision<{ apiKey: string }>('POST', `/tenants/${tenantId}/keys`, { state })).apiKey;
  }

  async setTenantState(tenantId: string, state: string): Promise<void> {
    await this.provision('PATCH', `/tenants/${tenantId}`, { state });
  }

  async quoteKey(plan: { rps?: number; monthlyAllowance?: number; state?: string } = {}): Promise<string> {
    return (await this.provision<{ apiKey: string }>('POST', '/quote-keys', plan)).apiKey;
  }

  async faults(faults: Record<string, unknown>): Promise<void> {
    await this.provision('POST', '/faults', faults);
  }

  async setPrice(mint: string, usdPrice: string | null): Promise<void> {
    await this.provision('POST', '/prices', { mint, usdPrice });
  }

  async setPool(ammKey: string, state: { enabled?: boolean; reserves?: [string, string] }): Promise<void> {
    await this.provision('POST', '/pools', { ammKey, ...state });
  }

  /** A distributor-path JWT (and the absolute {gateway_url} it is valid for). */
  quoteJwt(organizationId?: string): Promise<{ jwt: string; gatewayUrl: string }> {
    return this.provision('POST', '/quote-jwts', organizationId === undefined ? {} : { organizationId });
  }

  /** GET /api/v1/quote/swap on the key path with a fresh key; JSON unless `accept` says otherwise (null: none). */
  swap(query: Record<string, string | number | boolean | undefined>, accept: string | null = 'application/json'): Promise<Answer> {
    const params = new URLSearchParams(
      Object.entries(query).flatMap(([k, v]): [string, string][] => (v === undefined ? [] : [[k, String(v)]])),
    );
    return this.keyPath(`/api/v1/quote/swap?${params.toString()}`, accept);
  }

  /** A GET on the distributor path (`path` under {gateway_url}). */
  gateway(path: string, headers: Record<string, string> = {}): Promise<Answer> {
    return call(`${this.server.gatewayUrl}${path}`, { headers });
  }

  /** GET on the key path with a fresh key; JSON unless `accept` says otherwise (null: no Accept header). */
  async keyPath(path: string, accept: string | null = 'application/json', method: CallOptions['method'] = 'GET'): Promise<Answer> {
    const headers: Record<string, string> = { 'x-api-key': await this.quoteKey() };
    if (accept !== null) headers.accept = accept;
    return this.quotes(path, { method, headers });
  }

  async fund(wallet: string, mint: string, amount: string, newMint: { decimals?: number; programId?: string } = {}): Promise<string> {
    return (await this.provision<{ balance: string }>('POST', '/fund', { wallet, mint, amount, ...newMint })).balance;
  }

  /** The server's virtual time (control GET /clock). */
  async now(): Promise<Date> {
    return new Date((await this.provision<{ now: string }>('GET', '/clock')).now);
  }

  async advanceClock(seconds: number): Promise<Date> {
    return new Date((await this.provision<{ now: string }>('POST', '/clock', { advanceSeconds: seconds })).now);
  }

  /**
   * The canonical SIWS message (specs/siws.yaml) for this server's orders URL, issued at the server's time shifted
   * by `offsetSeconds`.
   */
  async siwsMessage(userPubkey: string, offsetSeconds = 0, nonce = 'n0nce12345678'): Promise<string> {
    const issuedAt = new Date((await this.now()).getTime() + offsetSeconds * 1000).toISOString();
    return renderSiwsMessage({ ...siwsDeployment(this.server.ordersUrl, 'staging'), userPubkey, issuedAt, nonce });
  }

  /** POST /partner/onboard with a key and a body. */
  onboardRaw(apiKey: string, body: unknown): Promise<Answer> {
    return this.orders('/partner/onboard', { method: 'POST', headers: { 'x-service-key': apiKey }, json: body });
  }

  /** A correct onboarding body for `wallet` (signed by `signer`, the wallet by default). */
  async onboardBody(sub: string, wallet: Keypair, options: { message?: string; signer?: Keypair } = {}): Promise<OnboardBody> {
    const message = options.message ?? (await this.siwsMessage(wallet.publicKey.toBase58()));
    return {
      sub,
      userPubkey: wallet.publicKey.toBase58(),
      siws: { message, signature: signSiwsMessage(message, (options.signer ?? wallet).secretKey) },
    };
  }

  /** Onboards `sub` with a fresh (or given) wallet; must succeed. */
  async onboard(
    apiKey: string,
    sub: string,
    wallet: Keypair = Keypair.generate(),
  ): Promise<{ userId: string; walletAddress: string; wallet: Keypair }> {
    const answer = await this.onboardRaw(apiKey, await this.onboardBody(sub, wallet));
    if (answer.status !== 200) throw new Error(`onboard ${sub}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return { ...(answer.body as { data: { userId: string; walletAddress: string } }).data, wallet };
  }

  /** A user-scoped GET as `sub`. */
  asUser(apiKey: string, sub: string | undefined, path: string): Promise<Answer> {
    return this.orders(path, { headers: { 'x-service-key': apiKey, ...(sub === undefined ? {} : { 'x-service-user': sub }) } });
  }

  /** GET /partners/me/orders with a key. */
  partnerOrders(apiKey: string | undefined, query = ''): Promise<Answer> {
    return this.orders(`/partners/me/orders${query}`, { headers: apiKey === undefined ? {} : { 'x-service-key': apiKey } });
  }
}

export interface OnboardBody {
  sub: string;
  userPubkey: string;
  siws: { message: string; signature: string };
}

/** An error reply's code on the order service. */
export function errorCode(answer: Answer): unknown {
  return (answer.body as { error?: { code?: unknown } } | undefined)?.error?.code;
}
