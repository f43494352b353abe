import { Keypair } from '@solana/web3.js';
import type { Exchange } from './exchange.ts';
import { ServiceClient } from './client.ts';
import { SetupFailed, Unsupported } from './failure.ts';
import { registerSecret } from './redact.ts';
import { estimatedServiceTime, forgetServiceTime, learnServiceTime } from './service-time.ts';
import { CAPABILITIES, type Capability } from './types.ts';

export interface QuoteKeyPlan {
  rps?: number;
  monthlyAllowance?: number;
  organizationId?: string;
  state?: 'active' | 'revoked';
}
export type KeyState = 'active' | 'revoked' | 'other-environment' | 'product-disabled' | 'product-expired';
export type TenantState = 'active' | 'suspended' | 'deleted' | 'not-provisioned';
/** Onboarding states of the Errors table: an external wallet needing user consent, a manager not fully provisioned. */
export type WalletState = 'needs-user-consent' | 'manager-incomplete';
export interface Faults {
  database?: 'healthy' | 'unhealthy' | 'down';
  rpc?: 'up' | 'down';
  oracle?: 'up' | 'down';
  /** Order swaps settle, fail, or hang in flight (a pending execution row, the order executing) until changed. */
  swaps?: 'ok' | 'fail' | 'hang';
  /** Provisioning a user's manager at onboarding: fails upstream (502) or unexpectedly (500) until `ok` again. */
  provisioning?: 'ok' | 'upstream' | 'unexpected';
  /** Quote providers by id: a provider that is down quotes nothing (its metadata.errors reason on a no-route 404). */
  quoteProviders?: Record<string, 'up' | 'down'>;
}

/** The value of each fault that is no fault: what a target starts with, and what a check restores. */
const HEALTHY_FAULTS: Readonly<Record<string, string>> = { database: 'healthy', rpc: 'up', oracle: 'up', swaps: 'ok', provisioning: 'ok' };

/** The fields a `setFaults` sets, one entry a quote provider (`quoteProviders.<id>`). */
function faultFields(faults: Faults): Array<[string, string]> {
  const { quoteProviders = {}, ...rest } = faults;
  const fields: Array<[string, unknown]> = [
    ...Object.entries(rest),
    ...Object.entries(quoteProviders).map(([id, v]): [string, unknown] => [`quoteProviders.${id}`, v]),
  ];
  return fields.filter((entry): entry is [string, string] => typeof entry[1] === 'string');
}

const healthy = ([field, value]: [string, string]) => value === (field.startsWith('quoteProviders.') ? 'up' : HEALTHY_FAULTS[field]);

/**
 * The faults this process last set successfully, per control URL, field by field: a restore to what they already are
 * (a check restores explicitly, then again in a `defer`) is not sent. Only checks that run alone set faults
 * (schedule.ts); a failed call forgets everything of its target (it may have applied). Only restores are ever left
 * out: a call that sets a fault always goes out (its exchange is what tells a check's own outage, outage.ts), and a
 * target that restarts, or is reset, starts healthy.
 */
const knownFaults = new Map<string, Map<string, string>>();

/**
 * The placeholders of the secrets the control API mints during a run (a reproduction shows `$PROVISIONED_ORDERS_KEY`).
 * Each is registered in the process that minted it, before any text can hold it: checks run in vitest workers, and
 * a worker redacts its results before they travel to the main process (runner.ts).
 */
export const MINTED_SECRET = {
  ordersKey: 'PROVISIONED_ORDERS_KEY',
  quotesKey: 'PROVISIONED_QUOTES_KEY',
  quotesJwt: 'PROVISIONED_QUOTES_JWT',
  swapApiKey: 'PROVISIONED_SWAP_API_KEY',
} as const;

/**
 * Register the secrets a control answer carries (`apiKey` of POST /tenants, /tenants/{id}/keys and /quote-keys; `jwt`
 * of POST /quote-jwts), whatever its status and shape: an answer that breaks the control spec is quoted in a
 * SetupFailed, so it is registered before that is thrown.
 */
export function registerMintedSecrets(path: string, body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  const { apiKey, jwt } = body as { apiKey?: unknown; jwt?: unknown };
  const kind = /\/quote-keys\/?$/.test(path) ? 'quotesKey' : /\/swap-api-keys\/?$/.test(path) ? 'swapApiKey' : 'ordersKey';
  if (typeof apiKey === 'string') registerSecret(apiKey, MINTED_SECRET[kind]);
  if (typeof jwt === 'string') registerSecret(jwt, MINTED_SECRET.quotesJwt);
}

/**
 * The host adapter (STYLE.md 5): every privileged action on the target goes through here, over the control API
 * of specs/control.openapi.yaml. A call needing a capability the target lacks throws Unsupported.
 */
export class ControlAdapter {
  private readonly client?: ServiceClient;
  /** The test mints this adapter (one check's) made up (`freshMint`). */
  private readonly mints = new Set<string>();

  constructor(
    private readonly controlUrl: string | undefined,
    readonly capabilities: readonly Capability[],
    timeoutMs: number,
    record: (e: Exchange) => void = () => {},
  ) {
    if (controlUrl) {
      this.client = new ServiceClient({
        service: 'control',
        baseUrl: controlUrl,
        timeoutMs,
        defaultHeaders: { accept: 'application/json' },
        record,
        violation: (v) => {
          const ex = v.detail.exchange;
          if (ex) registerMintedSecrets(new URL(ex.request.url).pathname, ex.response.body);
          throw new SetupFailed(
            `control API answer does not match specs/control.openapi.yaml: ${JSON.stringify(v.detail.received)}`,
            v.detail.exchange,
          );
        },
      });
    }
  }

  /** GET /capabilities of a control URL; unknown names are ignored (the list is closed). */
  static async discover(controlUrl: string, timeoutMs: number): Promise<Capability[]> {
    const adapter = new ControlAdapter(controlUrl, [], timeoutMs);
    const data = (await adapter.call('GET', '/capabilities')) as { capabilities?: unknown };
    const list = Array.isArray(data.capabilities) ? data.capabilities : [];
    return CAPABILITIES.filter((c) => list.includes(c));
  }

  has(capability: Capability): boolean {
    return this.capabilities.includes(capability);
  }

  require(capability: Capability): void {
    if (!this.has(capability)) throw new Unsupported(capability);
  }

  private async call(method: string, path: string, json?: unknown): Promise<unknown> {
    if (!this.client) throw new Unsupported('control');
    const ex = await this.client.request({ method, path, json, retry: false });
    registerMintedSecrets(path, ex.response.body);
    if (ex.response.status >= 300) {
      throw new SetupFailed(`control ${method} ${path} answered ${ex.response.status}: ${JSON.stringify(ex.response.body)}`, ex);
    }
    return ex.response.body;
  }

  async createTenant(
    body: {
      environment?: string;
      partnerOnboarding?: boolean;
      feeSponsored?: boolean;
      platformFeeBps?: number;
      feeWallet?: string;
      minNotionalUsdCents?: number;
      /** The SIWS statement of the tenant's onboarding messages (null: none); a target may refuse it (400). */
      siwsStatement?: string | null;
    } = {},
  ): Promise<{ tenantId: string; apiKey: string; environment: string }> {
    this.require('tenants');
    return (await this.call('POST', '/tenants', body)) as { tenantId: string; apiKey: string; environment: string };
  }

  async createKey(tenantId: string, state: KeyState): Promise<string> {
    this.require('tenants');
    return ((await this.call('POST', `/tenants/${encodeURIComponent(tenantId)}/keys`, { state })) as { apiKey: string }).apiKey;
  }

  async setTenantState(tenantId: string, state: TenantState): Promise<void> {
    this.require('tenants');
    await this.call('PATCH', `/tenants/${encodeURIComponent(tenantId)}`, { state });
  }

  /** `wallet` is an external wallet (`needs-user-consent`) or an onboarded user's manager (`manager-incomplete`). */
  async setWalletState(wallet: string, state: WalletState): Promise<void> {
    this.require('tenants');
    await this.call('POST', '/wallet-states', { wallet, state });
  }

  async createQuoteKey(plan: QuoteKeyPlan = {}): Promise<string> {
    return (await this.issueQuoteKey(plan)).apiKey;
  }

  /** A quote key and the organization it belongs to (keys of one organization pool limits and credits). */
  async issueQuoteKey(plan: QuoteKeyPlan = {}): Promise<{ apiKey: string; organizationId?: string }> {
    this.require('quote-keys');
    return (await this.call('POST', '/quote-keys', plan)) as { apiKey: string; organizationId?: string };
  }

  /** A distributor-path JWT, and the Gateway base URL when the target names it. */
  async createQuoteJwt(body: { organizationId?: string } = {}): Promise<{ jwt: string; gatewayUrl?: string }> {
    this.require('quote-keys');
    return (await this.call('POST', '/quote-jwts', body)) as { jwt: string; gatewayUrl?: string };
  }

  /**
   * A key of the separate swap API ({dart_url}, X-API-Key); undefined when the target offers quote keys but cannot
   * issue one (404).
   */
  async createSwapApiKey(): Promise<string | undefined> {
    this.require('quote-keys');
    if (!this.client) throw new Unsupported('control');
    const ex = await this.client.request({ method: 'POST', path: '/swap-api-keys', json: {}, retry: false });
    registerMintedSecrets('/swap-api-keys', ex.response.body);
    if (ex.response.status === 404) return undefined;
    if (ex.response.status >= 300)
      throw new SetupFailed(`control POST /swap-api-keys answered ${ex.response.status}: ${JSON.stringify(ex.response.body)}`, ex);
    return (ex.response.body as { apiKey: string }).apiKey;
  }

  /** Set faults; nothing is sent when every field is a restore to what this process last set it to (`knownFaults`). */
  async setFaults(faults: Faults): Promise<void> {
    this.require('faults');
    const fields = faultFields(faults);
    const known = knownFaults.get(this.controlUrl ?? '') ?? new Map<string, string>();
    if (fields.length > 0 && fields.every((field) => healthy(field) && known.get(field[0]) === field[1])) return;
    for (const [field] of fields) known.delete(field);
    try {
      await this.call('POST', '/faults', faults);
    } catch (e) {
      knownFaults.delete(this.controlUrl ?? '');
      throw e;
    }
    for (const [field, value] of fields) known.set(field, value);
    knownFaults.set(this.controlUrl ?? '', known);
  }

  /**
   * Credit `wallet` with `amount` (integer string, smallest unit) of `mint` (`native` for the native asset); the balance
   * after. `newMint` gives the decimals and token program of a mint the target does not know yet (a test mint).
   */
  async fund(
    wallet: string,
    mint: string,
    amount: string,
    newMint: { decimals?: number; programId?: 'token' | 'token-2022' } = {},
  ): Promise<string> {
    this.require('funding');
    return ((await this.call('POST', '/fund', { wallet, mint, amount, ...newMint })) as { balance: string }).balance;
  }

  /**
   * The address of a new test mint of this check's own (a random public key, base58): the target knows it once `fund`
   * credits a wallet with it. Nobody else has it, so its price moves nothing another check sees (schedule.ts, company).
   */
  freshMint(): string {
    const mint = Keypair.generate().publicKey.toBase58();
    this.mints.add(mint);
    return mint;
  }

  /** Is `mint` one this adapter made up (`freshMint`)? */
  madeMint(mint: string): boolean {
    return this.mints.has(mint);
  }

  /** A new Token-2022 test mint whose extensions (named in the answer) the target's order service cannot swap. */
  async createUnsupportedMint(): Promise<{ mint: string; decimals: number; extensions: string[] }> {
    this.require('token-extensions');
    return (await this.call('POST', '/token-2022-mints', {})) as { mint: string; decimals: number; extensions: string[] };
  }

  /**
   * Every balance `wallet` holds on the target's chain, by mint (the native asset under the wrapped-SOL mint), in the
   * smallest unit; undefined when the target funds wallets but does not offer the read (404).
   */
  async walletBalances(wallet: string): Promise<Map<string, bigint> | undefined> {
    this.require('funding');
    if (!this.client) throw new Unsupported('control');
    const path = `/wallets/${encodeURIComponent(wallet)}/balances`;
    const ex = await this.client.request({ method: 'GET', path, retry: false });
    if (ex.response.status === 404) return undefined;
    if (ex.response.status >= 300)
      throw new SetupFailed(`control GET ${path} answered ${ex.response.status}: ${JSON.stringify(ex.response.body)}`, ex);
    const { balances } = ex.response.body as { balances: Array<{ mint: string; amount: string }> };
    return new Map(balances.map(({ mint, amount }) => [mint, BigInt(amount)]));
  }

  /** The target's virtual time (ISO-8601). */
  async clock(): Promise<string> {
    this.require('clock');
    return await this.clockCall('GET');
  }

  /** Advance the target's virtual clock by whole seconds; the virtual time after. */
  async advanceClock(seconds: number): Promise<string> {
    this.require('clock');
    return await this.clockCall('POST', { advanceSeconds: seconds });
  }

  /**
   * The virtual time by the last clock answer of this process, if it is recent (service-time.ts); undefined when the
   * target has no virtual clock or nothing recent was learned.
   */
  knownClockMs(): number | undefined {
    return this.has('clock') && this.controlUrl ? estimatedServiceTime(this.controlUrl) : undefined;
  }

  /** A clock call: its answer is learned; a failure forgets what was (an advance may have happened). */
  private async clockCall(method: 'GET' | 'POST', json?: unknown): Promise<string> {
    const source = this.controlUrl ?? '';
    try {
      const { now } = (await this.call(method, '/clock', json)) as { now: string };
      learnServiceTime(source, Date.parse(now));
      return now;
    } catch (e) {
      forgetServiceTime(source);
      throw e;
    }
  }

  /** The USD reference price of a mint (decimal string), or null for "unavailable"; the oracle and the quote engine read it. */
  async setPrice(mint: string, usdPrice: string | null): Promise<void> {
    this.require('prices');
    await this.call('POST', '/prices', { mint, usdPrice });
  }

  /** The state of one pool of the quote engine, by its address (a route step's ammKey). */
  async setPool(ammKey: string, state: { enabled?: boolean; reserves?: [string, string] }): Promise<void> {
    this.require('prices');
    await this.call('POST', '/pools', { ammKey, ...state });
  }
}
