/** Ctrl-C during a full run: the run is cancelled, what it created is cleaned up, and the exit code says so. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { startReferenceServer } from '../../fixtures/server/index.ts';
import type { CleanupReport } from '../../suites/orders/cleanup.ts';
import { fullRunOf, matrixOf, mintOn, reportDir, startCli } from './run-cli.ts';

test('Ctrl-C cancels a full run, cleans up the orders it created and exits 130', async () => {
  const server = await startReferenceServer({ port: 0 });
  try {
    const apiKey = (await mintOn(server.controlUrl, '/tenants')).apiKey!;
    const partnerOrders = async () =>
      (
        (await (await fetch(`${server.ordersUrl}/partners/me/orders`, { headers: { 'x-service-key': apiKey } })).json()) as {
          data: Array<{ id: string; orderType: string; status: string; withdrawalStatus: string }>;
        }
      ).data;
    const dir = reportDir('conformance-interrupt-');
    // Its own process group, as a terminal's Ctrl-C reaches the CLI and its vitest workers together.
    const child = startCli([...fullRunOf(server), '--report-dir', dir], { ORDERS_API_KEY: apiKey }, true);
    let stderr = '';
    child.stderr?.on('data', (d) => (stderr += d));
    child.stdout?.resume();
    const exited = new Promise<number>((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? -1 : -2))));
    // Interrupt once the run has created an order under the run's key.
    const deadline = Date.now() + 120_000;
    while ((await partnerOrders()).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    process.kill(-child.pid!, 'SIGINT');
    // Under `npm start` / `npm run conformance`, npm and tsx relay the same Ctrl-C to the CLI once more, a few ms later:
    // the same Ctrl-C, not a second one that quits at once without the cleanup.
    await new Promise((r) => setTimeout(r, 20));
    process.kill(child.pid!, 'SIGINT');
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
    expect(matrixOf(dir).summary.verdict).toBe('interrupted');
  } finally {
    await server.close();
  }
}, 180_000);
