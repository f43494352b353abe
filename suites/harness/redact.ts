/**
 * Secrets never leave the process: every string that reaches a report, a log line, a curl reproduction or an
 * attachment passes through `redact`. Known secrets are replaced by a shell variable name, so a reproduction
 * still runs once the variable is exported.
 */
const secrets = new Map<string, string>(); // value -> placeholder

export function registerSecret(value: string | undefined, name: string): void {
  if (value && value.length >= 4) secrets.set(value, `$${name}`);
}

export function redact(text: string): string {
  let out = text;
  // Longest first, so a secret that contains another is replaced whole.
  for (const [value, placeholder] of [...secrets].sort((a, b) => b[0].length - a[0].length)) {
    out = out.split(value).join(placeholder);
  }
  return out;
}

/** Test hook: forget every registered secret. */
export function clearSecrets(): void {
  secrets.clear();
}
