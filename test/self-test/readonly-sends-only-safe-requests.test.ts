/**
 * Readonly means readonly (issue 12): the `smoke` and `readonly` profiles send only requests that change nothing on
 * any target, conforming or not. Every check of those profiles runs against the reference server, and every request
 * that leaves the process is recorded below the harness (undici's global dispatcher), whichever client sent it:
 * - to the order service: GET, HEAD or OPTIONS only. A POST the documents say is rejected (no key, a throwaway
 *   wallet's bad SIWS, a random order id) would create a record on a target whose auth or validation is broken;
 * - to the quote service (key path and distributor path): any method. Its document gives it no state a request can
 *   change (four read endpoints, "a POST gives 403"), so the method probes of Q-EDGE-001 stay in readonly;
 * - to the control API: reads only, except the credentials prepareTarget provisions before any check runs (POST
 *   /tenants, /quote-keys, /quote-jwts). A production target has no control API at all.
 * The control API snapshot before and after a readonly run (test/cli/cli-partner.test.ts) shows the same from the
 * target's side. The run-time guard (suites/harness/safe-methods.ts) is tried last: it refuses an unsafe request unsent.
 */
import { Agent, getGlobalDispatcher, request, setGlobalDispatcher, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReferenceServer, type RunningServer } from '../../fixtures/server/index.ts';
import { defineCheck } from '../../suites/harness/check.ts';
import { runCheck, type CheckResult } from '../../suites/harness/runner.ts';
import { prepareTarget } from '../../suites/harness/target.ts';
import { profileIncludes, type Credentials, type Profile } from '../../suites/harness/types.ts';
import { allChecks } from '../../suites/index.ts';
import { describeResults, SELF_TEST_SEED } from './run.ts';

interface Sent {
  check: string;
  method: string;
  path: string;
}

const PREPARE = '(prepareTarget)';

/** Records every request dispatched in this process, under the check that was running. */
class Recorder extends Agent {
  readonly sent: Sent[] = [];
  current = PREPARE;
  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    this.sent.push({ check: this.current, method: String(options.method).toUpperCase(), path: String(options.path) });
    return super.dispatch(options, handler);
  }
}

/** Where the reference server routes a path (fixtures/server/index.ts); the normalised path must agree with the raw one. */
function destination(raw: string): 'control' | 'quotes' | 'orders' {
  const paths = [raw, new URL(raw, 'http://reference.invalid').pathname];
  const under = (prefix: string) => paths.every((p) => p === prefix || p.startsWith(`${prefix}/`));
  return under('/__control') ? 'control' : under('/api') || under('/gateway') ? 'quotes' : 'orders';
}

const SAFE = ['GET', 'HEAD', 'OPTIONS'];
const PROVISIONING = /^\/__control\/(tenants|quote-keys|quote-jwts)\/?$/;

/** The requests that break the rule of the header, as lines naming the check. */
function unsafe(sent: readonly Sent[]): string[] {
  return sent
    .filter((s) => {
      if (SAFE.includes(s.method)) return false;
      const to = destination(s.path);
      if (to === 'quotes') return false;
      return !(to === 'control' && s.check === PREPARE && s.method === 'POST' && PROVISIONING.test(s.path));
    })
    .map((s) => `${s.check}: ${s.method} ${s.path}`);
}

let recorder: Recorder;
let previous: Dispatcher;
let server: RunningServer;
beforeAll(async () => {
  previous = getGlobalDispatcher();
  recorder = new Recorder();
  setGlobalDispatcher(recorder);
  server = await startReferenceServer({ port: 0 });
});
afterAll(async () => {
  await server?.close();
  setGlobalDispatcher(previous);
  await recorder?.close();
});

/** Run every check of `profile` in order, each request recorded under its check. */
async function runProfile(profile: Profile, { control }: { control: boolean }): Promise<{ results: CheckResult[]; sent: Sent[] }> {
  let credentials: Credentials = {};
  if (!control) {
    // A production target: no control URL, the credentials the partner was given (minted here, outside the record).
    const mint = async (path: string) =>
      (
        (await (
          await request(`${server.controlUrl}${path}`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })
        ).body.json()) as { apiKey: string }
      ).apiKey;
    credentials = { ordersApiKey: await mint('/tenants'), quotesApiKey: await mint('/quote-keys') };
  }
  const from = recorder.sent.length;
  recorder.current = PREPARE;
  const env = await prepareTarget({
    ordersUrl: server.ordersUrl,
    quotesUrl: server.quotesUrl,
    ...(control ? { controlUrl: server.controlUrl } : {}),
    profile,
    seed: SELF_TEST_SEED,
    strict: false,
    numRuns: 10,
    timeoutMs: 10_000,
    maxRps: 0,
    expectedProviders: 2,
    credentials,
  });
  const results: CheckResult[] = [];
  for (const check of allChecks.filter((c) => profileIncludes(profile, c.profile))) {
    recorder.current = check.name;
    results.push(await runCheck(check, env));
  }
  recorder.current = PREPARE;
  return { results, sent: recorder.sent.slice(from) };
}

/** Not vacuous: at least this many checks pass and requests leave (smoke is health, info, auth and one read per group). */
const REACH = { smoke: { passes: 20, sent: 30 }, readonly: { passes: 100, sent: 500 } } as const;

describe('the smoke and readonly profiles send only requests that change nothing', () => {
  for (const [profile, control] of [
    ['readonly', true],
    ['readonly', false],
    ['smoke', true],
    ['smoke', false],
  ] as const) {
    test(`${profile}, ${control ? 'with' : 'without'} a control API`, async () => {
      const { results, sent } = await runProfile(profile, { control });
      // Not vacuous: the checks ran and reached every part of the target.
      expect(results.filter((r) => r.verdict === 'pass').length).toBeGreaterThan(REACH[profile].passes);
      expect(sent.length).toBeGreaterThan(REACH[profile].sent);
      for (const to of ['orders', 'quotes'] as const) expect(sent.filter((s) => destination(s.path) === to).length).toBeGreaterThan(10);
      expect(unsafe(sent)).toEqual([]);
      // A check the run-time guard stopped would be setup-failed ("the request was not sent").
      expect(
        results.filter((r) => r.verdict === 'setup-failed'),
        describeResults(results),
      ).toEqual([]);
    }, 120_000);
  }
});

describe('the run-time guard (suites/harness/safe-methods.ts)', () => {
  const slipping = defineCheck({
    name: 'a-readonly-check-that-posts-to-the-order-service',
    service: 'orders',
    rules: ['OA-ENV-002'],
    profile: 'smoke',
    async run(t) {
      await t.orders.request({ method: 'POST', path: '/partner/onboard', json: {}, validate: false });
      await t.quotes.request({ method: 'POST', path: '/api/v1/info', json: {}, validate: false });
    },
  });
  const env = (profile: Profile) => ({
    ordersUrl: server.ordersUrl,
    quotesUrl: server.quotesUrl,
    capabilities: [],
    credentials: {},
    profile,
    seed: 1,
    numRuns: 1,
    strict: false,
    timeoutMs: 10_000,
    maxRps: 0,
    expectedProviders: 2,
  });
  const posts = (sent: readonly Sent[]) => sent.filter((s) => s.method === 'POST').map((s) => s.path);

  test('smoke and readonly: an unsafe order-service request is refused unsent, a suite error naming the check', async () => {
    for (const profile of ['smoke', 'readonly'] as const) {
      const from = recorder.sent.length;
      recorder.current = slipping.name;
      const result = await runCheck(slipping, env(profile));
      expect(result.verdict).toBe('setup-failed');
      expect(result.message).toContain(`check "${slipping.name}" tried POST /partner/onboard in the ${profile} profile`);
      expect(posts(recorder.sent.slice(from))).toEqual([]);
    }
  });

  test('full: the same requests are sent, to both services', async () => {
    const from = recorder.sent.length;
    recorder.current = slipping.name;
    const result = await runCheck(slipping, env('full'));
    expect(result.verdict, result.message).not.toBe('setup-failed');
    expect(posts(recorder.sent.slice(from))).toEqual(['/partner/onboard', '/api/v1/info']);
  });
});
