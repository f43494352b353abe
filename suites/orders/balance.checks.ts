import { Keypair } from '@solana/web3.js';
import { dataOf, errorCode } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { Unsupported } from '../harness/failure.ts';
import { deepEqual } from '../shared/values.ts';
import { JUP_MINT, USDC_MINT, USDT_MINT } from './mints.ts';
import { createOrder, dcaRequest, depositAmount, type Funded, INT, intentRequest, intentUser, NATIVE_MINT, usdc } from './orders.ts';
import type { Exchange } from '../harness/exchange.ts';
import { createSmallest, reserveWait, skipIfUncovered, waitFor } from './steps/blackbox.ts';
import { runEnvironment } from './siws.ts';
import { totalBalanceOf } from './steps/balance.ts';
import { activeOrderOf, BUCKETS, getBalance, type Row, rowsOf } from './steps/balance-locks.ts';
import { expectError, expectErrorEnvelope } from './steps/expect.ts';
import { freshUser, settledOthers, usdt } from './steps/partner-balance.ts';
import { asUser, type OnboardedUser } from './users.ts';

/** GET /me/balance (area BAL: User session and balances; Balance row); the locks of active orders: balance-locks.checks.ts. */

/**
 * A fresh onboarded user whose GET /me/balance is served (an absent route skips before anyone is created): a brand-new
 * wallet of its own on any target, so its manager holds nothing until the check funds it (steps/partner-balance.ts).
 */
async function balanceUser(t: CheckContext): Promise<OnboardedUser> {
  await asUser(t, `conformance-probe-${Date.now().toString(36)}`, { path: '/me/balance', validate: false });
  return await freshUser(t);
}

/** Credit the user's manager (Balance row: totalBalance is the raw on-chain balance in the manager). */
async function fundManager(t: CheckContext, user: OnboardedUser): Promise<void> {
  await t.control.fund(user.walletAddress, 'native', '2000000000');
  const usdc = process.env.CONFORMANCE_USDC_MINT ?? USDC_MINT;
  try {
    await t.control.fund(user.walletAddress, usdc, '25000000');
  } catch (e) {
    t.note(`no token row: the target cannot fund ${usdc}: ${(e as Error).message.slice(0, 200)}`);
  }
}

export const balanceRowsFollowTheDocument = defineCheck({
  name: 'balance-rows-have-documented-fields-formats-and-available-arithmetic',
  service: 'orders',
  rules: ['OA-BAL-001', 'OA-BAL-002', 'OA-BAL-003', 'OA-BAL-004', 'OA-BAL-007', 'OA-BAL-014', 'OA-BAL-015'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await balanceUser(t);
    if (t.control.has('funding')) await fundManager(t, user);
    else t.note('no funding capability: the rows are those of a fresh manager (possibly none)');
    const ex = await getBalance(t, user.sub);
    const rows = rowsOf(t, ex);
    const me = await asUser(t, user.sub, { path: '/me' });
    t.expect('OA-BAL-002', dataOf(ex)?.walletAddress === dataOf(me)?.walletAddress && dataOf(ex)?.walletAddress === user.walletAddress, {
      documented: `data.walletAddress equals the manager of GET /me (${String(dataOf(me)?.walletAddress)})`,
      received: dataOf(ex)?.walletAddress,
      exchange: ex,
    });
    for (const row of rows) {
      t.expect(
        'OA-BAL-003',
        typeof row.mint === 'string' &&
          (row.symbol === null || typeof row.symbol === 'string') &&
          Number.isInteger(row.decimals) &&
          BUCKETS.every((k) => typeof row[k] === 'string' && INT.test(row[k] as string)) &&
          Array.isArray(row.lockedBreakdown),
        {
          documented:
            'a row {mint: string, symbol: string|null, decimals: integer, programId, totalBalance, lockedForFutureTxns, withdrawalPending, availableToWithdraw: integer strings, lockedBreakdown: array}',
          received: row,
          exchange: ex,
        },
      );
      t.expect('OA-BAL-004', ['native', 'token', 'token-2022'].includes(row.programId as string), {
        documented: 'programId one of native, token, token-2022',
        received: row.programId,
        exchange: ex,
      });
      const [total, locked, pending, available] = BUCKETS.map((k) => BigInt(row[k] as string)) as [bigint, bigint, bigint, bigint];
      const expected = total - locked - pending > 0n ? total - locked - pending : 0n;
      t.expect('OA-BAL-007', available === expected, {
        documented: `availableToWithdraw = max(${total} - ${locked} - ${pending}, 0) = ${expected}`,
        received: row.availableToWithdraw,
        exchange: ex,
      });
      // A fresh user has no order, so no order-level withdrawal in flight.
      t.expect('OA-BAL-014', pending === 0n, {
        documented: 'withdrawalPending 0 with no order-level withdrawal in flight',
        received: row.withdrawalPending,
        exchange: ex,
      });
    }
    if (rows.length === 0) t.note('no balance rows: the row rules OA-BAL-003/004/007/014 had nothing to judge');
    const hiddenEx = await getBalance(t, user.sub, true);
    for (const row of rowsOf(t, hiddenEx)) {
      t.expect(
        'OA-BAL-015',
        BUCKETS.some((k) => row[k] !== '0'),
        { documented: 'with hideZero=true no row has all four buckets 0', received: row, exchange: hiddenEx },
      );
    }
  },
});

export const hideZeroDefaultsToFalse = defineCheck({
  name: 'balance-without-hidezero-lists-the-rows-of-hidezero-false',
  service: 'orders',
  rules: ['OA-BAL-001', 'OA-BAL-016'],
  profile: 'full',
  async run(t: CheckContext) {
    // A fresh, unfunded manager: the rows a target lists for it (if any) are all zero, so a default of true would drop them.
    const user = await balanceUser(t);
    const rows = rowsOf(t, await getBalance(t, user.sub));
    const shown = await getBalance(t, user.sub, false);
    const explicit = rowsOf(t, shown);
    const hidden = rowsOf(t, await getBalance(t, user.sub, true));
    if (explicit.length === 0) t.note('the target lists no row for a fresh manager: the default of hideZero is judged on empty lists');
    t.expect('OA-BAL-016', deepEqual(rows, explicit) && hidden.every((h) => explicit.some((r) => deepEqual(r, h))), {
      documented: 'hideZero defaults to false (same rows as hideZero=false), and every hideZero=true row appears there unchanged',
      received: { default: rows, hideZeroFalse: explicit, hideZeroTrue: hidden },
      exchange: shown,
    });
  },
});

export const hideZeroDropsAllZeroRows = defineCheck({
  name: 'hidezero-drops-the-rows-whose-buckets-are-all-zero',
  service: 'orders',
  rules: ['OA-BAL-015', 'OA-BAL-001'],
  profile: 'full',
  async run(t: CheckContext) {
    // A fresh, unfunded manager: the rows a target lists for it (if any) are all zero.
    const user = await balanceUser(t);
    const shown = await getBalance(t, user.sub, false);
    const zero = rowsOf(t, shown).filter((row) => BUCKETS.every((k) => row[k] === '0'));
    if (zero.length === 0) t.skip('the target lists no all-zero row for a fresh manager, so hideZero has nothing to drop');
    const hiddenEx = await getBalance(t, user.sub, true);
    const kept = rowsOf(t, hiddenEx).filter((row) => BUCKETS.every((k) => row[k] === '0'));
    t.expect('OA-BAL-015', kept.length === 0, {
      documented: `hideZero=true drops the rows whose buckets are all zero (hideZero=false listed ${zero.length})`,
      received: kept,
      exchange: hiddenEx,
    });
  },
});

export const hideZeroKeepsRowsThatAreNotAllZero = defineCheck({
  name: 'hidezero-keeps-every-row-with-a-non-zero-bucket-a-fully-locked-mint-included',
  service: 'orders',
  rules: ['OA-BAL-024', 'OA-BAL-001'],
  profile: 'full',
  async run(t: CheckContext) {
    // A fresh user's one active DCA order (funding): its deposit is its lock, so the input mint is fully locked (available 0).
    const active = await activeOrderOf(t, 'dca');
    if (active === undefined) t.skip('the target creates no DCA order from the assumed template: no locked row to list');
    const shown = rowsOf(t, await getBalance(t, active.user.sub, false));
    const hiddenEx = await getBalance(t, active.user.sub, true);
    const hidden = rowsOf(t, hiddenEx);
    // The partner's shared wallet (no funding): its other orders may move a row between the two reads; read it again.
    if (!t.control.has('funding') && !deepEqual(shown, rowsOf(t, await getBalance(t, active.user.sub, false))))
      t.skip("the partner's shared wallet's balance moved between the reads (another order's cycle or fill): rerun it");
    const nonZero = shown.filter((row) => BUCKETS.some((k) => row[k] !== '0'));
    if (!nonZero.some((row) => row.totalBalance !== '0' && row.availableToWithdraw === '0')) {
      t.note('no row is fully locked (total > 0, available 0): only the other non-zero rows are judged');
    }
    const missing = nonZero.filter((row) => !hidden.some((h) => deepEqual(h, row)));
    t.expect('OA-BAL-024', missing.length === 0, {
      documented: 'with hideZero=true every row of hideZero=false with a bucket other than 0 is listed unchanged',
      received: { missing, hideZeroTrue: hidden },
      exchange: hiddenEx,
    });
  },
});

/**
 * Which mints are "USDC" and "USDT" is not in the document. They are the mainnet mints on a production key; on
 * staging (another cluster, another mint) the symbol is judged only for a mint given in CONFORMANCE_USDC_MINT /
 * CONFORMANCE_USDT_MINT, and otherwise the mainnet mint's symbol is recorded as a note.
 */
function stablecoin(symbol: 'USDC' | 'USDT'): { mint: string; strict: boolean } {
  const configured = process.env[`CONFORMANCE_${symbol}_MINT`];
  return {
    mint: configured ?? (symbol === 'USDC' ? USDC_MINT : USDT_MINT),
    strict: configured !== undefined || runEnvironment() === 'production',
  };
}

export const fundingRaisesTotalAndResolvesSymbols = defineCheck({
  name: 'funding-the-manager-raises-total-balance-and-symbols-resolve-for-sol-usdc-usdt',
  service: 'orders',
  rules: ['OA-BAL-001', 'OA-BAL-022', 'OA-BAL-005'],
  profile: 'full',
  async run(t: CheckContext) {
    if (!t.control.has('funding')) return await depositRaisesTotal(t);
    const user = await balanceUser(t);
    await t.control.fund(user.walletAddress, 'native', '2000000000');
    const coins = [stablecoin('USDC'), stablecoin('USDT')];
    const funded: Array<{ mint: string; strict: boolean; symbol: string }> = [];
    for (const [i, coin] of coins.entries()) {
      try {
        await t.control.fund(user.walletAddress, coin.mint, '25000000');
        funded.push({ ...coin, symbol: i === 0 ? 'USDC' : 'USDT' });
      } catch (e) {
        t.note(`${coin.mint} not funded, its row not checked: ${(e as Error).message.slice(0, 200)}`);
      }
    }
    const before = rowsOf(t, await getBalance(t, user.sub));
    await t.control.fund(user.walletAddress, 'native', '7654321');
    for (const coin of funded) await t.control.fund(user.walletAddress, coin.mint, '1234567');
    const ex = await getBalance(t, user.sub);
    const after = rowsOf(t, ex);
    const pickNative = (rows: Row[]) => rows.find((r) => r.programId === 'native');
    const cases = [
      { what: 'the native asset', pick: pickNative, amount: 7654321n, symbol: 'SOL', strict: true },
      ...funded.map((c) => ({
        what: c.mint,
        pick: (rows: Row[]) => rows.find((r) => r.mint === c.mint),
        amount: 1234567n,
        symbol: c.symbol,
        strict: c.strict,
      })),
    ];
    for (const { what, pick, amount, symbol, strict } of cases) {
      const b = pick(before);
      const a = pick(after);
      t.expect(
        'OA-BAL-022',
        b !== undefined && a !== undefined && BigInt(a.totalBalance as string) - BigInt(b.totalBalance as string) === amount,
        {
          documented: `funding the manager with ${amount} of ${what} raises that row's totalBalance by ${amount}`,
          received: { before: b, after: a },
          exchange: ex,
        },
      );
      if (strict)
        t.expect('OA-BAL-005', a.symbol === symbol, {
          documented: `symbol ${symbol} on the ${what} row`,
          received: a.symbol,
          exchange: ex,
        });
      else if (a.symbol !== symbol)
        t.note(
          `the row of ${what} (mainnet ${symbol}) has symbol ${JSON.stringify(a.symbol)}: not judged on a staging key (set CONFORMANCE_${symbol}_MINT to this deployment's ${symbol} mint)`,
        );
    }
  },
});

/** The native asset's row: the one whose programId is native (the document names no mint for it). */
const nativeRow = (rows: Row[]) => rows.find((r) => r.programId === 'native');

/**
 * OA-BAL-022 and OA-BAL-005 without `funding`: a deposit is a funding of the manager. The partner's wallet deposits an
 * odd amount of USDC for an armed stop-loss no market reaches (nothing of it is spent), and the manager's USDC
 * totalBalance rises by exactly that amount, within a bracket (steps/partner-balance.ts settledOthers: nothing else of
 * the shared wallet moved). Symbols: the native row of a fresh user's manager (a brand-new wallet; every wallet has a
 * native balance, possibly 0), and the USDC (and USDT) rows of the partner's manager.
 */
async function depositRaisesTotal(t: CheckContext): Promise<void> {
  const fresh = await balanceUser(t);
  const freshRows = rowsOf(t, await getBalance(t, fresh.sub));
  const user = await intentUser(t, false);
  t.note("no funding capability: the partner's wallet funds its manager by a deposit, a fresh user's manager shows the native row");
  const settled = await settledOthers(t, user);
  const before = await totalBalanceOf(t, user, usdc());
  const request = intentRequest('stop_loss', { config: { amount: ODD_DEPOSIT } });
  const { orderId } = await createOrder(t, user, request);
  const ex = await getBalance(t, user.sub);
  const rows = rowsOf(t, ex);
  await settled([orderId]);
  const amount = BigInt(depositAmount(request));
  const row = rows.find((r) => r.mint === usdc());
  t.expect('OA-BAL-022', row !== undefined && BigInt(String(row.totalBalance)) - before.total === amount, {
    documented: `a deposit of ${amount} of ${usdc()} into the manager (order ${orderId}) raises that row's totalBalance by ${amount} (from ${before.total})`,
    received: row ?? '(no row)',
    exchange: ex,
  });
  const native = nativeRow(freshRows) ?? nativeRow(rows);
  if (native)
    t.expect('OA-BAL-005', native.symbol === 'SOL', {
      documented: 'symbol SOL on the native asset row',
      received: native,
      exchange: ex,
    });
  else t.note("no native row (programId native) on a fresh manager nor on the partner's: its symbol is not judged");
  for (const [symbol, coin] of [
    ['USDC', stablecoin('USDC')],
    ['USDT', stablecoin('USDT')],
  ] as const) {
    const coinRow = rows.find((r) => r.mint === coin.mint);
    if (!coinRow) continue;
    if (coin.strict)
      t.expect('OA-BAL-005', coinRow.symbol === symbol, {
        documented: `symbol ${symbol} on the ${coin.mint} row`,
        received: coinRow,
        exchange: ex,
      });
    else if (coinRow.symbol !== symbol)
      t.note(
        `the row of ${coin.mint} (mainnet ${symbol}) has symbol ${JSON.stringify(coinRow.symbol)}: not judged on a staging key (set CONFORMANCE_${symbol}_MINT to this deployment's ${symbol} mint)`,
      );
  }
}

/** An odd deposit (12.000001 USDC, above the 10 USD minimum): an odd total is where an off-by-one shows. */
const ODD_DEPOSIT = '12000001';

export const otherMintsHaveNoSymbol = defineCheck({
  name: 'balance-symbol-is-null-for-mints-other-than-sol-usdc-usdt',
  service: 'orders',
  rules: ['OA-BAL-001', 'OA-BAL-006'],
  profile: 'full',
  // Without `funding` it may wait for a DCA cycle; where the target offers the clock, it advances it (steps/blackbox.ts).
  alone: true,
  async run(t: CheckContext) {
    if (!t.control.has('funding')) return await heldMintsHaveNoSymbol(t);
    const user = await balanceUser(t);
    // A real mint that is none of SOL, USDC, USDT (JUP), so the row's expected symbol does not hang on a guess.
    const mint = process.env.CONFORMANCE_OTHER_MINT ?? JUP_MINT;
    try {
      await t.control.fund(user.walletAddress, mint, '1000');
    } catch (e) {
      t.skip(`the target cannot fund ${mint} (set CONFORMANCE_OTHER_MINT to a mint it knows): ${(e as Error).message}`);
    }
    const ex = await getBalance(t, user.sub);
    const row = rowsOf(t, ex).find((r) => r.mint === mint);
    t.expect('OA-BAL-006', row !== undefined && row.symbol === null, {
      documented: `a row for the funded mint ${mint} with symbol null`,
      received: row ?? '(no row)',
      exchange: ex,
    });
  },
});

/**
 * OA-BAL-006 without `funding`: the rows a client finds of mints other than the native asset, USDC and USDT, on a fresh
 * manager and on the partner's (the output of an order, a deposit of the partner's own). The partner cannot fund a
 * manager with a mint it chooses: with no such row the rule is not judgeable here. Unless the stablecoin mints are
 * configured (or the key is a production one), a row whose symbol is USDC or USDT may be this deployment's own
 * stablecoin and is left out.
 */
async function heldMintsHaveNoSymbol(t: CheckContext): Promise<void> {
  const fresh = await balanceUser(t);
  const user = await intentUser(t, false);
  const known = new Set([usdc(), usdt(), USDC_MINT, USDT_MINT]);
  const strict = stablecoin('USDC').strict && stablecoin('USDT').strict;
  const judged: Row[] = [];
  for (const sub of [fresh.sub, user.sub]) {
    const ex = await getBalance(t, sub);
    for (const row of rowsOf(t, ex)) {
      if (row.programId === 'native' || row.mint === NATIVE_MINT || known.has(String(row.mint))) continue;
      if (!strict && (row.symbol === 'USDC' || row.symbol === 'USDT')) {
        t.note(
          `the row of ${String(row.mint)} has symbol ${String(row.symbol)}: maybe this deployment's own stablecoin (CONFORMANCE_USDC_MINT, _USDT_MINT), not judged`,
        );
        continue;
      }
      judged.push(row);
      t.expect('OA-BAL-006', row.symbol === null, {
        documented: `symbol null on the row of ${String(row.mint)}, a mint other than SOL, USDC and USDT`,
        received: row,
        exchange: ex,
      });
    }
  }
  if (judged.length > 0) return t.note(`judged the rows of ${judged.map((row) => String(row.mint)).join(', ')} (no funding capability)`);
  const { ex, row, mint } = await boughtRow(t, user);
  t.expect('OA-BAL-006', row.symbol === null, {
    documented: `symbol null on the row of ${mint}, a mint other than SOL, USDC and USDT (the output of a DCA cycle)`,
    received: row,
    exchange: ex,
  });
}

/** BONK (mainnet): a mint other than SOL, USDC and USDT that no other check deposits or buys. */
const BONK_MINT = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
/** The DCA order of boughtRow: one cycle, of the smallest period. */
const BUY_FREQUENCY = 60;
/** Wall time allowed past the cycle's time for the service to run and record it ("executions take real seconds"). */
const BUY_GRACE_SECONDS = 60;

/**
 * Without `funding`, a row of a mint other than SOL, USDC and USDT in the partner's manager made the way a client can:
 * a DCA order of one 60-second cycle of the smallest amount buys CONFORMANCE_OTHER_MINT (BONK by default: not JUP,
 * which other checks need the partner's manager never to hold) into the
 * manager, and its row is read once the cycle ran, waited for in real time within --budget-minutes (steps/blackbox.ts).
 * An order whose output goes to the user's external wallet leaves no row: not judgeable here.
 */
async function boughtRow(t: CheckContext, user: Funded): Promise<{ ex: Exchange; row: Row; mint: string }> {
  const mint = process.env.CONFORMANCE_OTHER_MINT ?? BONK_MINT;
  reserveWait(t, 2 * BUY_FREQUENCY + BUY_GRACE_SECONDS, `a DCA cycle buying ${mint}`);
  const created = await createSmallest(t, user, (unit) =>
    dcaRequest({ outputMint: mint, totalAmount: String(unit), amountPerCycle: String(unit), cycleFrequencySeconds: BUY_FREQUENCY }),
  );
  if (created.order.outputRecipientAddress !== user.walletAddress)
    throw new Unsupported(
      `funding (or a balance row of a mint other than SOL, USDC and USDT in the manager of TEST_WALLET_SECRET_KEY: a DCA order's output goes to ${String(created.order.outputRecipientAddress)}, not the manager)`,
    );
  const due = Date.parse(String(created.order.nextExecutionAt));
  const untilMs = (Number.isNaN(due) ? Date.parse(String(created.order.createdAt)) + BUY_FREQUENCY * 1000 : due) + BUY_GRACE_SECONDS * 1000;
  const read = async () => {
    const ex = await getBalance(t, user.sub);
    return { ex, row: rowsOf(t, ex).find((r) => r.mint === mint) };
  };
  const waited = await waitFor(t, read, ({ row }) => row !== undefined && row.totalBalance !== '0', {
    stepSeconds: BUY_FREQUENCY,
    untilMs,
  });
  skipIfUncovered(t, waited, `the ${mint} bought by order ${created.orderId}`);
  if (!waited.value.row) t.skip(`order ${created.orderId} bought no ${mint} into the manager by the end of its grace (a failed cycle?)`);
  t.note(`no funding capability: the ${mint} row comes from DCA order ${created.orderId}, one cycle of the smallest amount`);
  return { ex: waited.value.ex, row: waited.value.row, mint };
}

export const balanceRpcError = defineCheck({
  name: 'balance-answers-500-rpc-error-when-the-chain-is-down',
  service: 'orders',
  rules: ['OA-BAL-023', 'OA-ENV-002'],
  profile: 'full',
  needs: ['faults'],
  async run(t: CheckContext) {
    const user = await balanceUser(t);
    t.defer(() => t.control.setFaults({ rpc: 'up' }));
    await t.control.setFaults({ rpc: 'down' });
    const ex = await asUser(t, user.sub, {
      path: '/me/balance',
      retry: false,
      settled: (answer) => answer.response.status === 500 && errorCode(answer) === 'RPC_ERROR',
    });
    expectError(t, 'OA-BAL-023', ex, { status: 500, codes: ['RPC_ERROR'], documented: '500 RPC_ERROR while the chain cannot be reached' });
    expectErrorEnvelope(t, ex);
  },
});

export const tokenProgramPerMint = defineCheck({
  name: 'balance-rows-report-the-token-program-of-each-mint',
  service: 'orders',
  rules: ['OA-BAL-001', 'OA-FMT-007'],
  profile: 'full',
  async run(t: CheckContext) {
    if (!t.control.has('funding')) return await knownProgramsPerMint(t);
    const user = await balanceUser(t);
    await t.control.fund(user.walletAddress, 'native', '1000000');
    // Fresh test mints of each token program (control API POST /fund, programId of a new test mint).
    const mints: Array<{ mint: string; programId: 'token' | 'token-2022' }> = [];
    for (const programId of ['token', 'token-2022'] as const) {
      const mint = Keypair.generate().publicKey.toBase58();
      try {
        await t.control.fund(user.walletAddress, mint, '1000', { programId });
        mints.push({ mint, programId });
      } catch (e) {
        t.note(`the target cannot create a ${programId} test mint: its row is not judged: ${(e as Error).message.slice(0, 200)}`);
      }
    }
    const ex = await getBalance(t, user.sub);
    const rows = rowsOf(t, ex);
    // The document names no mint for the native asset: its row is the wrapped-SOL mint's, or the one whose symbol is SOL.
    const native = rows.find((r) => r.mint === NATIVE_MINT) ?? rows.find((r) => r.symbol === 'SOL');
    const cases = [
      ...mints.map(({ mint, programId }) => ({
        what: `the ${programId} test mint ${mint}`,
        row: rows.find((r) => r.mint === mint),
        programId,
      })),
      { what: 'the native asset', row: native, programId: 'native' },
    ];
    for (const { what, row, programId } of cases) {
      if (row === undefined) t.note(`no balance row for ${what}: its program is not judged`);
      else
        t.expect('OA-FMT-007', row.programId === programId, {
          documented: `programId ${programId} on the row of ${what}`,
          received: row,
          exchange: ex,
        });
    }
  },
});

/** Mints whose token program is a fact of the chain: the mainnet USDC and USDT are SPL Token mints. */
const KNOWN_PROGRAMS: Readonly<Record<string, 'token' | 'token-2022'>> = { [USDC_MINT]: 'token', [USDT_MINT]: 'token' };

/**
 * OA-FMT-007 without `funding` (no test mint of either program can be made): the native row of a fresh manager reads
 * native, and the partner's manager's rows of the mainnet USDC and USDT mints, when it holds them, read token. A
 * Token-2022 mint is judged only where the control API creates one.
 */
async function knownProgramsPerMint(t: CheckContext): Promise<void> {
  const fresh = await balanceUser(t);
  const user = await intentUser(t, false);
  let judged = 0;
  for (const sub of [fresh.sub, user.sub]) {
    const ex = await getBalance(t, sub);
    const rows = rowsOf(t, ex);
    const native = rows.find((r) => r.mint === NATIVE_MINT) ?? rows.find((r) => r.symbol === 'SOL');
    const cases = [
      ...(native ? [{ what: 'the native asset', row: native, programId: 'native' }] : []),
      ...rows.flatMap((row) => {
        const programId = KNOWN_PROGRAMS[String(row.mint)];
        return programId ? [{ what: `the mint ${String(row.mint)}`, row, programId }] : [];
      }),
    ];
    for (const { what, row, programId } of cases) {
      judged++;
      t.expect('OA-FMT-007', row.programId === programId, {
        documented: `programId ${programId} on the row of ${what}`,
        received: row,
        exchange: ex,
      });
    }
  }
  if (judged === 0)
    t.skip("no native row on a fresh manager nor on the partner's, and no row of the mainnet USDC or USDT: no program to judge");
  t.note('no funding capability: no test mint of either token program; the native row and the mainnet USDC and USDT rows judged');
}
