import fc from 'fast-check';
import { is2xx } from '../../harness/answers.ts';
import type { CheckContext } from '../../harness/check.ts';
import type { Exchange } from '../../harness/exchange.ts';
import { SetupFailed } from '../../harness/failure.ts';
import { isObject } from '../../shared/values.ts';
import {
  type Funded,
  type Intent,
  intentRequest,
  type IntentRequest,
  intentUser,
  type OrderType,
  pendingIntent,
  postIntent,
  skipIfTemplateRejected,
} from '../orders.ts';
import { asUser, serviceNow } from '../users.ts';

/**
 * Creating orders as steps of other checks (areas INT, CONF, LIM): generated valid configs of the five types, users
 * rich enough for many orders, the service's time and the orders a user has. Prices are "a pair ratio scaled by
 * priceDecimals"; the generated ones never need the market to be anywhere.
 */

export const TRIGGER_TYPES = ['stop_loss', 'take_profit', 'oco'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

/** USDC amounts (6 decimals) from whole cents. */
const usdcCents = (min: number, max: number) => fc.integer({ min, max }).map((cents) => String(BigInt(cents) * 10_000n));
const PRICE = fc.bigInt({ min: 1n, max: 10n ** 24n }).map(String);
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

/** A valid config of each type; `expiresIn` (seconds from the service's now) becomes expiresAt at request time. */
export interface Generated {
  config: Record<string, unknown>;
  expiresIn?: number;
}

export function validConfig(orderType: OrderType): fc.Arbitrary<Generated> {
  const trigger = {
    amount: usdcCents(1000, 10_000),
    priceDecimals: fc.integer({ min: 0, max: 18 }),
    trailingStopBps: optional(fc.integer({ min: 1, max: 9999 })),
  };
  const expiresIn = optional(fc.integer({ min: 3600, max: 30 * 86_400 }));
  switch (orderType) {
    case 'dca':
      return fc
        .record({
          perCycle: fc.integer({ min: 1000, max: 5000 }),
          cycles: fc.integer({ min: 1, max: 4 }),
          frequency: fc.integer({ min: 60, max: 86_400 }),
        })
        .map(({ perCycle, cycles, frequency }) => ({
          config: {
            totalAmount: String(BigInt(perCycle * cycles) * 10_000n),
            amountPerCycle: String(BigInt(perCycle) * 10_000n),
            cycleFrequencySeconds: frequency,
          },
        }));
    case 'stop_loss':
    case 'take_profit':
      // minOutputAmount at most 1000 smallest units: far below what 10 USDC is worth in any output, never unsatisfiable.
      return fc.record({
        config: fc.record({ ...trigger, triggerPrice: PRICE, minOutputAmount: optional(fc.integer({ min: 1, max: 1000 }).map(String)) }),
        expiresIn,
      });
    case 'oco':
      return fc
        .record({
          config: fc.record({
            ...trigger,
            prices: fc.uniqueArray(fc.bigInt({ min: 1n, max: 10n ** 24n }), { minLength: 2, maxLength: 2 }),
          }),
          expiresIn,
        })
        .map(({ config: { prices, ...rest }, expiresIn: e }) => {
          const [low, high] = [...prices].sort((a, b) => (a < b ? -1 : 1));
          return { config: { ...rest, stopLossPrice: String(low), takeProfitPrice: String(high) }, expiresIn: e };
        });
    case 'slice':
      return fc.record({ config: fc.record({ amount: usdcCents(1000, 10_000), sliceCount: fc.integer({ min: 1, max: 10 }) }) });
  }
}

export async function requestOf(t: CheckContext, orderType: OrderType, generated: Generated): Promise<IntentRequest> {
  const expiresAt = generated.expiresIn === undefined ? undefined : await unixSecondsFromNow(t, generated.expiresIn);
  return intentRequest(orderType, { config: { ...generated.config, expiresAt } });
}

export async function unixSecondsFromNow(t: CheckContext, seconds: number): Promise<number> {
  return Math.floor((await serviceNow(t)).now.getTime() / 1000) + seconds;
}

/** A user whose wallet holds 1000 USDC and 1 native. */
export async function richUser(t: CheckContext): Promise<Funded> {
  return await intentUser(t, true, 'own', '1000000000');
}

/** Ids of the user's orders of one type (GET /me/orders?type=...). */
export async function orderIds(t: CheckContext, sub: string, type: OrderType): Promise<{ ex: Exchange; ids: unknown[] }> {
  const ex = await asUser(t, sub, { method: 'GET', path: `/me/orders?type=${type}` });
  const data = isObject(ex.response.body) ? ex.response.body.data : undefined;
  if (!is2xx(ex) || !Array.isArray(data))
    throw new SetupFailed(`GET /me/orders answered ${ex.response.status} ${JSON.stringify(ex.response.body).slice(0, 300)}`, ex);
  return { ex, ids: data.map((row) => (isObject(row) ? row.id : undefined)) };
}

/** A funded user with one pending order of theirs (a DCA intent of the assumed template), ready to confirm. */
export async function userWithIntent(t: CheckContext): Promise<{ user: Funded; intent: Intent }> {
  const user = await intentUser(t, true);
  return { user, intent: await pendingIntent(t, user) };
}

/** Each trigger type's default template is accepted here, or the limit checks have nothing to stand on (skip). */
export async function templatesAccepted(t: CheckContext, sub: string): Promise<void> {
  for (const orderType of TRIGGER_TYPES) {
    const ex = await postIntent(t, sub, intentRequest(orderType));
    skipIfTemplateRejected(t, ex);
    if (!is2xx(ex))
      throw new SetupFailed(
        `the default ${orderType} intent answered ${ex.response.status} ${JSON.stringify(ex.response.body).slice(0, 300)}`,
        ex,
      );
  }
}
