import { Keypair, PublicKey, Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { actionUser, sign } from '../../action-support.ts';
import { MINTS } from '../../quote-support.ts';
import { dataOf } from '../../reads-support.ts';
import { errorCode, type Target } from '../../support.ts';
import { failure, HOUR, type Probe, type Row } from '../probe.ts';
import { dcaAfter, instructionsIn, instructionsOf, lifecycleScene, pending, type Scene, withdrawalScene } from './steps.ts';

/**
 * Probes of the mutants of fixtures/mutants/orders/withdrawals.ts (OA-WDW, OA-OWD): each observes only what its mutant's rule is
 * about, deterministically (no ids or times), so that the faithful server and the mutant answer it differently
 * (mutants.test.ts).
 */

/** The USDC associated token account of `owner` (SPL Token). */
const usdcAccount = (owner: string) =>
  PublicKey.findProgramAddressSync(
    [
      new PublicKey(owner).toBuffer(),
      new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA').toBuffer(),
      new PublicKey(MINTS.USDC).toBuffer(),
    ],
    new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL'),
  )[0].toBase58();

/** The destination accounts of a withdrawal transaction's TransferChecked instructions. */
const destinations = (base64: string) =>
  Transaction.from(Buffer.from(base64, 'base64')).instructions.map((ix) => ix.keys[2]!.pubkey.toBase58());

/** A cancelled order whose order-level withdrawal was confirmed. */
async function withdrawn(s: Scene) {
  const { id, transaction } = await pending(s);
  const signed = sign(transaction, s.user.wallet);
  await s.post(`/orders/${id}/withdraw/confirm`, { signedTransaction: signed });
  return { id, signature: bs58.encode(Transaction.from(Buffer.from(signed, 'base64')).signature!) };
}

/** A DCA order failed by a failing swap, then left alone for `returnAfter` seconds: its detail. */
async function failedAndReturned(t: Target, returnAfter = 24 * 3600) {
  const s = await withdrawalScene(t, '0');
  const id = String((await s.order()).id);
  await t.faults({ swaps: 'fail' });
  try {
    await t.advanceClock(3600);
  } finally {
    await t.faults({ swaps: 'ok' });
  }
  await t.advanceClock(returnAfter);
  return { s, id, order: await s.detail(id) };
}

/** Withdraws the manager's USDC at wallet level (terminal orders do not lock it). */
async function drain(s: Scene) {
  const built = dataOf<Row>(await s.wallet({}));
  await s.post('/withdraw/confirm', { signedTransaction: sign(String(built.transaction), s.user.wallet) });
}

export const WITHDRAWAL_PROBES: Record<string, Probe> = {
  // ---- OA-WDW: Wallet-level withdrawals (POST /withdraw/transaction, POST /withdraw/confirm) ----
  'wallet-withdrawal-of-exactly-available-is-funds-locked': async (t) => {
    const s = await withdrawalScene(t);
    await s.order();
    return failure(await s.wallet({ amount: '5000000' }));
  },
  'wallet-withdrawal-pays-the-manager': async (t) => {
    const s = await withdrawalScene(t);
    return destinations(String(dataOf<Row>(await s.wallet({ amount: '1000000' })).transaction)).map((to) => to === usdcAccount(s.pubkey));
  },
  'wallet-withdrawal-max-is-the-total-balance': async (t) => {
    const s = await withdrawalScene(t);
    await s.order();
    return failure(await s.wallet({}));
  },
  'wallet-withdrawal-confirm-moves-nothing': async (t) => {
    const s = await withdrawalScene(t);
    await s.post('/withdraw/confirm', {
      signedTransaction: sign(String(dataOf<Row>(await s.wallet({ amount: '2000000' })).transaction), s.user.wallet),
    });
    return (await s.usdc()).totalBalance;
  },
  'wallet-withdrawal-of-an-unheld-mint-is-insufficient-balance': async (t) => failure(await (await withdrawalScene(t, '0')).wallet({})),
  'wallet-withdrawal-with-everything-locked-is-funds-locked': async (t) => {
    const s = await withdrawalScene(t, '0');
    await s.order();
    return failure(await s.wallet({}));
  },
  'wallet-withdrawal-above-available-is-insufficient-balance': async (t) => {
    const s = await withdrawalScene(t);
    await s.order();
    return failure(await s.wallet({ amount: '5000001' }));
  },
  'wallet-withdrawal-above-the-balance-is-funds-locked': async (t) =>
    failure(await (await withdrawalScene(t)).wallet({ amount: '5000001' })),
  'funds-locked-without-the-breakdown': async (t) => {
    const s = await withdrawalScene(t);
    await s.order();
    return Array.isArray(
      ((await s.wallet({ amount: '5000001' })).body as { error: { details?: { lockedBreakdown?: unknown } } }).error.details
        ?.lockedBreakdown,
    );
  },
  'wallet-withdrawal-pays-the-requested-key': async (t) =>
    failure(await (await withdrawalScene(t)).wallet({ userPubkey: Keypair.generate().publicKey.toBase58() })),
  'wallet-withdrawal-missing-field-is-missing-params': async (t) =>
    failure(await (await withdrawalScene(t)).post('/withdraw/transaction', {})),
  'wallet-withdrawal-confirm-garbage-is-submit-failed': async (t) =>
    failure(await (await withdrawalScene(t)).post('/withdraw/confirm', { signedTransaction: 'AAAA' })),
  'wallet-withdrawal-confirm-races': async (t) => {
    const s = await withdrawalScene(t);
    const built = (await s.wallet({ amount: '2000000' })).body as { data: { transaction: string } };
    const body = { signedTransaction: sign(built.data.transaction, s.user.wallet) };
    await Promise.all([1, 2, 3].map(() => s.post('/withdraw/confirm', body)));
    return (await s.usdc()).totalBalance;
  },
  'wallet-withdrawal-transaction-also-debits-the-user-wallet': async (t) =>
    instructionsOf(await (await withdrawalScene(t)).wallet({ amount: '1000000' })),

  // ---- OA-OWD: Order-level withdrawals, abandon, stuck-lock clearing and automatic return of funds ----
  'order-withdrawal-without-preview': async (t) => {
    const s = await withdrawalScene(t, '0');
    return dataOf<Row>(await s.post(`/orders/${await s.cancelled()}/withdraw`)).withdrawalAmounts;
  },
  'order-withdrawal-build-leaves-status-none': async (t) => {
    const s = await withdrawalScene(t, '0');
    return (await s.detail((await pending(s)).id)).withdrawalStatus;
  },
  'order-withdrawal-reserves-nothing': async (t) => {
    const s = await withdrawalScene(t, '0');
    await pending(s);
    return (await s.usdc()).withdrawalPending;
  },
  'order-withdrawal-confirm-leaves-it-pending': async (t) => {
    const s = await withdrawalScene(t, '0');
    return (await s.detail((await withdrawn(s)).id)).withdrawalStatus;
  },
  'withdrawal-tx-hash-not-the-submitted-signature': async (t) => {
    const s = await withdrawalScene(t, '0');
    const { id, signature } = await withdrawn(s);
    return (await s.detail(id)).withdrawalTxHash === signature;
  },
  'order-withdrawal-confirm-keeps-the-reservation': async (t) => {
    const s = await withdrawalScene(t, '0');
    await withdrawn(s);
    return (await s.usdc()).withdrawalPending;
  },
  'withdrawal-tx-hash-before-any-withdrawal': async (t) => (await dcaAfter(t, 0)).withdrawalTxHash,
  'returned-order-with-placeholder-withdrawal-hash': async (t) => {
    const s = await lifecycleScene(t, HOUR + 1, { faults: { swaps: 'fail' } });
    await t.advanceClock(HOUR);
    return (await s.detail()).withdrawalTxHash === '1'.repeat(64);
  },
  'withdrawal-requested-at-stamped-at-creation': async (t) => {
    const s = await withdrawalScene(t, '0');
    return (await s.detail(await s.cancelled())).withdrawalRequestedAt;
  },
  'abandon-keeps-the-reservation': async (t) => {
    const s = await withdrawalScene(t, '0');
    await s.post(`/orders/${(await pending(s)).id}/withdraw/abandon`);
    return (await s.usdc()).withdrawalPending;
  },
  'abandon-marks-the-order-withdrawn': async (t) => {
    const s = await withdrawalScene(t, '0');
    const { id } = await pending(s);
    await s.post(`/orders/${id}/withdraw/abandon`);
    return failure(await s.post(`/orders/${id}/withdraw`));
  },
  'abandon-twice-is-invalid-state': async (t) => {
    const s = await withdrawalScene(t, '0');
    return failure(await s.post(`/orders/${await s.cancelled()}/withdraw/abandon`));
  },
  'stuck-withdrawal-lock-never-clears': async (t) => {
    const s = await withdrawalScene(t, '0');
    await pending(s);
    await t.advanceClock(9 * 60);
    return (await s.usdc()).withdrawalPending;
  },
  'order-withdrawal-of-funds-already-gone': async (t) => {
    const s = await withdrawalScene(t, '0');
    const id = await s.cancelled();
    await drain(s);
    return failure(await s.post(`/orders/${id}/withdraw`));
  },
  'withdraw-after-withdrawal-is-in-progress': async (t) => {
    const s = await withdrawalScene(t, '0');
    return failure(await s.post(`/orders/${(await withdrawn(s)).id}/withdraw`));
  },
  'failed-orders-are-not-returned': async (t) => (await failedAndReturned(t)).order.withdrawalStatus,
  'expired-trigger-orders-are-not-returned': async (t) => {
    const s = await withdrawalScene(t, '0');
    const expiresAt = Math.floor((await t.now()).getTime() / 1000) + 3600;
    const intent = dataOf<Row>(
      await s.post('/orders/intent', {
        orderType: 'stop_loss',
        inputMint: MINTS.USDC,
        outputMint: MINTS.SOL,
        config: { amount: '12000000', triggerPrice: '1', priceDecimals: 18, expiresAt },
      }),
    );
    const order = dataOf<Row>(
      await s.post('/orders/confirm', {
        pendingOrderId: intent.pendingOrderId,
        signedTransaction: sign(String(intent.transaction), s.user.wallet),
      }),
    ).order as Row;
    await t.advanceClock(3601);
    return dataOf<Row>(await s.get(`/stop-loss/${String(order.id)}`)).withdrawalStatus;
  },
  'nothing-to-withdraw-checked-before-already-withdrawn': async (t) => {
    const { s, id } = await failedAndReturned(t);
    return failure(await s.post(`/orders/${id}/withdraw`));
  },
  'automatic-return-placeholder-tx-hash': async (t) =>
    bs58.decode(String((await failedAndReturned(t)).order.withdrawalTxHash)).some((byte) => byte !== 0),
  'empty-automatic-return-placeholder-tx-hash': async (t) => {
    const { s, id } = await failedAndReturned(t, 0);
    await drain(s);
    await t.advanceClock(24 * 3600);
    return (await s.detail(id)).withdrawalTxHash;
  },
  'order-withdrawal-confirm-garbage-is-submit-failed': async (t) => {
    const s = await withdrawalScene(t, '0');
    return failure(await s.post(`/orders/${(await pending(s)).id}/withdraw/confirm`, { signedTransaction: 'AAAA' }));
  },
  'withdrawal-in-progress-outlives-the-withdrawal': async (t) => {
    const alice = await actionUser(t);
    const { id } = await alice.order();
    await t.faults({ swaps: 'fail' });
    try {
      await t.advanceClock(3600);
    } finally {
      await t.faults({ swaps: 'ok' });
    }
    await alice.post(`/orders/${id}/withdraw`);
    const refused = await alice.post(`/orders/${id}/retry`);
    await alice.post(`/orders/${id}/withdraw/abandon`);
    const again = await alice.post(`/orders/${id}/retry`);
    return [refused, again].map((a) => ({ status: a.status, code: errorCode(a) }));
  },
  'order-withdrawal-confirm-races': async (t) => {
    const s = await withdrawalScene(t, '0');
    const { id, transaction } = await pending(s);
    const body = { signedTransaction: sign(transaction, s.user.wallet) };
    const answers = await Promise.all([s.post(`/orders/${id}/withdraw/confirm`, body), s.post(`/orders/${id}/withdraw/confirm`, body)]);
    return answers.map(failure).sort((a, b) => a.status - b.status);
  },
  'automatic-return-keeps-the-funds': async (t) => (await (await failedAndReturned(t)).s.usdc()).totalBalance,
  'order-withdrawal-pays-the-manager': async (t) => {
    const s = await withdrawalScene(t, '0');
    return destinations((await pending(s)).transaction).map((to) => to === usdcAccount(s.pubkey));
  },
  'order-withdrawal-repeat-reserves-again': async (t) => {
    const s = await withdrawalScene(t, '0');
    await s.post(`/orders/${(await pending(s)).id}/withdraw`);
    return (await s.usdc()).withdrawalPending;
  },
  'order-withdrawal-builds-race': async (t) => {
    const s = await withdrawalScene(t, '0');
    const id = await s.cancelled();
    await Promise.all([0, 1, 2].map(() => s.post(`/orders/${id}/withdraw`)));
    return (await s.usdc()).withdrawalPending;
  },
  'order-withdrawal-transaction-also-debits-the-user-wallet': async (t) => {
    const { transaction } = await pending(await withdrawalScene(t));
    return instructionsIn(transaction);
  },
};
