/**
 * `npm run bench`: figures, no thresholds. For the smoke and full profiles against the embedded reference server:
 * wall time, requests sent, requests per second, time waiting on the target versus time in the harness; and the
 * throughput of the generated validators.
 */
import { performance } from 'node:perf_hooks';
import { ensureGenerated } from '../generators/ensure.ts';

await ensureGenerated();
const { startReferenceServer } = await import('../fixtures/server/index.ts');
const { prepareTarget } = await import('../suites/harness/target.ts');
const { runCheck } = await import('../suites/harness/runner.ts');
const { allChecks } = await import('../suites/index.ts');
const { validateResponse } = await import('../generators/index.ts');
type Profile = import('../suites/harness/types.ts').Profile;

async function profileRun(profile: Profile, service?: 'orders' | 'quotes', numRuns = 25) {
  const server = await startReferenceServer({ port: 0 });
  try {
    const env = await prepareTarget({
      ordersUrl: server.ordersUrl,
      quotesUrl: server.quotesUrl,
      controlUrl: server.controlUrl,
      profile,
      seed: 1,
      strict: false,
      numRuns,
      timeoutMs: 10_000,
      maxRps: 0,
      expectedProviders: 2,
      credentials: {},
    });
    const started = performance.now();
    let requests = 0;
    let waitMs = 0;
    let ran = 0;
    for (const check of allChecks.filter((c) => !service || c.service === service)) {
      const r = await runCheck(check, env);
      if (r.verdict === 'skipped' && r.requests === 0) continue;
      ran++;
      requests += r.requests;
      waitMs += r.waitMs;
    }
    const wallMs = performance.now() - started;
    return {
      profile: `${profile}${service ? ` (${service} only)` : ''}, numRuns ${numRuns}`,
      checks: ran,
      wallMs,
      requests,
      rps: requests / (wallMs / 1000),
      waitMs,
      harnessMs: wallMs - waitMs,
    };
  } finally {
    await server.close();
  }
}

function validatorThroughput(): { perSecond: number; n: number } {
  const info = {
    protocolVersion: { major: 1, minor: 0, patch: 0 },
    settings: {
      quoteUpdate: { intervalMs: { min: 400, max: 3600000, default: 800 }, numQuotes: { min: 1, max: 10, default: 1 } },
      swap: { slippageBps: { min: 0, max: 10000, default: 100 }, onlyDirectRoutes: false, addSizeConstraint: true, sizeConstraint: 1168 },
      transaction: { closeInputTokenAccount: false, createOutputTokenAccount: true },
      connection: { concurrentStreams: 1 },
    },
  };
  const n = 200_000;
  const started = performance.now();
  for (let i = 0; i < n; i++) validateResponse('quotes', 'getInfo', 200, 'application/json', info);
  return { perSecond: n / ((performance.now() - started) / 1000), n };
}

// One untimed pass first: module loading and JIT warm-up would otherwise be charged to whichever profile runs first.
await profileRun('full');
// numRuns 25 is the CI default, 100 the default of `npm start` (model-based runs included in both).
const rows = [
  await profileRun('smoke'),
  await profileRun('full'),
  await profileRun('full', undefined, 100),
  await profileRun('full', 'quotes'),
];
console.log('profile                               checks  wall ms  requests  req/s    waiting on target ms  in harness ms');
for (const r of rows) {
  console.log(
    `${r.profile.padEnd(37)} ${String(r.checks).padStart(6)}  ${r.wallMs.toFixed(0).padStart(7)}  ${String(r.requests).padStart(8)}  ` +
      `${r.rps.toFixed(0).padStart(6)}  ${r.waitMs.toFixed(0).padStart(20)}  ${r.harnessMs.toFixed(0).padStart(13)}`,
  );
}
const fullDefault = rows[2]!;
console.log(
  `full profile at the npm start default (numRuns 100): ${(fullDefault.wallMs / 1000).toFixed(1)} s against the embedded server; ` +
    `budget 120 s: ${fullDefault.wallMs <= 120_000 ? 'within' : 'OVER'}`,
);
const v = validatorThroughput();
console.log(
  `generated validator (quotes getInfo 200): ${Math.round(v.perSecond).toLocaleString('en')} validations/s over ${v.n.toLocaleString('en')}`,
);
