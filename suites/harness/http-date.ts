/**
 * HTTP-date (RFC 9110 §5.6.7): the three forms a recipient must accept, all in GMT whatever this machine's zone.
 * `Date.parse` is not used: it reads the asctime form, which names no zone, as local time.
 *   IMF-fixdate  Sun, 06 Nov 1994 08:49:37 GMT
 *   RFC 850      Sunday, 06-Nov-94 08:49:37 GMT   (two-digit year)
 *   asctime      Sun Nov  6 08:49:37 1994
 */

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
const IMF = new RegExp(`^[a-z]{3}, (\\d{2}) ([a-z]{3}) (\\d{4}) ${TIME} GMT$`, 'i');
const RFC850 = new RegExp(`^[a-z]{6,9}, (\\d{2})-([a-z]{3})-(\\d{2}) ${TIME} GMT$`, 'i');
const ASCTIME = new RegExp(`^[a-z]{3} ([a-z]{3}) ([ \\d]\\d) ${TIME} (\\d{4})$`, 'i');

/**
 * The time an HTTP-date names, in ms since the epoch; undefined when `value` is none of the three forms or names no
 * real instant. A two-digit year that would be more than 50 years after `now` is the most recent past year with
 * those digits (RFC 9110 §5.6.7).
 */
export function httpDateMs(value: string | undefined, now = Date.now()): number | undefined {
  const text = value?.trim() ?? '';
  let m = IMF.exec(text);
  if (m) return utc(Number(m[3]), m[2]!, m[1]!, m[4]!, m[5]!, m[6]!);
  m = RFC850.exec(text);
  if (m) {
    const thisYear = new Date(now).getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + Number(m[3]);
    if (year > thisYear + 50) year -= 100;
    return utc(year, m[2]!, m[1]!, m[4]!, m[5]!, m[6]!);
  }
  m = ASCTIME.exec(text);
  if (m) return utc(Number(m[6]), m[1]!, m[2]!, m[3]!, m[4]!, m[5]!);
  return undefined;
}

function utc(year: number, month: string, day: string, hour: string, minute: string, second: string): number | undefined {
  const mon = MONTHS.indexOf(month.toLowerCase());
  const [d, h, mi, s] = [day, hour, minute, second].map((x) => Number(x.trim())) as [number, number, number, number];
  if (mon < 0 || d < 1 || h > 23 || mi > 59 || s > 60) return undefined;
  // A leap second (60) is the next second's instant; any other overflow (Feb 30) is no date.
  const ms = Date.UTC(year, mon, d, h, mi, Math.min(s, 59)) + (s === 60 ? 1000 : 0);
  const back = new Date(ms - (s === 60 ? 1000 : 0));
  return back.getUTCFullYear() === year && back.getUTCMonth() === mon && back.getUTCDate() === d ? ms : undefined;
}
