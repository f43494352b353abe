import { defineCheck, type CheckContext } from '../../harness/check.ts';
import { modelRun } from '../../harness/model-run.ts';
import { commandsOf } from './commands.ts';
import { modelRunCount } from './run-count.ts';
import { type Family, type Model, type Real, release, setup } from './model.ts';
import { Unsupported } from '../../harness/failure.ts';
import type { RuleId } from '../../../generators/vocabulary.ts';
import { USER_ORDER_RULES } from '../steps/invariant-rules.ts';

/**
 * One model-based test per order family (DCA, trigger orders, slice): generated sequences of commands (create,
 * pause, resume, cancel with and without withdraw, retry, modify, clock, price, chain failure, withdraw, abandon)
 * with a read of every order and of the balance after each step, judged against the model (model.ts), and the
 * passive order invariants (order-invariants.ts) on every read. A failing sequence (a spec violation included) is
 * shrunk and printed with the seed and its HTTP calls (suites/harness/model-run.ts).
 *
 * Without `funding` (partner mode) the DCA and trigger families run on the partner's wallet (TEST_WALLET_SECRET_KEY):
 * a few runs (run-count.ts), each releasing what the one before left (model.ts release), in real time (no clock, price
 * or fault commands apply), judging what the order reads show (OA-STATE-002, -013, -014, -015, OA-RESUME-001, OA-OWD-002,
 * -005, -006, OA-BAL-007); withdrawalPending (OA-BAL-014, OA-OWD-003, -007, -011) is judged only on a user of its own.
 * The slice family needs a fresh user for each run.
 */

/** The model's facts every family's model run judges; it cites the passive order invariants (USER_ORDER_RULES) too. */
const MODEL_RULES = [
  'OA-STATE-002',
  'OA-STATE-013',
  'OA-STATE-014',
  'OA-STATE-015',
  'OA-RESUME-001',
  'OA-OWD-002',
  'OA-OWD-003',
  'OA-OWD-005',
  'OA-OWD-006',
  'OA-OWD-007',
  'OA-OWD-011',
  'OA-BAL-007',
  'OA-BAL-014',
] as const satisfies readonly RuleId[];
const MAX_COMMANDS = 14;

function familyModel(family: Family, name: string) {
  return defineCheck({
    name,
    service: 'orders',
    rules: [...MODEL_RULES, ...USER_ORDER_RULES],
    profile: 'full',
    alone: true,
    async run(t: CheckContext) {
      if (family === 'slice' && !t.control.has('funding'))
        throw new Unsupported(
          "funding (a fresh user for each sequence: a user runs one slice order at a time, and one runs for minutes and cannot be cancelled, so sequences on the partner's wallet would each wait for the last)",
        );
      // Without `funding` the runs share the partner's wallet: each releases what the one before left (model.ts release).
      let last: { model: Model; real: Real } | undefined;
      const releaseLast = async () => {
        if (last) await release(last.model, last.real);
        last = undefined;
      };
      t.defer(releaseLast);
      const fresh = async () => {
        await releaseLast();
        last = await setup(t, family);
        return last;
      };
      await modelRun(t, commandsOf(family, MAX_COMMANDS), fresh, await modelRunCount(t));
    },
  });
}

export const dcaModel = familyModel('dca', 'dca-orders-follow-the-model-through-generated-sequences');
export const triggerModel = familyModel('trigger', 'trigger-orders-follow-the-model-through-generated-sequences');
export const sliceModel = familyModel('slice', 'slice-orders-follow-the-model-through-generated-sequences');
