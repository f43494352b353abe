/**
 * The quote invariants that read the request's parameters and assemble the route as a client would: its accounts and
 * size (Transaction sizing parameters), the token accounts the transaction parameters create, close or pay into
 * (Transaction parameters), and the reference-price check (Simulation and price check). invariants.ts applies them
 * to every route.
 */
import type { FailureDetail } from '../harness/failure.ts';
import { isObject, type Json } from '../shared/values.ts';
import { WSOL_MINT } from './fixtures.ts';
import { DOCUMENTED_DEFAULTS, decimal, u64, type Judge, type QuoteCall, type QuoteParams } from './quote-support.ts';
import {
  ATA_PROGRAM,
  FORMAT_0_SIZE_LIMIT,
  associatedTokenAccounts,
  closeAccountInstructions,
  compileRoute,
  createAccountInstructions,
  isIdempotentCreate,
  isPubkey,
  signerAccounts,
  uniqueAccounts,
  uniqueWritableAccounts,
  type Instruction,
} from './solana.ts';

/** Tolerance of the reference-price comparison: the oracle may move between the check and the answer (UNKNOWNS). */
export const PRICE_TOLERANCE = 0.005;

// ---------------------------------------------------------------- reading the request

export function flag(params: QuoteParams, name: string, fallback: boolean): boolean {
  const v = params[name];
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  return fallback;
}

export function integerParam(params: QuoteParams, name: string): number | undefined {
  const v = params[name];
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : undefined;
  return n !== undefined && Number.isSafeInteger(n) ? n : undefined;
}

export function listParam(params: QuoteParams, name: string): string[] | undefined {
  const v = params[name];
  if (v === undefined) return undefined;
  if (Array.isArray(v)) return [...v];
  return String(v).split(',');
}

export function stringParam(params: QuoteParams, name: string): string | undefined {
  const v = params[name];
  return typeof v === 'string' ? v : undefined;
}

// ---------------------------------------------------------------- 200

export type Detail = (documented: string, received?: unknown) => FailureDetail;

/** Transaction size, account counts and writable counts of the assembled route (Transaction sizing parameters). */
export function checkAccounts(
  j: Judge,
  call: QuoteCall,
  where: string,
  route: Json,
  ixs: Instruction[],
  tables: ReadonlyMap<string, string[]>,
  format: number,
  detail: Detail,
): void {
  const { params } = call;
  const user = stringParam(params, 'userPublicKey') ?? '';
  const writable = uniqueWritableAccounts(ixs);
  const writableLimit = integerParam(params, 'accountsLimitWritable') ?? DOCUMENTED_DEFAULTS.accountsLimitWritable;
  j.must(
    'Q-PARAM-022',
    writable.size <= writableLimit,
    detail(`at most accountsLimitWritable (${writableLimit}) unique writable accounts`, writable.size),
  );

  // Accounts: unique accounts the route's instructions pass, table-loaded ones included (UNKNOWNS part B leaves the
  // counting open; the document's "Format 1 supports at most 64", where no table exists, counts every account).
  // Program ids only invoked, never passed, are not counted: the smallest count that reading allows.
  const requestedTotal = integerParam(params, 'accountsLimitTotal');
  if (requestedTotal !== undefined) {
    const limit = format === 1 ? Math.min(requestedTotal, 64) : requestedTotal;
    const unique = uniqueAccounts(ixs).size;
    const rule = format === 1 && requestedTotal > 64 ? 'Q-PARAM-021' : 'Q-PARAM-020';
    j.must(
      rule,
      unique <= limit,
      detail(
        `at most accountsLimitTotal ${requestedTotal}${limit !== requestedTotal ? ` (clamped to ${limit} on format 1)` : ''} unique accounts`,
        { uniqueAccounts: unique },
      ),
    );
  }

  // Size (format 0 only: the format 1 wire layout is not in the document), against the lookup table contents.
  if (format !== 0 || !flag(params, 'addSizeConstraint', true)) return;
  const altKeys = (Array.isArray(route.addressLookupTables) ? route.addressLookupTables : []).filter(isPubkey);
  if (!altKeys.every((k) => tables.has(k))) return; // nothing to compile against (ask includeAltContents=true)
  const compiled = compileRoute(ixs, user, tables, altKeys);
  if (!compiled) {
    j.note(`${where}: @solana/web3.js could not compile the route's instructions; its size was not checked`);
    return;
  }
  const requested = integerParam(params, 'sizeConstraint');
  const limit = Math.min(requested ?? DOCUMENTED_DEFAULTS.sizeConstraint, FORMAT_0_SIZE_LIMIT);
  const rule = requested !== undefined && requested > FORMAT_0_SIZE_LIMIT ? 'Q-PARAM-019' : 'Q-PARAM-018';
  if (!compiled.exhaustive && compiled.size > limit) {
    j.note(
      `${where}: ${compiled.size} bytes with ${compiled.tablesUsed.length} lookup tables; too many tables to find the smallest packing, not failed`,
    );
    return;
  }
  j.must(
    rule,
    compiled.size <= limit,
    detail(
      `with addSizeConstraint the route fits sizeConstraint ${requested ?? `(default ${DOCUMENTED_DEFAULTS.sizeConstraint})`}` +
        `${requested !== undefined && requested > FORMAT_0_SIZE_LIMIT ? ', clamped to 1232 for format 0' : ''}: at most ${limit} bytes` +
        ' as a v0 transaction of its instructions alone with its lookup tables (user as payer)',
      { bytes: compiled.size, tablesUsed: compiled.tablesUsed },
    ),
  );
}

/** Token accounts the transaction parameters create, close or pay into. */
export function checkTokenAccounts(
  j: Judge,
  params: QuoteParams,
  _where: string,
  ixs: Instruction[],
  mints: { inputMint: string; outputMint: string; user: string },
  detail: Detail,
): void {
  const { inputMint, outputMint, user } = mints;
  if (!isPubkey(inputMint) || !isPubkey(outputMint) || !isPubkey(user)) return;
  const outputAccount = stringParam(params, 'outputAccount');
  const inputAtas = associatedTokenAccounts(user, inputMint);
  const outputAtas = associatedTokenAccounts(user, outputMint);
  const writable = uniqueWritableAccounts(ixs);
  const closes = closeAccountInstructions(ixs);

  // createOutputTokenAccount (default true): an idempotent create-token-account instruction for the output token.
  if (outputAccount === undefined) {
    const creates = createAccountInstructions(ixs, outputMint);
    if (flag(params, 'createOutputTokenAccount', true)) {
      j.must(
        'Q-PARAM-026',
        creates.some(isIdempotentCreate),
        detail(
          `by default (createOutputTokenAccount=true) an idempotent create-token-account instruction (${ATA_PROGRAM}, data [1]) for the output mint ${outputMint}`,
          creates.length ? creates.map((ix) => ({ p: ix.p, d: ix.d })) : ixs.map((ix) => ix.p),
        ),
      );
    } else if (outputMint !== WSOL_MINT) {
      j.must(
        'Q-PARAM-026',
        creates.length === 0,
        detail(`with createOutputTokenAccount=false no create-token-account instruction for ${outputMint}`, creates),
      );
    }
  }

  // closeInputTokenAccount (default false).
  if (flag(params, 'closeInputTokenAccount', false)) {
    j.must(
      'Q-PARAM-025',
      closes.some((c) => inputAtas.includes(c.closed) || (c.owner === user && !outputAtas.includes(c.closed))),
      detail(
        `with closeInputTokenAccount=true a CloseAccount instruction (tag 9) closes the user's input token account (${inputAtas.join(' or ')})`,
        closes.map((c) => c.closed),
      ),
    );
  } else if (inputMint !== WSOL_MINT) {
    j.must(
      'Q-PARAM-025',
      !closes.some((c) => inputAtas.includes(c.closed)),
      detail(
        'without closeInputTokenAccount=true the input token account is not closed',
        closes.map((c) => c.closed),
      ),
    );
  }

  // outputWsol: leaves the output wrapped, so the user's wrapped-native account is not closed to unwrap it.
  if (flag(params, 'outputWsol', false) && outputMint === WSOL_MINT) {
    j.must(
      'Q-PARAM-028',
      !closes.some((c) => outputAtas.includes(c.closed)),
      detail(
        "with outputWsol=true the output stays wrapped: the user's wrapped-native token account is not closed",
        closes.map((c) => c.closed),
      ),
    );
  }

  // outputAccount: the output goes to the given token account, else to the user's associated token account.
  if (outputAccount !== undefined) {
    j.must(
      'Q-PARAM-027',
      writable.has(outputAccount),
      detail(`outputAccount ${outputAccount} is a writable account of the route`, [...writable]),
    );
  } else if (outputMint !== WSOL_MINT) {
    j.must(
      'Q-PARAM-027',
      outputAtas.some((a) => writable.has(a)),
      detail(
        `the output goes to the user's associated token account of ${outputMint} (${outputAtas.join(' or ')}): it is writable in the route`,
        [...writable],
      ),
    );
  }

  // payer: pays rent (and fees) and must sign; where the route creates an account, the payer is a signer.
  const payer = stringParam(params, 'payer');
  if (payer !== undefined && ixs.some((ix) => ix.p === ATA_PROGRAM)) {
    j.must(
      'Q-PARAM-029',
      signerAccounts(ixs).has(payer),
      detail(`payer ${payer} signs the route (it pays the rent of the accounts the route creates)`, [...signerAccounts(ixs)]),
    );
  }

  const receiver = stringParam(params, 'positiveSlippageFeeReceiver');
  if (receiver !== undefined) {
    j.must(
      'Q-PARAM-030',
      writable.has(receiver),
      detail(`positiveSlippageFeeReceiver ${receiver} is a writable account of the route`, [...writable]),
    );
  }
}

/**
 * Simulation and price check: with simulate=false and maxPriceDeviationBps below 10000 every route gives at least
 * (10000 - maxPriceDeviationBps)/10000 of the reference value of its input, at the metadata's prices and decimals.
 */
export function checkReferencePrice(j: Judge, call: QuoteCall, _where: string, route: Json, detail: Detail): void {
  const { params, body } = call;
  if (flag(params, 'simulate', true)) return; // Q-PARAM-041: asserted with simulate=false only
  const deviation = integerParam(params, 'maxPriceDeviationBps') ?? DOCUMENTED_DEFAULTS.maxPriceDeviationBps;
  if (deviation >= 10000) return;
  const meta = isObject(body) && isObject(body.metadata) ? body.metadata : undefined;
  const ratio = valueRatio(route, meta);
  if (ratio === undefined) return; // a price is missing: nothing to compare against
  const floor = ((10000 - deviation) / 10000) * (1 - PRICE_TOLERANCE);
  j.must(
    'Q-PARAM-037',
    ratio >= floor,
    detail(
      `with simulate=false and maxPriceDeviationBps ${deviation} the output is worth at least ${(10000 - deviation) / 100} % of the input at the reference prices` +
        ` (tolerance ${PRICE_TOLERANCE * 100} %)`,
      { outputValueOverInputValue: ratio, inAmount: route.inAmount, outAmount: route.outAmount, metadata: meta },
    ),
  );
}

/** Reference value of the route's output over that of its input, or undefined when a price or decimals are missing. */
export function valueRatio(route: Json, meta: Json | undefined): number | undefined {
  if (!meta) return undefined;
  const inPrice = decimal(meta.inputPriceUSD);
  const outPrice = decimal(meta.outputPriceUSD);
  const inDec = meta.inputMintDecimals;
  const outDec = meta.outputMintDecimals;
  const inAmount = u64(route.inAmount);
  const outAmount = u64(route.outAmount);
  if (!inPrice || !outPrice || !Number.isInteger(inDec) || !Number.isInteger(outDec) || !inAmount || outAmount === undefined)
    return undefined;
  const inValue = (Number(inAmount) / 10 ** (inDec as number)) * inPrice;
  const outValue = (Number(outAmount) / 10 ** (outDec as number)) * outPrice;
  return inValue > 0 ? outValue / inValue : undefined;
}
