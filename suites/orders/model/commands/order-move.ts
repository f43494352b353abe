import { accepted, call, type Model, type Move, observe, orderPreferring, type Real } from '../model.ts';

/**
 * The step pause, resume and retry share: POST /orders/{orderId}/{move} with `{}` (UNKNOWNS.md O11: the body is not
 * shown) of an order in `status` (any order when none is), then a read of what followed.
 */
export async function moveOrder(m: Model, r: Real, index: number, move: Exclude<Move, 'cancel'>, status: string): Promise<void> {
  const order = orderPreferring(m, index, (o) => o.status === status);
  accepted(order, move, await call(m, r, 'POST', `/orders/${order.id}/${move}`, {}));
  await observe(m, r);
}
