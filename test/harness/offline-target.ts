/**
 * A target no request reaches (a closed loopback port), for running checks in process whose verdict comes from what
 * they do, not from a server; and the run information of such a run, for buildMatrix.
 */
import type { RunInfo } from '../../suites/harness/matrix.ts';
import type { TargetEnv } from '../../suites/harness/types.ts';

export const OFFLINE_ENV: TargetEnv = {
  ordersUrl: 'http://127.0.0.1:9',
  quotesUrl: 'http://127.0.0.1:9',
  capabilities: [],
  credentials: {},
  profile: 'readonly',
  seed: 1,
  numRuns: 5,
  strict: false,
  timeoutMs: 1000,
  maxRps: 0,
  expectedProviders: 2,
};

export const OFFLINE_RUN: RunInfo = {
  startedAt: 'a',
  finishedAt: 'b',
  profile: 'readonly',
  seed: 1,
  strict: false,
  specHashes: {},
  target: { ordersUrl: 'o', quotesUrl: 'q', capabilities: [], embedded: false },
};
