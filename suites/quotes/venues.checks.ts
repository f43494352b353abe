import bs58 from 'bs58';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { malformedFlag } from '../shared/hostile.ts';
import { isObject } from '../shared/values.ts';
import type { RuleId } from '../../generators/vocabulary.ts';
import { expectStatus } from './quote-support.ts';

interface Venues {
  ex: Exchange;
  labels: unknown[];
  programIds?: unknown[];
}

async function getVenues(t: CheckContext, rule: RuleId, includeProgramIds?: boolean): Promise<Venues> {
  const ex = await t.quotes.request({ path: '/api/v1/venues', query: includeProgramIds === undefined ? undefined : { includeProgramIds } });
  const body = ex.response.body;
  t.expect(rule, ex.response.status === 200 && isObject(body) && Array.isArray(body.labels), {
    documented: 'GET /api/v1/venues answers 200 with {labels: [...]}',
    received: body,
    exchange: ex,
  });
  return { ex, labels: body.labels as unknown[], programIds: Array.isArray(body.programIds) ? body.programIds : undefined };
}

export const venuesOmitProgramIdsUnlessAsked = defineCheck({
  name: 'venues-omit-programids-without-includeprogramids',
  service: 'quotes',
  rules: ['Q-VEN-001'],
  profile: 'readonly',
  async run(t: CheckContext) {
    for (const flag of [undefined, false]) {
      const { ex } = await getVenues(t, 'Q-VEN-001', flag);
      const body = ex.response.body as Record<string, unknown>;
      t.expect('Q-VEN-001', body.programIds == null, {
        // null, like absence, carries no program ids
        documented: `no programIds when includeProgramIds is ${flag === undefined ? 'omitted' : 'false'}`,
        received: body,
        exchange: ex,
      });
    }
  },
});

export const venueLabelsAreUniqueStrings = defineCheck({
  name: 'venue-labels-are-unique-non-empty-strings',
  service: 'quotes',
  rules: ['Q-VEN-005'],
  profile: 'smoke', // smoke's one read of GET /api/v1/venues (README, Profiles)
  async run(t: CheckContext) {
    const { ex, labels } = await getVenues(t, 'Q-VEN-005');
    t.expect('Q-VEN-005', labels.length > 0 && labels.every((l) => typeof l === 'string' && l.trim() !== ''), {
      documented: 'labels is a non-empty list of non-empty strings',
      received: labels,
      exchange: ex,
    });
    const dupes = labels.filter((l, i) => labels.indexOf(l) !== i);
    t.expect('Q-VEN-005', dupes.length === 0, { documented: 'labels are unique', received: { duplicated: dupes }, exchange: ex });
  },
});

export const venueProgramIdsAreBase58Keys = defineCheck({
  name: 'venue-programids-are-base58-public-keys',
  service: 'quotes',
  rules: ['Q-VEN-004', 'Q-VEN-002'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const { ex, programIds } = await getVenues(t, 'Q-VEN-002', true);
    t.expect('Q-VEN-002', programIds !== undefined, {
      documented: 'programIds present with includeProgramIds=true',
      received: ex.response.body,
      exchange: ex,
    });
    for (const id of programIds) {
      let bytes = 0;
      try {
        bytes = typeof id === 'string' ? bs58.decode(id).length : 0;
      } catch {
        /* not base58 */
      }
      t.expect('Q-VEN-004', bytes === 32, {
        documented: 'each programId is a base58 string of a 32-byte public key',
        received: id,
        exchange: ex,
      });
    }
  },
});

export const venueProgramIdsAlignWithLabels = defineCheck({
  name: 'venue-programids-align-with-labels-in-every-response',
  service: 'quotes',
  rules: ['Q-VEN-002', 'Q-VEN-003'],
  profile: 'readonly',
  async run(t: CheckContext) {
    // Pairs are matched within one response (Q-VEN-003); across responses the pairs themselves must agree.
    let first: { pairs: Map<unknown, unknown>; ex: Exchange } | undefined;
    for (let i = 0; i < 4; i++) {
      const { ex, labels, programIds } = await getVenues(t, 'Q-VEN-002', true);
      t.expect('Q-VEN-002', programIds !== undefined && programIds.length === labels.length, {
        documented: 'programIds has exactly one entry per label',
        received: { labels: labels.length, programIds: programIds?.length ?? '(absent)' },
        exchange: ex,
      });
      const pairs = new Map(labels.map((l, j) => [l, programIds[j]]));
      if (!first) {
        first = { pairs, ex };
        continue;
      }
      for (const [label, id] of pairs) {
        if (!first.pairs.has(label)) continue; // the venue set may change between requests
        t.expect('Q-VEN-002', first.pairs.get(label) === id, {
          documented: `programIds[i] belongs to labels[i], so venue "${String(label)}" has the same program id in every response`,
          received: { first: first.pairs.get(label), now: id },
          exchange: ex,
        });
      }
    }
  },
});

export const venuesRejectMalformedFlag = defineCheck({
  name: 'venues-reject-a-malformed-includeprogramids-with-400',
  service: 'quotes',
  rules: ['Q-VEN-006'],
  profile: 'readonly',
  async run(t: CheckContext) {
    // Generated values against the embedded server, one per lenient reading on a given target (malformedFlag).
    await malformedFlag(
      t,
      'Q-VEN-006',
      (value) => t.quotes.request({ path: '/api/v1/venues', query: `includeProgramIds=${encodeURIComponent(value)}`, retry: false }),
      (value, ex) =>
        expectStatus(t, 'Q-VEN-006', ex, 400, `includeProgramIds=${JSON.stringify(value)} (booleans are true or false) answered 400`),
    );
  },
});
