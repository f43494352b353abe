import { defineCheck, type Check, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { at, isNonNegativeInteger, isObject } from '../shared/values.ts';
import type { RuleId } from '../../generators/vocabulary.ts';

async function getInfo(t: CheckContext): Promise<{ ex: Exchange; info: unknown }> {
  const ex = await t.quotes.request({ path: '/api/v1/info' });
  if (ex.response.status !== 200) t.skip(`GET /api/v1/info answered ${ex.response.status}; the info checks need a 200`, ex);
  return { ex, info: ex.response.body };
}

export const infoPublishesIntegerProtocolVersion = defineCheck({
  name: 'info-publishes-protocol-version-as-three-integers',
  service: 'quotes',
  rules: ['Q-INFO-001'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const { ex, info } = await getInfo(t);
    const v = at(info, 'protocolVersion');
    t.expect('Q-INFO-001', isObject(v) && ['major', 'minor', 'patch'].every((k) => isNonNegativeInteger(v[k])), {
      documented: 'protocolVersion {major, minor, patch} of non-negative integers',
      received: v,
      exchange: ex,
    });
  },
});

/**
 * The documented values of /api/v1/info, one fact per row (Info response table and Limits). A row with `accepts`
 * publishes a per-user value rather than a fixed one: "Concurrent streams: Default 1" is the default allowance, and
 * the real service publishes the user's own (its SDK: "Number of concurrent streams the user is allowed").
 */
interface Setting {
  name: string;
  rule: RuleId;
  path: string;
  value: unknown;
  accepts?: { documented: string; test: (v: unknown) => boolean };
}

const DOCUMENTED_SETTINGS: Setting[] = [
  {
    name: 'info-publishes-intervalms-400-to-3600000-default-800',
    rule: 'Q-INFO-002',
    path: 'settings.quoteUpdate.intervalMs',
    value: { min: 400, max: 3600000, default: 800 },
  },
  {
    name: 'info-publishes-numquotes-1-to-10-default-1',
    rule: 'Q-INFO-003',
    path: 'settings.quoteUpdate.numQuotes',
    value: { min: 1, max: 10, default: 1 },
  },
  {
    name: 'info-publishes-slippagebps-0-to-10000-default-100',
    rule: 'Q-INFO-004',
    path: 'settings.swap.slippageBps',
    value: { min: 0, max: 10000, default: 100 },
  },
  { name: 'info-publishes-onlydirectroutes-false', rule: 'Q-INFO-005', path: 'settings.swap.onlyDirectRoutes', value: false },
  { name: 'info-publishes-addsizeconstraint-true', rule: 'Q-INFO-006', path: 'settings.swap.addSizeConstraint', value: true },
  { name: 'info-publishes-sizeconstraint-1168', rule: 'Q-INFO-007', path: 'settings.swap.sizeConstraint', value: 1168 },
  {
    name: 'info-publishes-closeinputtokenaccount-false',
    rule: 'Q-INFO-008',
    path: 'settings.transaction.closeInputTokenAccount',
    value: false,
  },
  {
    name: 'info-publishes-createoutputtokenaccount-true',
    rule: 'Q-INFO-009',
    path: 'settings.transaction.createOutputTokenAccount',
    value: true,
  },
  {
    name: 'info-publishes-concurrentstreams-as-a-positive-integer',
    rule: 'Q-INFO-010',
    path: 'settings.connection.concurrentStreams',
    value: 1,
    accepts: {
      documented: "a positive integer (1 by default; the user's allowance may be higher)",
      test: (v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 1,
    },
  },
];

/** A range matches when min, max and default are those documented; extra keys are allowed. */
function matches(actual: unknown, expected: unknown): boolean {
  if (isObject(expected)) return isObject(actual) && Object.entries(expected).every(([k, v]) => actual[k] === v);
  return actual === expected;
}

export const infoSettingChecks: Check[] = DOCUMENTED_SETTINGS.map(({ name, rule, path, value, accepts }) =>
  defineCheck({
    name,
    service: 'quotes',
    rules: [rule],
    profile: 'smoke',
    async run(t: CheckContext) {
      const { ex, info } = await getInfo(t);
      const actual = at(info, path);
      if (accepts) {
        t.expect(rule, accepts.test(actual), {
          documented: `${path} is ${accepts.documented}`,
          received: actual ?? '(absent)',
          exchange: ex,
        });
        if (actual !== value) t.note(`${path} is ${JSON.stringify(actual)} (the documented default is ${JSON.stringify(value)})`);
        return;
      }
      t.expect(rule, matches(actual, value), {
        documented: `${path} = ${JSON.stringify(value)}`,
        received: actual ?? '(absent)',
        exchange: ex,
      });
    },
  }),
);

/** Every {min, max, default} object anywhere under settings, with its path. */
function ranges(value: unknown, path: string, out: Array<{ path: string; range: Record<string, unknown> }> = []) {
  if (!isObject(value)) return out;
  if ('min' in value && 'max' in value && 'default' in value) out.push({ path, range: value });
  else for (const [k, v] of Object.entries(value)) ranges(v, `${path}.${k}`, out);
  return out;
}

export const infoRangesAreOrdered = defineCheck({
  name: 'info-ranges-are-integers-with-min-le-default-le-max',
  service: 'quotes',
  rules: ['Q-INFO-011'],
  profile: 'smoke',
  async run(t: CheckContext) {
    const { ex, info } = await getInfo(t);
    const found = ranges(at(info, 'settings'), 'settings');
    t.expect('Q-INFO-011', found.length > 0, {
      documented: 'settings carries {min, max, default} ranges',
      received: at(info, 'settings'),
      exchange: ex,
    });
    for (const { path, range } of found) {
      const { min, max, default: def } = range;
      const ok =
        [min, max, def].every((n) => typeof n === 'number' && Number.isInteger(n)) &&
        (min as number) <= (def as number) &&
        (def as number) <= (max as number);
      t.expect('Q-INFO-011', ok, { documented: `${path}: integers with min <= default <= max`, received: range, exchange: ex });
    }
  },
});
