/**
 * Plan rate limit and monthly credit allowance (Errors, platform codes; Limits; Authentication 7). Each check gets
 * fresh keys with a small plan from the control API, so it never touches the run's own key, and stays bounded: at
 * most rps*60 + 2 requests, all sent well within the 60-second window (the check skips if they were not).
 */
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { errorCode } from '../harness/answers.ts';
import { expectStatus, QUOTE_PATH } from './quote-support.ts';
import { expectDocumented429, expectRetryAfter, queryFor } from './rate-steps.ts';
import type { RuleId } from '../../generators/vocabulary.ts';

/**
 * rps of the test plans: 0.25 requests per second is exactly 15 requests per 60 seconds (0.25 * 60 is exact in
 * binary floating point, so no target can round the limit either way).
 */
const RPS = 0.25;
const WINDOW_REQUESTS = RPS * 60;
const WINDOW_MS = 60_000;

/** Requests that cost nothing but count: every key-path request counts against the plan (Authentication 7). */
const DISCOVERY = ['/api/v1/info', '/api/v1/venues', '/api/v1/providers'];

async function get(t: CheckContext, key: string, path: string): Promise<Exchange> {
  return t.quotes.request({ path, query: queryFor(path), headers: { 'x-api-key': key }, retry: false });
}

/** Q-RATE-007, Q-DBG-002: the 429 body and headers, checked on every 429 these checks meet. */
function expectPlatform429(t: CheckContext, ex: Exchange, code: 'rate_limited' | 'allowance_exhausted'): void {
  expectDocumented429(t, ex, 'Q-RATE-007', 'Q-DBG-002');
  const rule = code === 'rate_limited' ? 'Q-RATE-001' : 'Q-RATE-005';
  t.expect(rule, errorCode(ex) === code, { documented: `the 429 code is ${code}`, received: ex.response.body, exchange: ex });
  if (code === 'rate_limited') {
    const after = expectRetryAfter(t, 'Q-RATE-002', ex);
    t.note(`retry-after: ${after} s (waiting it out is not part of the bounded run)`);
  }
}

/**
 * Send `paths` in order on `keys` (round robin) and require every one to be admitted. Returns when the first one was
 * answered: the window starts there, since a request may first wait out a retry-after that held the run.
 */
async function admitted(t: CheckContext, keys: string[], paths: string[], rule: RuleId, what: string): Promise<number> {
  let first = Date.now();
  for (const [i, path] of paths.entries()) {
    const ex = await get(t, keys[i % keys.length]!, path);
    if (i === 0) first = Date.now();
    t.expect(rule, ex.response.status !== 429, {
      documented: `${what}: request ${i + 1} of ${paths.length} is admitted`,
      received: { status: ex.response.status, body: ex.response.body },
      exchange: ex,
    });
  }
  return first;
}

function withinWindow(t: CheckContext, started: number): void {
  if (Date.now() - started > WINDOW_MS * 0.8)
    t.skip('the requests took too long to stay within one 60-second window; the limit cannot be judged');
}

/** A fresh key of the test plan whose window `paths` fill, each admitted (Q-RATE-003): the key, and when the window started. */
async function filledWindow(t: CheckContext, paths: string[]): Promise<{ key: string; started: number }> {
  const key = await t.control.createQuoteKey({ rps: RPS });
  const started = await admitted(t, [key], paths, 'Q-RATE-003', `a plan of ${RPS} rps admits ${WINDOW_REQUESTS} requests in 60 s`);
  return { key, started };
}

/** The request past the plan (`path` on `key`), sent within the window that `started`: 429 under `rule`. */
async function expectLimited(
  t: CheckContext,
  key: string,
  path: string,
  started: number,
  rule: RuleId,
  documented: string,
): Promise<Exchange> {
  const over = await get(t, key, path);
  withinWindow(t, started);
  expectStatus(t, rule, over, 429, documented);
  return over;
}

/** Q-RATE-007 on a 429 of the rate limit: its code is rate_limited. */
function expectRateLimitedCode(t: CheckContext, over: Exchange): void {
  t.expect('Q-RATE-007', errorCode(over) === 'rate_limited', {
    documented: 'the 429 code is rate_limited',
    received: over.response.body,
    exchange: over,
  });
}

function discoveryRequests(n: number): string[] {
  return Array.from({ length: n }, (_, i) => DISCOVERY[i % DISCOVERY.length]!);
}

export const rateLimitAdmitsRpsTimes60ThenLimits = defineCheck({
  name: 'rate-limit-admits-rps-times-60-requests-then-answers-429-rate-limited',
  service: 'quotes',
  rules: ['Q-RATE-001', 'Q-RATE-002', 'Q-RATE-003', 'Q-RATE-007', 'Q-DBG-002'],
  profile: 'full',
  needs: ['quote-keys', 'rate-limits'],
  async run(t: CheckContext) {
    const { key, started } = await filledWindow(
      t,
      Array.from({ length: WINDOW_REQUESTS }, () => QUOTE_PATH),
    );
    const over = await expectLimited(
      t,
      key,
      QUOTE_PATH,
      started,
      'Q-RATE-001',
      `request ${WINDOW_REQUESTS + 1} within 60 s on a plan of ${RPS} rps (more than rps*60) gives 429`,
    );
    expectPlatform429(t, over, 'rate_limited');
  },
});

export const discoveryRequestsCountAgainstTheRateLimit = defineCheck({
  name: 'info-venues-and-providers-requests-count-against-the-rate-limit',
  service: 'quotes',
  rules: ['Q-RATE-004', 'Q-RATE-003', 'Q-RATE-007'],
  profile: 'full',
  needs: ['quote-keys', 'rate-limits'],
  async run(t: CheckContext) {
    const { key, started } = await filledWindow(t, discoveryRequests(WINDOW_REQUESTS));
    const over = await expectLimited(
      t,
      key,
      QUOTE_PATH,
      started,
      'Q-RATE-004',
      `after ${WINDOW_REQUESTS} info/venues/providers requests (rps*60) a quote request is rate limited: they count against the same plan`,
    );
    expectRateLimitedCode(t, over);
  },
});

export const spentAllowanceGives429AllowanceExhausted = defineCheck({
  name: 'spent-monthly-allowance-gives-429-allowance-exhausted-that-retrying-does-not-lift',
  service: 'quotes',
  rules: ['Q-RATE-005', 'Q-RATE-007', 'Q-DBG-002'],
  profile: 'full',
  needs: ['quote-keys', 'rate-limits'],
  async run(t: CheckContext) {
    // The control API's monthlyAllowance is a number of credits; every request counts one (Authentication 7).
    const allowance = 3;
    const key = await t.control.createQuoteKey({ monthlyAllowance: allowance });
    await admitted(
      t,
      [key],
      Array.from({ length: allowance }, () => QUOTE_PATH),
      'Q-RATE-005',
      `a monthly allowance of ${allowance} credits admits ${allowance} requests`,
    );
    for (const attempt of ['the first request past the allowance', 'a retry']) {
      const ex = await get(t, key, attempt === 'a retry' ? '/api/v1/info' : QUOTE_PATH);
      expectStatus(t, 'Q-RATE-005', ex, 429, `${attempt} gives 429 allowance_exhausted (retrying does not help)`);
      expectPlatform429(t, ex, 'allowance_exhausted');
    }
  },
});

export const keysOfOneOrganizationSharePlans = defineCheck({
  name: 'keys-of-one-organization-share-the-rate-limit-and-the-credits',
  service: 'quotes',
  rules: ['Q-RATE-006', 'Q-RATE-007'],
  profile: 'full',
  needs: ['quote-keys', 'rate-limits'],
  async run(t: CheckContext) {
    // Rate limit: rps*60 requests spread over two keys of one organization, then one more on either key.
    const first = await t.control.issueQuoteKey({ rps: RPS });
    if (!first.organizationId) t.skip('the control API does not name the organization of a key, so a second key of it cannot be made');
    const second = await t.control.issueQuoteKey({ organizationId: first.organizationId });
    const started = await admitted(
      t,
      [first.apiKey, second.apiKey],
      discoveryRequests(WINDOW_REQUESTS),
      'Q-RATE-006',
      `rps*60 = ${WINDOW_REQUESTS} requests over two keys of one organization`,
    );
    const over = await expectLimited(
      t,
      second.apiKey,
      '/api/v1/info',
      started,
      'Q-RATE-006',
      `the organization's rate limit is pooled: request ${WINDOW_REQUESTS + 1} within 60 s, on either key, gives 429`,
    );
    expectRateLimitedCode(t, over);

    // Credits: an allowance of 2 spent on one key is spent for the other.
    const paying = await t.control.issueQuoteKey({ monthlyAllowance: 2 });
    if (!paying.organizationId) t.skip('the control API does not name the organization of a key');
    const sibling = await t.control.issueQuoteKey({ organizationId: paying.organizationId });
    await admitted(t, [paying.apiKey], ['/api/v1/info', '/api/v1/info'], 'Q-RATE-006', 'an allowance of 2 credits admits 2 requests');
    const spent = await get(t, sibling.apiKey, '/api/v1/info');
    t.expect('Q-RATE-006', spent.response.status === 429 && errorCode(spent) === 'allowance_exhausted', {
      documented:
        'credits are pooled: once the organization spent its allowance on one key, another key of it gets 429 allowance_exhausted',
      received: { status: spent.response.status, body: spent.response.body },
      exchange: spent,
    });
  },
});
