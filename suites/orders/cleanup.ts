import { randomUUID } from 'node:crypto';
import { errorCode, is2xx } from '../harness/answers.ts';
import { CheckContext, defineCheck } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import {
  createdOrders,
  feesPaidBy,
  handedDeposit,
  knownUsers,
  managersOf,
  runFundings,
  type CreatedOrder,
  type KnownUser,
} from '../harness/ledger.ts';
import type { TargetEnv } from '../harness/types.ts';
import { isObject } from '../shared/values.ts';
import { DEFAULT_MAX_CONCURRENCY, mapAtMost } from '../harness/pacer.ts';
import { checkSlots } from '../harness/schedule.ts';
import { NATIVE_MINT, TERMINAL_STATUSES, signedWithdrawal } from './orders.ts';
import { SigningRefused } from './signing-gate.ts';
import { builtTransaction } from './steps/withdrawals.ts';
import { walletOfSub } from './users.ts';

/**
 * The end of a `full` run (DESIGN.md, Profiles: "Every order it creates is cleaned up (cancel + withdraw) even when a
 * test fails"), in four steps:
 * 1. the orders: every order the run created (harness/ledger.ts) and every order GET /me/orders lists for a user the
 *    run onboarded that is not terminal and withdrawn. A user that cannot have an order is not listed: on a target
 *    that simulates the chain (`funding`: every user of the run is new to it, under a fresh sub, with a generated
 *    wallet), one the run onboarded, whom no POST /orders/intent handed a deposit (an order is made by the confirm of
 *    that deposit) and with no order in the ledger. One still running is cancelled; a pending order-level
 *    withdrawal (one left pending by a check or a model sequence) is abandoned; then the funds of each terminal
 *    order are withdrawn to the user's wallet, signed with the wallet the run onboarded. Slice orders cannot be
 *    cancelled (CANCEL_NOT_SUPPORTED): they are left running, and said so.
 * 2. what no order owns any more: a wallet-level withdraw-max of every mint with availableToWithdraw > 0 of every
 *    manager the run used.
 * 3. the managers: after it, each holds nothing withdrawable; what orders left running lock stays, named (read
 *    again only when a withdraw-max was asked for). A manager nothing of the run can have reached is known empty
 *    without a read: on a target that simulates the chain, that of a user with no order at all (listed, or one that
 *    cannot have any), whom no POST /orders/intent handed a deposit, and whose manager (every address its onboarding
 *    or balance answers gave) no funding of the run reached. Should one hold something all the same, the audit of
 *    its funded wallet (4) finds it missing.
 * 4. the external wallets the run funded, where the target offers the read (control GET /wallets/{wallet}/balances,
 *    under `funding`): per mint what the wallet started with, what the run funded (into it and into its managers),
 *    the execution fees its deposits paid (feeLamports of the intents), and what it and its managers hold at the
 *    end. On a mint no order of its users swapped, the end is what it started with plus what was funded (less at
 *    most the fees, on the native asset); a swapped mint is reported, not judged (swaps and their fees move value
 *    between mints).
 * What could not be cleaned up is reported with the reason, never hidden; a balance that does not add up is a
 * discrepancy, printed loudly, that changes no conformance verdict.
 */

export interface LeftOrder {
  orderId: string;
  orderType?: string;
  status?: string;
  reason: string;
}

export interface ManagerAudit {
  walletAddress: string;
  /** availableToWithdraw by mint, after the withdraw-max (nothing, when clean). */
  withdrawable: Record<string, string>;
  /** lockedForFutureTxns by mint, and the orders whose lockedBreakdown entries hold it (orders left running). */
  locked: Record<string, string>;
  lockedBy: string[];
}

export interface WalletMintAudit {
  mint: string;
  start: string;
  funded: string;
  /** Execution fees (lamports) the wallet's deposits paid; on the native asset only. */
  fees: string;
  /** What the wallet holds at the end, and its managers (totalBalance, locked funds included). */
  end: string;
  inManagers: string;
  /** Some order of its users swapped from or into this mint: reported, not judged. */
  swapped: boolean;
  /** Why the end does not add up (absent when it does or is not judged). */
  discrepancy?: string;
}

export interface BalanceAudit {
  managers: ManagerAudit[];
  /** Managers known empty without a read (step 3: nothing of the run can have reached them); absent when none. */
  unread?: number;
  /** Users whose manager could not be read or cleaned, by reason. */
  unreadable: Record<string, number>;
  /**
   * Users of a tenant the run provisioned (not the run's own ORDERS_API_KEY or ORDERS_API_KEY_ALT) that answers 403
   * TENANT_SUSPENDED or TENANT_DELETED: the checks of those answers suspend and delete tenants of their own. Expected,
   * not a leftover: nothing of theirs can be reached, and they are counted here, not under `unreadable`.
   */
  retiredTenantUsers?: number;
  /** The funded external wallets, or why they could not be observed. */
  wallets: Array<{ wallet: string; mints: WalletMintAudit[] }> | string;
  discrepancies: string[];
}

export interface CleanupReport {
  /** Orders cleaned up: created by the run (its 2xx confirms), and found by listing GET /me/orders of its users. */
  orders: number;
  found: number;
  cancelled: number;
  /** Pending order-level withdrawals abandoned before the withdrawal was built again. */
  abandoned: number;
  withdrawn: number;
  /** Wallet-level withdraw-max transactions confirmed (what no order owned any more). */
  walletWithdrawals: number;
  /** Orders left as they were, with the reason. */
  left: LeftOrder[];
  balances: BalanceAudit;
}

/** Answers that mean there is nothing (more) to do. */
const DONE = new Set(['NOT_CANCELLABLE', 'NOTHING_TO_WITHDRAW', 'ALREADY_WITHDRAWN']);
const SLICE_LEFT = 'left running (slice orders cannot be cancelled)';

const CLEANUP = defineCheck({
  name: 'cleanup-of-the-orders-the-run-created',
  service: 'orders',
  rules: ['OA-ENV-001'],
  profile: 'full',
  run: async () => {},
});

/** A transaction signed through the gate, or why the gate refused it (printed decoded in the report, never signed). */
function gated(sign: () => string): string | { refused: string } {
  try {
    return sign();
  } catch (e) {
    if (!(e instanceof SigningRefused)) throw e;
    return { refused: `refused to sign what the target built: ${e.problems.join('; ')} [${e.decoded.join(' | ')}]` };
  }
}

const answer = (ex: Exchange) => `${ex.response.status} ${String(errorCode(ex) ?? '')}`.trim();
const userKey = (u: KnownUser) => `${u.apiKey}\u0000${u.sub}`;
const dataOf = (ex: Exchange) => (ex.response.body as { data?: unknown } | undefined)?.data;
const amount = (value: unknown) => (typeof value === 'string' && /^[0-9]+$/.test(value) ? BigInt(value) : 0n);
const add = (map: Map<string, bigint>, key: string, value: bigint) => map.set(key, (map.get(key) ?? 0n) + value);
const record = (map: Map<string, bigint>) => Object.fromEntries([...map].map(([k, v]) => [k, v.toString()]));

/** A line on the terminal while the cleanup runs, as the progress reporter's lines (bin/reporters/progress.ts). */
export type CleanupProgress = (line: string) => void;

/** Written straight to the CLI's output: the worker's console would reach it only once the orders file ends. */
const toTerminal: CleanupProgress = (line) => void process.stdout.write(`conformance: cleanup: ${line}\n`);

/** How often a line says how far the cleanup got, while it cancels and withdraws (a slow target takes minutes). */
const PROGRESS_EVERY_MS = 20_000;

/** A refusal that says the tenant itself is gone: the run's own test tenants end so (auth checks). */
const RETIRED_TENANT = / answered 403 (TENANT_SUSPENDED|TENANT_DELETED)$/;

export async function cleanUpCreatedOrders(
  env: TargetEnv,
  orders: readonly CreatedOrder[] = createdOrders(),
  users: readonly KnownUser[] = knownUsers(),
  progress: CleanupProgress = toTerminal,
): Promise<CleanupReport> {
  const started = Date.now();
  const seconds = () => `${Math.round((Date.now() - started) / 1000)} s`;
  const t = new CheckContext(CLEANUP, env);
  const audit: BalanceAudit = { managers: [], unreadable: {}, wallets: [], discrepancies: [] };
  const report: CleanupReport = {
    orders: 0,
    found: 0,
    cancelled: 0,
    abandoned: 0,
    withdrawn: 0,
    walletWithdrawals: 0,
    left: [],
    balances: audit,
  };
  const as = (u: KnownUser, method: string, path: string, json?: unknown) =>
    t.orders.request({
      method,
      path,
      json,
      validate: false,
      // Retries of these POSTs are safe: each carries its own idempotency key (Handling rules 3).
      headers: {
        'X-Service-Key': u.apiKey,
        'X-Service-User': u.sub,
        ...(method === 'POST' ? { 'X-Idempotency-Key': `conformance-cleanup-${randomUUID()}` } : {}),
      },
    });
  const unreadable = (reason: string) => (audit.unreadable[reason] = (audit.unreadable[reason] ?? 0) + 1);

  // Users whose steps must stay in order share a chain: those of one signing wallet (its orders, then each manager's
  // withdraw-max), the others one chain each. Chains run at once, at most --max-concurrency (1: one after another);
  // what they find is reported in the run's order, as one after another would.
  const width = checkSlots(env.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY);

  // 1. Every user of the run and what it lists; the orders to clean up.
  const everyUser = [...new Map([...users, ...orders].map((u) => [userKey(u), { apiKey: u.apiKey, sub: u.sub }])).values()];
  const recorded = new Set(orders.map(userKey));
  const orderless = everyUser.map(
    (u) => t.control.has('funding') && managersOf(u).length > 0 && !handedDeposit(u) && !recorded.has(userKey(u)),
  );
  const unlisted = orderless.filter(Boolean).length;
  progress(
    `listing the orders of ${everyUser.length} user(s) the run onboarded or acted for` +
      (unlisted ? ` (${unlisted} of them cannot have any: no intent handed them a deposit)` : ''),
  );
  const listed = new Map<string, Map<string, Record<string, unknown>>>();
  const lists = await mapAtMost(everyUser, width, async (u, i) => {
    if (orderless[i]) return new Map<string, Record<string, unknown>>();
    const ex = await as(u, 'GET', '/me/orders');
    const rows = dataOf(ex);
    return is2xx(ex) && Array.isArray(rows) ? new Map(rows.filter(isObject).map((row) => [String(row.id), row])) : undefined;
  });
  everyUser.forEach((u, i) => lists[i] && listed.set(userKey(u), lists[i]));
  const known = new Set(orders.map((o) => o.orderId));
  const found = everyUser.flatMap((u) =>
    [...(listed.get(userKey(u))?.values() ?? [])]
      .filter(
        (row) => !known.has(String(row.id)) && !(TERMINAL_STATUSES.includes(String(row.status)) && row.withdrawalStatus === 'completed'),
      )
      .map(
        (row): CreatedOrder => ({
          orderId: String(row.id),
          orderType: typeof row.orderType === 'string' ? row.orderType : undefined,
          apiKey: u.apiKey,
          sub: u.sub,
        }),
      ),
  );
  report.orders = orders.length + found.length;
  report.found = found.length;

  const all = [...orders, ...found];
  const chainOf = (u: KnownUser) => walletOfSub(u.sub)?.publicKey.toBase58() ?? userKey(u);
  const chains = new Map<string, { orders: number[]; users: number[] }>();
  const chain = (key: string) => chains.get(key) ?? chains.set(key, { orders: [], users: [] }).get(key)!;
  all.forEach((o, i) => chain(chainOf(o)).orders.push(i));
  const outcomes = new Array<OrderOutcome>(all.length);
  const managerOutcomes = new Array<ManagerOutcome>(everyUser.length);
  // Step 3: the managers nothing of the run can have reached are known empty; the others are read (and emptied).
  const withOrders = new Set(all.map(userKey));
  const fundedAddresses = new Set(runFundings().map((f) => f.wallet));
  const unreached = (u: KnownUser, i: number) => {
    const addresses = managersOf(u);
    return (
      t.control.has('funding') &&
      lists[i]?.size === 0 &&
      !withOrders.has(userKey(u)) &&
      !handedDeposit(u) &&
      addresses.length > 0 &&
      !addresses.some((a) => fundedAddresses.has(a))
    );
  };
  everyUser.forEach((u, i) => {
    if (!unreached(u, i)) return chain(chainOf(u)).users.push(i);
    managerOutcomes[i] = { walletAddress: managersOf(u)[0]!, totals: new Map(), walletWithdrawals: 0 };
    audit.unread = (audit.unread ?? 0) + 1;
  });
  const done = { orders: 0, managers: audit.unread ?? 0 };
  const counts = () => `${done.orders} of ${all.length} order(s) and ${done.managers} of ${everyUser.length} manager(s) done, ${seconds()}`;
  progress(
    `${all.length} order(s) to cancel and withdraw (${found.length} found by listing), then ${everyUser.length} manager(s) to empty` +
      (audit.unread ? ` (${audit.unread} known empty: nothing of the run reached them)` : ''),
  );
  const ticker = setInterval(() => progress(counts()), PROGRESS_EVERY_MS);
  ticker.unref();
  try {
    await mapAtMost([...chains.values()], width, async (c) => {
      for (const i of c.orders) {
        outcomes[i] = await cleanOrder(all[i]!, listed.get(userKey(all[i]!))?.get(all[i]!.orderId), as);
        done.orders++;
      }
      // 2 and 3. Withdraw-max of every manager, then what each still holds.
      for (const i of c.users) {
        try {
          managerOutcomes[i] = await withdrawMax(everyUser[i]!, as);
        } catch (e) {
          managerOutcomes[i] = (e as Error).message.split('\n')[0] ?? String(e);
        }
        done.managers++;
      }
    });
  } finally {
    clearInterval(ticker);
  }
  progress(counts());
  all.forEach((o, i) => {
    const { left, cancelled, abandoned, withdrawn } = outcomes[i]!;
    if (left)
      report.left.push({
        orderId: o.orderId,
        orderType: o.orderType,
        ...(left.status ? { status: left.status } : {}),
        reason: left.reason,
      });
    if (cancelled) report.cancelled++;
    if (abandoned) report.abandoned++;
    if (withdrawn) report.withdrawn++;
  });
  const managers = new Map<string, { walletAddress: string; totals: Map<string, bigint> }>();
  const ownKeys = [env.credentials.ordersApiKey, env.credentials.ordersApiKeyAlt].filter(Boolean);
  everyUser.forEach((u, i) => {
    const m = managerOutcomes[i]!;
    if (typeof m === 'string' && RETIRED_TENANT.test(m) && !ownKeys.includes(u.apiKey)) {
      audit.retiredTenantUsers = (audit.retiredTenantUsers ?? 0) + 1;
      return;
    }
    if (typeof m === 'string') return unreadable(m);
    report.walletWithdrawals += m.walletWithdrawals;
    if (m.audit) audit.managers.push(m.audit);
    if (m.discrepancy) audit.discrepancies.push(m.discrepancy);
    managers.set(userKey(u), { walletAddress: m.walletAddress, totals: m.totals });
  });

  // 4. The external wallets the run funded.
  if (t.control.has('funding')) progress("comparing the funded wallets' balances with what they started with");
  audit.wallets = await auditWallets(t, everyUser, managers, listed, audit, width);
  progress(`done in ${seconds()}`);
  return report;
}

interface OrderOutcome {
  left?: { reason: string; status?: string };
  cancelled?: boolean;
  abandoned?: boolean;
  withdrawn?: boolean;
}

/** Step 1 for one order (`row`: as its user lists it): cancel it if it runs, abandon a pending withdrawal, withdraw. */
async function cleanOrder(o: CreatedOrder, row: Record<string, unknown> | undefined, as: UserRequest): Promise<OrderOutcome> {
  const out: OrderOutcome = {};
  const leave = (reason: string, status?: string): OrderOutcome => ({ ...out, left: { reason, status } });
  try {
    if (!row) return leave('not listed by GET /me/orders any more');
    let status = String(row.status);
    if (!TERMINAL_STATUSES.includes(status)) {
      if (row.orderType === 'slice') return leave(SLICE_LEFT, status);
      const cancel = await as(o, 'POST', `/orders/${o.orderId}/cancel`, { withdraw: false });
      if (!is2xx(cancel) && !DONE.has(String(errorCode(cancel)))) return leave(`cancel answered ${answer(cancel)}`, status);
      if (is2xx(cancel)) out.cancelled = true;
      status = 'cancelled';
    }
    if (row.withdrawalStatus === 'completed') return out;
    const wallet = walletOfSub(o.sub);
    if (!wallet) return leave(`${status}: its funds stay in the manager (no wallet of this run signs for ${o.sub})`);
    if (row.withdrawalStatus === 'pending') {
      const abandon = await as(o, 'POST', `/orders/${o.orderId}/withdraw/abandon`, {});
      if (!is2xx(abandon)) return leave(`abandon of its pending withdrawal answered ${answer(abandon)}`, status);
      out.abandoned = true;
    }
    const build = await as(o, 'POST', `/orders/${o.orderId}/withdraw`, {});
    if (!is2xx(build)) return DONE.has(String(errorCode(build))) ? out : leave(`order-level withdrawal answered ${answer(build)}`, status);
    const built = builtTransaction(build, `POST /orders/${o.orderId}/withdraw`);
    const signedTransaction = gated(() =>
      signedWithdrawal(built, { keypair: wallet, userPubkey: wallet.publicKey.toBase58(), walletAddress: String(row.walletAddress) }),
    );
    if (typeof signedTransaction !== 'string') return leave(signedTransaction.refused, status);
    const confirm = await as(o, 'POST', `/orders/${o.orderId}/withdraw/confirm`, { signedTransaction });
    if (!is2xx(confirm)) return leave(`order-level withdrawal confirm answered ${answer(confirm)}`, status);
    out.withdrawn = true;
    return out;
  } catch (e) {
    return leave((e as Error).message.split('\n')[0] ?? String(e));
  }
}

type UserRequest = (u: KnownUser, method: string, path: string, json?: unknown) => Promise<Exchange>;

/**
 * Step 2 and 3 for one user: its manager's totals after the withdraw-max, the withdraw-max transactions confirmed and
 * what the manager still holds (its audit, and a discrepancy when something stays withdrawable); or why it could not be
 * read.
 */
type ManagerOutcome =
  | {
      walletAddress: string;
      totals: Map<string, bigint>;
      walletWithdrawals: number;
      audit?: ManagerAudit;
      discrepancy?: string;
    }
  | string;

async function withdrawMax(u: KnownUser, as: UserRequest): Promise<ManagerOutcome> {
  const read = async () => {
    const ex = await as(u, 'GET', '/me/balance');
    const data = dataOf(ex);
    if (!is2xx(ex) || !isObject(data) || !Array.isArray(data.balances)) return `GET /me/balance answered ${answer(ex)}`;
    return { walletAddress: String(data.walletAddress), rows: data.balances.filter(isObject) };
  };
  const before = await read();
  if (typeof before === 'string') return before;
  const wallet = walletOfSub(u.sub);
  const failures: string[] = [];
  let walletWithdrawals = 0;
  let sent = false;
  for (const row of before.rows.filter((r) => amount(r.availableToWithdraw) > 0n)) {
    if (!wallet) {
      failures.push(`${String(row.mint)}: no wallet of this run signs for ${u.sub}`);
      continue;
    }
    sent = true;
    const build = await as(u, 'POST', '/withdraw/transaction', { userPubkey: wallet.publicKey.toBase58(), tokenMint: row.mint });
    if (!is2xx(build)) {
      failures.push(`${String(row.mint)}: POST /withdraw/transaction answered ${answer(build)}`);
      continue;
    }
    const built = builtTransaction(build, `POST /withdraw/transaction (${String(row.mint)})`);
    const signedTransaction = gated(() =>
      signedWithdrawal(built, { keypair: wallet, userPubkey: wallet.publicKey.toBase58(), walletAddress: before.walletAddress }),
    );
    if (typeof signedTransaction !== 'string') {
      failures.push(`${String(row.mint)}: ${signedTransaction.refused}`);
      continue;
    }
    const confirm = await as(u, 'POST', '/withdraw/confirm', { signedTransaction });
    if (is2xx(confirm)) walletWithdrawals++;
    else failures.push(`${String(row.mint)}: POST /withdraw/confirm answered ${answer(confirm)}`);
  }
  // Read again only when a withdraw-max was asked for: otherwise nothing of this run changed the manager since.
  const after = sent ? await read() : before;
  if (typeof after === 'string') return after;
  const withdrawable = new Map<string, bigint>();
  const locked = new Map<string, bigint>();
  const lockedBy = new Set<string>();
  const totals = new Map<string, bigint>();
  for (const row of after.rows) {
    const mint = String(row.mint);
    add(totals, mint, amount(row.totalBalance));
    if (amount(row.availableToWithdraw) > 0n) add(withdrawable, mint, amount(row.availableToWithdraw));
    if (amount(row.lockedForFutureTxns) > 0n) add(locked, mint, amount(row.lockedForFutureTxns));
    for (const entry of Array.isArray(row.lockedBreakdown) ? row.lockedBreakdown.filter(isObject) : [])
      lockedBy.add(`${String(entry.orderType)} ${String(entry.orderId)} (${String(entry.status)})`);
  }
  const out: ManagerOutcome = { walletAddress: after.walletAddress, totals, walletWithdrawals };
  if (withdrawable.size > 0 || locked.size > 0)
    out.audit = { walletAddress: after.walletAddress, withdrawable: record(withdrawable), locked: record(locked), lockedBy: [...lockedBy] };
  if (withdrawable.size > 0) {
    const why = failures.length > 0 ? `: ${failures.join('; ')}` : ' after its withdraw-max';
    out.discrepancy = `manager ${after.walletAddress} still holds ${[...withdrawable].map(([mint, v]) => `${v} of ${mint}`).join(', ')} withdrawable${why}`;
  }
  return out;
}

/** Step 4: each funded external wallet of the run's users, start against end per mint. */
async function auditWallets(
  t: CheckContext,
  everyUser: readonly KnownUser[],
  managers: ReadonlyMap<string, { walletAddress: string; totals: Map<string, bigint> }>,
  listed: ReadonlyMap<string, ReadonlyMap<string, Record<string, unknown>>>,
  audit: BalanceAudit,
  width: number,
): Promise<BalanceAudit['wallets']> {
  if (!t.control.has('funding'))
    return 'not observable: the target offers no funding capability (external wallets are visible on-chain only)';
  const mintOf = (mint: string) => (mint === 'native' ? NATIVE_MINT : mint);
  const fundings = runFundings();
  const byWallet = new Map<string, KnownUser[]>();
  for (const u of everyUser) {
    const wallet = walletOfSub(u.sub)?.publicKey.toBase58();
    if (wallet && fundings.some((f) => f.wallet === wallet)) byWallet.set(wallet, [...(byWallet.get(wallet) ?? []), u]);
  }
  // One read per wallet, at once; judged in the wallets' order.
  const ends = await mapAtMost([...byWallet.keys()], width, (wallet) => t.control.walletBalances(wallet));
  if (ends.some((end) => !end)) return 'not observable: the target does not offer the control read GET /wallets/{wallet}/balances';
  const audited: Array<{ wallet: string; mints: WalletMintAudit[] }> = [];
  for (const [w, [wallet, owners]] of [...byWallet].entries()) {
    const end = ends[w]!;
    const ownManagers = owners.map((u) => managers.get(userKey(u)));
    if (ownManagers.some((m) => m === undefined)) {
      audit.unreadable['a funded wallet whose manager could not be read (not judged)'] =
        (audit.unreadable['a funded wallet whose manager could not be read (not judged)'] ?? 0) + 1;
      continue;
    }
    const managerAddresses = new Set(ownManagers.map((m) => m!.walletAddress));
    const start = new Map<string, bigint>();
    const funded = new Map<string, bigint>();
    for (const f of fundings) {
      const mint = mintOf(f.mint);
      if (f.wallet === wallet && !start.has(mint)) start.set(mint, f.balanceAfter - f.amount);
      if (f.wallet === wallet || managerAddresses.has(f.wallet)) add(funded, mint, f.amount);
    }
    const inManagers = new Map<string, bigint>();
    for (const m of ownManagers) for (const [mint, total] of m!.totals) add(inManagers, mint, total);
    const swapped = new Set(
      owners
        .flatMap((u) => [...(listed.get(userKey(u))?.values() ?? [])])
        .filter((row) => amount(row.amountSpent) > 0n || amount(row.amountReceived) > 0n)
        .flatMap((row) => [String(row.inputMint), String(row.outputMint)]),
    );
    const fees = owners.reduce((sum, u) => sum + feesPaidBy(u), 0n);
    const mints = [...new Set([...funded.keys(), ...end.keys(), ...inManagers.keys()])].sort();
    const rows = mints.map((mint): WalletMintAudit => {
      const row: WalletMintAudit = {
        mint,
        start: String(start.get(mint) ?? 0n),
        funded: String(funded.get(mint) ?? 0n),
        fees: String(mint === NATIVE_MINT ? fees : 0n),
        end: String(end.get(mint) ?? 0n),
        inManagers: String(inManagers.get(mint) ?? 0n),
        swapped: swapped.has(mint),
      };
      const expected = (start.get(mint) ?? 0n) + (funded.get(mint) ?? 0n);
      const held = (end.get(mint) ?? 0n) + (inManagers.get(mint) ?? 0n);
      const lowest = mint === NATIVE_MINT ? expected - fees : expected;
      if (!row.swapped && (held < lowest || held > expected)) {
        row.discrepancy = `holds ${held} (wallet ${row.end}, managers ${row.inManagers}), expected ${lowest === expected ? expected : `${lowest} to ${expected}`} (started ${row.start}, funded ${row.funded}${mint === NATIVE_MINT ? `, fees ${fees}` : ''})`;
        audit.discrepancies.push(`wallet ${wallet}, ${mint}: ${row.discrepancy}`);
      }
      return row;
    });
    audited.push({ wallet, mints: rows });
  }
  return audited;
}

/** The summary for the console: one line, then what was left and any balance discrepancy, loudly. */
export function describeCleanup(report: CleanupReport): string {
  const b = report.balances;
  const judgedWallets = Array.isArray(b?.wallets)
    ? `${b.wallets.length} funded wallet(s) compared with what they started with`
    : `funded wallets ${b?.wallets ?? 'not audited'}`;
  const balances = !b
    ? ''
    : b.discrepancies.length > 0
      ? `; BALANCE DISCREPANCY (${b.discrepancies.length}, see cleanup.json; verdicts unchanged)`
      : `; balances add up (managers hold nothing withdrawable${b.unread ? `, ${b.unread} of them known empty without a read` : ''}${b.managers.length > 0 ? `, ${b.managers.length} hold what orders left running lock` : ''}, ${judgedWallets})`;
  const lines = [
    `cleanup: ${report.orders} order(s) (${report.found ?? 0} found by listing), ${report.cancelled} cancelled, ${report.abandoned ?? 0} pending withdrawal(s) abandoned, ` +
      `${report.withdrawn} withdrawn, ${report.walletWithdrawals ?? 0} wallet-level withdraw-max, ${report.left.length} left as they were${balances}`,
  ];
  const reasons = new Map<string, number>();
  for (const { reason } of report.left) reasons.set(reason.replace(/conformance-[\w-]+/g, '<sub>'), (reasons.get(reason) ?? 0) + 1);
  for (const [reason, n] of reasons) lines.push(`  ${n} × ${reason}`);
  for (const [reason, n] of Object.entries(b?.unreadable ?? {}))
    lines.push(`  ${n} × user not cleaned: ${reason.replace(/conformance-[\w-]+/g, '<sub>')}`);
  if (b?.retiredTenantUsers)
    lines.push(
      `  ${b.retiredTenantUsers} user(s) skipped, as expected: their tenant, provisioned by this run, was suspended or deleted by a check (403 TENANT_SUSPENDED, TENANT_DELETED)`,
    );
  for (const d of b?.discrepancies ?? []) lines.push(`  !! ${d.replace(/conformance-[\w-]+/g, '<sub>')}`);
  return lines.join('\n');
}
