import { dataOf, errorCode, failureOf, is2xx } from '../harness/answers.ts';
import { type Check, defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { deepEqual, isObject } from '../shared/values.ts';
import { atOnce, createOrder, intentRequest, intentUser } from './orders.ts';
import { act } from './steps/actions.ts';
import { expectAccepted, expectError } from './steps/expect.ts';
import {
  filledStop,
  firesExactly,
  market,
  move,
  OCO,
  PATHS,
  place,
  read,
  triggerOrdersOfOneUser,
  type TriggerType,
} from './steps/triggers.ts';
import { asUser, serviceNow } from './users.ts';

/**
 * PATCH of trigger orders in place (area TRIG: "Orders: modify"). The accepted partial fields are not shown
 * (UNKNOWNS.md O10, default guess): a target that refuses the guessed valid PATCH makes the check skip.
 */

/** A trigger-order PATCH with the assumed body: a 2xx confirms it for this type (assumptions.ts `trigger-patch`). */
async function patch(t: CheckContext, sub: string, type: TriggerType, id: string, config: Record<string, unknown>): Promise<Exchange> {
  t.exercise('trigger-patch', type);
  const ex = await asUser(t, sub, { method: 'PATCH', path: `${PATHS[type]}/${id}`, json: { config } });
  if (is2xx(ex)) t.confirm('trigger-patch', type);
  return ex;
}

/** A valid PATCH (by the O10 guess) refused with VALIDATION_ERROR: the guess is not this target's; nothing to judge. */
function skipIfGuessRejected(t: CheckContext, ex: Exchange): void {
  if (ex.response.status === 400 && errorCode(ex) === 'VALIDATION_ERROR') {
    const type = Object.entries(PATHS).find(([, path]) => new URL(ex.request.url).pathname.startsWith(`${path}/`))?.[0] ?? '';
    t.rejectAssumption(
      'trigger-patch',
      `the target refuses the assumed PATCH body (UNKNOWNS.md O10): ${JSON.stringify(ex.request.body).slice(0, 200)} -> ${JSON.stringify(ex.response.body).slice(0, 300)}`,
      type,
    );
  }
}

/** A valid PATCH of each type (by the O10 guess; the prices stay unreachable): the positive case of the PATCH checks. */
const VALID_PATCH: Record<TriggerType, Record<string, unknown>> = {
  stop_loss: { triggerPrice: '2' },
  take_profit: { triggerPrice: '1000000000000000000000000000001' },
  oco: { stopLossPrice: '2' },
};

export const triggerPatchAnswersTheOrder = defineCheck({
  name: 'trigger-patch-answers-the-order-without-a-transaction',
  service: 'orders',
  rules: ['OA-TRIG-031'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    for (const [type, config] of Object.entries(VALID_PATCH) as [TriggerType, Record<string, unknown>][]) {
      const { orderId } = await createOrder(t, user, intentRequest(type));
      const ex = await patch(t, user.sub, type, orderId, config);
      skipIfGuessRejected(t, ex);
      const d = dataOf(ex);
      expectAccepted(
        t,
        'OA-TRIG-031',
        ex,
        `PATCH ${PATHS[type]}/{id} {config: {partial}} on an active order answers 2xx with data {order} and no transaction`,
        isObject(d?.order) && d.order.id === orderId && d.transaction === undefined,
      );
    }
  },
});

export const stopLossPatchMovesTheLiveTrigger = defineCheck({
  name: 'stop-loss-price-patch-moves-current-trigger-price',
  service: 'orders',
  rules: ['OA-TRIG-032'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const { orderId } = await createOrder(t, user, intentRequest('stop_loss'));
    const ex = await patch(t, user.sub, 'stop_loss', orderId, { triggerPrice: '2' });
    skipIfGuessRejected(t, ex);
    if (!is2xx(ex)) t.skip(`the PATCH answered ${ex.response.status}: OA-TRIG-031 judges it`);
    const after = await read(t, user.sub, 'stop_loss', orderId);
    t.expect('OA-TRIG-032', after.order.currentTriggerPrice === '2', {
      documented: 'after PATCH {triggerPrice: "2"} the stop_loss\'s currentTriggerPrice is 2',
      received: { currentTriggerPrice: after.order.currentTriggerPrice, triggerPrice: after.order.triggerPrice },
      exchange: after.ex,
    });
  },
});

export const triggerPatchOfATerminalOrder = defineCheck({
  name: 'trigger-patch-of-a-completed-order-changes-nothing',
  service: 'orders',
  rules: ['OA-TRIG-035'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  ownMarket: true,
  async run(t: CheckContext) {
    const m = await market(t);
    const { id, order } = await filledStop(t, m);
    if (order.status !== 'completed')
      t.skip(`the stop_loss did not complete at its trigger (status ${String(order.status)}): OA-TRIG-024 judges firing`);
    const ex = await patch(t, m.user.sub, 'stop_loss', id, { triggerPrice: '600000' });
    t.note(`PATCH of a completed stop_loss answered ${ex.response.status} ${String(errorCode(ex) ?? '')}`);
    const after = await read(t, m.user.sub, 'stop_loss', id);
    t.expect(
      'OA-TRIG-035',
      ex.response.status >= 400 &&
        ex.response.status < 500 &&
        after.order.status === 'completed' &&
        after.order.currentTriggerPrice === order.currentTriggerPrice,
      {
        documented: 'a PATCH of a completed stop_loss answers a 4xx and leaves the order unchanged',
        received: { answer: failureOf(ex), after: { status: after.order.status, currentTriggerPrice: after.order.currentTriggerPrice } },
        exchange: ex,
      },
    );
  },
});

/** A PATCH the O10 guess makes valid, answered 2xx, or the check skips (OA-TRIG-031 judges the answer). */
async function patched(t: CheckContext, sub: string, type: TriggerType, id: string, config: Record<string, unknown>): Promise<Exchange> {
  const ex = await patch(t, sub, type, id, config);
  skipIfGuessRejected(t, ex);
  if (!is2xx(ex)) t.skip(`PATCH ${PATHS[type]}/${id} ${JSON.stringify({ config })} answered ${ex.response.status}: OA-TRIG-031 judges it`);
  return ex;
}

export const triggerPatchSetsTheTrail = defineCheck({
  name: 'trigger-patch-of-trailing-stop-bps-is-answered-and-read-back',
  service: 'orders',
  rules: ['OA-TRIG-039'],
  profile: 'full',
  async run(t: CheckContext) {
    for await (const { user, type, orderId } of triggerOrdersOfOneUser(t)) {
      const ex = await patched(t, user.sub, type, orderId, { trailingStopBps: 2500 });
      const answered = dataOf(ex)?.order;
      const after = await read(t, user.sub, type, orderId);
      const trail = (order: unknown) => (isObject(order) ? String(order.trailingStopBps) : '(no order)');
      t.expect('OA-TRIG-039', trail(answered) === '2500' && trail(after.order) === '2500', {
        documented: `after PATCH ${PATHS[type]}/{id} {config: {trailingStopBps: 2500}} the answered order and the order read back have trailingStopBps 2500`,
        received: { answered: trail(answered), readBack: trail(after.order) },
        exchange: after.ex,
      });
    }
  },
});

export const takeProfitPatchMovesTheTrigger = defineCheck({
  name: 'take-profit-price-patch-makes-the-order-fire-at-the-new-price',
  service: 'orders',
  rules: ['OA-TRIG-042'],
  profile: 'full',
  needs: ['funding', 'prices', 'clock'],
  ownMarket: true,
  async run(t: CheckContext) {
    const m = await market(t);
    // Both orders would stay active at the pair 1250000 with their created take-profit price 2000000.
    // Each placed and PATCHed at once.
    const [take, oco] = await atOnce(
      t,
      async () => {
        const id = await place(t, m, 'take_profit', { triggerPrice: '2000000' });
        await patched(t, m.user.sub, 'take_profit', id, { triggerPrice: '1250000' });
        return id;
      },
      async () => {
        const id = await place(t, m, 'oco', OCO);
        await patched(t, m.user.sub, 'oco', id, { takeProfitPrice: '1250000' });
        return id;
      },
    );
    const before = await read(t, m.user.sub, 'oco', oco);
    t.expect('OA-TRIG-042', before.order.takeProfitPrice === '1250000', {
      documented: 'after PATCH /oco/{id} {config: {takeProfitPrice: "1250000"}} the oco reads back with takeProfitPrice 1250000',
      received: { takeProfitPrice: before.order.takeProfitPrice },
      exchange: before.ex,
    });
    await move(t, m, 1_250_000n);
    const orders = [
      ['take_profit', take],
      ['oco', oco],
    ] as const;
    const seen = await atOnce(
      t,
      ...orders.map(
        ([type, id]) =>
          () =>
            read(t, m.user.sub, type, id),
      ),
    );
    for (const [i, [type]] of orders.entries()) {
      const { ex, order } = seen[i]!;
      firesExactly(t, 'OA-TRIG-042', `a ${type} whose take-profit price was PATCHed from 2000000 to 1250000`, order, ex, 1_250_000n, true);
    }
  },
});

/** What a trigger PATCH could change, compared before and after a refused one. */
const PATCHABLE = ['status', 'triggerPrice', 'currentTriggerPrice', 'stopLossPrice', 'takeProfitPrice', 'trailingStopBps', 'expiresAt'];
const patchable = (order: Record<string, unknown>) => Object.fromEntries(PATCHABLE.map((k) => [k, order[k]]));

export const refusedTriggerPatchChangesNothing = defineCheck({
  name: 'trigger-patch-refused-for-one-invalid-field-applies-none-of-its-fields-active-or-paused',
  service: 'orders',
  rules: ['OA-TRIG-043'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await intentUser(t, true);
    const { orderId } = await createOrder(t, user, intentRequest('stop_loss'));
    await patched(t, user.sub, 'stop_loss', orderId, VALID_PATCH.stop_loss);
    // A valid new (still unreachable) price beside a trail outside 1 to 9999.
    const mixed = { triggerPrice: '3', trailingStopBps: 0 };
    for (const state of ['active', 'paused'] as const) {
      if (state === 'paused') {
        const paused = await act(t, user, orderId, 'pause');
        if (!is2xx(paused)) {
          t.note(`pause of the active stop_loss answered ${paused.response.status}: only the active order is judged`);
          return;
        }
      }
      const before = await read(t, user.sub, 'stop_loss', orderId);
      const ex = await patch(t, user.sub, 'stop_loss', orderId, mixed);
      if (ex.response.status !== 400 || errorCode(ex) !== 'VALIDATION_ERROR') {
        t.skip(
          `the ${state} stop_loss PATCH ${JSON.stringify(mixed)} answered ${ex.response.status} ${String(errorCode(ex))}: OA-TRIG-040 judges it`,
        );
      }
      const after = await read(t, user.sub, 'stop_loss', orderId);
      t.expect('OA-TRIG-043', deepEqual(patchable(after.order), patchable(before.order)), {
        documented: `the ${state} stop_loss refused PATCH ${JSON.stringify(mixed)} with 400 VALIDATION_ERROR: it reads back as before`,
        received: { before: patchable(before.order), after: patchable(after.order) },
        exchange: after.ex,
      });
    }
  },
});

/**
 * PATCHes the document refuses with 400 VALIDATION_ERROR, one row per check: each case is an order of a type, created
 * fresh and given a valid PATCH first (so that the guessed body is this target's), and the bad PATCHes sent to it.
 */
interface RefusedPatch {
  name: string;
  rule: Check['rules'][number];
  why: string;
  cases: ReadonlyArray<readonly [TriggerType, (order: Record<string, unknown>, nowSeconds: number) => Record<string, unknown>[]]>;
}

const TRIGGER_TYPES = ['stop_loss', 'take_profit', 'oco'] as const;

const REFUSED_PATCHES: readonly RefusedPatch[] = [
  {
    name: 'oco-patch-crossing-the-legs-is-rejected',
    rule: 'OA-TRIG-033',
    why: 'stopLossPrice >= takeProfitPrice',
    cases: [
      ['oco', (order) => [String(order.takeProfitPrice), `${String(order.takeProfitPrice)}0`].map((stopLossPrice) => ({ stopLossPrice }))],
    ],
  },
  {
    name: 'trigger-patch-with-expires-at-in-the-past-is-rejected',
    rule: 'OA-TRIG-034',
    why: 'expiresAt an hour in the past',
    cases: TRIGGER_TYPES.map((type) => [type, (_order, now) => [{ expiresAt: now - 3600 }]] as const),
  },
  {
    name: 'trigger-patch-with-trailing-stop-bps-0-or-10000-is-rejected',
    rule: 'OA-TRIG-040',
    why: 'trailingStopBps outside 1 to 9999',
    cases: TRIGGER_TYPES.map((type) => [type, () => [{ trailingStopBps: 0 }, { trailingStopBps: 10_000 }]] as const),
  },
  {
    name: 'trigger-patch-with-price-decimals-out-of-range-or-a-zero-price-is-rejected',
    rule: 'OA-TRIG-041',
    why: 'priceDecimals 0 to 18, prices above 0',
    cases: [
      ['stop_loss', () => [{ triggerPrice: '0' }]],
      ['take_profit', () => [{ triggerPrice: '0' }]],
      ['oco', () => [{ stopLossPrice: '0' }]],
      ['stop_loss', () => [{ priceDecimals: 19 }]],
      ['oco', () => [{ priceDecimals: -1 }]],
    ],
  },
];

function refusedPatch({ name, rule, why, cases }: RefusedPatch) {
  return defineCheck({
    name,
    service: 'orders',
    rules: [rule],
    profile: 'full',
    async run(t: CheckContext) {
      const user = await intentUser(t, true);
      const now = Math.floor((await serviceNow(t)).now.getTime() / 1000);
      for (const [type, bad] of cases) {
        const { orderId, order } = await createOrder(t, user, intentRequest(type));
        await patched(t, user.sub, type, orderId, VALID_PATCH[type]);
        for (const config of bad(order, now)) {
          expectError(t, rule, await patch(t, user.sub, type, orderId, config), {
            status: 400,
            codes: ['VALIDATION_ERROR'],
            documented: `a ${type} PATCH ${JSON.stringify({ config })} (${why}) answers 400 VALIDATION_ERROR`,
          });
        }
      }
    },
  });
}

export const refusedPatches = REFUSED_PATCHES.map(refusedPatch);
