import { type Probe, status } from '../probe.ts';

/**
 * Probes of the mutants of fixtures/mutants/quotes/rate.ts (Q-RATE): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

export const RATE_PROBES: Record<string, Probe> = {
  'rate-limit-not-enforced': async (t) => {
    const headers = { 'x-api-key': await t.quoteKey({ rps: 1 / 60 }) };
    await t.quotes('/api/v1/info', { headers });
    return status(await t.quotes('/api/v1/info', { headers }));
  },
  'rate-limited-without-retry-after': async (t) => {
    const headers = { 'x-api-key': await t.quoteKey({ rps: 1 / 60 }) };
    await t.quotes('/api/v1/info', { headers });
    return (await t.quotes('/api/v1/info', { headers })).headers['retry-after'] !== undefined;
  },
  'rate-limit-at-rps-times-30': async (t) => {
    const key = await t.quoteKey({ rps: 1 });
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push(status(await t.quotes('/api/v1/info', { headers: { 'x-api-key': key } })));
    return statuses.at(-1);
  },
  'discovery-calls-not-metered': async (t) => {
    const key = await t.quoteKey({ monthlyAllowance: 1 });
    await t.quotes('/api/v1/info', { headers: { 'x-api-key': key } });
    return status(await t.quotes('/api/v1/venues', { headers: { 'x-api-key': key } }));
  },
  'allowance-exhausted-answered-rate-limited': async (t) => {
    const headers = { 'x-api-key': await t.quoteKey({ monthlyAllowance: 1 }) };
    await t.quotes('/api/v1/info', { headers });
    return (await t.quotes('/api/v1/info', { headers })).body;
  },
  'limits-per-key-not-pooled': async (t) => {
    const first = await t.provision<{ apiKey: string; organizationId: string }>('POST', '/quote-keys', { monthlyAllowance: 1 });
    const second = await t.provision<{ apiKey: string }>('POST', '/quote-keys', { organizationId: first.organizationId });
    await t.quotes('/api/v1/info', { headers: { 'x-api-key': first.apiKey } });
    return status(await t.quotes('/api/v1/info', { headers: { 'x-api-key': second.apiKey } }));
  },
  'rate-limit-429-without-body': async (t) => {
    const headers = { 'x-api-key': await t.quoteKey({ rps: 1 / 60 }) };
    await t.quotes('/api/v1/info', { headers });
    return (await t.quotes('/api/v1/info', { headers })).body;
  },
};
