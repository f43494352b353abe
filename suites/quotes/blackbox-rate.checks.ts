/**
 * Partner mode (issue 16): the plan rate limit seen from the run's own quote key, as a partner's staging without a
 * control API lets a client see it. Opt-in (--allow-rate-limit-probes): it spends the key's 60-second window and
 * credits, and once limited every later request of the run on that key waits out the retry-after. Bounded: at most
 * PROBE_REQUESTS requests within PROBE_MS, cheap discovery requests with a quote request every fourth (all count
 * against the plan, Authentication 7). The plan's rps is not shown, so the limit itself (rps*60) cannot be judged
 * here: what is judged is the 429 the burst meets, as the Errors section describes it, and that requests are served
 * again after its retry-after. Where the control API offers keys with a plan (`quote-keys`, `rate-limits`), the probe
 * runs on a key of its own with a small plan instead, always (it spends nothing of the partner's; reported "control"),
 * beside suites/quotes/rate.checks.ts, which judges the limits themselves there. On a key of its own it shares nothing
 * and runs beside other checks (`ownQuoteKey`, suites/harness/schedule.ts), its bounded burst sent at once so that it
 * meets the run's request budget once; on the run's key it runs alone, one request at a time until the first 429.
 */
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { Skipped } from '../harness/failure.ts';
import { errorCode } from '../harness/answers.ts';
import { mapAtMost } from '../harness/pacer.ts';
import { QUOTE_PATH } from './quote-support.ts';
import { expectDocumented429, expectRetryAfter, queryFor } from './rate-steps.ts';

/** At most this many requests: twice a plan of 10 rps's window (rps*60 = 600). */
const PROBE_REQUESTS = 1200;
/** Within this wall time: one 60-second window and a margin. */
const PROBE_MS = 65_000;
/** The plan of the probe's own key where the control API offers one: 15 requests a window, the 16th is limited. */
const OWN_PLAN_RPS = 0.25;
const PATHS = ['/api/v1/info', '/api/v1/venues', '/api/v1/providers', QUOTE_PATH];

/** The 429 the burst met, against the Errors section: platform body and code, retry-after, x-edge-requestid. */
function expectBurst429(t: CheckContext, ex: Exchange): void {
  expectDocumented429(t, ex, 'Q-RATE-007', 'Q-DBG-002');
  if (errorCode(ex) === 'rate_limited') expectRetryAfter(t, 'Q-RATE-002', ex);
}

export const rateLimitProbe = defineCheck({
  name: 'a-burst-on-the-runs-quote-key-meets-the-documented-429-and-is-served-again-after-retry-after',
  service: 'quotes',
  rules: ['Q-RATE-007', 'Q-RATE-002', 'Q-DBG-002'],
  // full: with the control API it mints a key of its own, a control write that readonly never sends.
  profile: 'full',
  ownQuoteKey: true,
  async run(t: CheckContext) {
    const runsKey = !(t.control.has('quote-keys') && t.control.has('rate-limits'));
    if (runsKey && !t.env.allowRateLimitProbes)
      t.skip("opt-in: it spends the quote key's rate-limit window and credits; --allow-rate-limit-probes runs it");
    // A key of its own is not the run's: its 429s come back as they are (retry: false), holding nobody.
    const own = runsKey ? {} : { headers: { 'x-api-key': await t.control.createQuoteKey({ rps: OWN_PLAN_RPS }) }, retry: false };
    const bound = runsKey ? PROBE_REQUESTS : OWN_PLAN_RPS * 60 + 1;
    const started = Date.now();
    let sent = 0;
    while (sent < bound && Date.now() - started < PROBE_MS) {
      const paths = Array.from({ length: runsKey ? 1 : bound }, (_, i) => PATHS[(sent + i) % PATHS.length]!);
      const from = t.exchanges.length;
      // The run's own key: the client waits out a rate_limited 429's retry-after and repeats the request (or skips when
      // it cannot), recording every answer; the 429s are read from the record.
      const sends = await mapAtMost(paths, 0, async (path) => {
        try {
          return { answer: await t.quotes.request({ path, query: queryFor(path), ...own }) };
        } catch (e) {
          if (!(e instanceof Skipped)) throw e;
          return { stopped: e };
        }
      });
      sent += paths.length;
      const limited = t.exchanges.slice(from).filter((ex) => ex.response.status === 429);
      const stopped = sends.find((s) => s.stopped)?.stopped;
      if (limited.length === 0) {
        if (stopped) throw stopped;
        continue;
      }
      const seconds = Math.round((Date.now() - started) / 1000);
      t.note(
        runsKey
          ? `the ${sent}th request of the burst met 429 ${String(errorCode(limited[0]!))} after ${seconds} s`
          : `a burst of ${sent} requests sent at once met ${limited.length} 429 ${String(errorCode(limited[0]!))} after ${seconds} s`,
      );
      for (const ex of limited) expectBurst429(t, ex);
      if (!runsKey) {
        t.note('on a key of its own the 429 is not waited out: that requests are served again after it is not judged');
        return;
      }
      const waited = limited.slice(1).find((ex) => errorCode(ex) === 'rate_limited');
      t.expect('Q-RATE-002', waited === undefined, {
        documented: 'after waiting the retry-after of a rate_limited 429, the request is served again',
        received: { retryAfter: limited[0]!.response.headers['retry-after'], status: waited?.response.status, body: waited?.response.body },
        exchange: waited,
      });
      const answer = sends[0]!.answer;
      if (answer && answer.response.status !== 429) t.note(`served again after waiting the retry-after: ${answer.response.status}`);
      else t.note(`not waited out here (${stopped?.reason ?? 'no repeat'}): that requests are served again after it is not judged`);
      return;
    }
    t.skip(
      `no 429 after ${sent} requests in ${Math.round((Date.now() - started) / 1000)} s: the plan admits more than this pace ` +
        `(--max-rps) sends in 60 s; nothing to judge`,
    );
  },
});
