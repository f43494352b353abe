/**
 * Secrets never leave the process: every string that reaches a report, a log line, a curl reproduction or an
 * attachment passes through `redact`. Known secrets are replaced by a shell variable name, so a reproduction
 * still runs once the variable is exported.
 *
 * Registration is per process (per vitest worker module graph): a secret minted in a worker is registered there, by
 * the control adapter that minted it, and the worker redacts what it sends to the main process.
 */
const secrets = new Map<string, string>(); // value -> placeholder
/** The secrets longest first (a secret that contains another is replaced whole); rebuilt after a registration. */
let ordered: Array<[string, string]> | undefined;

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
  ordered = undefined;
}

/**
 * Query parameters that carry a credential (the distributor path's `?auth=<JWT>`, and the names a careless target might
 * read a key from): their values are always replaced, registered or not, unless already a placeholder. A value is
 * what a URL carries of a token (base64url, base58, hex, JWT, percent-encoded): prose such as "?auth=<JWT>" or
 * "?auth=, without" is left alone.
 */
const CREDENTIAL_PARAM = /([?&](?:auth|jwt|token|access_token|key|api_?key|x-api-key|service_?key|x-service-key)=)([A-Za-z0-9._~+/=%!*$-]+)/gi;

export function redact(text: string): string {
  let out = text;
  ordered ??= [...secrets].sort((a, b) => b[0].length - a[0].length);
  for (const [value, placeholder] of ordered) {
    if (out.includes(value)) out = out.split(value).join(placeholder);
  }
  return out.replace(CREDENTIAL_PARAM, (whole, name: string, value: string) =>
    /^\$[A-Z_]/.test(value) ? whole : `${name}${UNREGISTERED_SECRET}`);
}

/** Test hook: forget every registered secret. */
export function clearSecrets(): void {
  secrets.clear();
  ordered = undefined;
}
