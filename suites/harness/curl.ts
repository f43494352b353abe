import type { RecordedRequest } from './exchange.ts';
import { isPlaceholder, redact, UNREGISTERED_SECRET } from './redact.ts';

/** Single-quote a word for a POSIX shell. */
function sq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Quote a word that may hold a `$SECRET` placeholder: double quotes keep the variable expandable. */
function quote(s: string): string {
  return /\$[A-Z_]+/.test(s) ? `"${s.replace(/(["\\`])/g, '\\$1')}"` : sq(s);
}

/** Headers whose value is a credential: never printed as sent, whatever it is. */
const CREDENTIAL_HEADERS = new Set(['x-service-key', 'x-api-key', 'authorization', 'proxy-authorization', 'cookie']);

/**
 * The value of a credential header as a reproduction shows it (defense in depth: a secret the run never registered
 * must not leak either). A registered secret becomes its `$NAME`; an empty value stays empty (it carries nothing);
 * anything else, a real credential or a deliberately wrong one, becomes `$UNREGISTERED_SECRET`. An auth scheme
 * (`Bearer`) stays readable.
 */
function credentialValue(value: string): { text: string; unregistered: boolean } {
  const scheme = /^([A-Za-z][A-Za-z0-9_-]*)(\s+)([\s\S]*)$/.exec(value);
  const [prefix, token] =
    scheme && /^(bearer|basic|token|digest)$/i.test(scheme[1]!) ? [`${scheme[1]}${scheme[2]}`, scheme[3]!] : ['', value];
  if (token.trim() === '') return { text: value, unregistered: false };
  const shown = redact(token);
  if (isPlaceholder(shown)) return { text: `${prefix}${shown}`, unregistered: false };
  return { text: `${prefix}${UNREGISTERED_SECRET}`, unregistered: true };
}

/** A curl command that repeats `request` against the target, with every credential redacted. */
export function toCurl(request: RecordedRequest): string {
  const url = redact(request.url);
  let unregistered = url.includes(UNREGISTERED_SECRET);
  const parts = ['curl', '-sS', '-i', '-X', request.method, quote(url)];
  for (const [name, value] of Object.entries(request.headers)) {
    if (CREDENTIAL_HEADERS.has(name.toLowerCase())) {
      const shown = credentialValue(value);
      unregistered ||= shown.unregistered;
      parts.push('-H', quote(`${name}: ${shown.text}`));
    } else {
      parts.push('-H', quote(redact(`${name}: ${value}`)));
    }
  }
  if (request.body !== undefined) parts.push('--data-binary', quote(redact(request.body)));
  if (unregistered)
    parts.push(`# ${UNREGISTERED_SECRET}: a credential this run did not register (a real one, or a deliberately wrong one)`);
  return parts.join(' ');
}
