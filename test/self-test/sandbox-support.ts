/**
 * A target prepared in-process for a self-test with the settings such tests fix (the self-test seed, 5 runs a
 * property, a 10-second timeout, unpaced, two providers, full profile, no credentials) and what the test changes; and
 * the staging-like sandbox's credentials as a partner passes them, their environment names read as the CLI reads them.
 */
import type { RunningServer } from '../../fixtures/server/index.ts';
import { credentialsFromEnv, type PreparedTarget, prepareTarget, type TargetConfig } from '../../suites/harness/target.ts';
import type { Credentials } from '../../suites/harness/types.ts';
import { SELF_TEST_SEED } from './run.ts';

export function prepareSelfTest(config: Pick<TargetConfig, 'ordersUrl' | 'quotesUrl'> & Partial<TargetConfig>): Promise<PreparedTarget> {
  return prepareTarget({
    profile: 'full',
    seed: SELF_TEST_SEED,
    strict: false,
    numRuns: 5,
    timeoutMs: 10_000,
    maxRps: 0,
    expectedProviders: 2,
    credentials: {},
    ...config,
  });
}

/** What the staging-like `server` hands a partner, as run credentials; without the second wallet when `alt` is false. */
export function sandboxCredentials(server: RunningServer, alt = true): Credentials {
  const c = server.credentials;
  if (!c) throw new Error('not a staging-like server: it hands out no credentials');
  return credentialsFromEnv({ ...c, ...(alt ? {} : { TEST_WALLET_SECRET_KEY_ALT: undefined }) });
}
