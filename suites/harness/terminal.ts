/**
 * Text from the target is shown, never obeyed. A target's error message or code can carry escape sequences (clear the
 * screen, print a green "Conformance PASS", set the window title, write the clipboard with OSC 52), a carriage
 * return that overwrites the line before it, or a bidi override that reorders what is read. Every such character is
 * shown escaped (`\x1b`, `\r`, `\u202e`) wherever the target's text meets output: a check's result (runner.ts), what a
 * worker logs (worker-setup.ts), the reports (matrix.ts) and the CLI's own lines (bin/conformance.ts). Tab and line
 * feed stay: reports are multi-line. XML 1.0 forbids most C0 characters, which are escaped before junit.xml too.
 */

/**
 * C0 controls but tab and line feed, DEL and C1 controls, the bidi and invisible formatting characters (ALM, zero
 * width, LRM/RLM, line and paragraph separators, embeddings and overrides, isolates, BOM, interlinear annotations),
 * the non-characters U+FFFE/U+FFFF, and lone surrogates.
 */
const CONTROL =
  /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const hex = (c: string, width: number) => c.charCodeAt(0).toString(16).padStart(width, '0');

/** `text` as a terminal or a report may show it: every control or formatting character written out (`\x1b`). */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (c) => (c === '\r' ? '\\r' : c.charCodeAt(0) <= 0xff ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`));
}

/**
 * A JSON text with the same characters as JSON escapes (`\u001b`, `\u202e`): the file holds none of them raw and
 * parses to the same value. JSON.stringify escapes C0 itself, not DEL, C1 or the formatting characters.
 */
export function escapeControlsInJson(json: string): string {
  return json.replace(CONTROL, (c) => `\\u${hex(c, 4)}`);
}

/** A JSON value from the target (its /api/v1/info) with `escapeControls` applied to every string and key in it. */
export function escapeControlsDeep(value: unknown): unknown {
  if (typeof value === 'string') return escapeControls(value);
  if (Array.isArray(value)) return value.map(escapeControlsDeep);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [escapeControls(k), escapeControlsDeep(v)]));
  }
  return value;
}
