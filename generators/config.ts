// Where the generator reads from and writes to, and how spec files are named as services.
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const GENERATORS_DIR = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(GENERATORS_DIR, '..');
export const DEFAULT_OUT_DIR = join(GENERATORS_DIR, 'out');

export interface SpecSource {
  service: string;
  /** Absolute path. */
  path: string;
}

/** The three specs of the project, by service. */
export const DEFAULT_SPECS: readonly SpecSource[] = [
  { service: 'orders', path: join(ROOT, 'specs', 'order-automation.openapi.yaml') },
  { service: 'quotes', path: join(ROOT, 'specs', 'swap-quote.openapi.yaml') },
  { service: 'control', path: join(ROOT, 'specs', 'control.openapi.yaml') },
];

const KNOWN_FILES: Record<string, string> = {
  'order-automation.openapi.yaml': 'orders',
  'swap-quote.openapi.yaml': 'quotes',
  'control.openapi.yaml': 'control',
};

/** `specs/x.openapi.yaml` -> its service name: the known ones, else the file stem as an identifier. */
export function serviceForFile(path: string): string {
  const name = basename(path);
  const known = KNOWN_FILES[name];
  if (known) return known;
  const stem = name.replace(/\.(openapi\.)?(ya?ml|json)$/i, '');
  return toIdentifier(stem);
}

/** `a.yaml,svc=b.yaml` -> spec sources (paths resolved against cwd). */
export function parseSpecList(arg: string, cwd = process.cwd()): SpecSource[] {
  return arg
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((item) => {
      const eq = item.indexOf('=');
      const file = eq > 0 ? item.slice(eq + 1) : item;
      const path = resolve(cwd, file);
      return { service: eq > 0 ? toIdentifier(item.slice(0, eq)) : serviceForFile(path), path };
    });
}

/** Path shown in headers and stamps: relative to the repository root when inside it. */
export function displayPath(path: string): string {
  const rel = relative(ROOT, path);
  return rel.startsWith('..') || isAbsolute(rel) ? path : rel.split('\\').join('/');
}

/** Any string -> a JavaScript identifier fragment (`[A-Za-z0-9_$]`, not starting with a digit). */
export function toIdentifier(s: string): string {
  const id = s.replace(/[^A-Za-z0-9_$]+/g, '_');
  return /^[0-9]/.test(id) ? `_${id}` : id || '_';
}

export interface CliOptions {
  check: boolean;
  specs: SpecSource[];
  outDir: string;
  quiet: boolean;
}

export function parseCli(argv: readonly string[]): CliOptions {
  const opts: CliOptions = { check: false, specs: [...DEFAULT_SPECS], outDir: DEFAULT_OUT_DIR, quiet: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new Error(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--check':
        opts.check = true;
        break;
      case '--specs':
        opts.specs = parseSpecList(value());
        break;
      case '--out':
        opts.outDir = resolve(process.cwd(), value());
        break;
      case '--quiet':
        opts.quiet = true;
        break;
      case '--help':
      case '-h':
        throw new Error(USAGE);
      default:
        throw new Error(`unknown argument ${arg}\n${USAGE}`);
    }
  }
  return opts;
}

export const USAGE = `usage: tsx generators/generate.ts [--check] [--specs [service=]a.yaml,[service=]b.yaml] [--out dir] [--quiet]
  --check   exit 1 when the output directory is missing or stale, 0 when fresh; writes nothing
  --specs   spec files to read instead of specs/{order-automation,swap-quote,control}.openapi.yaml
  --out     output directory instead of generators/out`;
