/** Ctrl-C during a full run: the run is cancelled, what it created is cleaned up, and the exit code says so. */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { startReferenceServer } from '../../fixtures/server/index.ts';
import type { CleanupReport } from '../../suites/orders/cleanup.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('Ctrl-C cancels a full run, cleans up the orders it created and exits 130', async () => {
  const server = await startReferenceServer({ port: 0 });
  try {
    const tenant = (await (
      await fetch(`${server.controlUrl}/tenants`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })
    ).json()) as { apiKey: string };
    const partnerOrders = async () =>
      (
        (await (await fetch(`${server.ordersUrl}/partners/me/orders`, { headers: { 'x-service-key': tenant.apiKey } })).json()) as {
          data: Array<{ id: string; orderType: string; status: string; withdrawalStatus: string }>;
        }
      ).data;
    const dir = mkdtempSync(join(tmpdir(), 'conformance-interrupt-'));
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(CONFORMANCE_|ORDERS_API|QUOTES_|TEST_WALLET|VITEST)/.test(k)),
    );
    // Its own process group, as a terminal's Ctrl-C reaches the CLI and its vitest workers together.
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'bin/conformance.ts',
        '--orders-url',
        server.ordersUrl,
        '--quotes-url',
        server.quotesUrl,
        '--control-url',
        server.controlUrl,
        '--profile',
        'full',
        '--max-rps',
        '0',
        '--report-dir',
        dir,
      ],
      {
        cwd: ROOT,
        env: { ...clean, ORDERS_API_KEY: tenant.apiKey },
        detached: true,
      },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.resume();
    const exited = new Promise<number>((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? -1 : -2))));
    // Interrupt once the run has created an order under the run's key.
    const deadline = Date.now() + 120_000;
    while ((await partnerOrders()).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    process.kill(-child.pid!, 'SIGINT');
    expect(await exited, stderr).toBe(130);
    expect(stderr).toMatch(/interrupted/);
    const cleanupFile = join(dir, 'cleanup.json');
    expect(existsSync(cleanupFile)).toBe(true);
    const report = JSON.parse(readFileSync(cleanupFile, 'utf8')) as CleanupReport;
    expect(report.orders).toBeGreaterThan(0);
    expect(report.left.filter((l) => l.orderType !== 'slice')).toEqual([]);
    for (const order of (await partnerOrders()).filter((o) => o.orderType !== 'slice')) {
      expect(order.status, order.id).toMatch(/^(cancelled|completed|failed|expired)$/);
    }
    expect(JSON.parse(readFileSync(join(dir, 'matrix.json'), 'utf8')).summary.verdict).toBe('interrupted');
  } finally {
    await server.close();
  }
}, 180_000);
