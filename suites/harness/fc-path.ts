/**
 * `--fc-path`: a replay that goes straight to a property's counterexample. fast-check replays a failure from the seed
 * and the counterexample's `path` (fast-check's `seed` + `path` parameters); a check may run several properties (a
 * hostile-input sweep runs one per operation), so the path names the property it belongs to by its ordinal in the
 * check: `PATH` for the check's first property, `N@PATH` for its N-th. The other properties run as before.
 */

/** The fast-check path of the `property`-th property (1-based) a check runs. */
export interface FcPath {
  property: number;
  path: string;
}

/** `PATH` or `N@PATH` as the CLI takes it; undefined when it is not one (fast-check paths are numbers joined by `:`). */
export function parseFcPath(text: string): FcPath | undefined {
  const m = /^(?:([1-9]\d*)@)?(\d+(?::\d+)*)$/.exec(text.trim());
  return m ? { property: m[1] ? Number(m[1]) : 1, path: m[2]! } : undefined;
}

/** The --fc-path value of the counterexample at `path` of a check's `property`-th property. */
export function fcPathOption({ property, path }: FcPath): string {
  return property === 1 ? path : `${property}@${path}`;
}
