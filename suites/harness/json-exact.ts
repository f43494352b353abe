/**
 * JSON.parse without float rounding of big integers: u64 values ("amount", "outAmount", slots) may travel as JSON
 * numbers above 2^53 (Swap Quote Service, u64 fields). Integer literals that are not safe integers are turned into
 * digit strings before parsing, so they arrive exact; everything else parses as usual.
 */
export function parseJsonExact(text: string): unknown {
  let out = '';
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      i++;
      while (i < n && text.charCodeAt(i) !== 34) i += text.charCodeAt(i) === 92 /* \ */ ? 2 : 1;
      i++;
      continue;
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
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
