import { Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { MINTS } from '../../quote-support.ts';
import { dataOf } from '../../reads-support.ts';
import { Target } from '../../support.ts';
import { failure, type Probe, type Row, serialized } from '../probe.ts';
import { creator, fundedUser, orderField, pendingDca, statuses, unfundedConfirm } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/orders/confirm.ts (OA-CONF): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

async function confirmedDca(t: Target) {
  const p = await pendingDca(t);
  p.tx.partialSign(p.wallet);
  const answer = await p.confirm({ pendingOrderId: p.pendingOrderId, signedTransaction: serialized(p.tx) });
  const data = (answer.body as { data: Record<string, unknown> }).data;
  return { ...data, pendingOrderId: data.pendingOrderId === p.pendingOrderId } as { order?: unknown; pendingOrderId: boolean };
}

/** A confirm of a deposit the wallet cannot pay (fees only, no USDC): its status, and the user's order statuses. */
async function confirmWithoutFunds(t: Target) {
  const { confirm, headers } = await unfundedConfirm(t);
  const orders = dataOf<{ status: string }[]>(await t.orders('/me/orders', { headers }));
  return { confirm: confirm.status, orders: orders.map((order) => order.status) };
}

export const CONFIRM_PROBES: Record<string, Probe> = {
  'order-created-without-its-deposit': confirmWithoutFunds,
  // POST /orders/confirm
  'confirm-without-tx-signature': async (t) => 'txSignature' in dataOf<Row>(await (await creator(t)).create('dca')),
  'confirm-echoes-another-pending-order-id': async (t) => (await confirmedDca(t)).pendingOrderId,
  'confirm-answers-another-tx-signature': async (t) => {
    const c = await creator(t);
    const data = dataOf<Row>(await c.create('dca'));
    return dataOf<Row>(await c.get(`/orders/${String((data.order as Row).id)}/deposit`)).txSignature === data.txSignature;
  },
  'confirmed-trigger-order-pending': orderField('take_profit', (order) => order.status),
  'confirmed-dca-status-pending': async (t) => ((await confirmedDca(t)).order as Record<string, unknown>).status,
  'confirmed-slice-answered-with-an-unknown-id': async (t) => {
    const c = await creator(t);
    return (await c.get(`/slice/${String((await c.order('slice')).id)}`)).status;
  },
  'late-confirm-answered-validation-error': async (t) => {
    const p = await pendingDca(t);
    p.tx.partialSign(p.wallet);
    await t.advanceClock(301);
    return failure(await p.confirm({ pendingOrderId: p.pendingOrderId, signedTransaction: serialized(p.tx) }));
  },
  'confirm-window-closes-a-minute-early': async (t) => {
    const c = await creator(t);
    const p = await c.pending('dca');
    // Half a minute from either end (the window closes at 5 minutes, the mutant's at 4): the virtual clock goes on
    // with the wall clock, and a busy machine may take seconds between the intent and the confirm.
    await t.advanceClock(270);
    return failure(await c.confirm(p, c.sign(p.transaction)));
  },
  'tampered-deposit-accepted': async (t) => {
    const c = await creator(t);
    const p = await c.pending('oco');
    return failure(await c.confirm(p, c.tampered(p)));
  },
  'confirm-compares-only-the-blockhash': async (t) => {
    const c = await creator(t);
    const p = await c.pending('dca');
    const tx = Transaction.from(Buffer.from(p.transaction, 'base64'));
    const data = Buffer.from(tx.instructions[0]!.data);
    data.writeBigUInt64LE(data.readBigUInt64LE(1) + 1n, 1);
    tx.instructions[0]!.data = data;
    return failure(await c.confirm(p, c.sign(serialized(tx))));
  },
  'tampered-transaction-answered-submit-failed': async (t) => {
    const p = await pendingDca(t);
    const hash = Buffer.from(bs58.decode(p.tx.recentBlockhash!));
    hash[0] = hash[0]! ^ 1;
    p.tx.recentBlockhash = bs58.encode(hash);
    p.tx.partialSign(p.wallet);
    return failure(await p.confirm({ pendingOrderId: p.pendingOrderId, signedTransaction: serialized(p.tx) }));
  },
  'tampered-deposit-creates-the-order-anyway': async (t) => {
    const c = await creator(t);
    const p = await c.pending('dca');
    await c.confirm(p, c.tampered(p));
    return (dataOf<Row>(await c.get('/me/orders')) as unknown as unknown[]).length;
  },
  'consumed-pending-order-answered-invalid-state': async (t) => {
    const p = await pendingDca(t);
    p.tx.partialSign(p.wallet);
    await p.confirm({ pendingOrderId: p.pendingOrderId, signedTransaction: serialized(p.tx) });
    return failure(await p.confirm({ pendingOrderId: p.pendingOrderId, signedTransaction: serialized(p.tx) }));
  },
  'another-users-pending-order-confirmed': async (t) => {
    const c = await creator(t);
    await t.onboard(c.apiKey, 'probe-sub-2');
    const p = await c.pending('dca');
    return failure(await c.confirm(p, c.sign(p.transaction), 'probe-sub-2'));
  },
  'another-tenants-pending-order-answered-404': async (t) => {
    const c = await creator(t);
    const { apiKey } = await t.createTenant();
    await t.onboard(apiKey, 'probe-sub');
    const p = await c.pending('dca');
    return failure(await c.confirm(p, c.sign(p.transaction), 'probe-sub', apiKey));
  },
  'confirm-missing-params-answered-validation-error': async (t) => failure(await (await pendingDca(t)).confirm({})),
  'non-transaction-base64-answered-validation-error': async (t) => {
    const c = await creator(t);
    return failure(await c.confirm(await c.pending('dca'), Buffer.from('not a transaction').toString('base64')));
  },
  'bad-base64-answered-invalid-transaction': async (t) => {
    const p = await pendingDca(t);
    return failure(await p.confirm({ pendingOrderId: p.pendingOrderId, signedTransaction: '%%% not base64 %%%' }));
  },
  'unsigned-deposit-accepted': async (t) => {
    const c = await creator(t);
    const p = await c.pending('stop_loss');
    return failure(await c.confirm(p, p.transaction));
  },
  'structural-problem-answered-invalid-transaction': async (t) => {
    const c = await creator(t);
    return failure(await c.confirm(await c.pending('dca'), 'AAAA'));
  },
  'second-slice-confirmed-during-a-burst': async (t) => {
    const c = await creator(t);
    await c.create('slice');
    return failure(await c.create('slice'));
  },
  'burst-rejected-before-the-deposit-lands': async (t) => {
    const c = await creator(t);
    await c.create('slice');
    await c.create('slice');
    return (dataOf<Row>(await c.get('/me/balance')).balances as Row[]).find((row) => row.mint === MINTS.USDC)?.totalBalance;
  },
  'confirmed-order-amount-per-cycle-doubled': async (t) => ((await confirmedDca(t)).order as Record<string, unknown>).amountPerCycle,
  'double-confirm-creates-two-orders': async (t) => {
    const u = await fundedUser(t);
    const { body } = await u.order();
    const answers = await Promise.all([u.post('/orders/confirm', body), u.post('/orders/confirm', body)]);
    return { statuses: statuses(answers), orders: await u.rows('/me/orders') };
  },
  'confirm-ignores-the-signatures-validity': async (t) => {
    const c = await creator(t);
    const p = await c.pending('dca');
    const tx = Transaction.from(Buffer.from(c.sign(p.transaction), 'base64'));
    const signature = Buffer.from(tx.signatures[0]!.signature!);
    signature[0] = signature[0]! ^ 0xff;
    tx.addSignature(tx.signatures[0]!.publicKey, signature);
    return failure(await c.confirm(p, serialized(tx)));
  },
};
