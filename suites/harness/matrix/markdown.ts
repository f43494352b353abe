/** matrix.md. */
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
  preconditionLines,
  ruleCounts,
  sameAnswerLines,
  suiteLine,
  tallies,
  targetUrl,
} from './lines.ts';
import type { Matrix } from './types.ts';

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function renderMarkdown(m: Matrix): string {
  const t = m.run.target;
  const lines = [
    `# Conformance matrix — ${headline(m)}`,
    '',
    `| | |`,
    `|---|---|`,
    `| Suite | ${suiteLine(m)} |`,
    `| Orders URL | ${targetUrl(t, 'orders')}${t.embedded ? ' (embedded reference server)' : ''} |`,
    `| Quotes URL | ${targetUrl(t, 'quotes')} |`,
    `| Control URL | ${t.controlUrl ?? 'none'} (capabilities: ${t.capabilities.join(', ') || 'none'}) |`,
    ...(t.mutant ? [`| Mutant | ${t.mutant} |`] : []),
    ...(t.variant ? [`| Variant | ${t.variant} |`] : []),
    `| Profile | ${m.run.profile}${m.run.strict ? ' (strict)' : ''} |`,
    `| Seed | ${m.run.seed} |`,
    `| Started / finished | ${m.run.startedAt} / ${m.run.finishedAt} |`,
    `| Specs | ${Object.entries(m.run.specHashes)
      .map(([f, h]) => `${f} \`${h.slice(0, 12)}\``)
      .join(', ')} |`,
    '',
    `**Checks:** ${checkCounts(m)}. **Gating failures:** ${m.summary.gatingFailures}. **Non-gating failures:** ${m.summary.nonGatingFailures}.`,
    '',
    `**Gating rules:** ${gatingLine(m)}.`,
    '',
    `**Judged through:** ${judgedThroughLine(m)}.`,
    '',
  ];
  // Failures first, as on the page (html.ts): each root cause once.
  const roots = m.summary.failures ?? [];
  if (roots.length) {
    lines.push('## Failures (each root cause once)', '', ...sameAnswerLines(m).flatMap((l) => [`> ${l}`, '']));
    const byCheck = new Map(m.checks.map((r) => [r.check, r]));
    for (const f of roots) {
      const r = byCheck.get(f.check);
      const rule = m.rules.find((row) => row.id === f.rule);
      lines.push(
        `### ${f.rule} (${rule?.level}, ${rule?.basis}${f.gating ? ', gating' : ', not gating'}) — ${f.check}`,
        '',
        ...(f.answer ? [`\`${f.answer.replace(/`/g, "'")}\``, ''] : []),
        ...(f.blocked.length ? [`${blockedLine(m, f)}.`, ''] : []),
        '```',
        failureBlock(r ?? {}, f.replay),
        '```',
        '',
      );
    }
  }
  lines.push(
    ...(m.summary.preconditions.length
      ? [
          '## Broken preconditions (checks not judged)',
          '',
          ...preconditionLines(m, 20).map((l) => (l.startsWith('  ') ? `  ${l.trim()}` : `- ${l}`)),
          '',
        ]
      : []),
    ...(m.summary.errors.length ? ['## Errors outside any check', '', ...m.summary.errors.map((e) => `- ${cell(e)}`), ''] : []),
    assumptionsLine(m),
    '',
    `**Rules:** ${m.summary.rules.total}, covered by at least one check: ${m.summary.rules.covered} (${pct(m.summary.rules.covered, m.summary.rules.total)}). ` +
      `${ruleCounts(m)}.`,
    '',
    '## Coverage by service and area',
    '',
    '| Service | Area | Rules | Covered | |',
    '|---|---|---:|---:|---:|',
    ...m.coverage.map((c) => `| ${c.service} | ${c.area} | ${c.rules} | ${c.covered} | ${pct(c.covered, c.rules)} |`),
    '',
  );
  const tallied = tallies(m);
  if (tallied.length) {
    lines.push('## Bad inputs tried per operation', '', '| Check | Verdict | Total | Per operation |', '|---|---|---:|---|');
    for (const row of tallied) lines.push(`| ${row.check} | ${row.verdict} | ${row.total} | ${cell(row.perOperation)} |`);
    lines.push('');
  }
  lines.push('## Rules', '', '| Rule | Level | Basis | Verdict | Judged through | Checks | Statement |', '|---|---|---|---|---|---|---|');
  for (const r of m.rules) {
    lines.push(
      `| ${r.id} | ${r.level} | ${basisOf(r)} | ${r.verdict} | ${cell(judgedThroughCell(r))} | ${cell(r.checks.map((c) => `${c.name}: ${checkVerdict(r, c).text}`).join('; '))} | ${cell(r.statement)} |`,
    );
  }
  if (m.uncovered.length) lines.push('', `## Uncovered rules (${m.uncovered.length})`, '', m.uncovered.join(', '));
  return escapeControls(redact(lines.join('\n'))) + '\n';
}
