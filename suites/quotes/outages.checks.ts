/**
 * Providers that cannot quote (control API faults: quoteProviders). "One entry per provider that could quote ...
 * Not every provider appears in every response"; when no provider can build a route the answer is 404 code -7 with
 * one reason per provider that tried. Every outage is lifted afterwards (t.defer).
 */
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { isObject } from '../shared/values.ts';
import { Judge, discover, maxNumQuotes, quoteParams, routesOf } from './quote-support.ts';
import { quote } from './samples.ts';

async function down(t: CheckContext, ids: string[]): Promise<void> {
  t.defer(async () => t.control.setFaults({ quoteProviders: Object.fromEntries(ids.map((id) => [id, 'up'])) }));
  await t.control.setFaults({ quoteProviders: Object.fromEntries(ids.map((id) => [id, 'down'])) });
}

export const providerOutageLeavesTheOthers = defineCheck({
  name: 'a-provider-that-cannot-quote-is-absent-and-never-recommended',
  service: 'quotes',
  rules: ['Q-QUOTE-007', 'Q-QUOTE-008', 'Q-META-003'],
  profile: 'full',
  needs: ['faults'],
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const params = quoteParams({ numQuotes: maxNumQuotes(d) });
    // Not every provider appears in every response: look a few times for an answer where several quote.
    let before = await quote(t, j, d, params);
    for (let i = 0; i < 4 && routesOf(before.body).length < 2; i++) before = await quote(t, j, d, params);
    const quoted = routesOf(before.body).map(([id]) => id);
    if (before.status !== 200 || quoted.length < 2)
      t.skip(`fewer than two providers quote the configured pair (${quoted.join(', ') || before.status})`);
    const winner = isObject(before.body) && isObject(before.body.metadata) ? String(before.body.metadata.ExpectedWinner) : quoted[0]!;
    await down(t, [winner]);
    const after = await quote(t, j, d, params);
    const keys = routesOf(after.body).map(([id]) => id);
    t.expect('Q-QUOTE-007', after.status === 200 && !keys.includes(winner), {
      documented: `with ${winner} unable to quote, the others still quote and quotes has no entry for ${winner} (one entry per provider that could quote)`,
      received: { status: after.status, keys },
      exchange: after.ex,
    });
    t.expect(
      'Q-META-003',
      isObject(after.body) && isObject(after.body.metadata) && keys.includes(String(after.body.metadata.ExpectedWinner)),
      {
        documented: 'ExpectedWinner is one of the providers that quoted',
        received: isObject(after.body) ? after.body.metadata : after.body,
        exchange: after.ex,
      },
    );
  },
});

export const noProviderAbleToQuoteGivesNoRoute = defineCheck({
  name: 'no-provider-able-to-quote-gives-404-code-minus-7-with-their-reasons',
  service: 'quotes',
  rules: ['Q-QUOTE-007', 'Q-ERR-003', 'Q-ERR-005', 'Q-META-009'],
  profile: 'full',
  needs: ['faults'],
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    if (d.providerIds.length === 0) t.skip('/api/v1/providers lists no provider');
    await down(t, d.providerIds);
    const call = await quote(t, j, d, quoteParams({ numQuotes: maxNumQuotes(d) }));
    t.expect('Q-QUOTE-007', call.status === 404 && isObject(call.body) && call.body.code === -7, {
      documented: 'when no provider can build a route the answer is 404 code -7',
      received: { status: call.status, body: call.body },
      exchange: call.ex,
    });
    const errors = isObject(call.body) && isObject(call.body.metadata) ? call.body.metadata.errors : undefined;
    t.expect('Q-ERR-005', isObject(errors) && Object.keys(errors).length > 0, {
      documented: 'the providers tried and failed, so metadata.errors gives one reason per provider that tried',
      received: errors ?? '(absent)',
      exchange: call.ex,
    });
  },
});
