/**
 * HTTP-date parsing (suites/harness/http-date.ts): the three forms of RFC 9110 §5.6.7, all GMT. The results are
 * compared with Date.UTC, so a parse that read a form as local time fails on any runner whose zone is not UTC; the
 * asctime case is also checked against the local-time reading `Date.parse` gives, when this zone differs from GMT.
 */
import { describe, expect, test } from 'vitest';
import { retryAfterMs } from '../../suites/harness/client.ts';
import { httpDateMs } from '../../suites/harness/http-date.ts';

const SUNDAY = Date.UTC(1994, 10, 6, 8, 49, 37);
const NOW = Date.UTC(2026, 10, 26, 7, 0, 0);

describe('httpDateMs', () => {
  test('reads the three forms as the same GMT instant', () => {
    expect(httpDateMs('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toBe(SUNDAY);
    expect(httpDateMs('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toBe(SUNDAY);
    expect(httpDateMs('Sun Nov  6 08:49:37 1994', NOW)).toBe(SUNDAY);
    expect(httpDateMs('Thu Nov 26 07:16:47 2026')).toBe(Date.UTC(2026, 10, 26, 7, 16, 47));
    expect(httpDateMs('Thu Nov 26 07:16:47 2026')).toBe(httpDateMs('Thu, 26 Nov 2026 07:16:47 GMT'));
  });

  test('asctime names no zone and is still GMT, not this machine’s zone', () => {
    const local = Date.parse('Sun Nov  6 08:49:37 1994');
    const offsetMs = new Date(SUNDAY).getTimezoneOffset() * 60_000;
    expect(local - SUNDAY).toBe(offsetMs); // what Date.parse does, for the record
    expect(httpDateMs('Sun Nov  6 08:49:37 1994')).toBe(SUNDAY);
  });

  test('a two-digit year more than 50 years ahead is the most recent past year with those digits', () => {
    expect(httpDateMs('Thursday, 26-Nov-26 07:16:47 GMT', NOW)).toBe(Date.UTC(2026, 10, 26, 7, 16, 47));
    expect(httpDateMs('Wednesday, 01-Jan-76 00:00:00 GMT', NOW)).toBe(Date.UTC(2076, 0, 1)); // 50 years ahead: kept
    expect(httpDateMs('Sunday, 01-Jan-77 00:00:00 GMT', NOW)).toBe(Date.UTC(1977, 0, 1)); // 51 years ahead: past
  });

  test('month names and weekday names are case-insensitive; surrounding space is ignored', () => {
    expect(httpDateMs(' sun, 06 NOV 1994 08:49:37 GMT ', NOW)).toBe(SUNDAY);
  });

  test.each([
    undefined,
    '',
    '120',
    'soon',
    '2026-11-26T07:16:47Z', // ISO 8601 is no HTTP-date
    'Sun, 06 Nov 1994 08:49:37', // IMF-fixdate without GMT
    'Sun, 06 Nov 1994 08:49:37 PST',
    'Sun, 6 Nov 1994 08:49:37 GMT', // IMF-fixdate day is two digits
    'Sun, 06 Foo 1994 08:49:37 GMT',
    'Mon, 30 Feb 2026 00:00:00 GMT', // no such day
    'Sun, 06 Nov 1994 24:00:00 GMT',
    'Sun, 06 Nov 1994 08:60:00 GMT',
    'Sun, 00 Nov 1994 08:49:37 GMT',
    'Sun Nov 6 08:49:37 1994', // asctime pads a one-digit day with a space
  ])('%j is no HTTP-date', (value) => {
    expect(httpDateMs(value, NOW)).toBeUndefined();
  });
});

describe('retryAfterMs reads an HTTP-date as GMT', () => {
  test.each(['Thu, 26 Nov 2026 07:00:30 GMT', 'Thursday, 26-Nov-26 07:00:30 GMT', 'Thu Nov 26 07:00:30 2026'])(
    '%s is 30 s after now',
    (value) => {
      expect(retryAfterMs(value, NOW)).toBe(30_000);
    },
  );

  test('a past date asks for no wait', () => {
    expect(retryAfterMs('Thu Nov 26 06:00:00 2026', NOW)).toBe(0);
  });
});
