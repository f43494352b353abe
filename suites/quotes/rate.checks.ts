/**
 * Plan rate limit and monthly credit allowance (Errors, platform codes; Limits; Authentication 7). Each check gets
 * fresh keys with a small plan from the control API, of a new organization, so it never touches the run's own key and
 * what it counts is only its own traffic (limits and credits are pooled per organization): it runs beside other checks
 * (`ownQuoteKey`, suites/harness/schedule.ts). It stays bounded: at most rps*60 + 2 requests, all sent well within the
 * 60-second window (the check skips if they were not). A window's requests and the one past it are sent at once
 * (`pastTheWindow`): beside other checks they wait for the run's request budget (--max-rps, --max-concurrency) once, in
 * one stretch of its queue, not once each with the other checks' requests in between.
 */
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { errorCode } from '../harness/answers.ts';
import { mapAtMost } from '../harness/pacer.ts';
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

/** Send `paths` on `keys` (round robin) all at once and require every one to be admitted, judged in order. */
async function admitted(t: CheckContext, keys: string[], paths: string[], rule: RuleId, what: string): Promise<void> {
  const answers = await mapAtMost(paths, 0, (path, i) => get(t, keys[i % keys.length]!, path));
  for (const [i, ex] of answers.entries()) {
    t.expect(rule, ex.response.status !== 429, {
      documented: `${what}: request ${i + 1} of ${paths.length} is admitted`,
      received: { status: ex.response.status, body: ex.response.body },
      exchange: ex,
    });
  }
}

/** What a burst one past the plan's window is judged under: the plan admits rps*60 (`admits`), and limits the rest (`limits`). */
interface PastTheWindow {
  admits: RuleId;
  limits: RuleId;
  /** the fact `limits` states, for a burst that met no 429 */
  documented: string;
}

/**
 * `paths` on `keys` (round robin), one more than the plan's window admits, all sent at once: the run's budget (--max-rps,
 * --max-concurrency) lets them out one after another from its queue, so even beside other checks they reach the
 * target within seconds of each other, however long they waited for their turn (the check skips if they did not). The
 * target counts them as they arrive: it admits rps*60 of them and refuses one, whichever it counted last. Returns
 * that one's 429.
 */
async function pastTheWindow(t: CheckContext, keys: string[], paths: string[], rules: PastTheWindow): Promise<Exchange> {
  const answeredAt: number[] = [];
  const answers = await mapAtMost(paths, 0, async (path, i) => {
    const ex = await get(t, keys[i % keys.length]!, path);
    answeredAt.push(Date.now());
    return ex;
  });
  if (Math.max(...answeredAt) - Math.min(...answeredAt) > WINDOW_MS * 0.8)
    t.skip('the requests took too long to stay within one 60-second window; the limit cannot be judged');
  const refused = answers.filter((ex) => ex.response.status === 429);
  const received = answers.map((ex) => ex.response.status);
  t.expect(rules.admits, refused.length <= 1, {
    documented: `a plan of ${RPS} rps admits ${WINDOW_REQUESTS} requests in 60 s: at most one of these ${paths.length}, sent at once, is refused`,
    received,
    exchange: refused[1],
  });
  t.expect(rules.limits, refused.length === 1, {
    documented: `${rules.documented} (the ${paths.length} sent at once)`,
    received,
    exchange: answers.at(-1),
  });
  return refused[0]!;
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
  ownQuoteKey: true,
  async run(t: CheckContext) {
    const key = await t.control.createQuoteKey({ rps: RPS });
    const over = await pastTheWindow(
      t,
      [key],
      Array.from({ length: WINDOW_REQUESTS + 1 }, () => QUOTE_PATH),
      {
        admits: 'Q-RATE-003',
        limits: 'Q-RATE-001',
        documented: `${WINDOW_REQUESTS + 1} requests within 60 s on a plan of ${RPS} rps (more than rps*60) give one 429`,
      },
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
  ownQuoteKey: true,
  async run(t: CheckContext) {
    const key = await t.control.createQuoteKey({ rps: RPS });
    const over = await pastTheWindow(t, [key], [...discoveryRequests(WINDOW_REQUESTS), QUOTE_PATH], {
      admits: 'Q-RATE-003',
      limits: 'Q-RATE-004',
      documented: `${WINDOW_REQUESTS} info/venues/providers requests (rps*60) and a quote request within 60 s give one 429: they count against the same plan`,
    });
    expectRateLimitedCode(t, over);
  },
});

export const spentAllowanceGives429AllowanceExhausted = defineCheck({
  name: 'spent-monthly-allowance-gives-429-allowance-exhausted-that-retrying-does-not-lift',
  service: 'quotes',
  rules: ['Q-RATE-005', 'Q-RATE-007', 'Q-DBG-002'],
  profile: 'full',
  needs: ['quote-keys', 'rate-limits'],
  ownQuoteKey: true,
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
  ownQuoteKey: true,
  async run(t: CheckContext) {
    // Rate limit: rps*60 + 1 requests spread over two keys of one organization.
    const first = await t.control.issueQuoteKey({ rps: RPS });
    if (!first.organizationId) t.skip('the control API does not name the organization of a key, so a second key of it cannot be made');
    const second = await t.control.issueQuoteKey({ organizationId: first.organizationId });
    const over = await pastTheWindow(t, [first.apiKey, second.apiKey], discoveryRequests(WINDOW_REQUESTS + 1), {
      admits: 'Q-RATE-006',
      limits: 'Q-RATE-006',
      documented: `the organization's rate limit is pooled: ${WINDOW_REQUESTS + 1} requests within 60 s over two keys of it give one 429`,
    });
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
