import { dataOf, is2xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { asUser, onboardedUser } from './users.ts';

/** GET /me (User session and balances; Authentication 6): the identity of the request. */

export const meIsTheOnboardedIdentity = defineCheck({
  name: 'me-returns-the-onboarded-user-id-and-manager-wallet-with-an-empty-session-id',
  service: 'orders',
  rules: ['OA-ME-001', 'OA-ME-002', 'OA-ME-003'],
  profile: 'full',
  async run(t: CheckContext) {
    // Served before anything is created: an absent GET /me skips the check without onboarding anyone.
    await asUser(t, `conformance-probe-${Date.now().toString(36)}`, { path: '/me', validate: false });
    const user = await onboardedUser(t);
    const ex = await asUser(t, user.sub, { path: '/me' });
    const d = dataOf(ex);
    t.expect(
      'OA-ME-001',
      is2xx(ex) && typeof d?.userId === 'string' && typeof d.walletAddress === 'string' && typeof d.sessionId === 'string',
      {
        documented: '2xx with data {userId: string, walletAddress: string, sessionId: string}',
        received: { status: ex.response.status, body: ex.response.body },
        exchange: ex,
      },
    );
    t.expect('OA-ME-002', d.sessionId === '', { documented: 'sessionId is always ""', received: d.sessionId, exchange: ex });
    t.expect('OA-ME-003', d.userId === user.userId && d.walletAddress === user.walletAddress, {
      documented: `the userId ${user.userId} and walletAddress ${user.walletAddress} onboarding returned for sub ${user.sub}`,
      received: { userId: d.userId, walletAddress: d.walletAddress },
      exchange: ex,
    });
  },
});
