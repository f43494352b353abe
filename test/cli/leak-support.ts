/**
 * What the CLI tests that look for leaked secrets share (cli-failing.test.ts, cli-partner.test.ts,
 * test/self-test/hostile-leaks.test.ts): the secrets a run is handed, minted on the reference server; every output of
 * a run; and a proxy on loopback that reads each whole answer and hands it, with the request and its body, to `pass`
 * before passing on what that returns (to learn the secrets the control API mints during a run, or to play a hostile
 * target).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, request as httpRequest } from 'node:http';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import { filesUnder, listenLoopback, mintOn, type Ran } from './run-cli.ts';

/** The five secrets of a run with a control API: keys and a JWT minted on the reference server's, a fresh wallet. */
export async function mintedSecrets(controlUrl: string): Promise<Record<string, string>> {
  const mint = (path: string) => mintOn(controlUrl, path);
  return {
    ORDERS_API_KEY: (await mint('/tenants')).apiKey!,
    ORDERS_API_KEY_ALT: (await mint('/tenants')).apiKey!,
    QUOTES_API_KEY: (await mint('/quote-keys')).apiKey!,
    QUOTES_JWT: (await mint('/quote-jwts')).jwt!,
    TEST_WALLET_SECRET_KEY: bs58.encode(Keypair.generate().secretKey),
  };
}

/** Every output of the CLI run `r` that wrote its reports to `dir`, named: stdout, stderr, each file under `dir`. */
export function outputsOf(r: Ran, dir: string): Array<[string, string]> {
  return [
    ['stdout', r.stdout],
    ['stderr', r.stderr],
    ...filesUnder(dir).map((f): [string, string] => [f.slice(dir.length + 1), readFileSync(f, 'utf8')]),
  ];
}

/** An answer on its way back: status, headers and the whole body. */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

export async function answerProxy(
  upstream: string,
  pass: (req: IncomingMessage, body: Buffer, answer: Answer) => Answer,
): Promise<{ url: string; close(): Promise<void> }> {
  const target = new URL(upstream);
  const server = createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      const sent = Buffer.concat(body);
      const out = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (up) => {
          const chunks: Buffer[] = [];
          up.on('data', (c: Buffer) => chunks.push(c));
          up.on('end', () => {
            const { status, headers, raw } = pass(req, sent, {
              status: up.statusCode ?? 502,
              headers: up.headers,
              raw: Buffer.concat(chunks),
            });
            const sized = { ...headers, 'content-length': String(raw.length) };
            delete sized['transfer-encoding'];
            res.writeHead(status, sized).end(raw);
          });
        },
      );
      out.on('error', () => res.destroy());
      out.end(sent);
    });
  });
  return listenLoopback(server);
}

/** `raw` as a JSON object, or undefined. */
export function jsonObjectOf(raw: Buffer): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(raw.toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The secrets a control API answer minted (`apiKey`, `jwt`), added to `into`. */
export function learnMinted(answer: Record<string, unknown> | undefined, into: Set<string>): void {
  for (const field of ['apiKey', 'jwt']) if (typeof answer?.[field] === 'string') into.add(answer[field]);
}
