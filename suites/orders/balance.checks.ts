import { Keypair } from '@solana/web3.js';
import { dataOf, errorCode, is2xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import type { Exchange } from '../harness/exchange.ts';
import { deepEqual, isObject } from '../shared/values.ts';
import { JUP_MINT, USDC_MINT, USDT_MINT } from './mints.ts';
import {
  createOrder,
  INT,
  intentRequest,
  intentUser,
  NATIVE_MINT,
  ORDER_TYPES,
  type Created,
  type Funded,
  type OrderType,
} from './orders.ts';
import { runEnvironment } from './siws.ts';
import { advancePast } from './steps/dca.ts';
import { expectError, expectErrorEnvelope } from './steps/expect.ts';
import { asUser, onboardedUser, type OnboardedUser } from './users.ts';
import type { RuleId } from '../../generators/vocabulary.ts';

/** GET /me/balance (area BAL: User session and balances; Balance row). */

const BUCKETS = ['totalBalance', 'lockedForFutureTxns', 'withdrawalPending', 'availableToWithdraw'] as const;

type Row = Record<string, unknown>;

async function getBalance(t: CheckContext, sub: string, hideZero?: boolean): Promise<Exchange> {
  return await asUser(t, sub, { path: '/me/balance', query: hideZero === undefined ? undefined : { hideZero } });
}

function rowsOf(t: CheckContext, ex: Exchange): Row[] {
  const d = dataOf(ex);
  t.expect('OA-BAL-001', is2xx(ex) && typeof d?.walletAddress === 'string' && Array.isArray(d.balances), {
    documented: '2xx with data {walletAddress: string, balances: array}',
    received: { status: ex.response.status, body: ex.response.body },
    exchange: ex,
  });
  return (d.balances as unknown[]).filter(isObject);
}

/** An onboarded user whose GET /me/balance is served (an absent route skips before anyone is created). */
async function balanceUser(t: CheckContext): Promise<OnboardedUser> {
  await asUser(t, `conformance-probe-${Date.now().toString(36)}`, { path: '/me/balance', validate: false });
  return await onboardedUser(t);
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

/**
 * What an active order of each type locks on its input mint (Balance row: lockedForFutureTxns), and the rule saying
 * so: its input (DCA totalAmount, trigger orders amount; a slice's fields are not shown, UNKNOWNS O2, so its input is
 * the intent's documented inputAmount) less the base Order field amountSpent.
 */
const LOCKS: Record<string, { rule: RuleId; input: (order: Row, created: Created) => unknown; what: string }> = {
  dca: { rule: 'OA-BAL-008', input: (order) => order.totalAmount, what: 'totalAmount - amountSpent' },
  stop_loss: { rule: 'OA-BAL-009', input: (order) => order.amount, what: 'the full unspent amount (amount - amountSpent)' },
  take_profit: { rule: 'OA-BAL-009', input: (order) => order.amount, what: 'the full unspent amount (amount - amountSpent)' },
  oco: { rule: 'OA-BAL-009', input: (order) => order.amount, what: 'the full unspent amount (amount - amountSpent)' },
  slice: {
    rule: 'OA-BAL-010',
    input: (_order, created) => created.intent.data.inputAmount,
    what: "its unspent input (the intent's inputAmount - amountSpent)",
  },
};

/**
 * Judges the lock of the user's one active (or running) order on its input mint: an entry for the order, and
 * lockedForFutureTxns equal to its unspent input when the fields needed are integer strings (a slice without
 * amountSpent: only the entry, UNKNOWNS O2).
 */
function expectUnspentInputLocked(t: CheckContext, ex: Exchange, rows: Row[], order: Row, created: Created): { input?: Row; lock?: Row } {
  const type = String(order.orderType);
  const { rule, input: inputOf, what } = LOCKS[type]!;
  const input = rows.find((row) => row.mint === order.inputMint);
  const lock = lockEntriesOf(input, created.orderId)[0];
  const [base, spent] = [inputOf(order, created), order.amountSpent];
  if (type === 'slice' && !(typeof base === 'string' && INT.test(base) && typeof spent === 'string' && INT.test(spent))) {
    t.note(
      `the slice order reads back no integer-string amountSpent (${JSON.stringify(spent)}): only its lock entry is judged (UNKNOWNS O2)`,
    );
    t.expect(rule, lock !== undefined, {
      documented: `the running slice order has a lockedBreakdown entry on its input mint`,
      received: input ?? '(no row for its input mint)',
      exchange: ex,
    });
    return { input, lock };
  }
  const unspent = BigInt(String(base)) - BigInt(String(spent));
  t.expect(rule, lock !== undefined && input?.lockedForFutureTxns === unspent.toString(), {
    documented: `while the ${String(order.status)} ${type} order is the only lock on ${String(order.inputMint)}, lockedForFutureTxns is ${what} = ${String(base)} - ${String(spent)} = ${unspent}, with an entry for the order`,
    received: input ?? '(no row for its input mint)',
    exchange: ex,
  });
  return { input, lock };
}

/** The lockedBreakdown entries of a row that name `orderId`. */
function lockEntriesOf(row: Row | undefined, orderId: string): Row[] {
  return (Array.isArray(row?.lockedBreakdown) ? row.lockedBreakdown : []).filter((e) => isObject(e) && e.orderId === orderId) as Row[];
}

const DETAIL_PATHS: Record<string, string> = {
  dca: '/dca',
  stop_loss: '/stop-loss',
  take_profit: '/take-profit',
  oco: '/oco',
  slice: '/slice',
};

/** The order as its detail endpoint shows it now (slice: data.order), or as confirm returned it when that is not served. */
async function currentOrder(t: CheckContext, sub: string, created: Created): Promise<Row> {
  const type = String(created.order.orderType);
  const ex = await t.orders.request({
    path: `${DETAIL_PATHS[type]}/${created.orderId}`,
    headers: { 'X-Service-User': sub },
    validate: false,
    retry: false,
  });
  const d = dataOf(ex);
  const order = type === 'slice' ? d?.order : d;
  return is2xx(ex) && isObject(order) ? order : created.order;
}

/** An active order of `type` for a fresh funded user; undefined when the target does not create the type (404) or rejects its assumed template (400 VALIDATION_ERROR). */
async function activeOrderOf(t: CheckContext, type: OrderType): Promise<{ user: Funded; created: Created } | undefined> {
  const user = await intentUser(t, true);
  const request = intentRequest(type);
  const probe = await t.orders.request({
    method: 'POST',
    path: '/orders/intent',
    json: request,
    headers: { 'X-Service-User': user.sub },
    validate: false,
    retry: false,
  });
  const code = errorCode(probe);
  if ((probe.response.status === 404 && code === 'NOT_FOUND') || (probe.response.status === 400 && code === 'VALIDATION_ERROR')) {
    t.note(
      `${type}: POST /orders/intent answered ${probe.response.status} ${String(code)} to the assumed template (UNKNOWNS O7): its locks are not judged`,
    );
    return undefined;
  }
  return { user, created: await createOrder(t, user, request) };
}

export const activeOrdersLockTheirInput = defineCheck({
  name: 'an-active-order-locks-its-unspent-input-on-its-input-mint-only',
  service: 'orders',
  rules: [
    'OA-BAL-001',
    'OA-FMT-001',
    'OA-BAL-017',
    'OA-BAL-018',
    'OA-BAL-019',
    'OA-BAL-008',
    'OA-BAL-009',
    'OA-BAL-010',
    'OA-BAL-011',
    'OA-BAL-007',
  ],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
    let judged = 0;
    for (const type of ORDER_TYPES) {
      const made = await activeOrderOf(t, type);
      if (!made) continue;
      const { user, created } = made;
      const ex = await getBalance(t, user.sub);
      const rows = rowsOf(t, ex);
      const order = await currentOrder(t, user.sub, created);
      const entries = rows.flatMap((row) => (Array.isArray(row.lockedBreakdown) ? row.lockedBreakdown : []));
      for (const row of rows) {
        t.expect(
          'OA-FMT-001',
          BUCKETS.every((k) => typeof row[k] === 'string' && INT.test(row[k] as string)),
          {
            documented: 'the four balance buckets are integer strings',
            received: row,
            exchange: ex,
          },
        );
      }
      for (const entry of entries) {
        t.expect('OA-FMT-001', isObject(entry) && typeof entry.amount === 'string' && INT.test(entry.amount), {
          documented: 'a lockedBreakdown amount is an integer string',
          received: entry,
          exchange: ex,
        });
        t.expect(
          'OA-BAL-017',
          typeof entry.orderId === 'string' &&
            (ORDER_TYPES as readonly unknown[]).includes(entry.orderType) &&
            typeof entry.status === 'string' &&
            typeof entry.kind === 'string',
          {
            documented:
              'a lockedBreakdown entry {orderId: string, orderType: dca|stop_loss|take_profit|oco|slice, status: string, kind: string, amount}',
            received: entry,
            exchange: ex,
          },
        );
        // The user is fresh: its one order is the only one an entry can name.
        t.expect('OA-BAL-018', entry.orderId === created.orderId && entry.orderType === type, {
          documented: `every lockedBreakdown entry names the user's one order ${created.orderId} (${type})`,
          received: entry,
          exchange: ex,
        });
      }
      if (order.status !== 'active') {
        t.note(`${type}: the order is ${String(order.status)}, not active: its lock is not judged`);
        continue;
      }
      judged++;
      const lock = lockEntriesOf(
        rows.find((row) => row.mint === order.inputMint),
        created.orderId,
      )[0];
      t.expect('OA-BAL-019', lock === undefined || lock.kind === 'locked', {
        documented: `the lockedBreakdown entry of the active ${type} order has kind "locked"`,
        received: lock,
        exchange: ex,
      });
      expectUnspentInputLocked(t, ex, rows, order, created);
      const output = rows.find((row) => row.mint === order.outputMint);
      t.expect('OA-BAL-011', lockEntriesOf(output, created.orderId).length === 0, {
        documented: `no lockedBreakdown entry of the order on the row of its output mint ${String(order.outputMint)}`,
        received: output,
        exchange: ex,
      });
      for (const row of rows) {
        const [total, locked, pending, available] = BUCKETS.map((k) => BigInt(row[k] as string)) as [bigint, bigint, bigint, bigint];
        const expected = total - locked - pending > 0n ? total - locked - pending : 0n;
        t.expect('OA-BAL-007', available === expected, {
          documented: `with an active ${type} order, availableToWithdraw = max(${total} - ${locked} - ${pending}, 0) = ${expected}`,
          received: row,
          exchange: ex,
        });
        const sum = (Array.isArray(row.lockedBreakdown) ? row.lockedBreakdown : [])
          .filter((e) => isObject(e) && e.kind === 'locked')
          .reduce((s: bigint, e) => s + BigInt(String((e as Row).amount)), 0n);
        if (sum !== locked) t.note(`OA-BAL-021: on ${String(row.mint)} the locked entries sum to ${sum}, lockedForFutureTxns is ${locked}`);
      }
    }
    if (judged === 0) t.skip('no order type could be created active: no lock to judge');
    t.note('OA-BAL-013 (paused orders) and OA-BAL-012 (cancel releases the lock) are not observed: this check does not pause or cancel');
  },
});

/** The user's order as GET /me/orders lists it (base Order fields, amountSpent among them), else as `fallback`. */
async function listedOrder(t: CheckContext, sub: string, orderId: string, fallback: Row): Promise<Row> {
  const ex = await t.orders.request({ path: '/me/orders', headers: { 'X-Service-User': sub }, validate: false, retry: false });
  const data = (ex.response.body as { data?: unknown } | undefined)?.data;
  const row = Array.isArray(data) ? data.find((r) => isObject(r) && r.id === orderId) : undefined;
  return is2xx(ex) && isObject(row) ? row : fallback;
}

export const locksShrinkAsTheInputIsSpent = defineCheck({
  name: 'a-dca-or-slice-order-locks-only-its-unspent-input-after-executions-ran',
  service: 'orders',
  rules: ['OA-BAL-001', 'OA-BAL-008', 'OA-BAL-010'],
  profile: 'full',
  needs: ['funding', 'clock'],
  async run(t: CheckContext) {
    let judged = 0;
    for (const type of ['dca', 'slice'] as const) {
      const made = await activeOrderOf(t, type);
      if (!made) continue;
      const { user, created } = made;
      // The clock past the first execution (the order's nextExecutionAt; a minute when it names none).
      await advancePast(t, (await listedOrder(t, user.sub, created.orderId, created.order)).nextExecutionAt, 60);
      t.note(`the target's virtual clock was advanced past the first execution of the ${type} order (shared time)`);
      const order = await listedOrder(t, user.sub, created.orderId, await currentOrder(t, user.sub, created));
      if (order.status !== 'active' && order.status !== 'executing') {
        t.note(`${type}: the order is ${String(order.status)} after the clock moved: its lock is not judged`);
        continue;
      }
      if (order.amountSpent === '0') t.note(`${type}: amountSpent is still 0 after the clock passed the first execution time`);
      judged++;
      const ex = await getBalance(t, user.sub);
      expectUnspentInputLocked(t, ex, rowsOf(t, ex), order, created);
    }
    if (judged === 0) t.skip('no DCA or slice order was still running after its first execution: no lock to judge');
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
  needs: ['funding'],
  async run(t: CheckContext) {
    // A fresh user's one active DCA order: its deposit is its lock, so the input mint is fully locked (available 0).
    const active = await activeOrderOf(t, 'dca');
    if (active === undefined) t.skip('the target creates no DCA order from the assumed template: no locked row to list');
    const shown = rowsOf(t, await getBalance(t, active.user.sub, false));
    const hiddenEx = await getBalance(t, active.user.sub, true);
    const hidden = rowsOf(t, hiddenEx);
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
  needs: ['funding'],
  async run(t: CheckContext) {
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

export const otherMintsHaveNoSymbol = defineCheck({
  name: 'balance-symbol-is-null-for-mints-other-than-sol-usdc-usdt',
  service: 'orders',
  rules: ['OA-BAL-001', 'OA-BAL-006'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
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
    const ex = await asUser(t, user.sub, { path: '/me/balance', retry: false });
    expectError(t, 'OA-BAL-023', ex, { status: 500, codes: ['RPC_ERROR'], documented: '500 RPC_ERROR while the chain cannot be reached' });
    expectErrorEnvelope(t, ex);
  },
});

export const tokenProgramPerMint = defineCheck({
  name: 'balance-rows-report-the-token-program-of-each-mint',
  service: 'orders',
  rules: ['OA-BAL-001', 'OA-FMT-007'],
  profile: 'full',
  needs: ['funding'],
  async run(t: CheckContext) {
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
