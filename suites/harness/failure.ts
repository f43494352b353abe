import type { Exchange } from './exchange.ts';
import type { RuleId } from '../../generators/vocabulary.ts';
import { toCurl } from './curl.ts';
import { redact } from './redact.ts';

export interface FailureDetail {
  /** What the documents say, in one sentence. */
  documented: string;
  /** What the target did instead. */
  received?: unknown;
  /** The exchange that shows it; the reproduction is built from it. */
  exchange?: Exchange;
}

export interface PropertyRun {
  seed: number;
  path?: string;
  counterexample?: unknown;
  numRuns?: number;
}

/** A rule of the catalogue was violated by the target. Stable class: `code` is always CONFORMANCE_FAILURE. */
export class ConformanceFailure extends Error {
  readonly code = 'CONFORMANCE_FAILURE';
  constructor(
    readonly rule: RuleId,
    readonly detail: FailureDetail,
    readonly property?: PropertyRun,
  ) {
    super(`${rule}: ${detail.documented}`);
    this.name = 'ConformanceFailure';
  }
}

/** The target lacks a capability the check needs: verdict `unsupported`. */
export class Unsupported extends Error {
  readonly code = 'UNSUPPORTED';
  constructor(readonly capability: string) {
    super(`the target does not offer the "${capability}" capability`);
    this.name = 'Unsupported';
  }
}

/** The check decided not to run, with a reason: verdict `skipped`. */
export class Skipped extends Error {
  readonly code = 'SKIPPED';
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'Skipped';
  }
}

/** A precondition broke (control call, provisioning), not the rule under test: verdict `setup-failed`. */
export class SetupFailed extends Error {
  readonly code = 'SETUP_FAILED';
  constructor(
    readonly reason: string,
    readonly exchange?: Exchange,
  ) {
    super(reason);
    this.name = 'SetupFailed';
  }
}

function show(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return `<${value.length} bytes>`;
  try {
    const text = JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v), 2);
    return text === undefined ? String(value) : text;
  } catch {
    return String(value);
  }
}

/**
 * `text` redacted, then cut to `max` characters: redaction comes first, so a cut never leaves a piece of a secret
 * too short to be recognised as one (redact.ts).
 */
function shorten(text: string, max = 2000): string {
  const shown = redact(text);
  return shown.length > max ? `${shown.slice(0, max)}… (${shown.length - max} more characters)` : shown;
}

/** The multi-line explanation of a failure: rule, documented, received, exchange, reproduction, seed. */
export function formatFailure(f: ConformanceFailure, checkName: string, ruleStatement?: string): string {
  const lines = [`FAIL ${f.rule} in check "${checkName}"`];
  if (ruleStatement) lines.push(`  rule:       ${ruleStatement}`);
  lines.push(`  documented: ${f.detail.documented}`);
  if (f.detail.received !== undefined) lines.push(`  received:   ${shorten(show(f.detail.received)).replace(/\n/g, '\n              ')}`);
  const ex = f.detail.exchange;
  if (ex) {
    lines.push(
      `  exchange:   ${ex.request.method} ${ex.request.url} -> ${ex.response.status}` +
        (ex.response.mediaType ? ` (${ex.response.mediaType})` : ''),
    );
    lines.push(`  reproduce:  ${toCurl(ex.request)}`);
  }
  if (f.property) {
    lines.push(`  seed:       ${f.property.seed}` + (f.property.path ? `  path: ${f.property.path}` : ''));
    if (f.property.counterexample !== undefined) lines.push(`  counterexample: ${shorten(show(f.property.counterexample), 600)}`);
    lines.push(`  replay:     npm run conformance -- --seed ${f.property.seed} --grep '${checkName}'`);
  }
  return redact(lines.join('\n'));
}
