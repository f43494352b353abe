/**
 * The quote service's real encodings are not violations (issue 13, section 1). A small loopback server answers with
 * fixed bytes; the suite's own client (its schema validation), its body reading and its quote invariants judge the
 * answer, exactly as in a run. First a real-shaped frame of our own making (binary public keys, nulls, no compute
 * units, an RFQ route without steps, the real service's extra fields); then the real frame of the public service in
 * ../shared/real-fixtures, when that directory is present (the project never copies it).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { decode, encode } from '@msgpack/msgpack';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckContext, defineCheck } from '../../suites/harness/check.ts';
import type { TargetEnv } from '../../suites/harness/types.ts';
import { OFFLINE_ENV } from '../harness/offline-target.ts';
import { checkAnswer } from '../../suites/quotes/invariants.ts';
import { requestQuote, type Discovery, Judge, type QuoteParams } from '../../suites/quotes/quote-support.ts';
import { ATA_PROGRAM, associatedTokenAccount, MINTS, TOKEN_PROGRAM, WALLET } from './quote-support.ts';

const REAL_FRAME = resolve(import.meta.dirname, '../../../shared/real-fixtures/titan-stream-data.msgpack');

/** What the loopback target answers next. */
let reply: { contentType: string; bytes: Buffer } = { contentType: 'application/json', bytes: Buffer.from('{}') };
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': reply.contentType, 'x-edge-requestid': 'loopback' });
    res.end(reply.bytes);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

/**
 * One quote answer judged the way a run judges it: the suite's client validates it against the spec, the quote
 * invariants look at it. The context cites a rule no invariant asserts, so every broken fact is recorded, not thrown.
 */
async function judge(
  answer: { contentType: string; body: unknown },
  params: QuoteParams,
  discovery: Discovery,
  path = '/api/v1/quote/swap',
) {
  reply = {
    contentType: answer.contentType,
    bytes:
      answer.contentType === 'application/json'
        ? Buffer.from(JSON.stringify(answer.body))
        : Buffer.from(encode(answer.body, { useBigInt64: true })),
  };
  const env: TargetEnv = { ...OFFLINE_ENV, ordersUrl: baseUrl, quotesUrl: baseUrl, profile: 'smoke', numRuns: 1, timeoutMs: 5000 };
  const t = new CheckContext(
    defineCheck({ name: 'judge-one-answer', service: 'quotes', rules: ['Q-DIST-014'], profile: 'smoke', async run() {} }),
    env,
  );
  const call = await requestQuote(t, params, { accept: answer.contentType });
  expect(new URL(call.ex.request.url).pathname).toBe(path);
  checkAnswer(new Judge(t), call, discovery);
  return {
    call,
    violations: t.violations.map((v) => ({ rule: v.rule, documented: v.detail.documented, received: v.detail.received })),
    notes: t.notes,
  };
}

const key = (base58: string): Uint8Array => bs58.decode(base58);

/** A real-shaped quote answer of our own: USDC to wrapped SOL for WALLET, a split DEX route and an RFQ fill. */
function realShapedAnswer(): Record<string, unknown> {
  const user = key(WALLET);
  const outputAta = key(associatedTokenAccount(WALLET, MINTS.SOL));
  const inputAta = key(associatedTokenAccount(WALLET, MINTS.USDC));
  const createOutput = {
    p: key(ATA_PROGRAM),
    d: Uint8Array.of(1),
    a: [
      { p: user, s: true, w: true },
      { p: outputAta, s: false, w: true },
      { p: user, s: false, w: false },
      { p: key(MINTS.SOL), s: false, w: false },
      { p: key('11111111111111111111111111111111'), s: false, w: false },
      { p: key(TOKEN_PROGRAM), s: false, w: false },
    ],
  };
  const swap = (program: string, pools: string[]) => ({
    p: key(program),
    // 32 bytes of instruction data: raw bytes, never mistaken for a key.
    d: Uint8Array.from({ length: 32 }, (_, i) => i * 7),
    a: [
      { p: user, s: true, w: true },
      { p: inputAta, s: false, w: true },
      { p: outputAta, s: false, w: true },
      ...pools.map((pool) => ({ p: key(pool), s: false, w: true })),
    ],
  });
  const unwrap = {
    p: key(TOKEN_PROGRAM),
    d: Uint8Array.of(9),
    a: [
      { p: outputAta, s: false, w: true },
      { p: user, s: false, w: true },
      { p: user, s: true, w: false },
    ],
  };
  const pools = ['3msVd34R5KxonDzyNSV5nT19UtUeJ2RF1NaQhvVPNLxL', 'Fn68NZzCCgZKtYmnAYbkL6w5NNx3TgjW91dGkLA3hsDK'];
  return {
    id: 'real-shaped-1',
    inputMint: key(MINTS.USDC),
    outputMint: key(MINTS.SOL),
    swapMode: 'ExactIn',
    amount: 50_000_000,
    quotes: {
      titan: {
        inAmount: 50_000_000,
        outAmount: 288_949_548,
        slippageBps: 50,
        platformFee: null,
        priceImpactPct: '0',
        steps: [
          {
            ammKey: key(pools[0]!),
            label: 'Meteora DLMM',
            inputMint: key(MINTS.USDC),
            outputMint: key(MINTS.SOL),
            inAmount: 46_465_000,
            outAmount: 268_336_037,
            allocPpb: 929_300_000,
            contextSlot: null,
          },
          {
            ammKey: key(pools[1]!),
            label: 'Obric V2',
            inputMint: key(MINTS.USDC),
            outputMint: key(MINTS.SOL),
            inAmount: 3_535_000,
            outAmount: 20_613_511,
            allocPpb: 70_700_000,
            contextSlot: 340_421_138,
            feeMint: null,
            feeAmount: null,
          },
        ],
        instructions: [createOutput, swap('T1TANpTeScyeqVzzgNViGDNrkQ6qHz9KrSBS4aNXvGT', pools), unwrap],
        addressLookupTables: [key('Crp6X3vm1PLpqbtP2DqWRCaJZY3ddW3NHSBFZMS52are')],
        contextSlot: 340_421_144,
        timeTaken: 0.300868159,
        expiresAtMs: null,
        expiresAfterSlot: null,
        referenceId: null,
      },
      hashflow: {
        inAmount: 50_000_000,
        outAmount: 288_698_771,
        slippageBps: 0,
        platformFee: null,
        priceImpactPct: '0',
        steps: [],
        instructions: [createOutput, swap('CRhtqXk98ATqo1R8gLg7qcpEMuvoPzqD5GNicPPqLMD', []), unwrap],
        addressLookupTables: [],
        contextSlot: 0,
        timeTaken: 0,
        referenceId: 'rfq-quote-7',
      },
    },
    metadata: {
      ExpectedWinner: 'titan',
      expectedWinner: 'titan',
      inputMintDecimals: 6,
      outputMintDecimals: 9,
      inputPriceUSD: 1.0,
      outputPriceUSD: null,
    },
  };
}

const PARAMS: QuoteParams = {
  inputMint: MINTS.USDC,
  outputMint: MINTS.SOL,
  amount: '50000000',
  userPublicKey: WALLET,
  slippageBps: 50,
  numQuotes: 2,
};
const DISCOVERY: Discovery = { info: {}, providerIds: ['titan', 'hashflow'], labels: ['Meteora DLMM', 'Obric V2'], ranges: new Map() };
const MSGPACK = 'application/vnd.msgpack';

describe('a real-shaped quote answer of our own', () => {
  it('is accepted in MessagePack: binary keys, nulls, no compute units, an RFQ route without steps, swapMode', async () => {
    const { call, violations, notes } = await judge({ contentType: MSGPACK, body: realShapedAnswer() }, PARAMS, DISCOVERY);
    expect(violations).toEqual([]);
    // The checks read each binary key as the base58 string of its bytes; instruction data stays bytes (base64).
    const body = call.body as { inputMint: string; quotes: { titan: { steps: { ammKey: string }[]; instructions: { d: string }[] } } };
    expect(body.inputMint).toBe(MINTS.USDC);
    expect(body.quotes.titan.steps[0]!.ammKey).toBe('3msVd34R5KxonDzyNSV5nT19UtUeJ2RF1NaQhvVPNLxL');
    expect(Buffer.from(body.quotes.titan.instructions[1]!.d, 'base64')).toHaveLength(32);
    expect(notes).toContain(
      'Q-ENC-009: GET /api/v1/quote/swap in MessagePack: public keys as 32-byte binaries (read as the base58 keys of the same bytes)',
    );
    expect(notes).toContain('Q-ROUTE-017: quotes.hashflow carries no computeUnits and computeUnitsSafe (tolerated: "varies by provider")');
    expect(notes).toContain('Q-ROUTE-003: quotes.hashflow has no steps (a direct fill)');
    expect(notes.find((n) => n.startsWith('Q-QUOTE-011'))).toMatch(/platformFee.*priceImpactPct.*timeTaken.*swapMode/);
  });

  it('is accepted with base58 string keys as well, and the same answer in JSON', async () => {
    const asStrings = JSON.parse(
      JSON.stringify(realShapedAnswer(), (k, v) => {
        if (!(v instanceof Uint8Array)) return v;
        return k === 'd' ? Buffer.from(v).toString('base64') : bs58.encode(v);
      }),
    ) as Record<string, unknown>;
    const packed = await judge({ contentType: MSGPACK, body: asStrings }, PARAMS, DISCOVERY);
    expect(packed.violations).toEqual([]);
    expect(packed.notes).toContain('Q-ENC-009: GET /api/v1/quote/swap in MessagePack: public keys as base58 strings');
    expect((await judge({ contentType: 'application/json', body: asStrings }, PARAMS, DISCOVERY)).violations).toEqual([]);
  });

  it('still fails a binary key of 31 bytes in MessagePack', async () => {
    const body = realShapedAnswer() as { quotes: { titan: { steps: Array<Record<string, unknown>> } } };
    body.quotes.titan.steps[0]!.ammKey = (body.quotes.titan.steps[0]!.ammKey as Uint8Array).subarray(0, 31);
    const { violations } = await judge({ contentType: MSGPACK, body }, PARAMS, DISCOVERY);
    expect(violations.map((v) => v.rule)).toEqual(expect.arrayContaining(['Q-ROUTE-004', 'Q-ENC-006']));
    expect(violations.find((v) => v.rule === 'Q-ENC-006')?.received).toEqual([
      { at: 'quotes.titan.steps.0.ammKey', value: '31 raw bytes' },
    ]);
  });

  it("still fails a key that is not base58 in JSON (base64 of the key's bytes)", async () => {
    const json = JSON.parse(
      JSON.stringify(realShapedAnswer(), (k, v) => {
        if (!(v instanceof Uint8Array)) return v;
        return k === 'd' || k === 'ammKey' ? Buffer.from(v).toString('base64') : bs58.encode(v);
      }),
    ) as Record<string, unknown>;
    const { violations } = await judge({ contentType: 'application/json', body: json }, PARAMS, DISCOVERY);
    expect(violations.map((v) => v.rule)).toEqual(expect.arrayContaining(['Q-ROUTE-004', 'Q-ENC-006']));
  });

  it('still fails a route without instructions: only what the document leaves open is relaxed', async () => {
    const body = realShapedAnswer() as { quotes: { hashflow: Record<string, unknown> } };
    body.quotes.hashflow.instructions = [];
    expect((await judge({ contentType: MSGPACK, body }, PARAMS, DISCOVERY)).violations.map((v) => v.rule)).toContain('Q-ROUTE-011');
  });
});

describe('the real frame of the public quote service (../shared/real-fixtures)', () => {
  it('decoded and given the REST envelope, passes the quote validators and invariants', async (ctx) => {
    if (!existsSync(REAL_FRAME)) {
      console.log(`skipped: ${REAL_FRAME} is absent (the shared evidence lives outside the project and is never copied in)`);
      ctx.skip();
    }
    const frame = decode(readFileSync(REAL_FRAME), { useBigInt64: true }) as {
      StreamData: { id: number; seq: number; payload: { SwapQuotes: Record<string, unknown> } };
    };
    const swapQuotes = frame.StreamData.payload.SwapQuotes;
    const quotes = swapQuotes.quotes as Record<
      string,
      { slippageBps: number; steps: { label: string }[]; instructions: { a: { p: Uint8Array; s: boolean }[] }[] }
    >;
    const providers = Object.keys(quotes);
    const [inputMint, outputMint] = [bs58.encode(swapQuotes.inputMint as Uint8Array), bs58.encode(swapQuotes.outputMint as Uint8Array)];
    const decimals: Record<string, number> = { [MINTS.USDC]: 6, [MINTS.SOL]: 9 };
    expect([inputMint, outputMint].every((mint) => mint in decimals)).toBe(true);
    // A stream frame carries no REST envelope (the Direct wire messages are not shown, Q1): the request id and the
    // metadata are added as a Gateway answer carries them, with the first provider recommended.
    const body = {
      id: `stream-${frame.StreamData.id}-${frame.StreamData.seq}`,
      ...swapQuotes,
      metadata: {
        ExpectedWinner: providers[0],
        expectedWinner: providers[0],
        inputMintDecimals: decimals[inputMint],
        outputMintDecimals: decimals[outputMint],
      },
    };
    // The request, as far as the frame tells it: its mints and amount, the wallet signing the first instruction,
    // the largest slippage a route was built with, every provider; /providers and /venues as the routes name them.
    const user = bs58.encode(quotes[providers[0]!]!.instructions[0]!.a.find((m) => m.s)!.p);
    const params: QuoteParams = {
      inputMint,
      outputMint,
      amount: String(swapQuotes.amount),
      userPublicKey: user,
      slippageBps: Math.max(...providers.map((p) => quotes[p]!.slippageBps)),
      numQuotes: providers.length,
    };
    const discovery: Discovery = {
      info: {},
      providerIds: providers,
      labels: [...new Set(providers.flatMap((p) => quotes[p]!.steps.map((s) => s.label)))],
      ranges: new Map(),
    };
    const { violations, notes } = await judge({ contentType: MSGPACK, body }, params, discovery);
    expect(violations).toEqual([]);
    expect(notes).toContain(
      'Q-ENC-009: GET /api/v1/quote/swap in MessagePack: public keys as 32-byte binaries (read as the base58 keys of the same bytes)',
    );
    expect(notes.filter((n) => n.startsWith('Q-ROUTE-017'))).toHaveLength(providers.length);
  });
});
