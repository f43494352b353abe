/** Small, total helpers for looking into decoded bodies without trusting their shape. */

export type Json = Record<string, unknown>;

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

/** The value at a dotted path, or undefined. */
export function at(v: unknown, path: string): unknown {
  let cur: unknown = v;
  for (const key of path.split('.')) {
    if (!isObject(cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}

export function isNonNegativeInteger(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/** An integer and the digit string of the same integer: one u64 in its two allowed JSON forms. */
function sameInteger(a: unknown, b: unknown): boolean {
  const digits = (v: unknown) =>
    typeof v === 'number' && Number.isInteger(v) ? String(v) : typeof v === 'string' && /^-?\d+$/.test(v) ? v : undefined;
  const da = digits(a);
  return da !== undefined && da === digits(b) && typeof a !== typeof b;
}

/**
 * Structural equality for decoded JSON/MessagePack values (key order ignored). A u64 travels in JSON as a number
 * or as a digit string (UNKNOWNS, part B), so an integer equals the digit string of the same value.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b || sameInteger(a, b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

/** The first path at which two values differ, for failure messages. */
export function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (deepEqual(a, b)) return undefined;
  if (isObject(a) && isObject(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference(a[k], b[k], `${path}/${k}`);
      if (d) return d;
    }
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${path}/${i}`);
      if (d) return d;
    }
  }
  return `${path || '/'}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`;
}

/** A random token for unknown keys, unique ids and request ids. */
export function randomToken(prefix: string): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}${Date.now().toString(36)}`;
}
