/**
 * The deepest nesting of arrays and objects a body may have to decode. No document nests a tenth as deep; a value
 * that does would overflow the stack of whatever walks it (validators, normalisation, reports), so it is a body that
 * does not decode: a verdict on the operation's rule, not a crash.
 */
export const MAX_NESTING = 256;

/**
 * JSON.parse without float rounding of big integers: u64 values ("amount", "outAmount", slots) may travel as JSON
 * numbers above 2^53 (Swap Quote Service, u64 fields). Integer literals that are not safe integers are turned into
 * digit strings before parsing, so they arrive exact; everything else parses as usual. Nesting deeper than
 * MAX_NESTING levels is refused (a SyntaxError, like any text that does not decode).
 */
export function parseJsonExact(text: string): unknown {
  let out = '';
  let last = 0;
  let i = 0;
  let depth = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      i++;
      while (i < n && text.charCodeAt(i) !== 34) i += text.charCodeAt(i) === 92 /* \ */ ? 2 : 1;
      i++;
      continue;
    }
    if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > MAX_NESTING) throw new SyntaxError(`the JSON text nests deeper than ${MAX_NESTING} levels`);
    } else if (c === 93 /* ] */ || c === 125 /* } */) {
      depth--;
    } else if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      const start = i;
      i++;
      while (i < n && /[0-9.eE+-]/.test(text[i]!)) i++;
      const token = text.slice(start, i);
      if (/^-?\d{16,}$/.test(token) && !Number.isSafeInteger(Number(token))) {
        out += `${text.slice(last, start)}"${token}"`;
        last = i;
      }
      continue;
    }
    i++;
  }
  return JSON.parse(last === 0 ? text : out + text.slice(last));
}

/** Does a decoded value (MessagePack) nest arrays and objects deeper than `max` levels? Walks without recursion. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null || ArrayBuffer.isView(v)) continue;
    if (depth + 1 > max) return true;
    for (const child of v instanceof Map ? v.values() : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}
