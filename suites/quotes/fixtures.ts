/**
 * Default request values of the quote checks, in one place.
 *
 * External targets: every quote check builds its requests from the values below, and each can be replaced through
 * the environment (read here, once, when the suite loads):
 *
 *   CONFORMANCE_QUOTE_INPUT_MINT    token sold (base58 mint)              default: wrapped native token (WSOL)
 *   CONFORMANCE_QUOTE_OUTPUT_MINT   token bought (base58 mint)            default: USDC
 *   CONFORMANCE_QUOTE_AMOUNT        amount of the input mint, smallest unit (digits)   default: 100000000 (0.1 SOL)
 *   CONFORMANCE_QUOTE_WALLET        userPublicKey, the quoting wallet (base58)        default: SAMPLE_WALLET
 *
 * Choose a liquid pair and an amount the target can route: the checks need a 200 quote to look at routes, and
 * several derive further requests from it (the reverse pair sells the first quote's outAmount; larger amounts
 * multiply this one). Quotes need no signature (Authentication 5), so the wallet needs no secret key and no funds.
 */
export const WSOL_MINT = 'So11111111111111111111111111111111111111112';
export const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
/** A valid base58 public key used as the quoting wallet; quotes need no signature. */
export const SAMPLE_WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

const PUBKEY = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const DIGITS = /^[1-9][0-9]*$/;

function configured(name: string, pattern: RegExp, fallback: string, what: string): string {
  const value = process.env[name]?.trim();
  if (!value) return fallback;
  if (!pattern.test(value)) throw new Error(`${name} must be ${what}, got "${value}"`);
  return value;
}

/** The request values every quote check starts from (environment first, then the defaults above). */
export const QUOTE_DEFAULTS = {
  inputMint: configured('CONFORMANCE_QUOTE_INPUT_MINT', PUBKEY, WSOL_MINT, 'a base58 mint address'),
  outputMint: configured('CONFORMANCE_QUOTE_OUTPUT_MINT', PUBKEY, USDC_MINT, 'a base58 mint address'),
  amount: configured('CONFORMANCE_QUOTE_AMOUNT', DIGITS, '100000000', 'a positive integer in the smallest unit'),
  userPublicKey: configured('CONFORMANCE_QUOTE_WALLET', PUBKEY, SAMPLE_WALLET, 'a base58 public key'),
} as const;

/** The four required parameters of GET /api/v1/quote/swap. */
export const MINIMAL_SWAP_QUERY = { ...QUOTE_DEFAULTS };

/**
 * Decimal places that hold on every cluster (the wrapped native token mirrors lamports: 9). Other mints' decimals
 * are chain data the suite does not know; they are only checked for consistency between responses.
 */
export const KNOWN_MINT_DECIMALS: Readonly<Record<string, number>> = {
  [WSOL_MINT]: 9,
};
