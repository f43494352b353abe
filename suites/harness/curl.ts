import type { RecordedRequest } from './exchange.ts';
import { redact } from './redact.ts';

/** Single-quote a word for a POSIX shell. */
function sq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Quote a word that may hold a `$SECRET` placeholder: double quotes keep the variable expandable. */
function quote(s: string): string {
  return /\$[A-Z_]+/.test(s) ? `"${s.replace(/(["\\`])/g, '\\$1')}"` : sq(s);
}

/** A curl command that repeats `request` against the target, with every known secret redacted. */
export function toCurl(request: RecordedRequest): string {
  const parts = ['curl', '-sS', '-i', '-X', request.method, quote(redact(request.url))];
  for (const [name, value] of Object.entries(request.headers)) {
    parts.push('-H', quote(redact(`${name}: ${value}`)));
  }
  if (request.body !== undefined) parts.push('--data-binary', quote(redact(request.body)));
  return parts.join(' ');
}
