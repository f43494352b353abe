import { defineCheck, type CheckContext } from '../../harness/check.ts';
import { modelRun } from '../../harness/model-run.ts';
import { commandsOf } from './commands.ts';
import { setup, type Family } from './model.ts';
import type { RuleId } from '../../../generators/vocabulary.ts';

/**
 * One model-based test per order family (DCA, trigger orders, slice): generated sequences of commands (create,
 * pause, resume, cancel with and without withdraw, retry, modify, clock, price, chain failure, withdraw, abandon)
 * with a read of every order and of the balance after each step, judged against the model (model.ts), and the
 * passive order invariants (order-invariants.ts) on every read. A failing sequence (a spec violation included) is
 * shrunk and printed with the seed and its HTTP calls (suites/harness/model-run.ts).
 */

/** The rules every family's model run judges: the model's facts, then the passive order invariants (order-invariants.ts). */
const RULES: RuleId[] = [
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
  'OA-SHAPE-002',
  'OA-SHAPE-003',
  'OA-SHAPE-005',
  'OA-SHAPE-006',
  'OA-SHAPE-007',
  'OA-SHAPE-008',
  'OA-SHAPE-009',
  'OA-FMT-001',
  'OA-FMT-002',
  'OA-FMT-003',
  'OA-FMT-004',
  'OA-FMT-005',
  'OA-FMT-006',
  'OA-STATE-001',
  'OA-STATE-003',
  'OA-STATE-004',
  'OA-STATE-005',
  'OA-STATE-006',
  'OA-STATE-007',
  'OA-STATE-009',
  'OA-STATE-010',
  'OA-STATE-011',
  'OA-OWD-008',
  'OA-OWD-009',
  'OA-DCA-002',
  'OA-SHAPE-004',
];
/** Few, short sequences: each run onboards a user and creates orders, and the suite runs 8 times in npm test. */
const runs = (t: CheckContext) => Math.max(16, Math.round(t.env.numRuns / 5));
const MAX_COMMANDS = 14;

function familyModel(family: Family, name: string) {
  return defineCheck({
    name,
    service: 'orders',
    rules: RULES,
    profile: 'full',
    needs: ['funding'],
    alone: true,
    async run(t: CheckContext) {
      await modelRun(t, commandsOf(family, MAX_COMMANDS), () => setup(t, family), runs(t));
    },
  });
}

export const dcaModel = familyModel('dca', 'dca-orders-follow-the-model-through-generated-sequences');
export const triggerModel = familyModel('trigger', 'trigger-orders-follow-the-model-through-generated-sequences');
export const sliceModel = familyModel('slice', 'slice-orders-follow-the-model-through-generated-sequences');
