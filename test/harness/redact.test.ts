/** Redaction of secrets and their pieces (suites/harness/redact.ts), and the terminal sanitiser (terminal.ts). */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, test } from 'vitest';
import { ConformanceFailure, formatFailure } from '../../suites/harness/failure.ts';
import { clearSecrets, FRAGMENT, redact, registerSecret } from '../../suites/harness/redact.ts';
import { escapeControls, escapeControlsDeep, escapeControlsInJson } from '../../suites/harness/terminal.ts';

const key = (prefix: string, bytes = 24) => `${prefix}${randomBytes(bytes).toString('base64url')}`;

/** Does `text` hold FRAGMENT consecutive characters of `secret`? */
function holdsPiece(text: string, secret: string): boolean {
  for (let i = 0; i + FRAGMENT <= secret.length; i++) if (text.includes(secret.slice(i, i + FRAGMENT))) return true;
  return false;
}

afterEach(() => clearSecrets());

describe('redact: a secret, whole or in pieces', () => {
  test('the whole secret becomes $NAME; a reflection cut anywhere leaves no 8 characters of it', () => {
    const secret = key('oa_test_');
    registerSecret(secret, 'ORDERS_API_KEY');
    expect(redact(`bad key ${secret}.`)).toBe('bad key $ORDERS_API_KEY.');
    expect(redact(`starts ${secret.slice(0, 26)}…`)).toBe('starts [part of $ORDERS_API_KEY]…');
    for (let cut = 0; cut <= secret.length; cut++) {
      const head = redact(`{"message":"${secret}"}`.slice(0, 13 + cut));
      const tail = redact(`${secret.slice(cut)} and more`);
      expect(holdsPiece(head, secret) || holdsPiece(tail, secret), `cut at ${cut}`).toBe(false);
    }
    // A piece of 7 characters is not recognised: the documented lower bound.
    expect(redact(`(${secret.slice(3, 3 + FRAGMENT - 1)})`)).toBe(`(${secret.slice(3, 3 + FRAGMENT - 1)})`);
    expect(redact(`(${secret.slice(3, 3 + FRAGMENT)})`)).toBe('([part of $ORDERS_API_KEY])');
  });

  test('a piece from the middle, pieces touching or overlapping, two secrets side by side, the URL-encoded form', () => {
    const a = key('', 30);
    const b = `${randomBytes(30).toString('base64')}+/=`;
    registerSecret(a, 'QUOTES_API_KEY');
    registerSecret(b, 'TEST_WALLET_SECRET_KEY');
    // Around the pieces, characters no key holds (an `x` before a.slice(10) would be part of it when a[9] is `x`).
    expect(redact(`(${a.slice(10, 30)})`)).toBe('([part of $QUOTES_API_KEY])');
    expect(redact(`(${a.slice(0, 12)}${a.slice(20, 32)})`)).toBe('([part of $QUOTES_API_KEY])'); // touching: one stretch
    expect(redact(`${a}${b}`)).toBe('$QUOTES_API_KEY$TEST_WALLET_SECRET_KEY');
    expect(redact(`k=${encodeURIComponent(b)}`)).toBe('k=$TEST_WALLET_SECRET_KEY');
    expect(redact(`k=${encodeURIComponent(b).slice(5)}`)).toBe('k=[part of $TEST_WALLET_SECRET_KEY]');
    expect(redact(`${a.slice(0, 9)} ${b.slice(-9)}`)).toBe('[part of $QUOTES_API_KEY] [part of $TEST_WALLET_SECRET_KEY]');
  });

  test('a secret shorter than 8 characters is redacted only whole; text with no piece of a secret is unchanged', () => {
    registerSecret('abc1234', 'SHORT');
    const long = key('');
    registerSecret(long, 'LONG');
    expect(redact('x abc1234 y abc123 z')).toBe('x $SHORT y abc123 z');
    const prose = 'FAIL OA-AUTH-001 in check "missing-service-key-is-rejected-with-401-invalid-api-key" {"code":"INVALID_API_KEY"}';
    expect(redact(prose)).toBe(prose);
    expect(redact('')).toBe('');
    expect(redact(long.slice(0, 3))).toBe(long.slice(0, 3));
  });

  test('a JWT altered in one character of its signature shows that character only', () => {
    const jwt = `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.${randomBytes(60).toString('base64url')}.${randomBytes(32).toString('base64url')}`;
    registerSecret(jwt, 'QUOTES_JWT');
    const [header, payload, signature] = jwt.split('.') as [string, string, string];
    const tampered = `${header}.${payload}.${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    const shown = redact(`Bearer ${tampered}`);
    expect(holdsPiece(shown, jwt)).toBe(false);
    expect(shown).toBe(`Bearer [part of $QUOTES_JWT]${tampered[header.length + payload.length + 2]}[part of $QUOTES_JWT]`);
  });

  test('linear: a 1 MB report with a few secrets is redacted in one pass (a generous ceiling bounds a quadratic slip)', () => {
    const secrets = [key('oa_test_'), key('qk_'), key('', 64)];
    secrets.forEach((s, i) => registerSecret(s, `SECRET_${i}`));
    const row = JSON.stringify({
      id: 'order-1',
      mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
      amount: '1000',
      note: 'a'.repeat(40),
    });
    const text = `${row.repeat(Math.ceil(1_000_000 / row.length))}${secrets[0]!.slice(2, 30)} ${secrets[2]}`;
    const started = performance.now();
    const shown = redact(text);
    const ms = performance.now() - started;
    expect(shown.endsWith('[part of $SECRET_0] $SECRET_2')).toBe(true);
    expect(shown.length).toBe(text.length - 28 - secrets[2]!.length + '[part of $SECRET_0]'.length + '$SECRET_2'.length);
    expect(ms, `${ms.toFixed(0)} ms for ${text.length} characters`).toBeLessThan(5000);
  });

  test('a failure report redacts before it cuts: a key across the 2000th character of what was received leaves no piece', () => {
    const secret = key('oa_test_');
    registerSecret(secret, 'ORDERS_API_KEY');
    for (const offset of [1, 13, 26]) {
      const received = `${'.'.repeat(2000 - offset)}${secret} after`;
      const text = formatFailure(new ConformanceFailure('OA-AUTH-001', { documented: 'x', received }), 'a-check');
      expect(holdsPiece(text, secret), `offset ${offset}`).toBe(false);
      // What is cut, if anything, is the placeholder that stands for the key.
      const shown = `${'.'.repeat(2000 - offset)}$ORDERS_API_KEY after`;
      expect(text).toContain(shown.length > 2000 ? `${shown.slice(0, 2000)}… (` : shown);
    }
  });
});

describe("escapeControls: the target's text is shown, never obeyed", () => {
  test('escape sequences, CR, BEL, C1 and bidi controls are written out; tab, newline and ordinary Unicode stay', () => {
    const hostile =
      '\x1b[2J\x1b[H\x1b[32mConformance PASS\x1b[0m\x1b]0;title\x07\x1b]52;c;Y3VybA==\x07\rover\u202eSSAP\u202c\u009b2J\u2066x\u2069\x00\x7f\ufeff';
    expect(escapeControls(hostile)).toBe(
      '\\x1b[2J\\x1b[H\\x1b[32mConformance PASS\\x1b[0m\\x1b]0;title\\x07\\x1b]52;c;Y3VybA==\\x07\\rover\\u202eSSAP\\u202c\\x9b2J\\u2066x\\u2069\\x00\\x7f\\ufeff',
    );
    const ordinary = 'line one\n\tindented — café 東京 🚀 ‘quoted’ €5';
    expect(escapeControls(ordinary)).toBe(ordinary);
    expect(escapeControls('lone \ud800 and \udc00')).toBe('lone \\ud800 and \\udc00');
    expect(escapeControls(escapeControls(hostile))).toBe(escapeControls(hostile)); // idempotent: safe to apply twice
  });

  test('in JSON: the same characters as JSON escapes, the value unchanged; in a value: every string and key', () => {
    const value = { code: 'X\u009b2J', message: 'a\u202eb\x1b', list: ['\u2028'], n: 1 };
    const json = escapeControlsInJson(JSON.stringify(value, null, 2));
    expect(json).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u202e]/);
    expect(JSON.parse(json)).toEqual(value);
    expect(escapeControlsDeep({ 'k\x1b': value, n: null })).toEqual({
      'k\\x1b': { code: 'X\\x9b2J', message: 'a\\u202eb\\x1b', list: ['\\u2028'], n: 1 },
      n: null,
    });
  });
});
