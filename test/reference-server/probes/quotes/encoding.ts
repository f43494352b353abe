import { SOL_TO_USDC } from '../../quote-support.ts';
import type { Probe } from '../probe.ts';
import { routes } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/quotes/encoding.ts (Q-ENC): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

export const ENCODING_PROBES: Record<string, Probe> = {
  'msgpack-for-accept-json': async (t) => (await t.keyPath('/api/v1/info', 'application/json')).contentType,
  'json-when-accept-omitted': async (t) => (await t.keyPath('/api/v1/info', null)).contentType,
  'json-for-accept-msgpack': async (t) => (await t.keyPath('/api/v1/info', 'application/vnd.msgpack')).contentType,
  'msgpack-value-differs-from-json': async (t) =>
    JSON.stringify((await t.keyPath('/api/v1/info', null)).body) === JSON.stringify((await t.keyPath('/api/v1/info')).body),
  'instruction-data-base64-in-msgpack': async (t) => {
    const body = (await t.swap(SOL_TO_USDC, null)).body as { quotes: Record<string, { instructions: { d: unknown }[] }> };
    return Object.values(body.quotes).flatMap((r) => r.instructions.map((ix) => ix.d instanceof Uint8Array));
  },
  'msgpack-pubkey-binary-of-31-bytes': async (t) => {
    const body = (await t.swap(SOL_TO_USDC, null)).body as { quotes: Record<string, { steps: { ammKey: unknown }[] }> };
    return Object.values(body.quotes).flatMap((r) =>
      r.steps.map((step) => (step.ammKey instanceof Uint8Array ? step.ammKey.length : typeof step.ammKey)),
    );
  },
  'json-pubkeys-as-base64': async (t) =>
    (await routes(t, SOL_TO_USDC)).flatMap((r) => r.steps.map((step) => /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(step.ammKey))),
};
