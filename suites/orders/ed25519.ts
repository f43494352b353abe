/**
 * ed25519 signatures with a wallet's keypair: the one place the suite turns a secret key into a signing key. Only the
 * signing gate (signing-gate.ts: transactions, after decoding and verifying them) and the SIWS signer (siws.ts) import
 * it; test/self-test/signing-gate.test.ts holds that wall.
 */
import { createPrivateKey, type KeyObject, sign } from 'node:crypto';
import type { Keypair } from '@solana/web3.js';

const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The signing key of each keypair, made once (building it costs more than a signature); gone with the keypair. */
const keys = new WeakMap<Keypair, KeyObject>();

/** The ed25519 signature of `bytes` by `signer`. */
export function ed25519Signature(bytes: Uint8Array, signer: Keypair): Buffer {
  let key = keys.get(signer);
  if (!key) {
    key = createPrivateKey({
      key: Buffer.concat([PKCS8_ED25519, Buffer.from(signer.secretKey.subarray(0, 32))]),
      format: 'der',
      type: 'pkcs8',
    });
    keys.set(signer, key);
  }
  return sign(null, bytes, key);
}
