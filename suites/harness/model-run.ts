import fc from 'fast-check';
import type { CheckContext } from './check.ts';
import type { Exchange } from './exchange.ts';
import { ConformanceFailure } from './failure.ts';

/**
 * A model-based property (fast-check `commands` run by `asyncModelRun`) as a check runs it: seeded with the run's
 * seed, `numRuns` sequences, each from a fresh `setup`. A command asserts with `t.expect`; a failing sequence is shrunk
 * by fast-check and fails the check on the rule its command asserted, with the seed, the replay path, the shrunk
 * commands and the HTTP calls of that shrunk run in order (service and control calls alike; in full, bodies
 * included, as a note of the check). A spec violation the harness records while a command runs (a status, code or
 * body the spec does not allow, `t.violations`) fails that command as a ConformanceFailure naming the violated rule,
 * so it is shrunk and printed like any failed assertion. A broken precondition
 * inside a run (setup-failed, skipped) ends the property and, unless a counterexample came first, is rethrown as
 * itself: it is never counted as a counterexample.
 */
export async function modelRun<Model extends object, Real>(
  t: CheckContext,
  commands: fc.Arbitrary<Iterable<fc.AsyncCommand<Model, Real>>>,
  setup: () => Promise<{ model: Model; real: Real }>,
  numRuns: number,
): Promise<void> {
  let broken: unknown;
  let failure: ConformanceFailure | undefined;
  let calls: Exchange[] = [];
  const { ordinal, parameters } = t.nextProperty(numRuns);
  const details = await fc.check(
    fc.asyncProperty(commands, async (sequence) => {
      if (broken !== undefined) return true;
      const start = t.exchanges.length;
      const seen = t.violations.length;
      try {
        await fc.asyncModelRun(
          setup,
          [...sequence].map((command) => failingOnViolations(t, seen, command)),
        );
        throwNewViolation(t, seen);
        return true;
      } catch (e) {
        if (!(e instanceof ConformanceFailure)) {
          broken = e;
          return true;
        }
        failure = e;
        calls = t.exchanges.slice(start);
        throw e;
      }
    }),
    parameters,
  );
  if (!details.failed || !failure) {
    if (broken !== undefined) throw broken;
    return;
  }
  t.note(
    `model-based sequence failing ${failure.rule} (seed ${details.seed}, path ${details.counterexamplePath ?? '-'}), its HTTP calls in order:\n${calls.map((ex) => callLine(ex, true)).join('\n')}`,
  );
  throw new ConformanceFailure(
    failure.rule,
    {
      ...failure.detail,
      received: { observed: failure.detail.received, calls: calls.map((ex) => callLine(ex, false)) },
    },
    {
      seed: details.seed,
      path: details.counterexamplePath ?? undefined,
      numRuns,
      ordinal,
      counterexample: details.counterexample ? String(details.counterexample[0]) : undefined,
    },
  );
}

/** `command` run as itself, then failed on the first spec violation recorded since the run began (setup included). */
function failingOnViolations<Model extends object, Real>(
  t: CheckContext,
  seen: number,
  command: fc.AsyncCommand<Model, Real>,
): fc.AsyncCommand<Model, Real> {
  return {
    check: (m) => command.check(m),
    run: async (m, r) => {
      await command.run(m, r);
      throwNewViolation(t, seen);
    },
    toString: () => command.toString(),
  };
}

function throwNewViolation(t: CheckContext, seen: number): void {
  const violation = t.violations[seen];
  if (violation) throw new ConformanceFailure(violation.rule, violation.detail);
}

/** One recorded call as a line: method, URL path, the end user, the body (`withBody`), and the status it got. */
function callLine(ex: Exchange, withBody: boolean): string {
  const url = new URL(ex.request.url);
  const user = ex.request.headers['X-Service-User'] ?? ex.request.headers['x-service-user'];
  const body = withBody && ex.request.body !== undefined ? ` ${ex.request.body}` : '';
  return `${ex.request.method} ${url.pathname}${url.search}${user ? ` [user ${user}]` : ''}${body} -> ${ex.response.status}`;
}
