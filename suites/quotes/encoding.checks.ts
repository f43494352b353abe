import { defineCheck, type CheckContext } from '../harness/check.ts';
import { deepEqual, firstDifference, isObject } from '../shared/values.ts';
import { bodyOf } from './quote-support.ts';

const MSGPACK = 'application/vnd.msgpack';
const JSON_TYPE = 'application/json';
/** Endpoints whose answers do not depend on the request order, so both encodings can be compared whole. */
const STABLE_ENDPOINTS = [
  { path: '/api/v1/info' },
  { path: '/api/v1/providers', query: { includeIcons: true } },
  { path: '/api/v1/venues', query: { includeProgramIds: true } },
];

export const acceptJsonGivesJson = defineCheck({
  name: 'accept-json-gives-a-json-body',
  service: 'quotes',
  rules: ['Q-ENC-001'],
  profile: 'readonly',
  async run(t: CheckContext) {
    for (const { path, query } of STABLE_ENDPOINTS) {
      const ex = await t.quotes.request({ path, query, headers: { accept: JSON_TYPE } });
      t.expect('Q-ENC-001', ex.response.status === 200 && ex.response.mediaType === JSON_TYPE && !ex.response.decodeError, {
        documented: `GET ${path} with Accept: ${JSON_TYPE} answers a JSON body with Content-Type ${JSON_TYPE}`,
        received: { status: ex.response.status, contentType: ex.response.headers['content-type'], decodeError: ex.response.decodeError },
        exchange: ex,
      });
    }
  },
});

function msgpackCheck(name: string, accept: string | undefined, rule: 'Q-ENC-002' | 'Q-ENC-003') {
  return defineCheck({
    name,
    service: 'quotes',
    rules: [rule],
    profile: 'readonly',
    async run(t: CheckContext) {
      for (const { path, query } of STABLE_ENDPOINTS) {
        const ex = await t.quotes.request({ path, query, headers: { accept } });
        t.expect(rule, ex.response.status === 200 && ex.response.mediaType === MSGPACK && !ex.response.decodeError, {
          documented: `GET ${path} with ${accept ? `Accept: ${accept}` : 'no Accept header'} answers MessagePack with Content-Type ${MSGPACK}`,
          received: { status: ex.response.status, contentType: ex.response.headers['content-type'], decodeError: ex.response.decodeError },
          exchange: ex,
        });
      }
    },
  });
}

export const omittedAcceptGivesMsgpack = msgpackCheck('omitted-accept-gives-a-msgpack-body', undefined, 'Q-ENC-002');
export const acceptMsgpackGivesMsgpack = msgpackCheck('accept-msgpack-gives-a-msgpack-body', MSGPACK, 'Q-ENC-003');

/** Venue label order is not stable (Q-VEN-003): compare venues as a set of label/program pairs. */
function canonical(path: string, body: unknown): unknown {
  if (path !== '/api/v1/venues' || !isObject(body) || !Array.isArray(body.labels)) return body;
  const ids = Array.isArray(body.programIds) ? body.programIds : [];
  const pairs = body.labels.map((label, i) => `${String(label)}\u0000${String(ids[i] ?? '')}`).sort();
  return { ...body, labels: pairs, programIds: undefined };
}

export const jsonAndMsgpackCarryTheSameValues = defineCheck({
  name: 'json-and-msgpack-encodings-carry-the-same-values',
  service: 'quotes',
  rules: ['Q-ENC-004', 'Q-VEN-003'],
  profile: 'readonly',
  async run(t: CheckContext) {
    for (const { path, query } of STABLE_ENDPOINTS) {
      const json = await t.quotes.request({ path, query, headers: { accept: JSON_TYPE } });
      const packed = await t.quotes.request({ path, query, headers: { accept: MSGPACK } });
      if (json.response.mediaType !== JSON_TYPE || packed.response.mediaType !== MSGPACK) {
        t.skip(
          `GET ${path} did not answer both encodings (${json.response.mediaType}, ${packed.response.mediaType}); Q-ENC-001/003 report that`,
        );
      }
      const a = canonical(path, json.response.body);
      const b = canonical(path, bodyOf(packed));
      t.expect('Q-ENC-004', deepEqual(a, b), {
        documented: `GET ${path} decodes to the same values in JSON and MessagePack`,
        received: firstDifference(a, b),
        exchange: packed,
      });
    }
  },
});
