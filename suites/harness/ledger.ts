import type { Exchange } from './exchange.ts';

/**
 * What a run created on the target, so that it can be cleaned up at the end of a `full` run even when checks failed
 * (suites/orders/cleanup.ts). Every order is seen where it comes into being: a 2xx answer of POST /orders/confirm
 * carrying `data.order.id`, whichever check sent it. Held in this process only: the keys and subs never reach a file.
 */
export interface CreatedOrder {
  orderId: string;
  orderType?: string;
  /** The X-Service-Key and X-Service-User the order was confirmed with. */
  apiKey: string;
  sub: string;
}

const created = new Map<string, CreatedOrder>();

function headerOf(exchange: Exchange, name: string): string | undefined {
  const found = Object.entries(exchange.request.headers).find(([key]) => key.toLowerCase() === name);
  return found?.[1];
}

/** Record the order an exchange created, if it created one. */
export function noteCreated(exchange: Exchange): void {
  if (exchange.service !== 'orders' || exchange.request.method !== 'POST') return;
  if (!new URL(exchange.request.url).pathname.endsWith('/orders/confirm')) return;
  if (exchange.response.status < 200 || exchange.response.status >= 300) return;
  const order = (exchange.response.body as { data?: { order?: { id?: unknown; orderType?: unknown } } } | undefined)?.data?.order;
  const apiKey = headerOf(exchange, 'x-service-key');
  const sub = headerOf(exchange, 'x-service-user');
  if (typeof order?.id !== 'string' || !apiKey || !sub) return;
  created.set(order.id, { orderId: order.id, orderType: typeof order.orderType === 'string' ? order.orderType : undefined, apiKey, sub });
}

/** Every order created so far, oldest first. */
export function createdOrders(): CreatedOrder[] {
  return [...created.values()];
}

/** Test hook: forget every recorded order. */
export function clearLedger(): void {
  created.clear();
}
