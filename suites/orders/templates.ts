import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/**
 * The request templates of POST /orders/intent (UNKNOWNS.md O7), one per order type: specs/order-templates.yaml,
 * with the types of CONFORMANCE_ORDER_TEMPLATES (a file of the same shape) replacing the defaults. The checks never
 * write an intent body by hand: they give named values and the template places them.
 */

export type Template = Record<string, unknown>;

const DEFAULTS = new URL('../../specs/order-templates.yaml', import.meta.url);
let cached: Record<string, Template> | undefined;

function read(file: string | URL, what: string): Record<string, Template> {
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${what}: ${(e as Error).message.split('\n')[0]}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new Error(`${what}: expected a map of order type -> request template`);
  for (const [type, template] of Object.entries(doc)) {
    if (typeof template !== 'object' || template === null || Array.isArray(template))
      throw new Error(`${what}: the template of ${type} is not an object`);
  }
  return doc as Record<string, Template>;
}

/** Every template in force; throws (with the file named) when CONFORMANCE_ORDER_TEMPLATES cannot be read. */
export function orderTemplates(): Record<string, Template> {
  if (cached) return cached;
  const own = process.env.CONFORMANCE_ORDER_TEMPLATES;
  cached = { ...read(DEFAULTS, 'specs/order-templates.yaml'), ...(own ? read(own, `CONFORMANCE_ORDER_TEMPLATES ${own}`) : {}) };
  return cached;
}

const WHOLE = /^\{([A-Za-z][A-Za-z0-9]*)\}$/;
const INSIDE = /\{([A-Za-z][A-Za-z0-9]*)\}/g;

/**
 * The template with `values` placed: "{name}" alone takes the value with its JSON type, inside a longer string its
 * text; a key whose placeholder has no value is left out. `used` collects the names placed.
 */
export function fill(template: unknown, values: Readonly<Record<string, unknown>>, used = new Set<string>()): unknown {
  if (typeof template === 'string') {
    const whole = WHOLE.exec(template);
    if (whole) {
      used.add(whole[1]!);
      return values[whole[1]!];
    }
    return template.replace(INSIDE, (all, name: string) => {
      used.add(name);
      return values[name] === undefined ? all : String(values[name]);
    });
  }
  if (Array.isArray(template)) return template.map((item) => fill(item, values, used)).filter((item) => item !== undefined);
  if (typeof template === 'object' && template !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(template)) {
      const filled = fill(value, values, used);
      if (filled !== undefined) out[key] = filled;
    }
    return out;
  }
  return template;
}
