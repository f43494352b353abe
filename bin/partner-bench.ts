#!/usr/bin/env node
/**
 * `npx tsx bin/partner-bench.ts [--time-scale N] [--seed N] [--budget-minutes N] [--report-dir DIR]`
 *
 * The partner-mode figure of issue 16: the full profile against the staging-like sandbox (`npm run serve --
 * --staging-like`: no control API, real time, a moving market, the credentials a partner is handed), run through the
 * CLI exactly as a partner would, beside the full profile with the control API (the embedded server). Prints the rules
 * judged (pass or fail) each way, the share of the control-API rules judged without it, the partner run's wall time
 * and the lamports the partner's wallets (TEST_WALLET_SECRET_KEY and _ALT, both in the sandbox's credentials) spent on
 * fees, and why the rest was not judged. Reports go under --report-dir
 * (default reports/partner-bench/{partner,control}). `--time-scale` (default 1, a real staging's pace) runs the
 * sandbox's clock faster; the suite does not know it (it reads the service's time from its answers).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

interface MatrixJson {
  summary: { judgedThrough?: { services: number; controlOnly: number; notJudgeable: number } };
  rules: Array<{ id: string; verdict: string; judgedThrough?: string; needs?: string[] }>;
  checks: Array<{ check: string; verdict: string; notes?: string[]; message?: string; judgedThrough?: string }>;
}

const { values } = parseArgs({
  options: {
    'time-scale': { type: 'string', default: '1' },
    seed: { type: 'string', default: '7' },
    'budget-minutes': { type: 'string' },
    'report-dir': { type: 'string', default: 'reports/partner-bench' },
  },
});
const TSX = join('node_modules', '.bin', 'tsx');

/** Runs the CLI with `args` and extra environment; its exit code and wall time. */
function conformance(args: string[], env: Record<string, string> = {}): Promise<{ code: number; ms: number }> {
  const started = Date.now();
  const child = spawn(TSX, ['bin/conformance.ts', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, ms: Date.now() - started })));
}

const judged = (m: MatrixJson) => new Set(m.rules.filter((r) => r.verdict === 'pass' || r.verdict === 'fail').map((r) => r.id));
const read = (dir: string) => JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')) as MatrixJson;

async function main(): Promise<void> {
  const seed = values.seed!;
  const partnerDir = join(values['report-dir']!, 'partner');
  const controlDir = join(values['report-dir']!, 'control');

  const sandbox = spawn(TSX, ['bin/serve.ts', '--staging-like', '--time-scale', values['time-scale']!, '--seed', seed], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: sandbox.stdout! }).once('line', resolve);
    sandbox.once('exit', (code) => reject(new Error(`the sandbox exited (${code}) before it listened`)));
  });
  const urls = JSON.parse(line) as { orders: string; quotes: string; gateway: string; credentials: Record<string, string> };
  let partner;
  try {
    partner = await conformance(
      [
        ...['--orders-url', urls.orders, '--quotes-url', urls.quotes, '--gateway-url', urls.gateway],
        ...['--profile', 'full', '--seed', seed, '--max-rps', '0', '--report-dir', partnerDir],
        ...(values['budget-minutes'] ? ['--budget-minutes', values['budget-minutes']] : []),
      ],
      urls.credentials,
    );
  } finally {
    sandbox.kill('SIGTERM');
  }
  const control = await conformance(['--profile', 'full', '--seed', seed, '--report-dir', controlDir]);

  const p = read(partnerDir);
  const c = read(controlDir);
  const withControl = judged(c);
  const without = judged(p);
  const both = [...withControl].filter((id) => without.has(id));
  const lamports = p.checks
    .flatMap((check) => check.notes ?? [])
    .map((note) => /^lamports: (\d+)/.exec(note)?.[1])
    .reduce((sum, n) => sum + (n ? BigInt(n) : 0n), 0n);
  const blackBox = p.checks.filter((check) => check.judgedThrough === 'black-box').length;
  const missing = new Map<string, number>();
  for (const check of p.checks.filter((x) => x.verdict === 'unsupported' || x.verdict === 'skipped')) {
    const reason = (check.message ?? '')
      .split('\n')[0]!
      .replace(/[0-9a-f-]{36}/g, '{id}')
      .slice(0, 110);
    missing.set(reason, (missing.get(reason) ?? 0) + 1);
  }
  const kinds = (m: MatrixJson) => {
    const j = m.summary.judgedThrough ?? { services: 0, controlOnly: 0, notJudgeable: 0 };
    return `${j.services} rules judged through the services alone, ${j.controlOnly} only through the control API, ${j.notJudgeable} not judgeable here`;
  };
  const needed = new Map<string, number>();
  for (const rule of p.rules.filter((r) => r.judgedThrough === 'not-judgeable'))
    for (const need of rule.needs ?? []) needed.set(need, (needed.get(need) ?? 0) + 1);
  const pct = withControl.size === 0 ? 0 : Math.round((1000 * both.length) / withControl.size) / 10;
  const out = [
    `partner mode: the full profile against the staging-like sandbox (no control API, time scale ${values['time-scale']}, seed ${seed})`,
    `  rules judged without the control API: ${both.length} of the ${withControl.size} judged with it (${pct} %)` +
      (without.size > both.length ? `; ${without.size - both.length} more judged only without it` : ''),
    `  wall time: ${(partner.ms / 1000).toFixed(1)} s (exit ${partner.code}); with the control API: ${(control.ms / 1000).toFixed(1)} s (exit ${control.code})`,
    `  lamports the partner's wallets spent on fees (--budget-lamports): ${lamports}; checks judged through the services alone: ${blackBox}`,
    `  by target kind, with the control API: ${kinds(c)}`,
    `  by target kind, partner run: ${kinds(p)}; they need: ${
      [...needed]
        .sort((a, b) => b[1] - a[1])
        .map(([need, n]) => `${need} (${n} rules)`)
        .join(', ') || 'nothing'
    }`,
    `  target of issue 16: >= 80 % within 15 minutes: ${pct >= 80 && partner.ms <= 15 * 60_000 ? 'met' : 'not met'}`,
    '  not judged without the control API (checks, first line of the reason):',
    ...[...missing]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([reason, n]) => `    ${String(n).padStart(4)} × ${reason}`),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
