import { readFileSync } from 'node:fs';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { parse } from 'yaml';
import { isProtectedWallet } from './signing-gate.ts';
import { ed25519Signature } from './ed25519.ts';

/**
 * The SIWS canonical form the suite signs (basis: assumed), read from specs/siws.yaml, the one configuration the
 * suite and a target share. A partner's deployment overrides it from the environment:
 *   CONFORMANCE_SIWS_CONFIG       another YAML file of the same shape
 *   CONFORMANCE_SIWS_DOMAIN       {domain}   (default: host of the orders base URL)
 *   CONFORMANCE_SIWS_URI          {uri}      (default: the orders base URL)
 *   CONFORMANCE_SIWS_CHAIN_ID     {chainId}  (default: chainId[environment] of the file)
 *   CONFORMANCE_SIWS_STATEMENT    {statement} (default: `statement` of the file; none when null)
 *   CONFORMANCE_ORDERS_ENVIRONMENT  staging | production, the run key's environment (default staging)
 */

export type SiwsEnvironment = 'staging' | 'production';

export interface SiwsConfig {
  template: string[];
  domain: string | null;
  uri: string | null;
  /** An optional line (Sign-In With Solana, EIP-4361): null for none. */
  statement: string | null;
  chainId: Record<SiwsEnvironment, string>;
  limits: { maxBytes: number; lineEnding: string; trailingNewline: boolean; issuedAtToleranceSeconds: number };
  nonce: { pattern: string };
}

const DEFAULT_CONFIG: SiwsConfig = {
  template: [
    '{domain} wants you to sign in with your Solana account:',
    '{userPubkey}',
    '',
    'URI: {uri}',
    'Version: 1',
    'Chain ID: {chainId}',
    'Issued At: {issuedAt}',
    'Nonce: {nonce}',
  ],
  domain: null,
  uri: null,
  statement: null,
  chainId: { staging: 'devnet', production: 'mainnet' },
  limits: { maxBytes: 1024, lineEnding: '\n', trailingNewline: true, issuedAtToleranceSeconds: 600 },
  nonce: { pattern: '^[A-Za-z0-9]{8,}$' },
};

let cached: SiwsConfig | undefined;

/** specs/siws.yaml (or CONFORMANCE_SIWS_CONFIG); the DESIGN.md default when the file is absent. */
export function siwsConfig(): SiwsConfig {
  if (cached) return cached;
  const file = process.env.CONFORMANCE_SIWS_CONFIG ?? new URL('../../specs/siws.yaml', import.meta.url);
  let read: Partial<SiwsConfig> = {};
  try {
    read = (parse(readFileSync(file, 'utf8')) ?? {}) as Partial<SiwsConfig>;
  } catch (e) {
    if (process.env.CONFORMANCE_SIWS_CONFIG)
      throw new Error(`CONFORMANCE_SIWS_CONFIG ${process.env.CONFORMANCE_SIWS_CONFIG}: ${(e as Error).message}`);
  }
  cached = {
    ...DEFAULT_CONFIG,
    ...read,
    limits: { ...DEFAULT_CONFIG.limits, ...(read.limits ?? {}) },
    chainId: { ...DEFAULT_CONFIG.chainId, ...(read.chainId ?? {}) },
    nonce: { ...DEFAULT_CONFIG.nonce, ...(read.nonce ?? {}) },
  };
  return cached;
}

export function runEnvironment(): SiwsEnvironment {
  return process.env.CONFORMANCE_ORDERS_ENVIRONMENT === 'production' ? 'production' : 'staging';
}

export interface SiwsFields {
  userPubkey: string;
  issuedAt: string;
  nonce: string;
}

export interface SiwsOptions {
  /** The environment of the API key the message is sent with (chain id). */
  environment?: SiwsEnvironment;
  /** Replace the line ending (CRLF probes) or drop the trailing one. */
  lineEnding?: string;
  trailingNewline?: boolean;
  /** Values other than the deployment's for `{domain}`, `{uri}`, `{chainId}` (canonical-form probes). */
  values?: Partial<Record<'domain' | 'uri' | 'chainId', string>>;
  /** Leave out the template line at this index (canonical-form probes). */
  omitLine?: number;
  /** A statement other than the run's (a tenant's own, set through the control API). */
  statement?: string;
}

/** The statement of this run: CONFORMANCE_SIWS_STATEMENT, else the file's; undefined for none. */
function siwsStatement(c: SiwsConfig): string | undefined {
  return process.env.CONFORMANCE_SIWS_STATEMENT ?? c.statement ?? undefined;
}

/**
 * The template's lines. A statement (when set, and the template does not place `{statement}` itself) goes after the
 * empty line that follows the `{userPubkey}` line, with an empty line of its own (the EIP-4361 layout).
 */
export function siwsTemplate(c: SiwsConfig = siwsConfig(), statement = siwsStatement(c)): string[] {
  const lines = [...c.template];
  if (statement === undefined || lines.some((line) => line.includes('{statement}'))) return lines;
  lines.splice(lines.findIndex((line) => line.includes('{userPubkey}')) + 2, 0, '{statement}', '');
  return lines;
}

/** The chain id the deployment expects for `environment`. */
export function siwsChainId(environment: SiwsEnvironment = runEnvironment()): string {
  return process.env.CONFORMANCE_SIWS_CHAIN_ID ?? siwsConfig().chainId[environment];
}

/** The message of the configured template, for `ordersUrl`. */
export function renderSiws(ordersUrl: string, fields: SiwsFields, opts: SiwsOptions = {}): string {
  const c = siwsConfig();
  const base = ordersUrl.replace(/\/+$/, '');
  const values: Record<string, string> = {
    domain: process.env.CONFORMANCE_SIWS_DOMAIN ?? c.domain ?? new URL(base).host,
    uri: process.env.CONFORMANCE_SIWS_URI ?? c.uri ?? base,
    chainId: siwsChainId(opts.environment),
    statement: opts.statement ?? siwsStatement(c) ?? '',
    userPubkey: fields.userPubkey,
    issuedAt: fields.issuedAt,
    nonce: fields.nonce,
    ...opts.values,
  };
  const end = opts.lineEnding ?? c.limits.lineEnding;
  const lines = siwsTemplate(c, opts.statement ?? siwsStatement(c))
    .filter((_line, i) => i !== opts.omitLine)
    .map((line) => line.replace(/\{(\w+)\}/g, (_m, name: string) => values[name] ?? ''));
  return lines.join(end) + ((opts.trailingNewline ?? c.limits.trailingNewline) ? end : '');
}

/** ed25519 over the exact UTF-8 bytes of `message`, base58. */
export function signSiws(message: string, signer: Keypair): string {
  return bs58.encode(ed25519Signature(Buffer.from(message, 'utf8'), signer));
}

/** A nonce of letters and digits, at least 8 long. */
export function siwsNonce(length = 16): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(Math.random() * alphabet.length)];
  return out;
}

/** The body of POST /partner/onboard. */
export interface OnboardBody {
  sub: string;
  userPubkey: string;
  siws: { message: string; signature: string };
}

/**
 * A correct onboarding body for `wallet`, issued at `issuedAt`, signed by `signer` (default: the wallet). The SIWS
 * gate: the run's own wallet (TEST_WALLET_SECRET_KEY, signing-gate.ts protectWallet) signs only the canonical
 * message of this run's domain, URI and chain naming itself; the probes that bend the form use throwaway wallets.
 */
export function onboardBody(
  ordersUrl: string,
  sub: string,
  wallet: Keypair,
  issuedAt: Date,
  opts: SiwsOptions & { signer?: Keypair; nonce?: string } = {},
): OnboardBody {
  const signer = opts.signer ?? wallet;
  const bent =
    opts.lineEnding !== undefined ||
    opts.trailingNewline !== undefined ||
    opts.values !== undefined ||
    opts.omitLine !== undefined ||
    opts.environment !== undefined ||
    opts.statement !== undefined ||
    signer !== wallet;
  if (bent && isProtectedWallet(signer))
    throw new Error("SIWS gate: the run's wallet signs only the canonical message of this run (a probe must use a throwaway wallet)");
  const message = renderSiws(
    ordersUrl,
    { userPubkey: wallet.publicKey.toBase58(), issuedAt: issuedAt.toISOString(), nonce: opts.nonce ?? siwsNonce() },
    opts,
  );
  return { sub, userPubkey: wallet.publicKey.toBase58(), siws: { message, signature: signSiws(message, signer) } };
}
