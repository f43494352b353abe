/**
 * One line per area (a check group, `quotes/info`) as its last check ends, when stdout is not a terminal: CI logs show
 * the run advancing instead of staying silent until the end (vitest's own reporter writes a non-TTY's lines per test
 * file, at its end). Plain text: no colours, no cursor moves. On a terminal vitest's own live view says as much, and
 * this reporter prints nothing.
 */
import type { Reporter, TestCase, TestModule } from 'vitest/node';

interface Area {
  total: number;
  done: number;
  verdicts: Map<string, number>;
}

/** `conformance: quotes/info done, 23 checks (21 pass, 2 fail), 12 s` (never `checks:`, the summary's line). */
export function areaLine(name: string, area: Area, seconds: number): string {
  const counts = [...area.verdicts].map(([verdict, n]) => `${n} ${verdict}`).join(', ');
  return `conformance: ${name} done, ${area.done} check${area.done === 1 ? '' : 's'} (${counts}), ${seconds.toFixed(0)} s`;
}

export default class ProgressReporter implements Reporter {
  private readonly areas = new Map<string, Area>();
  private readonly started = Date.now();

  onTestModuleCollected(module: TestModule): void {
    for (const test of module.children.allTests()) {
      if (test.options.mode !== 'run') continue;
      const name = test.parent.type === 'suite' ? test.parent.name : module.relativeModuleId;
      const area = this.areas.get(name) ?? { total: 0, done: 0, verdicts: new Map() };
      area.total++;
      this.areas.set(name, area);
    }
  }

  onTestCaseResult(test: TestCase): void {
    const name = test.parent.type === 'suite' ? test.parent.name : test.module.relativeModuleId;
    const area = this.areas.get(name);
    if (process.stdout.isTTY || !area || test.options.mode !== 'run') return;
    area.done++;
    const meta = test.meta().conformance;
    const verdict = meta ? (meta.verdict === 'fail' && !meta.gating ? 'fail (not gating)' : meta.verdict) : test.result().state;
    area.verdicts.set(verdict, (area.verdicts.get(verdict) ?? 0) + 1);
    if (area.done === area.total) process.stdout.write(`${areaLine(name, area, (Date.now() - this.started) / 1000)}\n`);
  }
}
