/**
 * Public keys in the quote service's MessagePack answers. The document types `inputMint`/`outputMint` as "string
 * (base58)", gives no type for `ammKey`, program ids and account keys, and says the Gateway and the Direct stream
 * share "the same ... response types"; the real service sends every public key as a 32-byte binary (its public SDK
 * types each one as `Uint8Array`; REST clients of its Gateway decode "raw 32-byte buffers"). So in MessagePack a key
 * is a base58 string or the 32 raw bytes of the key (Q-ENC-006, Q-ENC-009); JSON carries base58 strings only.
 *
 * The suite reads a binary key as the base58 string of its bytes before any schema or invariant check, so one schema
 * and one invariant serve both forms. Only key positions are read this way: instruction data `d` stays raw bytes
 * (base64 in the JSON view), and a binary of another length at a key position stays visibly malformed.
 */
import bs58 from 'bs58';
import { mapPubkeys } from '../../generators/vocabulary.ts';

// Where public keys sit: generators/vocabulary.ts PUBKEY_POSITIONS, every position the spec types as Base58Pubkey in a
// quote or venues response (one list for quote/swap, the distributor's quote/price and venues).

/** Every value at a key position, with where it sits (`quotes.titan.steps.0.ammKey`). Null and absent ones are skipped. */
export function keysOf(body: unknown): Array<{ at: string; value: unknown }> {
  const found: Array<{ at: string; value: unknown }> = [];
  mapPubkeys(body, (value, at) => {
    if (value !== undefined && value !== null) found.push({ at, value });
    return value;
  });
  return found;
}

/**
 * The decoded MessagePack body with each binary key read as the base58 string of its bytes. A binary of any other
 * length than 32 becomes `<N raw bytes>`, which no pubkey check accepts, so the enclosing rule reports it.
 */
export function pubkeysAsBase58(body: unknown): unknown {
  return mapPubkeys(body, (key) => {
    if (!(key instanceof Uint8Array)) return key;
    return key.length === 32 ? bs58.encode(key) : `<${key.length} raw bytes>`;
  });
}

/** A base58 string of a 32-byte key (solana.ts has the same test; this module stays free of @solana/web3.js). */
function isBase58Key(value: unknown): boolean {
  if (typeof value !== 'string' || !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(value)) return false;
  try {
    return bs58.decode(value).length === 32;
  } catch {
    return false;
  }
}

export type KeyForm = 'base58 string' | '32-byte binary';

/** How the keys of one decoded body are written: the forms seen, and the positions holding neither form. */
export function keyForms(body: unknown): { forms: Set<KeyForm>; malformed: Array<{ at: string; value: unknown }> } {
  const forms = new Set<KeyForm>();
  const malformed: Array<{ at: string; value: unknown }> = [];
  for (const { at, value } of keysOf(body)) {
    if (value instanceof Uint8Array && value.length === 32) forms.add('32-byte binary');
    else if (isBase58Key(value)) forms.add('base58 string');
    else malformed.push({ at, value: value instanceof Uint8Array ? `${value.length} raw bytes` : value });
  }
  return { forms, malformed };
}

/** One line for the report: which form the target's MessagePack answers use (Q-ENC-009). */
export function describeKeyForms(forms: ReadonlySet<KeyForm>, where: string): string | undefined {
  if (forms.size === 0) return undefined;
  const names = [...forms].sort().map((form) => (form === 'base58 string' ? 'base58 strings' : '32-byte binaries'));
  return `Q-ENC-009: ${where}: public keys as ${names.join(' and ')}${forms.has('32-byte binary') ? ' (read as the base58 keys of the same bytes)' : ''}`;
}
