/**
 * Why a skipped check was not judged (suites/harness/preconditions.ts skipCause): an answer the preflight already
 * explained (a 401 to the run's own quote key) is that broken precondition, not "nothing to judge on this target";
 * the same answer to another key, or no broken precondition, leaves it the target's.
 */
import { describe, expect, test } from 'vitest';
import type { Exchange } from '../../suites/harness/exchange.ts';
import { skipCause } from '../../suites/harness/preconditions.ts';
import type { TargetEnv } from '../../suites/harness/types.ts';
import { OFFLINE_ENV } from './offline-target.ts';

const KEY = 'qk_the_runs_own_key';

function info(status: number, key: string): Exchange {
  return {
    service: 'quotes',
    request: { method: 'GET', url: 'http://127.0.0.1:9/api/v1/info', headers: { 'x-api-key': key } },
    response: { status, headers: {}, mediaType: 'application/json', body: { error: { code: 'invalid_api_key' } }, raw: Buffer.alloc(0) },
    durationMs: 1,
    attempts: 1,
  };
}

const broken: TargetEnv = {
  ...OFFLINE_ENV,
  credentials: { quotesApiKey: KEY },
  preconditions: [
    {
      id: 'quotes-key',
      problem: 'the quote service refuses QUOTES_API_KEY',
      fix: 'set QUOTES_API_KEY',
      answer: { service: 'quotes', status: 401, credential: 'quotesApiKey' },
    },
  ],
};

describe('skipCause', () => {
  test("a skip on an answer the preflight explained is that precondition's", () => {
    expect(skipCause(broken, 'GET /api/v1/info answered 401', [], info(401, KEY))).toEqual({
      by: 'precondition',
      unjudged: { id: 'quotes-key', problem: 'the quote service refuses QUOTES_API_KEY', fix: 'set QUOTES_API_KEY' },
    });
  });

  test("another key's 401, another status, no broken precondition or no answer: the target's", () => {
    expect(skipCause(broken, 'r', [], info(401, 'another key'))).toEqual({ by: 'target' });
    expect(skipCause(broken, 'r', [], info(403, KEY))).toEqual({ by: 'target' });
    expect(skipCause({ ...broken, preconditions: [] }, 'r', [], info(401, KEY))).toEqual({ by: 'target' });
    expect(skipCause(broken, 'r', [], undefined)).toEqual({ by: 'target' });
  });
});
