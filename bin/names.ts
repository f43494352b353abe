/** An unknown name given to an option (`--mutant`, `--variant`): one line with the closest names, never the whole list. */

/** Edit distance (insertions, deletions, substitutions) between two names. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** Up to `max` known names closest to `name`: those containing it first, then by edit distance within a third of its length. */
export function closestNames(name: string, known: readonly string[], max = 3): string[] {
  const limit = Math.max(2, Math.floor(name.length / 3));
  return known
    .map((k) => ({ k, d: k.includes(name) ? 0 : distance(name, k) }))
    .filter(({ d }) => d <= limit)
    .sort((x, y) => x.d - y.d || x.k.localeCompare(y.k))
    .slice(0, max)
    .map(({ k }) => k);
}

/** `unknown mutant "x" (did you mean a, b?); list all 578 with npm run serve -- --list-mutants` */
export function unknownName(kind: 'mutant' | 'variant', name: string, known: readonly string[]): string {
  const close = closestNames(name, known);
  return (
    `unknown ${kind} "${name}"${close.length > 0 ? ` (did you mean ${close.join(', ')}?)` : ''}` +
    `; list all ${known.length} with npm run serve -- --list-${kind}s`
  );
}
