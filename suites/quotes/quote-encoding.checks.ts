/**
 * The quote response in its two key-path encodings. JSON with `Accept: application/json`, MessagePack when Accept
 * is omitted or asks for it; `d` is base64 in JSON and raw bytes in MessagePack; everything else is the same value.
 *
 * What can be compared between two quote requests: a quote is computed against the chain at the time of the call,
 * so two calls with the same input may legitimately differ in `id` (per request), `contextSlot` and step slots
 * (the chain moved), `timeTakenNs`, expiry, prices ("at quote time"), amounts and instructions (pool state moved or
 * a provider re-priced), and even in which providers quote ("Not every provider appears in every response"). The
 * document makes no quote answer stable, so the suite compares exactly only what the request determines — the
 * echoes (inputMint, outputMint, amount) and the mints' decimals — and, for every field present in both answers,
 * that it decodes to the same kind of value (a u64 number and its digit string are the same kind). MessagePack-
 * specific forms are checked on the raw decoded body: `d` is binary, public keys are base58 strings or their 32 raw
 * bytes (the other checks read such a key as its base58 string, msgpack-keys.ts).
 */
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { deepEqual, isObject } from '../shared/values.ts';
import {
  JSON_TYPE,
  MSGPACK_TYPE,
  Judge,
  QUOTE_PATH,
  discover,
  maxNumQuotes,
  queryString,
  quoteParams,
  routesOf,
  type QuoteParams,
} from './quote-support.ts';
import { describeKeyForms, keyForms, keysOf } from './msgpack-keys.ts';
import { quote } from './samples.ts';

/**
 * The kind of a decoded value. A number and a numeric string are one kind (u64 travels as either in JSON, and the
 * type of the USD prices is not given); null is compatible with anything (a step contextSlot or a price may be null
 * in one call and set in the next).
 */
function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return 'numeric';
  if (typeof v === 'string' && /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(v)) return 'numeric-or-string';
  return typeof v;
}

function sameKind(a: unknown, b: unknown): boolean {
  const ka = kind(a);
  const kb = kind(b);
  if (ka === kb || ka === 'null' || kb === 'null') return true;
  const pair = new Set([ka, kb]);
  return pair.has('numeric-or-string') && (pair.has('numeric') || pair.has('string'));
}

/** The first path where the two values hold different kinds of value (fields present in both; arrays up to the shorter). */
function kindDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (!sameKind(a, b)) return `${path || '/'}: ${kind(a)} vs ${kind(b)}`;
  if (isObject(a) && isObject(b)) {
    for (const k of Object.keys(a)) {
      if (!(k in b)) continue;
      const diff = kindDifference(a[k], b[k], `${path}/${k}`);
      if (diff) return diff;
    }
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const diff = kindDifference(a[i], b[i], `${path}/${i}`);
      if (diff) return diff;
    }
  }
  return undefined;
}

const DETERMINED = ['inputMint', 'outputMint', 'amount', 'metadata.inputMintDecimals', 'metadata.outputMintDecimals'];

function valueAt(v: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((cur, k) => (isObject(cur) ? cur[k] : undefined), v);
}

export const quoteEncodingsAgree = defineCheck({
  name: 'quote-json-and-msgpack-encodings-agree-on-what-the-request-determines',
  service: 'quotes',
  rules: ['Q-ENC-004', 'Q-ENC-001', 'Q-ENC-002', 'Q-ENC-003'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const params: QuoteParams = quoteParams({ numQuotes: maxNumQuotes(d), includeAltContents: true });
    const json = await quote(t, j, d, params, { accept: JSON_TYPE });
    const packed = await quote(t, j, d, params, { accept: null });
    const asked = await quote(t, j, d, params, { accept: MSGPACK_TYPE });
    if (json.status !== 200 && packed.status !== 200) t.skip(`the pair was not routed (${json.status}, ${packed.status})`);
    t.expect('Q-ENC-001', json.ex.response.mediaType === JSON_TYPE && !json.ex.response.decodeError, {
      documented: 'the quote with Accept: application/json is JSON',
      received: json.ex.response.headers['content-type'],
      exchange: json.ex,
    });
    t.expect('Q-ENC-002', packed.ex.response.mediaType === MSGPACK_TYPE && !packed.ex.response.decodeError, {
      documented: 'the quote without Accept is MessagePack',
      received: packed.ex.response.headers['content-type'],
      exchange: packed.ex,
    });
    t.expect('Q-ENC-003', asked.ex.response.mediaType === MSGPACK_TYPE && !asked.ex.response.decodeError, {
      documented: 'the quote with Accept: application/vnd.msgpack is MessagePack',
      received: asked.ex.response.headers['content-type'],
      exchange: asked.ex,
    });
    for (const other of [packed, asked]) {
      if (json.status !== 200 || other.status !== 200) continue;
      for (const path of DETERMINED) {
        const a = valueAt(json.body, path);
        const b = valueAt(other.body, path);
        t.expect('Q-ENC-004', deepEqual(a, b), {
          documented: `${path} is the same value in JSON and MessagePack (it is determined by the request)`,
          received: { json: a, msgpack: b },
          exchange: other.ex,
        });
      }
      const diff = kindDifference(json.body, other.body);
      t.expect('Q-ENC-004', diff === undefined, {
        documented:
          'every field present in both encodings decodes to the same kind of value (d: base64 vs bytes; u64: number vs digit string)',
        received: diff,
        exchange: other.ex,
      });
    }
  },
});

function rawRoutes(body: unknown): Array<[string, Record<string, unknown>]> {
  return routesOf(body);
}

export const instructionDataIsBinaryInMsgpack = defineCheck({
  name: 'instruction-data-is-bytes-in-msgpack-and-base64-in-json',
  service: 'quotes',
  rules: ['Q-ENC-005'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const params = quoteParams({ numQuotes: maxNumQuotes(d) });
    const packed = await quote(t, j, d, params, { accept: null });
    const json = await quote(t, j, d, params, { accept: JSON_TYPE });
    if (packed.status !== 200 || packed.ex.response.mediaType !== MSGPACK_TYPE)
      t.skip(`no MessagePack quote to look at (${packed.status} ${packed.ex.response.mediaType ?? ''})`);
    for (const [provider, route] of rawRoutes(packed.ex.response.body)) {
      for (const [i, ix] of (Array.isArray(route.instructions) ? route.instructions : []).entries()) {
        const data = isObject(ix) ? ix.d : undefined;
        t.expect('Q-ENC-005', data instanceof Uint8Array, {
          documented: `quotes.${provider}.instructions[${i}].d is raw bytes (a MessagePack bin) in MessagePack`,
          received: typeof data === 'string' ? `a string: ${data.slice(0, 40)}` : typeof data,
          exchange: packed.ex,
        });
      }
    }
    if (json.status !== 200) return;
    for (const [provider, route] of rawRoutes(json.body)) {
      for (const [i, ix] of (Array.isArray(route.instructions) ? route.instructions : []).entries()) {
        const data = isObject(ix) ? ix.d : undefined;
        t.expect('Q-ENC-005', typeof data === 'string' && /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(data), {
          documented: `quotes.${provider}.instructions[${i}].d is a base64 string in JSON`,
          received: data,
          exchange: json.ex,
        });
      }
    }
  },
});

/**
 * Public keys on the wire (Q-ENC-006, Q-ENC-009): in MessagePack a base58 string or the key's 32 raw bytes at every
 * key position (msgpack-keys.ts), in JSON a base58 string. The quote and the venues (programIds) are looked at in both
 * encodings, and on the distributor path when the run has one; which form each MessagePack answer uses is reported.
 */
export const publicKeysAreBase58OrTheirBytes = defineCheck({
  name: 'public-keys-are-base58-strings-or-32-byte-binaries-in-msgpack-and-base58-strings-in-json',
  service: 'quotes',
  rules: ['Q-ENC-006', 'Q-ENC-009'],
  profile: 'readonly',
  async run(t: CheckContext) {
    const d = await discover(t);
    const j = new Judge(t);
    const params = quoteParams({ numQuotes: maxNumQuotes(d), includeAltContents: true });
    const venues = { path: '/api/v1/venues', query: { includeProgramIds: true } };
    const answers: Array<{ ex: Exchange; what: string }> = [];
    for (const accept of [MSGPACK_TYPE, JSON_TYPE]) {
      answers.push({ ex: (await quote(t, j, d, params, { accept })).ex, what: `the quote (Accept: ${accept})` });
      answers.push({ ex: await t.quotes.request({ ...venues, headers: { accept } }), what: `the venues (Accept: ${accept})` });
    }
    if (t.gateway) {
      const gd = await discover(t, t.gateway);
      answers.push({ ex: (await quote(t, j, gd, params, { client: t.gateway })).ex, what: "the distributor path's quote" });
      answers.push({ ex: await t.gateway.request(venues), what: "the distributor path's venues" });
    }
    const judged = answers.filter(
      ({ ex }) => ex.response.status === 200 && (ex.response.mediaType === MSGPACK_TYPE || ex.response.mediaType === JSON_TYPE),
    );
    if (!judged.some(({ ex }) => ex.response.mediaType === MSGPACK_TYPE && keysOf(ex.response.body).length > 0)) {
      t.skip(
        `no MessagePack answer with public keys to look at (${answers.map(({ ex }) => `${ex.response.status} ${ex.response.mediaType ?? ''}`).join(', ')})`,
      );
    }
    for (const { ex, what } of judged) {
      const msgpack = ex.response.mediaType === MSGPACK_TYPE;
      const { forms, malformed } = keyForms(ex.response.body);
      t.expect('Q-ENC-006', malformed.length === 0, {
        documented: msgpack
          ? `every public key of ${what} in MessagePack is a base58 string or a 32-byte binary (the bytes of the key)`
          : `every public key of ${what} in JSON is a base58 string`,
        received: malformed.slice(0, 5),
        exchange: ex,
      });
      const note = msgpack ? describeKeyForms(forms, what) : undefined;
      if (note) t.note(note);
    }
  },
});

export const otherAcceptValuesAreObserved = defineCheck({
  name: 'quote-encoding-for-other-accept-values-is-reported',
  service: 'quotes',
  rules: ['Q-ENC-007'],
  profile: 'readonly',
  async run(t: CheckContext) {
    // Observed only: the answer is not even validated, since the document gives no outcome for these values.
    for (const accept of ['*/*', 'text/html', 'application/json, application/vnd.msgpack;q=0.5']) {
      const ex = await t.quotes.request({ path: QUOTE_PATH, query: queryString(quoteParams()), headers: { accept }, validate: false });
      const { mediaType, decodeError, status } = ex.response;
      t.note(
        `Accept: ${accept} -> ${status} ${mediaType ?? 'no content-type'}${decodeError ? ` (does not decode as declared: ${decodeError})` : ''}`,
      );
    }
  },
});
