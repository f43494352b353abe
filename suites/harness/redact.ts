/**
 * Secrets never leave the process: every string that reaches a report, a log line, a curl reproduction or an
 * attachment passes through `redact`. Known secrets are replaced by a shell variable name, so a reproduction
 * still runs once the variable is exported.
 *
 * A piece of a secret is as bad as the whole: a target that reflects a key, cut by any truncation of ours or its own,
 * still hands out most of it. So any run of FRAGMENT (8) or more consecutive characters of a registered secret (or of
 * its URL-encoded form) is replaced too, by `[part of $NAME]`, wherever it is cut. A secret shorter than 8
 * characters is only redacted whole. Eight characters of a random key do not occur by chance; what a secret shares
 * with public text of its own format (a JWT's base64url header `eyJhbGciOi…`, a key prefix such as `oa_test_`) is
 * redacted wherever it appears, which hides only other credentials of the same kind.
 *
 * Registration is per process (per vitest worker module graph): a secret minted in a worker is registered there, by
 * the control adapter that minted it, and the worker redacts what it sends to the main process.
 */
import { CREDENTIAL_ENV, type Credentials } from './types.ts';

const secrets = new Map<string, string>(); // value -> placeholder

/** The shortest run of a secret's characters that is redacted on its own. */
export const FRAGMENT = 8;

/** Stands for a credential value the run never registered (curl.ts, and credential query parameters below). */
export const UNREGISTERED_SECRET = '$UNREGISTERED_SECRET';

/** A whole value that is only a placeholder of this module: `$NAME`. */
export function isPlaceholder(text: string): boolean {
  return /^\$[A-Z_][A-Z0-9_]*$/.test(text);
}

export function registerSecret(value: string | undefined, name: string): void {
  if (!value || value.length < 4) return;
  secrets.set(value, `$${name}`);
  // The same secret as it appears in a URL (a key in a query string) when encoding changes it.
  const encoded = encodeURIComponent(value);
  if (encoded !== value) secrets.set(encoded, `$${name}`);
  index = undefined;
}

/**
 * Every FRAGMENT-character window of every secret, by a 32-bit polynomial hash of its characters: one pass over a
 * text with a rolling hash finds each window that occurs in it, without building a substring per position.
 */
interface Index {
  /** The secrets longest first (a secret that contains another is replaced whole). */
  ordered: Array<[string, string]>;
  windows: Map<number, Array<{ text: string; placeholder: string }>>;
  /** A flag per value of the low 16 bits of the hashes in `windows`: most positions of a text are passed over after one read. */
  seen: Uint8Array;
}
let index: Index | undefined;

const BASE = 31;
/** BASE^(FRAGMENT-1) mod 2^32: the weight of the character that leaves the window. */
const OUTGOING = Array.from({ length: FRAGMENT - 1 }).reduce<number>((p) => Math.imul(p, BASE), 1);

function windowHash(text: string, start: number): number {
  let h = 0;
  for (let i = start; i < start + FRAGMENT; i++) h = (Math.imul(h, BASE) + text.charCodeAt(i)) | 0;
  return h;
}

function buildIndex(): Index {
  const ordered = [...secrets].sort((a, b) => b[0].length - a[0].length);
  const windows = new Map<number, Array<{ text: string; placeholder: string }>>();
  const seen = new Uint8Array(0x10000);
  for (const [value, placeholder] of ordered) {
    for (let i = 0; i + FRAGMENT <= value.length; i++) {
      const text = value.slice(i, i + FRAGMENT);
      const h = windowHash(text, 0);
      const bucket = windows.get(h) ?? [];
      if (!bucket.some((w) => w.text === text)) bucket.push({ text, placeholder });
      windows.set(h, bucket);
      seen[h & 0xffff] = 1;
    }
  }
  return { ordered, windows, seen };
}

/** Replace every stretch of `text` covered by windows of a secret (overlapping or touching windows make one stretch). */
function redactFragments(text: string, { windows, seen }: Index): string {
  if (windows.size === 0 || text.length < FRAGMENT) return text;
  const stretches: Array<{ start: number; end: number; placeholder: string }> = [];
  let h = windowHash(text, 0);
  for (let i = 0; ; i++) {
    const hit = seen[h & 0xffff] === 0 ? undefined : windows.get(h)?.find((w) => text.startsWith(w.text, i));
    if (hit) {
      const last = stretches.at(-1);
      if (last && i <= last.end) last.end = i + FRAGMENT;
      else stretches.push({ start: i, end: i + FRAGMENT, placeholder: hit.placeholder });
    }
    if (i + FRAGMENT >= text.length) break;
    h = (Math.imul((h - Math.imul(text.charCodeAt(i), OUTGOING)) | 0, BASE) + text.charCodeAt(i + FRAGMENT)) | 0;
  }
  if (stretches.length === 0) return text;
  let out = '';
  let copied = 0;
  for (const { start, end, placeholder } of stretches) {
    out += `${text.slice(copied, start)}[part of ${placeholder}]`;
    copied = end;
  }
  return out + text.slice(copied);
}

/**
 * Query parameters that carry a credential (the distributor path's `?auth=<JWT>`, and the names a careless target might
 * read a key from): their values are always replaced, registered or not, unless already a placeholder. A value is
 * what a URL carries of a token (base64url, base58, hex, JWT, percent-encoded): prose such as "?auth=<JWT>" or
 * "?auth=, without" is left alone.
 */
const CREDENTIAL_PARAM =
  /([?&](?:auth|jwt|token|access_token|key|api_?key|x-api-key|service_?key|x-service-key)=)([A-Za-z0-9._~+/=%!*$-]+)/gi;

/**
 * `text` with every registered secret replaced by `$NAME`, every credential query parameter by its placeholder, and
 * every remaining piece of FRAGMENT or more characters of a secret by `[part of $NAME]`. Linear in the text.
 */
export function redact(text: string): string {
  index ??= buildIndex();
  let out = text;
  for (const [value, placeholder] of index.ordered) {
    if (out.includes(value)) out = out.split(value).join(placeholder);
  }
  out = out.replace(CREDENTIAL_PARAM, (whole, name: string, value: string) =>
    /^\$[A-Z_]/.test(value) ? whole : `${name}${UNREGISTERED_SECRET}`,
  );
  return redactFragments(out, index);
}

/** Register every credential of a run under the environment variable that carries it. */
export function registerCredentials(credentials: Credentials): void {
  for (const [field, name] of Object.entries(CREDENTIAL_ENV) as [keyof typeof CREDENTIAL_ENV, string][])
    registerSecret(credentials[field], name);
}

/** Test hook: forget every registered secret. */
export function clearSecrets(): void {
  secrets.clear();
  index = undefined;
}
