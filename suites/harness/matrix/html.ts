/** matrix.html: one page, no network, with its only script filtering the rules. */
import { redact } from '../redact.ts';
import { escapeControls } from '../terminal.ts';
import {
  assumptionsLine,
  basisOf,
  blockedLine,
  checkCounts,
  checkVerdict,
  failureBlock,
  gatingLine,
  headline,
  judgedThroughCell,
  judgedThroughLine,
  pct,
  sameAnswerLines,
  suiteLine,
  tallies,
  targetUrl,
} from './lines.ts';
import { VERDICT_ORDER, type Matrix, type RuleRow, type RuleVerdict } from './types.ts';

function esc(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

const COLORS: Record<RuleVerdict | 'incomplete' | 'interrupted', string> = {
  incomplete: '#9a6700',
  interrupted: '#6e7781',
  pass: '#1a7f37',
  fail: '#cf222e',
  blocked: '#bc4c00',
  'setup-failed': '#9a6700',
  unsupported: '#6e7781',
  skipped: '#6e7781',
  'not-run': '#8c959f',
  uncovered: '#8c959f',
};

/** The rules, failures first (then by verdict as VERDICT_ORDER), in catalogue order within a verdict. */
function rulesFailuresFirst(m: Matrix): RuleRow[] {
  return m.rules
    .map((r, i) => ({ r, i }))
    .sort((a, b) => VERDICT_ORDER.indexOf(a.r.verdict) - VERDICT_ORDER.indexOf(b.r.verdict) || a.i - b.i)
    .map(({ r }) => r);
}

// The page's only script: filter the rules by verdict and by text (no network, nothing loaded); a link may carry both
// (`matrix.html?q=numQuotes&verdict=fail`).
const FILTER_SCRIPT = `const q=document.getElementById('q'),v=document.getElementById('v'),p=new URLSearchParams(location.search);
q.value=p.get('q')||'';v.value=p.get('verdict')||'';
function filter(){const t=q.value.trim().toLowerCase();let n=0;for(const r of document.querySelectorAll('#rules tbody tr')){r.hidden=Boolean((v.value&&!r.classList.contains('v-'+v.value))||(t&&!r.textContent.toLowerCase().includes(t)));if(!r.hidden)n++}document.getElementById('n').textContent=n+' shown'}
q.addEventListener('input',filter);v.addEventListener('change',filter);filter();`;

export function renderHtml(m: Matrix): string {
  const t = m.run.target;
  const badge = (v: keyof typeof COLORS, text: string = v) => `<span class="b" style="background:${COLORS[v]}">${esc(text)}</span>`;
  const details = (text: string) => `<details><summary>details</summary><pre>${esc(text)}</pre></details>`;
  const byCheck = new Map(m.checks.map((r) => [r.check, r]));
  const rows = rulesFailuresFirst(m)
    .map(
      (r) =>
        `<tr id="${esc(r.id)}" class="v-${r.verdict}"><td><a href="#${esc(r.id)}"><code>${esc(r.id)}</code></a></td><td>${r.level}</td><td>${esc(basisOf(r))}</td><td>${badge(r.verdict)}</td><td>${esc(judgedThroughCell(r))}</td>` +
        `<td>${r.checks
          .map((c) => {
            const shown = checkVerdict(r, c);
            return `<div class="c">${esc(c.name)}: ${badge(shown.verdict, shown.text)}${c.message && c.verdict !== 'pass' ? details(failureBlock(c, byCheck.get(c.name)?.replay)) : ''}</div>`;
          })
          .join('')}</td>` +
        `<td>${esc(r.statement)}${r.source ? `<div class="src">Source: ${esc(r.source)}</div>` : ''}</td></tr>`,
    )
    .join('\n');
  const roots = m.summary.failures ?? [];
  const failures =
    roots.length === 0
      ? ''
      : `<h2 id="failures">Failures (${roots.length} root cause${roots.length === 1 ? '' : 's'}${m.summary.blocked ? `; ${m.summary.blocked} checks blocked by them` : ''})</h2>${sameAnswerLines(
          m,
        )
          .map((l) => `<p>${esc(l)}</p>`)
          .join('')}<ol class="roots">${roots
          .map((f) => {
            const r = byCheck.get(f.check);
            return (
              `<li class="root">${badge('fail', f.gating ? 'FAIL' : 'fail, not gating')} <a href="#${esc(f.rule)}"><code>${esc(f.rule)}</code></a> in <b>${esc(f.check)}</b>` +
              `${f.failedAt ? ` <code>${esc(f.failedAt)}</code>` : ''}${f.answer ? `<div><code>${esc(f.answer)}</code></div>` : ''}` +
              `${f.blocked.length ? `<div>${esc(blockedLine(m, f))}</div>` : ''}` +
              `${details(failureBlock(r ?? {}, f.replay))}</li>`
            );
          })
          .join('')}</ol>\n`;
  const tallied = tallies(m);
  const badInputs =
    tallied.length === 0
      ? ''
      : `<h2>Bad inputs tried per operation</h2><table><tr><th>Check</th><th>Verdict</th><th>Total</th><th>Per operation</th></tr>${tallied
          .map(
            (row) =>
              `<tr><td>${esc(row.check)}</td><td>${badge(row.verdict)}</td><td>${row.total}</td><td>${esc(row.perOperation)}</td></tr>`,
          )
          .join('')}</table>\n`;
  const cov = m.coverage
    .map(
      (c) => `<tr><td>${c.service}</td><td>${c.area}</td><td>${c.rules}</td><td>${c.covered}</td><td>${pct(c.covered, c.rules)}</td></tr>`,
    )
    .join('');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Conformance matrix — ${headline(m)}</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#1f2328}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #d0d7de;padding:4px 8px;vertical-align:top;text-align:left}
.b{color:#fff;border-radius:3px;padding:1px 6px;font-size:12px}pre{white-space:pre-wrap;max-width:70em;font-size:12px}h1 .b{font-size:20px}
#f{margin:1em 0;position:sticky;top:0;background:#fff;padding:.5em 0}#q{width:24em}.src{color:#59636e;font-size:12px;margin-top:4px}tr:target{outline:2px solid #0969da}
.roots li{margin:.5em 0}.roots code{word-break:break-all}</style></head><body>
<h1>Conformance matrix ${badge(m.summary.verdict, headline(m).toLowerCase())}</h1>
<p class="suite">Suite: ${esc(suiteLine(m))}</p>
${failures}<table><tr><th>Orders URL</th><td>${esc(targetUrl(t, 'orders'))}${t.embedded ? ' (embedded reference server)' : ''}</td></tr>
<tr><th>Quotes URL</th><td>${esc(targetUrl(t, 'quotes'))}</td></tr><tr><th>Control URL</th><td>${esc(t.controlUrl ?? 'none')} — capabilities: ${esc(t.capabilities.join(', ') || 'none')}</td></tr>
${t.mutant ? `<tr><th>Mutant</th><td>${esc(t.mutant)}</td></tr>` : ''}${t.variant ? `<tr><th>Variant</th><td>${esc(t.variant)}</td></tr>` : ''}
<tr><th>Profile</th><td>${m.run.profile}${m.run.strict ? ' (strict)' : ''}</td></tr><tr><th>Seed</th><td>${m.run.seed}</td></tr>
<tr><th>Time</th><td>${m.run.startedAt} — ${m.run.finishedAt}</td></tr>
<tr><th>Specs</th><td>${Object.entries(m.run.specHashes)
    .map(([f, h]) => `${esc(f)} <code>${h.slice(0, 12)}</code>`)
    .join('<br>')}</td></tr>
<tr><th>/api/v1/info</th><td>${t.info === undefined ? 'not read: the run got no usable answer from it (the preflight and the info checks say why)' : `<pre>${esc(JSON.stringify(t.info, null, 1))}</pre>`}</td></tr></table>
<p><b>Checks:</b> ${esc(checkCounts(m))}. <b>Gating failures:</b> ${m.summary.gatingFailures}. <b>Non-gating failures:</b> ${m.summary.nonGatingFailures}.</p>
<p><b>Gating rules:</b> ${esc(gatingLine(m))}.</p>
<p><b>Judged through:</b> ${esc(judgedThroughLine(m))}.</p>
${m.summary.preconditions.length ? `<h2>Broken preconditions (checks not judged)</h2><ul>${m.summary.preconditions.map((p) => `<li><b>${esc(p.id)}</b> (${p.checks.length} gating checks not judged): ${esc(p.problem)}<br>fix: <code>${esc(p.fix)}</code>${p.checks.length ? `<details><summary>checks</summary>${esc(p.checks.join(', '))}</details>` : ''}</li>`).join('')}</ul>` : ''}
${m.summary.errors.length ? `<h2>Errors outside any check</h2><ul>${m.summary.errors.map((e) => `<li><pre>${esc(e)}</pre></li>`).join('')}</ul>` : ''}
<p>${esc(assumptionsLine(m))}</p>
<p><b>Rules:</b> ${m.summary.rules.total}; covered by a check: ${m.summary.rules.covered} (${pct(m.summary.rules.covered, m.summary.rules.total)}).</p>
<h2>Coverage</h2><table><tr><th>Service</th><th>Area</th><th>Rules</th><th>Covered</th><th></th></tr>${cov}</table>
${badInputs}<h2>Rules</h2><div id="f"><label>Search: <input id="q" type="search" placeholder="rule id, check, text"></label> <label>Verdict: <select id="v">
<option value="">all</option>${VERDICT_ORDER.map((v) => `<option>${v}</option>`).join('')}</select></label> <span id="n"></span></div>
<table id="rules"><thead><tr><th>Rule</th><th>Level</th><th>Basis</th><th>Verdict</th><th>Judged through</th><th>Checks</th><th>Statement and source</th></tr></thead><tbody>
${rows}
</tbody></table><script>${FILTER_SCRIPT}</script></body></html>
`;
  return escapeControls(redact(html));
}
