import type { OperationInfo } from '../../generators/index.ts';
import {
  branchOf,
  type HostileValues,
  keyBranch,
  mayServeAmount,
  perBranch,
  rawQuery,
  stringsInTurn,
  unknownQueries,
} from '../shared/hostile.ts';
import { isObject } from '../shared/values.ts';
import { MINIMAL_SWAP_QUERY } from './fixtures.ts';

/**
 * The malformed queries the quote service's hostile-input checks send (suites/quotes/hostile-input.checks.ts): a
 * module of its own so that a test can read them without loading a check file.
 */

/** The required parameters get every hostile string; the others a few, to keep the request count bounded. */
const REQUIRED = new Set(Object.keys(MINIMAL_SWAP_QUERY));
const FEE_PARAMETERS = new Set(['feeAccount', 'feeBps', 'feeFromInputMint']);

export interface BadQuery {
  what: string;
  query: string;
  /** Only a 400 is documented for it. */
  strict: boolean;
  /** Its branch: on a given target one query per branch is sent (badQueries). */
  branch: string;
}

/** The base query of an operation: the four required quote parameters, or nothing. */
const baseQuery = (op: OperationInfo): Record<string, string> =>
  op.parameters.some((p) => p.name === 'inputMint') ? { ...MINIMAL_SWAP_QUERY } : {};

function schemaOf(op: OperationInfo, name: string): { type?: string; $ref?: string } {
  const schema = op.parameters.find((p) => p.name === name)?.schema;
  return isObject(schema) ? (schema as { type?: string; $ref?: string }) : {};
}

/**
 * The bad queries of one operation. With `hostile.perBranch` (a given target) one value per branch of each parameter;
 * with `byKind` too, one per branch of each kind of parameter (amount, integer, key, boolean, other; required or not)
 * instead: the distributor path, which shares the key path's parameters (the document: "two REST access paths that
 * share the same parameters"), whose each parameter the key path's sweep judges.
 */
export function badQueries(op: OperationInfo, hostile: HostileValues, byKind = false): BadQuery[] {
  const base = baseQuery(op);
  const out: BadQuery[] = [];
  const withValue = (name: string, value: string) => rawQuery({ ...base, [name]: value });
  const joined = (extra: string) => [rawQuery(base), extra].filter(Boolean).join('&');
  const parameters = op.parameters.filter((q) => q.in === 'query');
  for (const [turn, p] of parameters.entries()) {
    const schema = schemaOf(op, p.name);
    const loose = FEE_PARAMETERS.has(p.name);
    const integer = schema.type === 'integer' && !loose;
    const pubkey = schema.$ref?.endsWith('/Base58Pubkey') === true && !loose;
    const boolean = schema.type === 'boolean' && !loose;
    const required = REQUIRED.has(p.name);
    // A hostile string is no amount, integer or key; empty, an optional parameter may be taken as omitted.
    const hostileStrict = (value: string) => required || ((integer || pubkey) && value !== '');
    // On a given target the decoding branches (very long, traversal, control, unicode) go to the parameters in turn,
    // the amount's excepted (stringsInTurn).
    const own = required ? hostile.strings : hostile.strings.filter((_, i) => i % 3 === 0);
    const strings = p.name === 'amount' ? own : stringsInTurn(hostile, own, turn, parameters.length, hostile.strings);
    const values: Array<[string, boolean]> = strings.map((v) => [v, hostileStrict(v)]);
    if (p.name === 'amount') {
      for (const m of hostile.amounts) if (typeof m.value === 'string') values.push([m.value, !mayServeAmount(m.reading)]);
    } else if (integer) {
      for (const m of hostile.amounts)
        if (typeof m.value === 'string' && m.reading !== 'readable' && m.reading !== 'absent') values.push([m.value, true]);
    }
    if (pubkey) {
      for (const k of hostile.keys) if (typeof k === 'string') values.push([k, required || k !== '']);
    }
    // The branch of a value in this parameter: the lists above overlap (an empty string, 80 digits, text that is no
    // amount, integer or key), a key's length or alphabet is a branch of its own, and a boolean is `true`, `false` or
    // not, an integer digits or not (whatever the text).
    const kind = `${required ? 'required ' : ''}${p.name === 'amount' ? 'amount' : integer ? 'integer' : pubkey ? 'key' : boolean ? 'boolean' : 'other'}`;
    const branchOfValue = (value: string): string => {
      if (boolean && value !== '') return 'not-a-boolean';
      const branch = branchOf(value);
      // Very long text, or text outside ASCII, is no integer as any other text is not.
      if (integer && (branch === 'long' || branch === 'unicode')) return 'text';
      return `${pubkey ? `${keyBranch(value)} ` : ''}${branch}`;
    };
    const owner = byKind ? kind : p.name;
    for (const [value, strict] of values)
      out.push({
        what: `${p.name}=${JSON.stringify(value.slice(0, 30))}`,
        query: withValue(p.name, value),
        strict,
        branch: `${owner} ${strict} ${branchOfValue(value)}`,
      });
    out.push({ what: `${p.name} repeated`, query: joined(`${p.name}=1&${p.name}=2`), strict: false, branch: `${owner} repeated` });
  }
  for (const { what, query } of unknownQueries(hostile, 'conformanceUnknown=%3Cscript%3E&a%5Bb%5D=1&__proto__=x'))
    out.push({ what, query: joined(query), strict: false, branch: what });
  return hostile.perBranch ? perBranch(out, (q) => q.branch) : out;
}
