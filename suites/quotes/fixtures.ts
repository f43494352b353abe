/** Well-formed request values the quote checks reuse (mainnet mints, a syntactically valid wallet). */
export const WSOL_MINT = 'So11111111111111111111111111111111111111112';
export const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
/** A valid base58 public key used as the quoting wallet; quotes need no signature. */
export const SAMPLE_WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

/** The four required parameters of GET /api/v1/quote/swap. */
export const MINIMAL_SWAP_QUERY = { inputMint: WSOL_MINT, outputMint: USDC_MINT, amount: '100000000', userPublicKey: SAMPLE_WALLET };
