/**
 * Where public keys sit: the suite (suites/quotes/msgpack-keys.ts) and the reference server (fixtures/server/quotes/
 * encoding.ts) each keep the list, since neither side imports the other; both must name every position the spec
 * types as Base58Pubkey in a response, and nothing else (instruction data `d` stays bytes).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PUBKEY_POSITIONS } from '../../fixtures/server/quotes/encoding.ts';
import { PUBKEY_PATHS } from '../../suites/quotes/msgpack-keys.ts';

type Schema = Record<string, unknown>;
const spec = parse(readFileSync(new URL('../../specs/swap-quote.openapi.yaml', import.meta.url), 'utf8')) as {
  components: { schemas: Record<string, Schema> };
};
const PUBKEY_REF = '#/components/schemas/Base58Pubkey';

/** Paths (from the body's root, `*` for any key or index) at which `schema` places a Base58Pubkey. */
function pubkeyPaths(schema: Schema, at: string[] = []): string[] {
  if (schema.$ref === PUBKEY_REF) return [at.join('.')];
  if (typeof schema.$ref === 'string') return pubkeyPaths(spec.components.schemas[schema.$ref.split('/').pop()!]!, at);
  const found: string[] = [];
  for (const part of [...((schema.allOf as Schema[]) ?? []), ...((schema.anyOf as Schema[]) ?? [])]) found.push(...pubkeyPaths(part, at));
  for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, Schema>))
    found.push(...pubkeyPaths(child, [...at, name]));
  if (schema.items) found.push(...pubkeyPaths(schema.items as Schema, [...at, '*']));
  if (typeof schema.additionalProperties === 'object') found.push(...pubkeyPaths(schema.additionalProperties as Schema, [...at, '*']));
  return found;
}

describe('public key positions', () => {
  it('the suite and the reference server name the same positions', () => {
    expect([...PUBKEY_POSITIONS].sort()).toEqual([...PUBKEY_PATHS].sort());
  });

  it('are every Base58Pubkey of the quote and venues responses in the spec', () => {
    const inSpec = ['QuoteResponse', 'VenuesResponse'].flatMap((name) => pubkeyPaths(spec.components.schemas[name]!));
    expect([...new Set(inSpec)].sort()).toEqual([...PUBKEY_PATHS].sort());
  });
});
