import type { OperationInfo } from '../../generators/index.ts';
import { branchOf, type HostileValues, keyBranch, mayServeAmount, perBranch, rawQuery } from '../shared/hostile.ts';
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
}

/** The base query of an operation: the four required quote parameters, or nothing. */
const baseQuery = (op: OperationInfo): Record<string, string> =>
  op.parameters.some((p) => p.name === 'inputMint') ? { ...MINIMAL_SWAP_QUERY } : {};

function schemaOf(op: OperationInfo, name: string): { type?: string; $ref?: string } {
  const schema = op.parameters.find((p) => p.name === name)?.schema;
  return isObject(schema) ? (schema as { type?: string; $ref?: string }) : {};
}

/** The bad queries of one operation. */
export function badQueries(op: OperationInfo, hostile: HostileValues): BadQuery[] {
  const base = baseQuery(op);
  const out: BadQuery[] = [];
  const withValue = (name: string, value: string) => rawQuery({ ...base, [name]: value });
  const joined = (extra: string) => [rawQuery(base), extra].filter(Boolean).join('&');
  for (const p of op.parameters.filter((q) => q.in === 'query')) {
    const schema = schemaOf(op, p.name);
    const loose = FEE_PARAMETERS.has(p.name);
    const integer = schema.type === 'integer' && !loose;
    const pubkey = schema.$ref?.endsWith('/Base58Pubkey') === true && !loose;
    const required = REQUIRED.has(p.name);
    // A hostile string is no amount, integer or key; empty, an optional parameter may be taken as omitted.
    const hostileStrict = (value: string) => required || ((integer || pubkey) && value !== '');
    const values: Array<[string, boolean]> = (required ? hostile.strings : hostile.strings.filter((_, i) => i % 3 === 0)).map((v) => [
      v,
      hostileStrict(v),
    ]);
    if (p.name === 'amount') {
      for (const m of hostile.amounts) if (typeof m.value === 'string') values.push([m.value, !mayServeAmount(m.reading)]);
    } else if (integer) {
      for (const m of hostile.amounts)
        if (typeof m.value === 'string' && m.reading !== 'readable' && m.reading !== 'absent') values.push([m.value, true]);
    }
    if (pubkey) {
      for (const k of hostile.keys) if (typeof k === 'string') values.push([k, required || k !== '']);
    }
    // One value per branch of this parameter on a given target: the lists above overlap (an empty string, 80 digits,
    // text that is no amount, integer or key), and a key's length or alphabet is a branch of its own.
    const branch = ([value, strict]: [string, boolean]) => `${strict} ${pubkey ? `${keyBranch(value)} ` : ''}${branchOf(value)}`;
    for (const [value, strict] of hostile.perBranch ? perBranch(values, branch) : values)
      out.push({ what: `${p.name}=${JSON.stringify(value.slice(0, 30))}`, query: withValue(p.name, value), strict });
    out.push({ what: `${p.name} repeated`, query: joined(`${p.name}=1&${p.name}=2`), strict: false });
  }
  out.push({ what: 'unknown parameters', query: joined('conformanceUnknown=%3Cscript%3E&a%5Bb%5D=1&__proto__=x'), strict: false });
  out.push({ what: 'an unknown parameter repeated', query: joined('conformanceUnknown=1&conformanceUnknown=2'), strict: false });
  return out;
}
