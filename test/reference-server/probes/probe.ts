import type { Transaction } from '@solana/web3.js';
import { type Answer, errorCode, type Target } from '../support.ts';

/**
 * A probe observes what one mutant's rule is about, deterministically (no ids or times), so that the faithful server
 * and the mutant answer it differently (mutants.test.ts). The small readings every probe file uses.
 */
export type Probe = (target: Target) => Promise<unknown>;

export type Row = Record<string, unknown>;

export const HOUR = 3600;

export const status = (a: Answer) => a.status;

/** The status and error code of an answer. */
export const failure = (a: Answer) => ({ status: a.status, code: errorCode(a) });

/** A transaction as base64, signed or not. */
export const serialized = (tx: Transaction) => tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');
