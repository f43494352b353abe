import { randomUUID } from 'node:crypto';
import { CheckContext, defineCheck } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { createdOrders, type CreatedOrder } from '../harness/ledger.ts';
import { isObject } from '../shared/values.ts';
import type { TargetEnv } from '../harness/types.ts';
import { TERMINAL_STATUSES, signed } from './orders.ts';
import { errorCode, is2xx, walletOfSub } from './users.ts';
import { builtTransaction } from './withdrawals.checks.ts';

/**
 * The end of a `full` run (DESIGN.md, Profiles: "Every order it creates is cleaned up (cancel + withdraw) even when a
 * test fails"): every order the run created (harness/ledger.ts) that is still running is cancelled, and every
 * terminal one whose funds are still in the manager is withdrawn to the user's wallet, signed with the wallet the
 * run onboarded. Slice orders cannot be cancelled (CANCEL_NOT_SUPPORTED); they finish on their own. What could not be
 * cleaned up is reported, with the reason, never hidden.
 */

export interface CleanupReport {
  orders: number;
  cancelled: number;
  withdrawn: number;
  /** Orders left as they were, with the reason. */
  left: Array<{ orderId: string; orderType?: string; reason: string }>;
}

/** Answers that mean there is nothing (more) to do. */
const DONE = new Set(['NOT_CANCELLABLE', 'NOTHING_TO_WITHDRAW', 'ALREADY_WITHDRAWN']);

const CLEANUP = defineCheck({ name: 'cleanup-of-the-orders-the-run-created', service: 'orders', rules: ['OA-ENV-001'], profile: 'full', run: async () => {} });

const answer = (ex: Exchange) => `${ex.response.status} ${String(errorCode(ex) ?? '')}`.trim();

export async function cleanUpCreatedOrders(env: TargetEnv, orders: readonly CreatedOrder[] = createdOrders()): Promise<CleanupReport> {
  const t = new CheckContext(CLEANUP, env);
  const report: CleanupReport = { orders: orders.length, cancelled: 0, withdrawn: 0, left: [] };
  const as = (o: CreatedOrder, method: string, path: string, json?: unknown) => t.orders.request({
    method, path, json, validate: false,
    // Retries of these POSTs are safe: each carries its own idempotency key (Handling rules 3).
    headers: { 'X-Service-Key': o.apiKey, 'X-Service-User': o.sub, ...(method === 'POST' ? { 'X-Idempotency-Key': `conformance-cleanup-${randomUUID()}` } : {}) },
  });
  const listed = new Map<string, Map<string, Record<string, unknown>>>();
  const rowOf = async (o: CreatedOrder): Promise<Record<string, unknown> | undefined> => {
    const user = `${o.apiKey}\u0000${o.sub}`;
    if (!listed.has(user)) {
      const ex = await as(o, 'GET', '/me/orders');
      const data = (ex.response.body as { data?: unknown } | undefined)?.data;
      const rows = is2xx(ex) && Array.isArray(data) ? data : [];
      listed.set(user, new Map(rows.filter(isObject).map((row) => [String(row.id), row])));
    }
    return listed.get(user)!.get(o.orderId);
  };
  for (const o of orders) {
    const leave = (reason: string) => report.left.push({ orderId: o.orderId, orderType: o.orderType, reason });
    try {
      const row = await rowOf(o);
      if (!row) {
        leave('not listed by GET /me/orders any more');
        continue;
      }
      let status = String(row.status);
      if (!TERMINAL_STATUSES.includes(status)) {
        if (row.orderType === 'slice') {
          leave(`a ${status} slice order: slices cannot be cancelled and finish on their own`);
          continue;
        }
        const cancel = await as(o, 'POST', `/orders/${o.orderId}/cancel`, { withdraw: false });
        if (!is2xx(cancel) && !DONE.has(String(errorCode(cancel)))) {
          leave(`cancel answered ${answer(cancel)}`);
          continue;
        }
        if (is2xx(cancel)) report.cancelled++;
        status = 'cancelled';
      }
      if (row.withdrawalStatus === 'completed') continue;
      const wallet = walletOfSub(o.sub);
      if (!wallet) {
        leave(`${status}: its funds stay in the manager (no wallet of this run signs for ${o.sub})`);
        continue;
      }
      const build = await as(o, 'POST', `/orders/${o.orderId}/withdraw`, {});
      if (!is2xx(build)) {
        if (!DONE.has(String(errorCode(build)))) leave(`order-level withdrawal answered ${answer(build)}`);
        continue;
      }
      const { base64 } = builtTransaction(build, `POST /orders/${o.orderId}/withdraw`);
      const confirm = await as(o, 'POST', `/orders/${o.orderId}/withdraw/confirm`, { signedTransaction: signed(base64, wallet) });
      if (is2xx(confirm)) report.withdrawn++;
      else leave(`order-level withdrawal confirm answered ${answer(confirm)}`);
    } catch (e) {
      leave((e as Error).message.split('\n')[0] ?? String(e));
    }
  }
  return report;
}

/** One paragraph for the console. */
export function describeCleanup(report: CleanupReport): string {
  const lines = [`cleanup: ${report.orders} order(s) created by the run, ${report.cancelled} cancelled, ${report.withdrawn} withdrawn, ${report.left.length} left as they were`];
  const reasons = new Map<string, number>();
  for (const { reason } of report.left) reasons.set(reason.replace(/conformance-[\w-]+/g, '<sub>'), (reasons.get(reason) ?? 0) + 1);
  for (const [reason, n] of reasons) lines.push(`  ${n} × ${reason}`);
  return lines.join('\n');
}
