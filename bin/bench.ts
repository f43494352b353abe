/**
 * `npm run bench`: figures, no thresholds. Each profile (smoke, readonly, full) is run as a user runs it (the CLI, its
 * default --max-concurrency) against two targets, side by side: the embedded reference server (0 ms), and the reference
 * server started here with 100-300 ms added to every request (`--latency-ms 100-300` of `npm run serve`), as a given
 * target with --max-rps 0 (so one hostile input per validation branch, suites/shared/hostile.ts). Per run: wall time,
 * requests, rules judged (pass or fail), requests per judged rule, checks that ran, the exit code, and the end-of-run
 * cleanup of a full run (from its progress lines, suites/orders/cleanup.ts: the first to `done in`). Then
 * the throughput of the generated validators.
 *
 * BENCH_TARGETS (embedded, latency) and BENCH_PROFILES (smoke, readonly, full), comma-separated, choose the runs
 * (default: all). Bounded: each run against the latency target stops at --max-duration (BENCH_MAX_DURATION seconds, default 300: the
 * goal for the full profile) and is killed if it has not ended BENCH_GRACE seconds later (default 300: the check under
 * way and the cleanup); a run cut short says so, with how many of its checks ran.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { ensureGenerated } from '../generators/ensure.ts';

await ensureGenerated();
const { startReferenceServer } = await import('../fixtures/server/index.ts');
const { validateResponse } = await import('../generators/index.ts');
type Matrix = import('../suites/harness/matrix.ts').Matrix;

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PROFILES = ['smoke', 'readonly', 'full'] as const;
const LATENCY: [number, number] = [100, 300];
const MAX_DURATION_S = Number(process.env.BENCH_MAX_DURATION ?? 300);
/** BENCH_TARGETS=embedded,latency and BENCH_PROFILES=smoke,readonly,full (the defaults) choose the runs. */
const TARGETS = (process.env.BENCH_TARGETS ?? 'embedded,latency').split(',');
const RUN_PROFILES = PROFILES.filter((p) => (process.env.BENCH_PROFILES ?? PROFILES.join(',')).split(',').includes(p));
const GRACE_S = Number(process.env.BENCH_GRACE ?? 300);

interface Row {
  target: string;
  profile: string;
  code: number | 'killed';
  wallMs: number;
  /** The end-of-run cleanup (full runs), from its first progress line to its last; undefined when they did not show. */
  cleanupMs?: number;
  requests: number;
  judged: number;
  ran: number;
  selected: number;
  bounded?: string;
}

/**
 * One CLI run; killed `killAfterMs` after it started, if given. Its output is a CI log (not a terminal): a line per area
 * as it completes (bin/reporters/progress.ts), and the cleanup's progress lines.
 */
function conformance(args: string[], killAfterMs?: number): Promise<{ code: number | 'killed'; wallMs: number; cleanupMs?: number }> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(CONFORMANCE_|ORDERS_API|QUOTES_|TEST_WALLET|VITEST)/.test(k)),
  );
  const started = performance.now();
  return new Promise((resolve) => {
    // As `npm start` and the package's command run it (bin/conformance.mjs), start time included.
    const child = spawn(process.execPath, ['bin/conformance.mjs', ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let cleanupStart: number | undefined;
    let cleanupEnd: number | undefined;
    let partial = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('conformance: cleanup: ')) continue;
        cleanupStart ??= performance.now();
        if (/^conformance: cleanup: done in /.test(line)) cleanupEnd = performance.now();
      }
    });
    let killed = false;
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => ((killed = true), child.kill('SIGKILL')), killAfterMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const cleanupMs = cleanupStart !== undefined && cleanupEnd !== undefined ? cleanupEnd - cleanupStart : undefined;
      resolve({ code: killed ? 'killed' : (code ?? -1), wallMs: performance.now() - started, cleanupMs });
    });
  });
}

async function measure(target: string, profile: string, args: string[], bound?: number): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'conformance-bench-'));
  try {
    const extra = bound === undefined ? [] : ['--max-duration', String(bound)];
    const run = await conformance(
      ['--profile', profile, '--seed', '1', '--report-dir', dir, ...args, ...extra],
      bound === undefined ? undefined : (bound + GRACE_S) * 1000,
    );
    const file = join(dir, 'matrix.json');
    const m = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Matrix) : undefined;
    const ran = m?.checks.filter((c) => c.durationMs > 0 || c.requests > 0) ?? [];
    const row: Row = {
      target,
      profile,
      ...run,
      requests: m?.checks.reduce((n, c) => n + c.requests, 0) ?? 0,
      judged: m?.rules.filter((r) => r.verdict === 'pass' || r.verdict === 'fail').length ?? 0,
      ran: ran.length,
      selected: m?.checks.filter((c) => !c.message?.startsWith('profile ')).length ?? 0,
    };
    if (run.code === 'killed') row.bounded = `killed ${GRACE_S} s after its --max-duration ${bound} s: no report`;
    else if (m?.summary.preconditions.some((p) => p.id === 'deadline'))
      row.bounded = `stopped at --max-duration ${bound} s: ${row.ran} of ${row.selected} checks ran`;
    return row;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
console.log('conformance runs, --max-concurrency default (8), default --num-runs, seed 1');
console.log('target               profile   exit    wall      requests  rules judged  requests/rule  checks run  cleanup');
const rows: Row[] = [];
/** Each row as soon as it is measured: a bench stopped half-way still shows what it measured. */
function print(r: Row): void {
  rows.push(r);
  console.log(
    `${r.target.padEnd(20)} ${r.profile.padEnd(9)} ${String(r.code).padEnd(7)} ${seconds(r.wallMs).padStart(8)}  ${String(r.requests).padStart(8)}  ` +
      `${String(r.judged).padStart(12)}  ${(r.judged ? r.requests / r.judged : 0).toFixed(1).padStart(13)}  ${String(r.ran).padStart(10)}  ${r.profile === 'full' && r.cleanupMs !== undefined ? seconds(r.cleanupMs).padStart(8) : ''}`,
  );
}
for (const profile of TARGETS.includes('embedded') ? RUN_PROFILES : []) print(await measure('embedded, 0 ms', profile, []));
for (const profile of TARGETS.includes('latency') ? RUN_PROFILES : []) {
  const server = await startReferenceServer({ port: 0, latencyMs: LATENCY });
  try {
    const urls = ['--orders-url', server.ordersUrl, '--quotes-url', server.quotesUrl, '--control-url', server.controlUrl];
    print(await measure(`given, ${LATENCY.join('-')} ms`, profile, [...urls, '--max-rps', '0'], MAX_DURATION_S));
  } finally {
    await server.close();
  }
}
for (const r of rows.filter((r) => r.bounded)) console.log(`bounded: ${r.target} ${r.profile}: ${r.bounded}`);

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
const v = validatorThroughput();
console.log(
  `generated validator (quotes getInfo 200): ${Math.round(v.perSecond).toLocaleString('en')} validations/s over ${v.n.toLocaleString('en')}`,
);
