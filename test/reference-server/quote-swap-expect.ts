/** Expectations the quote/swap tests of the reference server share (quote-swap*.test.ts). */
import { expect } from 'vitest';
import type { Answer } from './support.ts';
import { MINTS, type QuoteBody, WALLET } from './quote-support.ts';

export const USDC_TO_JUP = { inputMint: MINTS.USDC, outputMint: MINTS.JUP, amount: '250000000', userPublicKey: WALLET };

export const expectPlainText400 = (answer: Answer, field: string): void => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  expect(answer.contentType).toMatch(/^text\/plain/);
  expect(answer.body).toContain(field);
};

export const expectCode400 = (answer: Answer, code: number): void => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  expect(answer.contentType).toBe('application/json');
  expect(answer.body).toEqual({ code, message: expect.any(String) });
};

export const expectNoRoute = (answer: Answer, errors: Record<string, string> | undefined): void => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(404);
  const body = answer.body as { code: number; quoteId: Record<string, unknown>; metadata: Record<string, unknown> };
  expect(body).toMatchObject({ code: -7, message: expect.any(String) });
  expect(body.quoteId).toEqual({ kind: expect.any(String), tag: expect.any(String), seq: expect.any(Number) });
  if (errors === undefined) expect(body.metadata).not.toHaveProperty('errors');
  else expect(body.metadata.errors).toEqual(errors);
};

export const ok = (answer: Answer): QuoteBody => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as QuoteBody;
};
