import { SystemProgram, Transaction, type TransactionInstruction } from '@solana/web3.js';
import bs58 from 'bs58';
import fc from 'fast-check';
import { errorCode, failureOf, is2xx } from '../harness/answers.ts';
import { defineCheck, type CheckContext } from '../harness/check.ts';
import { SetupFailed } from '../harness/failure.ts';
import { throwawaySignature } from './signing-gate.ts';
import {
  type Funded,
  type Intent,
  intentRequest,
  ORDER_TYPES,
  pendingIntent,
  postConfirm,
  signedDeposit,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
} from './orders.ts';
import { orderIds, richUser, userWithIntent } from './steps/create.ts';
import { expectError, expectErrorEnvelope } from './steps/expect.ts';
import { throwawayWallet } from './users.ts';

/**
 * Tampered and wrongly signed deposits at POST /orders/confirm (area CONF: "Orders: create"; Errors): a message
 * changed before the user signed it is TRANSACTION_TAMPERED, a signature that does not verify is never accepted, and a
 * rejected confirm creates no order. The suite signs only what its signing gate verified (signing-gate.ts): a changed
 * deposit moves less, or to the user's own account, never to a stranger.
 */

const confirmTampered = defineCheck({
  name: 'confirm-of-a-transaction-whose-message-changed-answers-400-transaction-tampered',
  service: 'orders',
  rules: ['OA-CONF-010', 'OA-ENV-002'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, intent } = await userWithIntent(t);
    // One byte of the message (its recent blockhash) flipped, then signed by the user: a valid signature over other bytes.
    const tx = Transaction.from(Buffer.from(intent.transaction, 'base64'));
    const hash = Buffer.from(bs58.decode(tx.recentBlockhash!));
    hash[0] = hash[0]! ^ 0x01;
    tx.recentBlockhash = bs58.encode(hash);
    const signedTransaction = signedDeposit(intent, user, {
      transaction: tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64'),
    });
    const ex = await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction });
    expectError(t, 'OA-CONF-010', ex, {
      status: 400,
      codes: ['TRANSACTION_TAMPERED'],
      documented: '400 TRANSACTION_TAMPERED for a signed transaction whose message differs by one byte from the unsigned one',
    });
    expectErrorEnvelope(t, ex);
  },
});

/**
 * The byte range of a legacy message holding the recent blockhash: changing it changes nothing else of the
 * transaction's shape, so the only thing wrong is the difference from the unsigned transaction.
 */
function blockhashBytes(message: Buffer): [number, number] {
  const keys = message[3]!; // fewer than 128 keys: a one-byte compact length
  return [4 + 32 * keys, 4 + 32 * (keys + 1)];
}

const tamperedEveryType = defineCheck({
  name: 'one-byte-changed-in-the-deposit-of-any-order-type-answers-400-transaction-tampered',
  service: 'orders',
  rules: ['OA-CONF-010'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await richUser(t);
    await t.property(
      'OA-CONF-010',
      fc.record({
        orderType: fc.constantFrom('dca', 'stop_loss', 'take_profit', 'oco', 'slice' as const),
        at: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        bit: fc.integer({ min: 0, max: 7 }),
      }),
      async ({ orderType, at, bit }) => {
        const intent = await pendingIntent(t, user, intentRequest(orderType));
        const tx = Transaction.from(Buffer.from(intent.transaction, 'base64'));
        const message = tx.serializeMessage();
        const [from, to] = blockhashBytes(message);
        const offset = from + Math.floor(at * (to - from));
        message[offset] = message[offset]! ^ (1 << bit);
        // The changed message, then signed by the user (through the signing gate: only the blockhash differs, the deposit
        // is the intent's): a valid signature over other bytes than the intent's.
        const changed = Transaction.from(Buffer.concat([Buffer.from([1]), Buffer.alloc(64), message]));
        const signedTransaction = signedDeposit(intent, user, { transaction: serialized(changed) });
        const ex = await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction });
        expectError(t, 'OA-CONF-010', ex, {
          status: 400,
          codes: ['TRANSACTION_TAMPERED'],
          documented: `400 TRANSACTION_TAMPERED for a ${orderType} deposit whose message byte ${offset} had bit ${bit} flipped, then signed`,
        });
      },
      Math.min(t.env.numRuns, 8),
    );
  },
});

/**
 * The deposit's transfer of the input (a system transfer, or an SPL TransferChecked / Transfer moving inputAmount):
 * where its amount and its destination sit, or undefined when the transaction carries no such transfer.
 */
function inputTransfer(
  tx: Transaction,
  inputAmount: bigint,
): { ix: TransactionInstruction; amountAt: number; destination: number } | undefined {
  for (const ix of tx.instructions) {
    const program = ix.programId.toBase58();
    if (
      ix.programId.equals(SystemProgram.programId) &&
      ix.data.length >= 12 &&
      ix.data.readUInt32LE(0) === 2 &&
      ix.data.readBigUInt64LE(4) === inputAmount
    ) {
      return { ix, amountAt: 4, destination: 1 };
    }
    if (
      (program === TOKEN_PROGRAM || program === TOKEN_2022_PROGRAM) &&
      ix.data.length >= 9 &&
      ix.data.readBigUInt64LE(1) === inputAmount
    ) {
      if (ix.data[0] === 12) return { ix, amountAt: 1, destination: 2 };
      if (ix.data[0] === 3) return { ix, amountAt: 1, destination: 1 };
    }
  }
  return undefined;
}

type DepositPart = 'amount' | 'destination';

/**
 * Changes the input transfer of `tx` in place: one unit less, or the user's own paying account as destination (a
 * transfer to itself). Never more, never to a stranger: the suite signs the result (signing-gate.ts, suiteTampered).
 * False without a transfer it can decode.
 */
function changeDeposit(tx: Transaction, inputAmount: bigint, part: DepositPart): boolean {
  const transfer = inputTransfer(tx, inputAmount);
  if (!transfer) return false;
  if (part === 'amount') {
    const data = Buffer.from(transfer.ix.data);
    data.writeBigUInt64LE(inputAmount - 1n, transfer.amountAt);
    transfer.ix.data = data;
  } else {
    transfer.ix.keys[transfer.destination] = { ...transfer.ix.keys[transfer.destination]!, pubkey: transfer.ix.keys[0]!.pubkey };
  }
  return true;
}

const serialized = (tx: Transaction) => tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');

const changedDepositSigned = defineCheck({
  name: 'a-deposit-whose-amount-or-destination-changed-then-signed-answers-400-transaction-tampered',
  service: 'orders',
  rules: ['OA-CONF-010'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await richUser(t);
    let judged = 0;
    await t.property(
      'OA-CONF-010',
      fc.record({ orderType: fc.constantFrom(...ORDER_TYPES), part: fc.constantFrom<DepositPart>('amount', 'destination') }),
      async ({ orderType, part }) => {
        const intent = await pendingIntent(t, user, intentRequest(orderType));
        const tx = Transaction.from(Buffer.from(intent.transaction, 'base64'));
        if (!changeDeposit(tx, BigInt(String(intent.data.inputAmount)), part)) {
          t.note(`the ${orderType} deposit has no transfer of inputAmount this check can decode: its ${part} is not changed`);
          return;
        }
        // The changed message, then signed by the user: a valid signature over other instructions than the intent's.
        const signedTransaction = signedDeposit(intent, user, { transaction: serialized(tx), suiteTampered: true });
        judged++;
        const ex = await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction });
        expectError(t, 'OA-CONF-010', ex, {
          status: 400,
          codes: ['TRANSACTION_TAMPERED'],
          documented: `400 TRANSACTION_TAMPERED for a ${orderType} deposit whose ${part === 'amount' ? 'transfer amount was lowered by one unit' : 'transfer destination was replaced by the paying account itself'}, then signed by the user`,
        });
      },
      Math.min(t.env.numRuns, 6),
    );
    if (judged === 0) t.skip('no deposit carried a transfer of inputAmount this check can decode: nothing was changed');
  },
});

/**
 * How a deposit's user signature is made wrong: the message unchanged with another key's signature or with flipped
 * signature bytes, or the message changed after the user signed it.
 */
const WRONG_SIGNATURES: Record<string, (intent: Intent, user: Funded) => string | undefined> = {
  'the unchanged message signed by another key': (intent, user) => {
    const tx = Transaction.from(Buffer.from(intent.transaction, 'base64'));
    tx.addSignature(user.keypair.publicKey, throwawaySignature(tx.serializeMessage()));
    return serialized(tx);
  },
  "the unchanged message with the user's signature bytes flipped": (intent, user) => {
    const tx = Transaction.from(Buffer.from(signedDeposit(intent, user), 'base64'));
    const signature = Buffer.from(tx.signatures.find((entry) => entry.publicKey.equals(user.keypair.publicKey))!.signature!);
    signature[7] = signature[7]! ^ 0xff;
    tx.addSignature(user.keypair.publicKey, signature);
    return serialized(tx);
  },
  'the amount changed after the user signed': (intent, user) => {
    const tx = Transaction.from(Buffer.from(signedDeposit(intent, user), 'base64'));
    return changeDeposit(tx, BigInt(String(intent.data.inputAmount)), 'amount') ? serialized(tx) : undefined;
  },
  'the destination changed after the user signed': (intent, user) => {
    const tx = Transaction.from(Buffer.from(signedDeposit(intent, user), 'base64'));
    return changeDeposit(tx, BigInt(String(intent.data.inputAmount)), 'destination') ? serialized(tx) : undefined;
  },
};

/**
 * A wrong signature has no code of its own in the document. Accepted (OA-CONF-024): TRANSACTION_TAMPERED ("signed
 * transaction differs from the unsigned one"), SUBMIT_FAILED ("a bad transaction ... missing signatures"), TX_FAILED
 * ("did not confirm") and CONFIRMATION_FAILED (confirming on-chain failed). Not INVALID_STATE (a lost race or a
 * missing stored transaction) nor INVALID_TRANSACTION ("not raised by /orders/confirm").
 */
const WRONG_SIGNATURE_ANSWERS: ReadonlyArray<readonly [number, string]> = [
  [400, 'TRANSACTION_TAMPERED'],
  [500, 'SUBMIT_FAILED'],
  [500, 'TX_FAILED'],
  [500, 'CONFIRMATION_FAILED'],
];

const wrongSignatureRejected = defineCheck({
  name: 'a-deposit-whose-signature-does-not-verify-is-never-accepted-and-creates-no-order',
  service: 'orders',
  rules: ['OA-CONF-024'],
  profile: 'full',
  async run(t: CheckContext) {
    const user = await richUser(t);
    const before = await orderIds(t, user.sub, 'dca');
    let judged = 0;
    for (const [what, make] of Object.entries(WRONG_SIGNATURES)) {
      const intent = await pendingIntent(t, user);
      const signedTransaction = make(intent, user);
      if (signedTransaction === undefined) {
        t.note(`${what}: the deposit has no transfer of inputAmount this check can decode, not sent`);
        continue;
      }
      judged++;
      const ex = await postConfirm(t, user.sub, { pendingOrderId: intent.pendingOrderId, signedTransaction });
      t.expect(
        'OA-CONF-024',
        WRONG_SIGNATURE_ANSWERS.some(([status, code]) => ex.response.status === status && errorCode(ex) === code),
        {
          documented: `a confirm with ${what} is not accepted: 400 TRANSACTION_TAMPERED, or 500 SUBMIT_FAILED, TX_FAILED or CONFIRMATION_FAILED`,
          received: failureOf(ex),
          exchange: ex,
        },
      );
      t.note(`${what}: ${ex.response.status} ${String(errorCode(ex))}`);
    }
    const { ex: list, ids } = await orderIds(t, user.sub, 'dca');
    const created = ids.filter((id) => !before.ids.includes(id));
    t.expect('OA-CONF-024', judged > 0 && created.length === 0, {
      documented: `no new order after ${judged} confirms whose signature does not verify (GET /me/orders)`,
      received: created,
      exchange: list,
    });
  },
});

const rejectedConfirmCreatesNothing = defineCheck({
  name: 'a-rejected-confirm-creates-no-order',
  service: 'orders',
  rules: ['OA-CONF-011'],
  profile: 'full',
  async run(t: CheckContext) {
    const { user, intent } = await userWithIntent(t);
    const before = await orderIds(t, user.sub, 'dca');
    const tx = Transaction.from(Buffer.from(intent.transaction, 'base64'));
    tx.recentBlockhash = throwawayWallet().publicKey.toBase58();
    const ex = await postConfirm(t, user.sub, {
      pendingOrderId: intent.pendingOrderId,
      signedTransaction: signedDeposit(intent, user, { transaction: serialized(tx) }),
    });
    if (is2xx(ex))
      throw new SetupFailed('a confirm of a changed transaction was accepted: nothing rejected to judge (OA-CONF-010 judges that)', ex);
    const { ex: list, ids } = await orderIds(t, user.sub, 'dca');
    const created = ids.filter((id) => !before.ids.includes(id));
    t.expect('OA-CONF-011', created.length === 0, {
      documented: `no new order after the rejected confirm (${ex.response.status} ${String(errorCode(ex))})`,
      received: created,
      exchange: list,
    });
  },
});

/** The group in running order (a module namespace lists its exports alphabetically, an array keeps this order). */
export const confirmTamperChecks = [
  confirmTampered,
  tamperedEveryType,
  changedDepositSigned,
  wrongSignatureRejected,
  rejectedConfirmCreatesNothing,
];
