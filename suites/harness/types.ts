/** Shared vocabulary of the harness: profiles, capabilities, levels and verdicts (STYLE.md 4 and 5). */
import { CAPABILITIES, type Capability } from '../../generators/vocabulary.ts';
import type { FcPath } from './fc-path.ts';

export const PROFILES = ['smoke', 'readonly', 'full'] as const;
export type Profile = (typeof PROFILES)[number];

/** The closed capability list, generated from specs/capabilities.yaml. */
export { CAPABILITIES, type Capability };

export type Level = 'must' | 'may' | 'info';
export type Basis = 'documented' | 'assumed';
export type Verdict = 'pass' | 'fail' | 'unsupported' | 'skipped' | 'setup-failed';
export type ServiceName = 'orders' | 'quotes';

/** Does a run of `profile` include a check whose least profile is `least`? smoke < readonly < full. */
export function profileIncludes(profile: Profile, least: Profile): boolean {
  return PROFILES.indexOf(least) <= PROFILES.indexOf(profile);
}

/** Everything a check run needs to reach a target; serialisable (it crosses into vitest workers). */
export interface TargetEnv {
  /** absent in a run given the quote service's URL alone: the order checks are outside the run (and the reverse) */
  ordersUrl?: string;
  quotesUrl?: string;
  controlUrl?: string;
  /** Distributor path (Gateway) base; its paths are /api/v1/... like the key path. */
  gatewayUrl?: string;
  capabilities: Capability[];
  credentials: Credentials;
  profile: Profile;
  seed: number;
  numRuns: number;
  /** --fc-path: one property of the check replayed straight to its counterexample with the seed (fc-path.ts) */
  fcPath?: FcPath;
  strict: boolean;
  timeoutMs: number;
  /** Request budget in requests per second for the whole run; 0 = none (--max-rps). */
  maxRps: number;
  /**
   * At most this many requests in flight at once from the process; 0 = no cap (--max-concurrency). Absent: the
   * default of pacer.ts (8).
   */
  maxConcurrency?: number;
  /** Expected number of key-path providers (a product fact that may change; default 2). */
  expectedProviders: number;
  /**
   * The hostile-input checks send every malformed input (`every`: the embedded server, and when absent) or one per
   * validation branch (`per-branch`: a given target, where each request costs a round trip; suites/shared/hostile.ts).
   */
  hostileInputs?: 'every' | 'per-branch';
  /**
   * Partner mode (a target without the control API): the wall time, in minutes, that the black-box checks may spend
   * waiting for the service to act on its own (cycles, fills, expiry), all together (--budget-minutes; absent: 8).
   */
  budgetMinutes?: number;
  /** Partner mode: the lamports the partner's wallets may spend on fees (their deposits, the black-box withdrawals), all together (--budget-lamports). */
  budgetLamports?: number;
  /** Opt-in: probes that spend the partner's rate-limit allowance (--allow-rate-limit-probes). */
  allowRateLimitProbes?: boolean;
  /** What the target's /api/v1/info answered at start, for the report. */
  info?: unknown;
  /** Preconditions of the run the preflight found broken (preflight.ts); answers they explain judge no rule. */
  preconditions?: BrokenPrecondition[];
}

/**
 * A precondition of the run that broke (the SIWS form, the run's keys): what broke, the fix, and the answer that shows
 * it, so that the same answer to a later request is put down to it instead of to the rule a check was judging
 * (preconditions.ts).
 */
export interface BrokenPrecondition {
  /** `siws-form`, `orders-key`, `quotes-key` */
  id: string;
  /** what broke, with the target's answer */
  problem: string;
  /** what to set or change, in one line */
  fix: string;
  /** the answer that shows it; `credential`: only to requests that carry the run's own key */
  answer: { service: ServiceName; status: number; code?: string; credential?: 'ordersApiKey' | 'quotesApiKey' };
}

export interface Credentials {
  ordersApiKey?: string;
  ordersApiKeyAlt?: string;
  quotesApiKey?: string;
  quotesJwt?: string;
  /** A key of the separate swap API ({dart_url}), sent to the key path only to see it refused (Q-AUTH-007). */
  swapApiKey?: string;
  walletSecretKey?: string;
  /** A second funded wallet of the partner: a second user of the tenant where the target cannot fund one (partner mode). */
  walletSecretKeyAlt?: string;
  /** The tenant the suite provisioned through the control API, when it did. */
  ordersTenantId?: string;
}

/** Environment variable that carries each credential; also the placeholder printed in curl reproductions. */
export const CREDENTIAL_ENV: Record<Exclude<keyof Credentials, 'ordersTenantId'>, string> = {
  ordersApiKey: 'ORDERS_API_KEY',
  ordersApiKeyAlt: 'ORDERS_API_KEY_ALT',
  quotesApiKey: 'QUOTES_API_KEY',
  quotesJwt: 'QUOTES_JWT',
  swapApiKey: 'SWAP_API_KEY',
  walletSecretKey: 'TEST_WALLET_SECRET_KEY',
  walletSecretKeyAlt: 'TEST_WALLET_SECRET_KEY_ALT',
};
