import { isObject, type Json } from '../shared/values.ts';
import { KNOWN_MINT_DECIMALS } from './fixtures.ts';
import { describeKeyForms, keyForms } from './msgpack-keys.ts';
import {
  DOCUMENTED_DEFAULTS,
  FULL_ORDER_PPB,
  MSGPACK_TYPE,
  U64_MAX,
  decimal,
  routesOf,
  stepsOf,
  u64,
  type Discovery,
  type Judge,
  type QuoteCall,
} from './quote-support.ts';
import { COMPUTE_BUDGET_PROGRAM, instructionsOf, isPubkey, signerAccounts, uniqueAccounts } from './solana.ts';
import {
  checkAccounts,
  checkReferencePrice,
  checkTokenAccounts,
  type Detail,
  flag,
  integerParam,
  listParam,
  stringParam,
} from './route-params-invariants.ts';
import type { RuleId } from '../../generators/vocabulary.ts';

const ROUTE_U64 = [
  'inAmount',
  'outAmount',
  'contextSlot',
  'computeUnits',
  'computeUnitsSafe',
  'expiresAtMs',
  'expiresAfterSlot',
  'timeTakenNs',
];
const STEP_U64 = ['inAmount', 'outAmount', 'feeAmount', 'contextSlot'];

function isU64(v: unknown): boolean {
  const n = u64(v);
  return n !== undefined && n <= U64_MAX;
}

/** Decimals seen per mint within one check, to cross-check responses against each other (Q-META-005, Q-ERR-007). */
const decimalsSeen = new WeakMap<Judge, Map<string, number>>();

function checkDecimals(j: Judge, rule: RuleId, mint: unknown, value: unknown, detail: Detail): void {
  if (typeof mint !== 'string' || typeof value !== 'number') return;
  const known = KNOWN_MINT_DECIMALS[mint];
  if (known !== undefined) j.must(rule, value === known, detail(`the decimals of mint ${mint} are ${known}`, value));
  let seen = decimalsSeen.get(j);
  if (!seen) decimalsSeen.set(j, (seen = new Map()));
  const before = seen.get(mint);
  if (before === undefined) seen.set(mint, value);
  else j.must(rule, before === value, detail(`mint ${mint} has the same decimals in every response (seen ${before} before)`, value));
}

function priceIsValid(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  const n = decimal(v);
  return n !== undefined && n >= 0;
}

/** Every invariant of a 200 quote answer. */
export function checkQuote(j: Judge, call: QuoteCall, d: Discovery): void {
  const { params, ex } = call;
  const body = call.body;
  const detail = (documented: string, received?: unknown) => ({ documented, received, exchange: ex });
  const inputMint = stringParam(params, 'inputMint');
  const outputMint = stringParam(params, 'outputMint');

  // Quote response.
  const fields = ['id', 'inputMint', 'outputMint', 'amount', 'quotes', 'metadata'];
  j.must(
    'Q-QUOTE-001',
    isObject(body) && fields.every((k) => k in body),
    detail(
      'a quote response object with id, inputMint, outputMint, amount, quotes and metadata',
      isObject(body) ? Object.keys(body) : body,
    ),
  );
  if (!isObject(body)) return;
  checkKeyForms(j, call);
  j.must('Q-QUOTE-002', typeof body.id === 'string' && body.id.trim() !== '', detail('id is a non-empty string', body.id));
  j.must(
    'Q-QUOTE-003',
    body.inputMint === inputMint && body.outputMint === outputMint,
    detail(`inputMint ${inputMint} and outputMint ${outputMint} echo the request`, {
      inputMint: body.inputMint,
      outputMint: body.outputMint,
    }),
  );
  const amount = stringParam(params, 'amount');
  if (amount && /^[0-9]+$/.test(amount)) {
    j.must('Q-QUOTE-004', u64(body.amount) === BigInt(amount), detail(`amount echoes the requested ${amount}`, body.amount));
  }
  j.must(
    'Q-QUOTE-009',
    body.amount === undefined || isU64(body.amount),
    detail('amount is a u64 (integer or digit string, 0 to 2^64-1)', body.amount),
  );
  const quotes = body.quotes;
  j.must(
    'Q-QUOTE-005',
    isObject(quotes),
    detail('quotes is an object keyed by provider id, not an array', Array.isArray(quotes) ? `an array of ${quotes.length}` : quotes),
  );
  if (!isObject(quotes)) return;
  const keys = Object.keys(quotes);
  const unknownKeys = keys.filter((k) => !d.providerIds.includes(k));
  j.must(
    'Q-QUOTE-006',
    unknownKeys.length === 0,
    detail(`every key of quotes is a provider id of /api/v1/providers (${d.providerIds.join(', ')})`, keys),
  );
  j.must('Q-QUOTE-007', keys.length >= 1, detail('a 200 carries at least one route (no route is a 404 code -7)', quotes));
  const missing = d.providerIds.filter((p) => !keys.includes(p));
  if (missing.length > 0) j.note(`Q-QUOTE-008: providers absent from a quote (tolerated): ${missing.join(', ')}`);

  // Lookup table contents.
  const altsRequested = flag(params, 'includeAltContents', false);
  const tables = new Map<string, string[]>();
  const usesTables = routesOf(body).some(([, r]) => Array.isArray(r.addressLookupTables) && r.addressLookupTables.length > 0);
  if (altsRequested && usesTables) {
    j.must(
      'Q-PARAM-042',
      Array.isArray(body.alts),
      detail('includeAltContents=true adds a top-level alts array with the tables the routes use', body.alts ?? '(absent)'),
    );
  } else if (!altsRequested) {
    j.must(
      'Q-PARAM-042',
      body.alts === undefined || body.alts === null,
      detail('no top-level alts without includeAltContents=true', body.alts),
    );
  }
  if (Array.isArray(body.alts)) {
    for (const alt of body.alts) {
      const ok = isObject(alt) && isPubkey(alt.p) && Array.isArray(alt.a) && alt.a.every(isPubkey);
      j.must('Q-QUOTE-010', ok, detail('each alts element is {p: table address, a: [addresses]} with base58 public keys', alt));
      if (ok) tables.set(alt.p as string, alt.a as string[]);
    }
  }

  // metadata.
  const meta = body.metadata;
  j.must(
    'Q-META-001',
    isObject(meta) &&
      typeof meta.ExpectedWinner === 'string' &&
      typeof meta.expectedWinner === 'string' &&
      Number.isInteger(meta.inputMintDecimals) &&
      Number.isInteger(meta.outputMintDecimals),
    detail('metadata carries ExpectedWinner, expectedWinner (strings) and inputMintDecimals, outputMintDecimals (integers)', meta),
  );
  if (isObject(meta)) {
    j.must(
      'Q-META-002',
      meta.ExpectedWinner === meta.expectedWinner,
      detail('ExpectedWinner and expectedWinner have the same value', {
        ExpectedWinner: meta.ExpectedWinner,
        expectedWinner: meta.expectedWinner,
      }),
    );
    j.must(
      'Q-META-003',
      typeof meta.ExpectedWinner === 'string' && keys.includes(meta.ExpectedWinner),
      detail('ExpectedWinner is a key of quotes (clients execute quotes[ExpectedWinner])', { ExpectedWinner: meta.ExpectedWinner, keys }),
    );
    for (const side of ['input', 'output'] as const) {
      const value = meta[`${side}MintDecimals`];
      j.must(
        'Q-META-005',
        value === undefined || (Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 255),
        detail(`${side}MintDecimals is an integer from 0 to 255`, value),
      );
      checkDecimals(j, 'Q-META-005', side === 'input' ? inputMint : outputMint, value, detail);
      j.must(
        'Q-META-006',
        priceIsValid(meta[`${side}PriceUSD`]),
        detail(`${side}PriceUSD is a non-negative decimal, or null/absent when unavailable`, meta[`${side}PriceUSD`]),
      );
    }
    j.must(
      'Q-META-008',
      meta.errors === undefined || meta.errors === null,
      detail('metadata.errors appears only on a no-route failure, never on a 200', meta.errors),
    );
    const winner =
      typeof meta.ExpectedWinner === 'string' && isObject(quotes[meta.ExpectedWinner]) ? (quotes[meta.ExpectedWinner] as Json) : undefined;
    const best = routesOf(body).reduce<bigint | undefined>((m, [, r]) => {
      const out = u64(r.outAmount);
      return out !== undefined && (m === undefined || out > m) ? out : m;
    }, undefined);
    if (winner && best !== undefined && u64(winner.outAmount) !== undefined && (u64(winner.outAmount) as bigint) < best) {
      j.note('Q-META-004: the recommended route is not the one with the largest outAmount (allowed: the winner is slippage-adjusted)');
    }
  }

  // Parameters that bound the whole answer.
  const numQuotes = integerParam(params, 'numQuotes') ?? DOCUMENTED_DEFAULTS.numQuotes;
  j.must('Q-PARAM-005', keys.length <= numQuotes, detail(`at most numQuotes (${numQuotes}) entries in quotes`, keys));
  const providers = listParam(params, 'providers');
  if (providers) {
    j.must(
      'Q-PARAM-007',
      keys.every((k) => providers.includes(k)),
      detail(`with providers=${providers.join(',')} every key of quotes is a listed provider`, keys),
    );
  }

  for (const [provider, route] of routesOf(body)) {
    checkRoute(j, call, d, provider, route, tables);
  }
  const extra = undocumentedFields(body);
  if (extra.length > 0) j.note(`Q-QUOTE-011: the quote carries fields the document does not list (tolerated): ${extra.join(', ')}`);
}

/** The fields the document lists for the quote response, a route and a step. */
const DOCUMENTED_FIELDS = {
  quote: new Set(['id', 'inputMint', 'outputMint', 'amount', 'quotes', 'metadata', 'alts']),
  route: new Set([
    'inAmount',
    'outAmount',
    'slippageBps',
    'steps',
    'instructions',
    'addressLookupTables',
    'contextSlot',
    ...ROUTE_U64,
    'referenceId',
  ]),
  step: new Set(['ammKey', 'label', 'inputMint', 'outputMint', 'inAmount', 'outAmount', 'allocPpb', 'feeMint', 'feeAmount', 'contextSlot']),
};

/** Fields of the answer the document does not list (the real service adds swapMode, priceImpactPct, platformFee, timeTaken). */
function undocumentedFields(body: Json): string[] {
  const found = new Set(Object.keys(body).filter((k) => !DOCUMENTED_FIELDS.quote.has(k)));
  for (const [, route] of routesOf(body)) {
    for (const k of Object.keys(route)) if (!DOCUMENTED_FIELDS.route.has(k)) found.add(`quotes.*.${k}`);
    for (const step of stepsOf(route))
      for (const k of Object.keys(step)) if (!DOCUMENTED_FIELDS.step.has(k)) found.add(`quotes.*.steps.*.${k}`);
  }
  return [...found].sort();
}

/**
 * Public keys as written on the wire (Q-ENC-006): in MessagePack a base58 string or the key's 32 raw bytes, in JSON
 * a base58 string. Which form a MessagePack answer uses is reported (Q-ENC-009); the other checks read binary keys
 * as their base58 strings (bodyOf).
 */
function checkKeyForms(j: Judge, call: QuoteCall): void {
  const { ex } = call;
  const msgpack = ex.response.mediaType === MSGPACK_TYPE;
  const { forms, malformed } = keyForms(ex.response.body);
  j.must('Q-ENC-006', malformed.length === 0, {
    documented: msgpack
      ? 'every public key of a MessagePack answer is a base58 string or a 32-byte binary (the bytes of the key)'
      : 'every public key of a JSON answer is a base58 string',
    received: malformed.slice(0, 5),
    exchange: ex,
  });
  const note = msgpack ? describeKeyForms(forms, `GET ${new URL(ex.request.url).pathname} in MessagePack`) : undefined;
  if (note) j.note(note);
}

/** Every invariant of one route (a value of quotes). */
function checkRoute(j: Judge, call: QuoteCall, d: Discovery, provider: string, route: Json, tables: ReadonlyMap<string, string[]>): void {
  const { params, ex, body } = call;
  const where = `quotes.${provider}`;
  const detail = (documented: string, received?: unknown) => ({ documented: `${where}: ${documented}`, received, exchange: ex });
  const inputMint = stringParam(params, 'inputMint') ?? '';
  const outputMint = stringParam(params, 'outputMint') ?? '';
  const user = stringParam(params, 'userPublicKey') ?? '';

  // Route fields.
  const shapeOk =
    isU64(route.inAmount) &&
    isU64(route.outAmount) &&
    Number.isInteger(route.slippageBps) &&
    (route.slippageBps as number) >= 0 &&
    (route.slippageBps as number) <= 65535 &&
    Array.isArray(route.steps) &&
    Array.isArray(route.instructions) &&
    Array.isArray(route.addressLookupTables) &&
    isU64(route.contextSlot);
  j.must(
    'Q-ROUTE-001',
    shapeOk,
    detail('inAmount, outAmount (u64), slippageBps (u16), steps, instructions, addressLookupTables (arrays), contextSlot (u64)', {
      inAmount: route.inAmount,
      outAmount: route.outAmount,
      slippageBps: route.slippageBps,
      contextSlot: route.contextSlot,
    }),
  );
  // Compute units "vary by provider": absent (or null) is allowed and reported, a value is a u64.
  j.must(
    'Q-ROUTE-002',
    (route.computeUnits == null || isU64(route.computeUnits)) && (route.computeUnitsSafe == null || isU64(route.computeUnitsSafe)),
    detail('computeUnits and computeUnitsSafe are u64 values when present', {
      computeUnits: route.computeUnits,
      computeUnitsSafe: route.computeUnitsSafe,
    }),
  );
  const noUnits = ['computeUnits', 'computeUnitsSafe'].filter((k) => route[k] == null);
  if (noUnits.length > 0) j.note(`Q-ROUTE-017: ${where} carries no ${noUnits.join(' and ')} (tolerated: "varies by provider")`);
  // Optional fields may be null where unset (specs: null counts as absent).
  for (const k of ROUTE_U64) {
    if (route[k] !== undefined && route[k] !== null)
      j.must('Q-QUOTE-009', isU64(route[k]), detail(`${k} is a u64 (integer or digit string, 0 to 2^64-1)`, route[k]));
  }
  j.must(
    'Q-ROUTE-010',
    (route.referenceId == null || typeof route.referenceId === 'string') && (route.timeTakenNs == null || isU64(route.timeTakenNs)),
    detail('referenceId is a string and timeTakenNs a u64 when present', {
      referenceId: route.referenceId,
      timeTakenNs: route.timeTakenNs,
    }),
  );
  for (const k of ['expiresAtMs', 'expiresAfterSlot']) {
    j.must('Q-ROUTE-015', route[k] == null || isU64(route[k]), detail(`${k} is absent (or null) or a u64`, route[k]));
  }
  const expiresAtMs = u64(route.expiresAtMs);
  if (expiresAtMs !== undefined && expiresAtMs < BigInt(Date.now() - 5_000))
    j.note(`Q-ROUTE-016: ${where}.expiresAtMs ${expiresAtMs} lies before the time of the response`);
  const expiresAfterSlot = u64(route.expiresAfterSlot);
  const contextSlot = u64(route.contextSlot);
  if (expiresAfterSlot !== undefined && contextSlot !== undefined && expiresAfterSlot < contextSlot) {
    j.note(`Q-ROUTE-016: ${where}.expiresAfterSlot ${expiresAfterSlot} is below its contextSlot ${contextSlot}`);
  }

  // slippageBps: the requested value is the maximum the route may be built with.
  const slippage = integerParam(params, 'slippageBps') ?? DOCUMENTED_DEFAULTS.slippageBps;
  if (Number.isInteger(route.slippageBps)) {
    j.must(
      'Q-PARAM-004',
      (route.slippageBps as number) <= slippage,
      detail(`slippageBps at most the requested ${slippage}`, route.slippageBps),
    );
    if (route.slippageBps !== slippage) j.note(`${where} was built with slippageBps ${String(route.slippageBps)} (requested ${slippage})`);
  }

  // Steps.
  const steps = stepsOf(route);
  if (Array.isArray(route.steps) && route.steps.length === 0) j.note(`Q-ROUTE-003: ${where} has no steps (a direct fill)`);
  for (const step of Array.isArray(route.steps) ? route.steps : []) {
    const ok =
      isObject(step) &&
      isPubkey(step.ammKey) &&
      typeof step.label === 'string' &&
      step.label !== '' &&
      isPubkey(step.inputMint) &&
      isPubkey(step.outputMint) &&
      isU64(step.inAmount) &&
      isU64(step.outAmount) &&
      'allocPpb' in step;
    j.must('Q-ROUTE-004', ok, detail('each step has ammKey, label, inputMint, outputMint, inAmount, outAmount, allocPpb', step));
    if (!isObject(step)) continue;
    const alloc = step.allocPpb;
    j.must(
      'Q-ROUTE-005',
      Number.isInteger(alloc) && (alloc as number) >= 1 && (alloc as number) <= 1e9,
      detail('allocPpb is an integer from 1 to 1000000000', alloc),
    );
    for (const k of STEP_U64) {
      if (step[k] !== undefined && step[k] !== null) {
        j.must('Q-QUOTE-009', isU64(step[k]), detail(`step ${k} is a u64`, step[k]));
      }
    }
    j.must(
      'Q-ROUTE-010',
      (step.feeMint == null || isPubkey(step.feeMint)) &&
        (step.feeAmount == null || isU64(step.feeAmount)) &&
        (step.contextSlot == null || isU64(step.contextSlot)),
      detail('feeMint (base58), feeAmount (u64) and contextSlot (u64 or null) have their types when present', {
        feeMint: step.feeMint,
        feeAmount: step.feeAmount,
        contextSlot: step.contextSlot,
      }),
    );
    j.must(
      'Q-ROUTE-008',
      typeof step.label === 'string' && d.labels.includes(step.label),
      detail('every step label is a label of /api/v1/venues', { label: step.label, venues: d.labels }),
    );
  }
  if (steps.length > 0) {
    // allocPpb (UNKNOWNS part B): steps are grouped by inputMint; the first hop (the request's inputMint) carries
    // the whole order, split or not. Later hops are observed only (Q-ROUTE-007).
    const groups = new Map<string, bigint>();
    for (const s of steps) {
      if (typeof s.inputMint === 'string' && Number.isInteger(s.allocPpb)) {
        groups.set(s.inputMint, (groups.get(s.inputMint) ?? 0n) + BigInt(s.allocPpb as number));
      }
    }
    const first = groups.get(inputMint);
    if (first !== undefined) {
      j.must(
        'Q-ROUTE-006',
        first === FULL_ORDER_PPB,
        detail(
          `the steps from the request's inputMint have allocPpb summing to ${FULL_ORDER_PPB}`,
          steps.filter((s) => s.inputMint === inputMint).map((s) => ({ label: s.label, allocPpb: s.allocPpb })),
        ),
      );
    }
    for (const [mint, sum] of groups) {
      if (mint !== inputMint && sum !== FULL_ORDER_PPB)
        j.note(`Q-ROUTE-007: ${where}: steps from ${mint} have allocPpb summing to ${sum}, not ${FULL_ORDER_PPB}`);
    }
    const outputs = new Set(steps.map((s) => s.outputMint));
    const connected =
      steps.some((s) => s.inputMint === inputMint) &&
      outputs.has(outputMint) &&
      steps.every((s) => s.inputMint === inputMint || outputs.has(s.inputMint));
    j.must(
      'Q-ROUTE-009',
      connected,
      detail(
        `the steps connect ${inputMint} to ${outputMint}`,
        steps.map((s) => `${String(s.inputMint)} -> ${String(s.outputMint)} (${String(s.label)})`),
      ),
    );

    // Routing restrictions of the request.
    if (flag(params, 'onlyDirectRoutes', false)) {
      j.must(
        'Q-PARAM-016',
        steps.every((s) => s.inputMint === inputMint && s.outputMint === outputMint),
        detail(
          'with onlyDirectRoutes=true every step goes from inputMint to outputMint (single hop)',
          steps.map((s) => `${String(s.inputMint)} -> ${String(s.outputMint)}`),
        ),
      );
    }
    const labels = steps.map((s) => s.label);
    const dexes = listParam(params, 'dexes');
    if (dexes)
      j.must(
        'Q-PARAM-009',
        labels.every((l) => typeof l === 'string' && dexes.includes(l)),
        detail(`with dexes=${dexes.join(',')} every step label is listed`, labels),
      );
    const excluded = listParam(params, 'excludeDexes');
    if (excluded)
      j.must(
        'Q-PARAM-011',
        labels.every((l) => !excluded.includes(l as string)),
        detail(`with excludeDexes=${excluded.join(',')} no step label is listed`, labels),
      );
    const pools = steps.map((s) => s.ammKey);
    const allow = listParam(params, 'venueAllowlist');
    const ban = listParam(params, 'venueBanlist');
    if (allow)
      j.must(
        'Q-PARAM-012',
        pools.every((p) => allow.includes(p as string)),
        detail(`with venueAllowlist every step ammKey is listed (${allow.join(',')})`, pools),
      );
    if (ban) {
      const bannedUsed = pools.filter((p) => ban.includes(p as string));
      const inBoth = allow ? bannedUsed.filter((p) => allow.includes(p as string)) : [];
      if (inBoth.length > 0)
        j.must(
          'Q-PARAM-014',
          false,
          detail('a pool in both venueAllowlist and venueBanlist is never used (the banlist overrides)', inBoth),
        );
      j.must('Q-PARAM-013', bannedUsed.length === 0, detail(`with venueBanlist no step ammKey is listed (${ban.join(',')})`, bannedUsed));
    }
  }

  // Lookup tables.
  const altKeys = Array.isArray(route.addressLookupTables) ? route.addressLookupTables : [];
  j.must('Q-ROUTE-012', altKeys.every(isPubkey), detail('addressLookupTables are base58 lookup table addresses', altKeys));
  if (flag(params, 'includeAltContents', false) && Array.isArray((body as Json).alts)) {
    const uncovered = altKeys.filter((k) => !tables.has(k as string));
    j.must(
      'Q-PARAM-042',
      uncovered.length === 0,
      detail('alts has an entry for every lookup table the route uses', { uncovered, alts: [...tables.keys()] }),
    );
    const accounts = uniqueAccounts(instructionsOf(route) ?? []);
    const idle = altKeys.filter((k) => tables.has(k as string) && !tables.get(k as string)!.some((a) => accounts.has(a)));
    j.must(
      'Q-PARAM-048',
      idle.length === 0,
      detail('the alts contents of every table the route names hold some account of its instructions', { idle, alts: (body as Json).alts }),
    );
  }
  const format = integerParam(params, 'transactionFormat') ?? 0;
  if (format === 1)
    j.must('Q-PARAM-032', altKeys.length === 0, detail('with transactionFormat=1 the route uses no lookup tables', altKeys));

  // Instructions.
  const rawIxs = Array.isArray(route.instructions) ? route.instructions : [];
  j.must('Q-ROUTE-011', rawIxs.length > 0, detail('instructions is a non-empty array', route.instructions));
  const ixs = instructionsOf(route);
  const badIx = rawIxs.find((ix) => instructionsOf({ instructions: [ix] }) === undefined || !isBase64(ix));
  j.must(
    'Q-ROUTE-011',
    ixs !== undefined && badIx === undefined,
    detail('each instruction is {p: base58 program id, a: [{p: base58, s: bool, w: bool}], d: base64 data}', badIx),
  );
  if (!ixs) return;
  if (ixs.some((ix) => ix.p === COMPUTE_BUDGET_PROGRAM)) j.note(`Q-ROUTE-014: ${where} already carries a compute-budget instruction`);
  const signers = signerAccounts(ixs);
  j.must(
    'Q-ROUTE-013',
    signers.has(user),
    detail(`the instructions are built for userPublicKey ${user}: it is a signer account`, [...signers]),
  );
  checkAccounts(j, call, where, route, ixs, tables, format, detail);
  checkTokenAccounts(j, params, where, ixs, { inputMint, outputMint, user }, detail);
  checkReferencePrice(j, call, where, route, detail);
}

function isBase64(ix: unknown): boolean {
  return isObject(ix) && typeof ix.d === 'string' && /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(ix.d);
}

// ---------------------------------------------------------------- 404

/** Every invariant of an engine 404 (key path only: the distributor bodies are not shown). */
export function checkNoRoute(j: Judge, call: QuoteCall, d: Discovery): void {
  const { ex, params } = call;
  const body = call.body;
  const detail = (documented: string, received?: unknown) => ({ documented, received, exchange: ex });
  j.must(
    'Q-ERR-003',
    isObject(body) && body.code === -7 && typeof body.message === 'string' && isObject(body.quoteId) && isObject(body.metadata),
    detail('a no-route 404 is {code: -7, message, quoteId: {kind, tag, seq}, metadata}', body),
  );
  if (!isObject(body)) return;
  const quoteId = body.quoteId;
  const tagOk = isObject(quoteId) && ((typeof quoteId.tag === 'string' && quoteId.tag !== '') || Number.isInteger(quoteId.tag));
  j.must(
    'Q-ERR-004',
    isObject(quoteId) && 'kind' in quoteId && 'seq' in quoteId && tagOk,
    detail('quoteId carries kind, tag and seq, with a tag to quote when reporting an issue', quoteId),
  );
  const meta = body.metadata;
  if (!isObject(meta)) return;
  for (const side of ['input', 'output'] as const) {
    const value = meta[`${side}MintDecimals`];
    j.must(
      'Q-ERR-007',
      Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 255 && priceIsValid(meta[`${side}PriceUSD`]),
      detail(`the 404 metadata carries ${side}MintDecimals (an integer) and ${side}PriceUSD when available`, meta),
    );
    checkDecimals(j, 'Q-ERR-007', stringParam(params, `${side}Mint`), value, detail);
  }
  if (meta.errors !== undefined && meta.errors !== null) {
    const errors = meta.errors;
    j.must(
      'Q-META-009',
      isObject(errors) && Object.entries(errors).every(([k, v]) => d.providerIds.includes(k) && typeof v === 'string' && v !== ''),
      detail(`metadata.errors maps provider ids (${d.providerIds.join(', ')}) to non-empty reason labels`, errors),
    );
    // No provider could try when `providers` names none of /api/v1/providers: then an empty map is faithful too.
    const listed = listParam(params, 'providers');
    const noneCouldTry = listed !== undefined && !listed.some((p) => d.providerIds.includes(p));
    j.must(
      'Q-ERR-006',
      !isObject(errors) || Object.keys(errors).length > 0 || noneCouldTry,
      detail(
        'metadata.errors gives one reason per provider that tried; a provider tried here, so it is not empty (absent when validation failed first)',
        errors,
      ),
    );
    if (noneCouldTry && isObject(errors) && Object.keys(errors).length === 0) {
      j.note(`Q-ERR-008: providers=${listed.join(',')} names no provider: the 404 carries an empty metadata.errors (no provider tried)`);
    }
    if (isObject(errors)) {
      for (const [provider, label] of Object.entries(errors)) {
        if (label !== 'Other' && label !== 'NoRoutesFound')
          j.note(`Q-META-010: provider ${provider} gave the reason label "${String(label)}" (not among the observed Other, NoRoutesFound)`);
      }
    }
  }
  const code = body.code;
  if (code !== -7 && typeof code === 'number') j.note(`Q-BOUNDS-005: engine 404 code ${code}`);
}

/** Apply the invariant that fits the answer's status (200 or key-path 404). */
export function checkAnswer(j: Judge, call: QuoteCall, d: Discovery, path: 'key' | 'distributor' = 'key'): void {
  if (call.status === 200) checkQuote(j, call, d);
  else if (call.status === 404 && path === 'key') checkNoRoute(j, call, d);
}
