import type { Exchange } from './exchange.ts';

/**
 * What a run created on the target, so that it can be cleaned up at the end of a `full` run even when checks failed
 * (suites/orders/cleanup.ts), whichever check sent the request:
 * - orders: a 2xx answer of POST /orders/confirm carrying `data.order.id`;
 * - users: a 2xx POST /partner/onboard (the sub of its body), or any 2xx user-scoped answer (both headers);
 * - fundings: a 2xx control POST /fund (wallet, mint as sent, amount, and the balance after it);
 * - execution fees: `feeLamports` of a 2xx POST /orders/intent whose deposit a 2xx POST /orders/confirm landed;
 * - per user: its manager (`data.walletAddress` of a 2xx POST /partner/onboard or GET /me/balance), and
 *   whether a 2xx POST /orders/intent handed the run a deposit transaction for it.
 * Held in this process only: the keys and subs never reach a file.
 */
export interface CreatedOrder {
  orderId: string;
  orderType?: string;
  /** The X-Service-Key and X-Service-User the order was confirmed with. */
  apiKey: string;
  sub: string;
}

export interface KnownUser {
  apiKey: string;
  sub: string;
}

export interface Funding {
  wallet: string;
  /** As sent: a mint, or `native`. */
  mint: string;
  amount: bigint;
  /** The wallet's balance of the mint right after it. */
  balanceAfter: bigint;
}

const created = new Map<string, CreatedOrder>();
const users = new Map<string, KnownUser>();
const fundings: Funding[] = [];
/** feeLamports of pending orders by pendingOrderId, until their confirm lands. */
const pendingFees = new Map<string, { user: string; fee: bigint }>();
/** Execution fees (lamports) paid by each user's landed deposits. */
const fees = new Map<string, bigint>();
/** Each user's manager, every address its answers gave for it. */
const managers = new Map<string, Set<string>>();
/** The users a 2xx POST /orders/intent handed a deposit transaction (whether or not it was confirmed). */
const depositsHanded = new Set<string>();

const userKey = (apiKey: string, sub: string) => `${apiKey}\u0000${sub}`;

function headerOf(exchange: Exchange, name: string): string | undefined {
  const found = Object.entries(exchange.request.headers).find(([key]) => key.toLowerCase() === name);
  return found?.[1];
}

function jsonOf(text: string | undefined): Record<string, unknown> | undefined {
  try {
    const value: unknown = text === undefined ? undefined : JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Record what an exchange created, if it created something. */
export function noteCreated(exchange: Exchange): void {
  if (exchange.response.status < 200 || exchange.response.status >= 300) return;
  const path = new URL(exchange.request.url).pathname;
  if (exchange.service === 'control') {
    if (exchange.request.method !== 'POST' || !path.endsWith('/fund')) return;
    const body = jsonOf(exchange.request.body);
    const balance = (exchange.response.body as { balance?: unknown } | undefined)?.balance;
    if (typeof body?.wallet !== 'string' || typeof body.mint !== 'string' || typeof body.amount !== 'string' || typeof balance !== 'string')
      return;
    fundings.push({ wallet: body.wallet, mint: body.mint, amount: BigInt(body.amount), balanceAfter: BigInt(balance) });
    return;
  }
  if (exchange.service !== 'orders') return;
  const apiKey = headerOf(exchange, 'x-service-key');
  const sub = headerOf(exchange, 'x-service-user') ?? (path.endsWith('/partner/onboard') ? jsonOf(exchange.request.body)?.sub : undefined);
  if (!apiKey || typeof sub !== 'string' || sub === '') return;
  users.set(userKey(apiKey, sub), { apiKey, sub });
  const data = (exchange.response.body as { data?: Record<string, unknown> } | undefined)?.data;
  if (/\/(partner\/onboard|me\/balance)$/.test(path) && typeof data?.walletAddress === 'string')
    managers.set(userKey(apiKey, sub), (managers.get(userKey(apiKey, sub)) ?? new Set()).add(data.walletAddress));
  if (exchange.request.method !== 'POST') return;
  if (path.endsWith('/orders/intent')) depositsHanded.add(userKey(apiKey, sub));
  if (
    path.endsWith('/orders/intent') &&
    typeof data?.pendingOrderId === 'string' &&
    typeof data.feeLamports === 'string' &&
    /^[0-9]+$/.test(data.feeLamports)
  ) {
    pendingFees.set(data.pendingOrderId, { user: userKey(apiKey, sub), fee: BigInt(data.feeLamports) });
  }
  if (!path.endsWith('/orders/confirm')) return;
  const pendingOrderId = jsonOf(exchange.request.body)?.pendingOrderId;
  const paid = typeof pendingOrderId === 'string' ? pendingFees.get(pendingOrderId) : undefined;
  if (paid) {
    fees.set(paid.user, (fees.get(paid.user) ?? 0n) + paid.fee);
    pendingFees.delete(pendingOrderId as string);
  }
  const order = (data as { order?: { id?: unknown; orderType?: unknown } } | undefined)?.order;
  if (typeof order?.id !== 'string') return;
  created.set(order.id, { orderId: order.id, orderType: typeof order.orderType === 'string' ? order.orderType : undefined, apiKey, sub });
}

/** Every order created so far, oldest first. */
export function createdOrders(): CreatedOrder[] {
  return [...created.values()];
}

/** Every user the run onboarded or acted as, oldest first. */
export function knownUsers(): KnownUser[] {
  return [...users.values()];
}

/** Every funding of the run, in order. */
export function runFundings(): readonly Funding[] {
  return fundings;
}

/** The execution fees (lamports) the landed deposits of `user` paid. */
export function feesPaidBy(user: KnownUser): bigint {
  return fees.get(userKey(user.apiKey, user.sub)) ?? 0n;
}

/** Every address the answers for `user` gave as its manager (one, from a conforming target), first seen first. */
export function managersOf(user: KnownUser): string[] {
  return [...(managers.get(userKey(user.apiKey, user.sub)) ?? [])];
}

/** Did a 2xx POST /orders/intent hand the run a deposit transaction for `user`? */
export function handedDeposit(user: KnownUser): boolean {
  return depositsHanded.has(userKey(user.apiKey, user.sub));
}

/** Test hook: forget everything recorded. */
export function clearLedger(): void {
  created.clear();
  users.clear();
  fundings.length = 0;
  pendingFees.clear();
  fees.clear();
  managers.clear();
  depositsHanded.clear();
}
