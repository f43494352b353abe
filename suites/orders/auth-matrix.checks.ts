import { randomUUID } from 'node:crypto';
import { listOperations, type OperationInfo } from '../../generators/index.ts';
import { dataOf, is2xx } from '../harness/answers.ts';
import { defineCheck, type Check, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { isObject, randomToken } from '../shared/values.ts';
import { SetupFailed } from '../harness/failure.ts';
import { isSafeMethod, sendsUnsafeRequests } from '../harness/safe-methods.ts';
import { intentUser, type OrderType } from './orders.ts';
import type { SiwsEnvironment } from './siws.ts';
import { CREDENTIAL_STATES, type CredentialState, keyInState, PARTNER_READ } from './steps/auth.ts';
import { expectErrorEnvelope } from './steps/expect.ts';
import { ordersOfEveryType } from './steps/reads.ts';
import {
  correctBody,
  onboardedUser,
  otherTenantKey,
  postOnboard,
  rateLimited,
  servedRequest,
  throwawayWallet,
  validateAgainstSpec,
} from './users.ts';
import { specRule, type RuleId } from '../../generators/vocabulary.ts';

/**
 * The auth matrix (Authentication 3 and Errors, Auth and tenancy): every operation of the orders spec, each way a
 * request can miss its credentials.
 *
 * Every operation is judged. The document defines each of them, so a target serves each: a `404 NOT_FOUND` is never
 * taken for "not served" from an error answer (a target answering 404 where the Errors table gives 401 UNAUTHORIZED
 * fails the rule). After a 404 that fails, the failure says whether the operation answers a valid request at all: a
 * target that does not serve it is reported so, and does not pass.
 *
 * Path ids. A random id answers 404 on a served route once auth passed, so a target that skipped auth on it would
 * answer 404 where the rule wants 401: still a failure, but a vaguer one. GET operations therefore take real order ids where the tenant has orders (its partner report,
 * read once per check; nothing is created), and the cross-tenant check uses the orders it creates itself. Writes keep
 * random ids in the matrix: a probe never acts on a real order it did not create.
 *
 * Writes are probed in `full` only: a rejected POST still creates a record on a target whose auth is broken, so
 * `readonly` judges the GET operations (suites/harness/safe-methods.ts).
 */

type Tier = 'partner-only' | 'user-scoped';

/** Query parameter names a careless service might read a key from. */
const KEY_QUERY_NAMES = ['X-Service-Key', 'x-service-key', 'serviceKey', 'apiKey', 'api_key', 'key', 'token'];

interface MatrixOperation {
  op: OperationInfo;
  tier: Tier;
  /** The concrete path: a real order id where one is given for the path's order type, else a random UUID. */
  path: string;
}

/** Real order ids by type, for the path ids of the matrix. */
type OrderIds = Partial<Record<OrderType, string>>;

/** The order type a path's id must have: the per-type routes name it; any order does for the others. */
const PATH_TYPES: ReadonlyArray<[string, OrderType]> = [
  ['/dca/', 'dca'],
  ['/stop-loss/', 'stop_loss'],
  ['/take-profit/', 'take_profit'],
  ['/oco/', 'oco'],
  ['/slice/', 'slice'],
];

function orderIdFor(path: string, ids: OrderIds): string | undefined {
  const type = PATH_TYPES.find(([prefix]) => path.startsWith(prefix))?.[1];
  return type ? ids[type] : Object.values(ids)[0];
}

/**
 * Every non-public operation of the orders spec, with its tier from the spec's security alternatives. `ids` fill the
 * path ids of GET operations (of every operation with `writes`), random UUIDs the rest.
 */
function matrixOperations(ids: OrderIds = {}, { writes = false } = {}): MatrixOperation[] {
  return listOperations('orders')
    .filter((op) => op.security.includes('serviceKey'))
    .map((op) => ({
      op,
      tier: op.securityAlternatives.some((alt) => alt.includes('serviceUser')) ? 'user-scoped' : 'partner-only',
      path: op.path.replace(/\{[^}]+\}/g, () => ((writes || op.method === 'GET') && orderIdFor(op.path, ids)) || randomUUID()),
    }));
}

/** One order id of each type in the tenant's partner report (read with the run's key; nothing is created). */
async function reportedOrderIds(t: CheckContext): Promise<OrderIds> {
  const ex = await t.orders.request({ path: PARTNER_READ, headers: { 'X-Service-User': undefined }, validate: false });
  rateLimited(ex);
  const rows =
    is2xx(ex) && isObject(ex.response.body) && Array.isArray(ex.response.body.data) ? ex.response.body.data.filter(isObject) : [];
  const ids: OrderIds = {};
  for (const row of rows) if (typeof row.id === 'string' && typeof row.orderType === 'string') ids[row.orderType as OrderType] ??= row.id;
  t.note(
    Object.keys(ids).length > 0
      ? `GET path ids: real orders of the tenant (${Object.keys(ids).join(', ')})`
      : "GET path ids: random (the tenant's report lists no order)",
  );
  return ids;
}

function codeOf(ex: Exchange): unknown {
  const b = ex.response.body;
  return isObject(b) && isObject(b.error) ? b.error.code : undefined;
}

function isNotFound(ex: Exchange): boolean {
  return ex.response.status === 404 && codeOf(ex) === 'NOT_FOUND';
}

/** Send one probe; the spec check is done by the matrix itself (a 404 of an unserved route is not judged). */
async function probe(
  t: CheckContext,
  m: MatrixOperation,
  headers: Record<string, string | undefined>,
  query?: Record<string, string>,
): Promise<Exchange> {
  const withBody = m.op.method === 'POST' || m.op.method === 'PATCH';
  const ex = await t.orders.request({
    method: m.op.method,
    path: m.path,
    query,
    headers,
    json: withBody ? {} : undefined,
    retry: false,
    validate: false,
    operationId: m.op.operationId,
  });
  rateLimited(ex);
  return ex;
}

interface MatrixCase {
  name: string;
  rule: RuleId;
  tiers: readonly Tier[];
  documented: string;
  headers(t: CheckContext): Record<string, string | undefined>;
  /** Query parameters of the probe (none by default). */
  query?(t: CheckContext): Record<string, string>;
  /** Does the answer hold? */
  holds(ex: Exchange): boolean;
  /** Is this answer one the rule speaks about, so that the response shape is checked too? */
  authAnswer: boolean;
}

function rejects(status: number, code: string) {
  return (ex: Exchange) => ex.response.status === status && codeOf(ex) === code;
}

/** What a sweep asserts on each operation it judges. */
interface Judgement {
  rule: RuleId;
  documented: string;
  holds(ex: Exchange): boolean;
  authAnswer: boolean;
}

/** A sub onboarded by this check, for the valid requests of servedAtAll (full only: onboarding is a write). */
const validSubs = new WeakMap<CheckContext, string | null>();

async function validSub(t: CheckContext): Promise<string | undefined> {
  if (!validSubs.has(t)) {
    const sub = randomToken('conformance-sub');
    const ex = await servedRequest(t, {
      method: 'POST',
      path: '/partner/onboard',
      json: await correctBody(t, sub, throwawayWallet()),
      headers: { 'X-Service-User': undefined },
      validate: false,
    });
    validSubs.set(t, is2xx(ex) ? sub : null);
  }
  return validSubs.get(t) ?? undefined;
}

/**
 * Whether the target serves `m` at all, asked after a `404 NOT_FOUND` that fails the rule: the same operation with
 * every credential its tier needs (a user-scoped one as a user this check onboards; readonly cannot onboard one).
 */
async function servedAtAll(t: CheckContext, m: MatrixOperation): Promise<string> {
  let headers: Record<string, string | undefined> = { 'X-Service-Key': t.env.credentials.ordersApiKey, 'X-Service-User': undefined };
  if (m.tier === 'user-scoped') {
    if (!sendsUnsafeRequests(t.env.profile)) return 'not asked: the readonly profile onboards no user, so no valid request can be sent';
    const sub = await validSub(t);
    if (!sub) return 'not asked: onboarding a user for a valid request failed';
    headers = { ...headers, 'X-Service-User': sub };
  }
  const valid = await probe(t, m, headers);
  if (!isNotFound(valid)) return `yes: a valid request answers ${valid.response.status} ${String(codeOf(valid) ?? '')}`.trimEnd();
  return '404' in m.op.responses
    ? `unknown: a valid request with this path id answers 404 NOT_FOUND too (the id may not exist)`
    : `no: a valid request answers 404 NOT_FOUND too: the target does not serve ${m.op.method} ${m.op.path}, an operation the document defines`;
}

/**
 * Send `send(m)` for each operation and judge the answer. Every operation of the document is one a target serves:
 * a `404 NOT_FOUND` is judged like any other answer, never taken for "not served" (a 404 where the Errors table gives
 * 401 fails the rule). After such a 404 the failure says whether the target serves the operation to a valid request.
 */
async function judgeEach(
  t: CheckContext,
  ops: readonly MatrixOperation[],
  j: Judgement,
  send: (m: MatrixOperation) => Promise<Exchange>,
): Promise<void> {
  if (ops.length === 0) t.skip('this profile probes none of the operations this rule covers');
  for (const m of ops) {
    const ex = await send(m);
    const holds = j.holds(ex);
    const served = !holds && isNotFound(ex) ? { servedAtAll: await servedAtAll(t, m) } : {};
    t.expect(j.rule, holds, {
      documented: `${m.op.method} ${m.op.path} (${m.tier}): ${j.documented}`,
      received: { status: ex.response.status, code: codeOf(ex) ?? '(none)', ...served },
      exchange: ex,
    });
    if (j.authAnswer) {
      expectErrorEnvelope(t, ex);
      // Auth answers are checked against the spec as the harness would (OA-SHAPE-001 and the x-rules below it).
      validateAgainstSpec(t, m.op.operationId, ex, specRule(m.op.rule));
    }
  }
  t.note(`${ops.length} operation(s) judged`);
}

function matrixCheck(c: MatrixCase): Check {
  return defineCheck({
    name: c.name,
    service: 'orders',
    rules: c.authAnswer ? [c.rule, 'OA-ENV-002'] : [c.rule],
    profile: 'readonly',
    async run(t: CheckContext) {
      if (!t.env.credentials.ordersApiKey) t.skip("no ORDERS_API_KEY for this run: the matrix needs the run's valid key");
      const all = matrixOperations(await reportedOrderIds(t)).filter((o) => c.tiers.includes(o.tier));
      const ops = sendsUnsafeRequests(t.env.profile) ? all : all.filter((o) => isSafeMethod(o.op.method));
      if (ops.length < all.length)
        t.note(
          `${all.length - ops.length} write operation(s) not probed: the ${t.env.profile} profile sends safe methods only (full probes them)`,
        );
      await judgeEach(t, ops, c, (m) => probe(t, m, c.headers(t), c.query?.(t)));
    },
  });
}

export const authMatrix: Check[] = [
  matrixCheck({
    name: 'every-operation-rejects-a-missing-key-with-401-invalid-api-key',
    rule: 'OA-AUTH-001',
    tiers: ['partner-only', 'user-scoped'],
    authAnswer: true,
    documented: 'no X-Service-Key (and no X-Service-User): 401 INVALID_API_KEY',
    headers: () => ({ 'X-Service-Key': undefined, 'X-Service-User': undefined }),
    holds: rejects(401, 'INVALID_API_KEY'),
  }),
  matrixCheck({
    name: 'every-operation-rejects-an-unknown-key-with-401-invalid-api-key',
    rule: 'OA-AUTH-002',
    tiers: ['partner-only', 'user-scoped'],
    authAnswer: true,
    documented: 'an unknown X-Service-Key: 401 INVALID_API_KEY',
    headers: () => ({ 'X-Service-Key': randomToken('unknown-service-key'), 'X-Service-User': undefined }),
    holds: rejects(401, 'INVALID_API_KEY'),
  }),
  matrixCheck({
    name: 'every-operation-rejects-an-empty-key-with-401-invalid-api-key',
    rule: 'OA-AUTH-017',
    tiers: ['partner-only', 'user-scoped'],
    authAnswer: true,
    documented: 'an empty X-Service-Key (and no X-Service-User): 401 INVALID_API_KEY',
    headers: () => ({ 'X-Service-Key': '', 'X-Service-User': undefined }),
    holds: rejects(401, 'INVALID_API_KEY'),
  }),
  matrixCheck({
    name: 'every-operation-rejects-the-key-sent-as-a-query-parameter-with-401-invalid-api-key',
    rule: 'OA-AUTH-017',
    tiers: ['partner-only', 'user-scoped'],
    authAnswer: true,
    documented:
      "the run's valid key in the query string (X-Service-Key, apiKey, api_key, key, ...) and no X-Service-Key header: 401 INVALID_API_KEY",
    headers: () => ({ 'X-Service-Key': undefined, 'X-Service-User': undefined }),
    query: (t) => Object.fromEntries(KEY_QUERY_NAMES.map((name) => [name, t.env.credentials.ordersApiKey ?? ''])),
    holds: rejects(401, 'INVALID_API_KEY'),
  }),
  matrixCheck({
    name: 'every-user-scoped-operation-rejects-a-missing-user-with-401-unauthorized',
    rule: 'OA-AUTH-005',
    tiers: ['user-scoped'],
    authAnswer: true,
    documented: 'a valid X-Service-Key and no X-Service-User: 401 UNAUTHORIZED',
    headers: (t) => ({ 'X-Service-Key': t.env.credentials.ordersApiKey, 'X-Service-User': undefined }),
    holds: rejects(401, 'UNAUTHORIZED'),
  }),
  matrixCheck({
    name: 'every-user-scoped-operation-rejects-a-never-onboarded-user-with-401-unauthorized',
    rule: 'OA-AUTH-006',
    tiers: ['user-scoped'],
    authAnswer: true,
    documented: 'a valid X-Service-Key and an X-Service-User that was never onboarded: 401 UNAUTHORIZED',
    headers: (t) => ({ 'X-Service-Key': t.env.credentials.ordersApiKey, 'X-Service-User': randomToken('never-onboarded') }),
    holds: rejects(401, 'UNAUTHORIZED'),
  }),
  matrixCheck({
    name: 'every-user-scoped-operation-rejects-a-user-without-key-with-401-invalid-api-key',
    rule: 'OA-AUTH-013',
    tiers: ['user-scoped'],
    authAnswer: true,
    documented: 'X-Service-User but no X-Service-Key: 401 INVALID_API_KEY',
    headers: () => ({ 'X-Service-Key': undefined, 'X-Service-User': randomToken('some-user') }),
    holds: rejects(401, 'INVALID_API_KEY'),
  }),
  matrixCheck({
    name: 'partner-only-operations-never-require-a-user',
    rule: 'OA-AUTH-012',
    tiers: ['partner-only'],
    authAnswer: false,
    // Any answer but an auth rejection: the minimal body `{}` may well be a 400, a random id a 404.
    documented: 'a valid X-Service-Key alone is never answered 401 UNAUTHORIZED (nor any 401/403 auth rejection)',
    headers: (t) => ({ 'X-Service-Key': t.env.credentials.ordersApiKey, 'X-Service-User': undefined }),
    holds: (ex) => ex.response.status !== 401 && ex.response.status !== 403,
  }),
];

/**
 * Each key and tenant state of Errors, Auth and tenancy on every operation of the matrix, POST /partner/onboard
 * included: one fresh tenant per state, one request per operation. A user is onboarded on the tenant while it is
 * active, and user-scoped requests name it, so the only failing fact is the key's or the tenant's state (the document
 * orders no precedence between a bad key and an unknown user). A tenant with no record cannot have onboarded users:
 * `not-provisioned` is tried on the partner-only operations only.
 */
function keyStateSweep(s: CredentialState): Check {
  return defineCheck({
    name: `on-every-operation-${s.slug}`,
    service: 'orders',
    rules: [s.rule, 'OA-ENV-002'],
    profile: 'full',
    needs: ['tenants'],
    async run(t: CheckContext) {
      const tenant = await t.control.createTenant();
      const withUser = s.tenant !== 'not-provisioned';
      const sub = randomToken('conformance-sub');
      if (withUser) {
        const body = await correctBody(t, sub, throwawayWallet(), { environment: tenant.environment as SiwsEnvironment });
        const onboard = await postOnboard(t, body, tenant.apiKey);
        if (!is2xx(onboard))
          throw new SetupFailed(
            `onboarding on the fresh tenant answered ${onboard.response.status} ${JSON.stringify(onboard.response.body)}`,
            onboard,
          );
      }
      const key = await keyInState(t, tenant, s);
      const ops = matrixOperations().filter((m) => withUser || m.tier === 'partner-only');
      await judgeEach(
        t,
        ops,
        {
          rule: s.rule,
          documented: `${s.status} ${s.code} (${s.key ? `a ${s.key} key` : `a ${s.tenant} tenant`})`,
          holds: rejects(s.status, s.code),
          authAnswer: true,
        },
        (m) => probe(t, m, { 'X-Service-Key': key, 'X-Service-User': m.tier === 'user-scoped' ? sub : undefined }),
      );
    },
  });
}

export const keyStateSweeps: Check[] = CREDENTIAL_STATES.map(keyStateSweep);

export const subsAreScopedToTheirTenant = defineCheck({
  name: 'a-sub-onboarded-by-another-tenant-is-rejected-on-every-user-scoped-operation',
  service: 'orders',
  // X-Service-User is the partner's own id for its user (Authentication, headers): for another partner that sub
  // was never onboarded, so no operation may reach the first partner's user through it.
  rules: ['OA-AUTH-016', 'OA-ENV-002'],
  profile: 'full',
  async run(t: CheckContext) {
    // The run's tenant onboards the user; with `funding` it gets an order of each type, whose real ids go in the
    // paths: a route that resolved the sub across tenants would then answer that order, not 404 for a random id.
    const user = await intentUser(t, t.control.has('funding'));
    const ids: OrderIds = {};
    if (t.control.has('funding')) for (const o of await ordersOfEveryType(t, user)) ids[o.order.orderType as OrderType] ??= o.orderId;
    else
      t.note('path ids: random (the target cannot fund orders), so routes with an order id are judged only if they answer other than 404');
    const other = await otherTenantKey(t);
    if (other.alt) {
      // ORDERS_API_KEY_ALT's tenant may have onboarded a user of the same sub on its own: then nothing can be judged.
      const me = await probe(t, matrixOperations().find((m) => m.op.path === '/me')!, {
        'X-Service-Key': other.apiKey,
        'X-Service-User': user.sub,
      });
      if (is2xx(me) && dataOf(me)?.userId !== user.userId)
        t.skip(`the ORDERS_API_KEY_ALT tenant has a user of its own with sub ${user.sub}`);
    }
    // Every answer is judged, a 404 too: the sub is unknown to the other tenant, which the Errors table answers 401.
    let judged = 0;
    for (const m of matrixOperations(ids, { writes: true }).filter((o) => o.tier === 'user-scoped')) {
      const ex = await probe(t, m, { 'X-Service-Key': other.apiKey, 'X-Service-User': user.sub });
      judged++;
      t.expect('OA-AUTH-016', ex.response.status === 401 && codeOf(ex) === 'UNAUTHORIZED', {
        documented: `${m.op.method} ${m.path} with another tenant's key and sub ${user.sub} (onboarded on the run's tenant only): 401 UNAUTHORIZED`,
        received: { status: ex.response.status, code: codeOf(ex) ?? '(none)', body: ex.response.body },
        exchange: ex,
      });
      expectErrorEnvelope(t, ex);
    }
    t.note(`${judged} operation(s) judged${other.alt ? ' (the other tenant: ORDERS_API_KEY_ALT)' : ''}`);
  },
});

export const missingUserIsNoTenantUser = defineCheck({
  name: 'a-user-scoped-request-without-x-service-user-is-rejected-when-the-tenant-has-users',
  service: 'orders',
  // The matrix probes OA-AUTH-005 too, but a tenant with no user cannot show a request served as one of its users.
  rules: ['OA-AUTH-005', 'OA-ENV-002'],
  profile: 'full',
  async run(t: CheckContext) {
    await onboardedUser(t);
    const ex = await servedRequest(t, { path: '/me', headers: { 'X-Service-User': undefined } });
    t.expect('OA-AUTH-005', ex.response.status === 401 && codeOf(ex) === 'UNAUTHORIZED', {
      documented: "GET /me with the run's key, whose tenant has an onboarded user, and no X-Service-User: 401 UNAUTHORIZED",
      received: { status: ex.response.status, code: codeOf(ex) ?? '(none)', body: ex.response.body },
      exchange: ex,
    });
    expectErrorEnvelope(t, ex);
  },
});
