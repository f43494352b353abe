import { errorCode, failureOf, is2xx, is4xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import type { RuleId } from '../../generators/vocabulary.ts';
import { dcaRequest, intentRequest } from './orders.ts';
import { act, readOrder } from './steps/actions.ts';
import { createSmallest, partnerUser } from './steps/blackbox.ts';
import { expectError } from './steps/expect.ts';

/**
 * Partner mode, order actions (steps/blackbox.ts): the partner's own armed orders, the smallest the documents allow,
 * pause, resume and cancel as their owner asks (the control path: actions.checks.ts, with generated funded users).
 */

export const partnerOrderActions = defineCheck({
  name: 'partner-orders-pause-resume-and-cancel-as-their-owner-asks',
  service: 'orders',
  rules: [
    'OA-PAUSE-001',
    'OA-PAUSE-003',
    'OA-RESUME-001',
    'OA-RESUME-002',
    'OA-CANCEL-001',
    'OA-CANCEL-003',
    'OA-CANCEL-006',
    'OA-CANCEL-011',
    'OA-CANCEL-014',
  ],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await partnerUser(t);
    // Armed orders that never run while the check does: a stop far below any market, and a daily DCA.
    const stop = await createSmallest(t, user, (unit) => intentRequest('stop_loss', { config: { amount: String(unit) } }));
    const dca = await createSmallest(t, user, (unit) =>
      dcaRequest({ totalAmount: String(unit), amountPerCycle: String(unit), cycleFrequencySeconds: 86_400 }),
    );
    const status = async () => (await readOrder(t, user, stop)).status;
    const moves = async (rule: RuleId, ex: Exchange, to: string, what: string) => {
      const now = await status();
      t.expect(rule, is2xx(ex) && now === to, {
        documented: `${what}: 2xx, then status ${to}`,
        received: { answer: failureOf(ex), status: now },
        exchange: ex,
      });
    };
    const refused = async (rule: RuleId, ex: Exchange, stays: string, what: string) => {
      const now = await status();
      t.expect(rule, is4xx(ex) && now === stays, {
        documented: `${what}: a 4xx, and the order stays ${stays}`,
        received: { answer: failureOf(ex), status: now },
        exchange: ex,
      });
      t.note(`${what}: ${ex.response.status} ${String(errorCode(ex))}`);
    };

    await moves('OA-PAUSE-001', await act(t, user, stop.orderId, 'pause'), 'paused', 'pause of the active stop_loss');
    await refused('OA-PAUSE-003', await act(t, user, stop.orderId, 'pause'), 'paused', 'pause of the paused stop_loss');
    await moves('OA-RESUME-001', await act(t, user, stop.orderId, 'resume'), 'active', 'resume of the paused stop_loss');
    await refused('OA-RESUME-002', await act(t, user, stop.orderId, 'resume'), 'active', 'resume of the active stop_loss');
    await moves('OA-CANCEL-001', await act(t, user, stop.orderId, 'cancel', { withdraw: false }), 'cancelled', 'cancel {withdraw: false}');
    const cancelled = await readOrder(t, user, stop);
    t.expect('OA-CANCEL-014', cancelled.withdrawalStatus === 'none', {
      documented: 'cancel {withdraw: false} builds no withdrawal: withdrawalStatus none',
      received: { status: cancelled.status, withdrawalStatus: cancelled.withdrawalStatus },
    });
    expectError(t, 'OA-CANCEL-003', await act(t, user, stop.orderId, 'cancel', { withdraw: false }), {
      status: 400,
      codes: ['NOT_CANCELLABLE'],
      documented: 'cancel of the cancelled order: 400 NOT_CANCELLABLE',
    });

    expectError(t, 'OA-CANCEL-011', await act(t, user, dca.orderId, 'cancel', { withdraw: true }), {
      status: 400,
      codes: ['VALIDATION_ERROR'],
      documented: 'cancel {withdraw: true} without userPubkey: 400 VALIDATION_ERROR',
    });
    const ex = await act(t, user, dca.orderId, 'cancel', { withdraw: true, userPubkey: user.userPubkey });
    const now = (await readOrder(t, user, dca)).status;
    t.expect('OA-CANCEL-006', is2xx(ex) && now === 'cancelled', {
      documented: 'cancel {withdraw: true, userPubkey} of the active DCA order: 2xx, then status cancelled',
      received: { answer: failureOf(ex), status: now },
      exchange: ex,
    });
  },
});
