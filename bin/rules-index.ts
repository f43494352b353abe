#!/usr/bin/env node
/**
 * `npm run rules:index`: writes reports/rules.md, the index of the rule catalogue. For every rule of specs/rules/*.yaml
 * it links the checks that cite it (file:line and name; a rule cited only through a rule-list constant names the
 * constant, so a grep that misses the check is explained, and every check that spreads a constant is listed with its
 * expansion), the mutants that break it with their hook points and the
 * server modules behind them (fixtures/server/hooks.ts, orders/routes.ts), the benign variants that name it, and the
 * server files whose code names the rule id. `npm test` regenerates it (test/house/rules-index.test.ts).
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { parse } from 'yaml';
import { hookPointsOf, mutants, variants } from '../fixtures/mutants/index.ts';
import { decidingIds, loadCatalogue, type Rule } from '../suites/harness/rules.ts';
import { allChecks } from '../suites/index.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER = join(ROOT, 'fixtures', 'server');
export const RULES_MD = join(ROOT, 'reports', 'rules.md');
/** `must` rules without a mutant, each with the reason (one line). */
export const NO_MUTANT_FILE = join(ROOT, 'specs', 'no-mutant.yaml');
const RULE_ID = /\b(?:OA|Q)-[A-Z]+-\d{3}\b/g;

/** Where a check cites a rule: literally in its file, through a rule-list constant, or computed. */
export interface Citation {
  check: string;
  /** `suites/…/x.checks.ts:LINE` */
  source: string;
  /** The constants the rule reaches the check through, when its file does not name the rule id. */
  via: string[];
}

export interface MutantLink {
  name: string;
  /** `fixtures/mutants/x.ts:LINE`, or the folder when the name is built by a factory. */
  source: string;
  hookPoints: string[];
  /** Server modules behind the hook points (the decision table's module, or the route's handler module). */
  serverFiles: string[];
}

export interface RuleEntry {
  rule: Rule;
  citations: Citation[];
  mutants: MutantLink[];
  variants: string[];
  /** `fixtures/server/…:LINE` where the code names the rule id. */
  serverMentions: string[];
  noMutantReason?: string;
}

export interface RuleListConstant {
  name: string;
  /** `suites/…:LINE` */
  source: string;
  rules: string[];
}

/** A check whose `rules` spread a rule-list constant, with the rules the constant expands to. */
export interface ConstantSpread {
  check: string;
  /** `suites/…/x.checks.ts:LINE` */
  source: string;
  constant: string;
  rules: string[];
}

export interface RulesIndex {
  entries: RuleEntry[];
  constants: RuleListConstant[];
  spreads: ConstantSpread[];
  /** Areas by `OA-AREA` / `Q-AREA`, with their description. */
  areas: Map<string, string>;
}

// ---------------------------------------------------------------- files and source text

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return filesUnder(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

const rel = (path: string): string => relative(ROOT, path).split('\\').join('/');

const sourceCache = new Map<string, ts.SourceFile>();
function sourceFile(path: string): ts.SourceFile {
  let sf = sourceCache.get(path);
  if (!sf) {
    sf = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true);
    sourceCache.set(path, sf);
  }
  return sf;
}

const lineOf = (sf: ts.SourceFile, node: ts.Node): number => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;

/** Local name -> absolute module path, for the relative imports of a file. */
function importsOf(path: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const st of sourceFile(path).statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier) || !st.moduleSpecifier.text.startsWith('.')) continue;
    const target = resolve(dirname(path), st.moduleSpecifier.text);
    const bindings = st.importClause?.namedBindings;
    if (st.importClause?.name) out.set(st.importClause.name.text, target);
    if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) out.set(el.name.text, target);
  }
  return out;
}

function unwrap(e: ts.Expression): ts.Expression {
  while (ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isParenthesizedExpression(e) || ts.isTypeAssertionExpression(e))
    e = e.expression;
  return e;
}

// ---------------------------------------------------------------- rule-list constants of suites/

const RULE_ID_EXACT = new RegExp(`^${RULE_ID.source}$`);
const isRuleList = (v: unknown): v is string[] =>
  Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string' && RULE_ID_EXACT.test(x));

/**
 * Every constant of suites/ that lists rule ids: `NAME = ['OA-…', ...OTHER]`, `NAME = OTHER`, `NAME = OTHER.filter(…)`.
 * An exported one is expanded from its value; another one from its text (ids and the constants it names).
 */
export async function ruleListConstants(): Promise<RuleListConstant[]> {
  const raw = new Map<string, { path: string; line: number; exported: boolean; ids: string[]; refs: string[] }>();
  for (const path of filesUnder(join(ROOT, 'suites'))) {
    const sf = sourceFile(path);
    for (const st of sf.statements) {
      if (!ts.isVariableStatement(st)) continue;
      const exported = st.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false;
      for (const d of st.declarationList.declarations) {
        if (!ts.isIdentifier(d.name) || !/^[A-Z][A-Z0-9_]*$/.test(d.name.text) || !d.initializer) continue;
        let init = unwrap(d.initializer);
        if (ts.isCallExpression(init) && ts.isPropertyAccessExpression(init.expression)) init = unwrap(init.expression.expression);
        const ids: string[] = [];
        const refs: string[] = [];
        let plain = ts.isIdentifier(init);
        if (ts.isIdentifier(init)) refs.push(init.text);
        if (ts.isArrayLiteralExpression(init)) {
          plain = init.elements.every((el) => ts.isStringLiteralLike(el) || ts.isSpreadElement(el));
          for (const el of init.elements) {
            if (ts.isStringLiteralLike(el) && RULE_ID_EXACT.test(el.text)) ids.push(el.text);
            else if (ts.isSpreadElement(el) && ts.isIdentifier(unwrap(el.expression)))
              refs.push((unwrap(el.expression) as ts.Identifier).text);
          }
        }
        if (plain) raw.set(d.name.text, { path, line: lineOf(sf, d), exported, ids, refs });
      }
    }
  }
  const expand = (name: string, seen: readonly string[] = []): string[] => {
    const c = raw.get(name);
    if (!c || seen.includes(name)) return [];
    return [...c.ids, ...c.refs.flatMap((r) => expand(r, [...seen, name]))];
  };
  const out: RuleListConstant[] = [];
  for (const [name, c] of raw) {
    let rules = expand(name);
    if (c.exported) {
      const value = ((await import(pathToFileURL(c.path).href)) as Record<string, unknown>)[name];
      if (isRuleList(value)) rules = [...value];
    }
    if (rules.length > 0) out.push({ name, source: `${rel(c.path)}:${c.line}`, rules: [...new Set(rules)] });
  }
  return out;
}

/**
 * The `rules` of the check named `name` in a file, as written: the ids it names literally and the constants it spreads
 * (`rules: ['OA-DCA-007', ...USER_ORDER_RULES]`); undefined when the file has no such check (rules built elsewhere).
 */
export function writtenRules(path: string, name: string): { literal: string[]; spreads: string[] } | undefined {
  let found: { literal: string[]; spreads: string[] } | undefined;
  sourceFile(path).forEachChild(function walk(n: ts.Node): void {
    if (found) return;
    if (ts.isObjectLiteralExpression(n)) {
      const prop = (key: string) =>
        n.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === key);
      const named = prop('name')?.initializer;
      const rules = prop('rules')?.initializer;
      if (named && ts.isStringLiteralLike(named) && named.text === name && rules && ts.isArrayLiteralExpression(unwrap(rules))) {
        const elements = (unwrap(rules) as ts.ArrayLiteralExpression).elements;
        found = {
          literal: elements.filter(ts.isStringLiteralLike).map((e) => e.text),
          spreads: elements
            .filter(ts.isSpreadElement)
            .map((e) => unwrap(e.expression))
            .filter(ts.isIdentifier)
            .map((e) => e.text),
        };
        return;
      }
    }
    n.forEachChild(walk);
  });
  return found;
}

// ---------------------------------------------------------------- hook points -> server modules

/**
 * Hook point -> server modules: a decision table leads to the module of its documented rows (the `merge(TABLE, …)`
 * of resolveHooks, else the types of its `Hooks` field, else the modules that read `hooks.<table>`); `replies:orders:<route>` to the route's handler module
 * (orders/routes.ts); `replies:quotes:<endpoint>` to the engine module of the endpoint.
 */
export function hookPointModules(): (point: string) => string[] {
  const hooksPath = join(SERVER, 'hooks.ts');
  const hooks = sourceFile(hooksPath);
  const imports = importsOf(hooksPath);
  const tables = new Map<string, string[]>();
  const add = (key: string, modules: string[]): void => {
    if (modules.length > 0 && !tables.has(key))
      tables.set(
        key,
        [...new Set(modules)].map((m) => rel(m)),
      );
  };
  const visit = (node: ts.Node): void => {
    // resolveHooks: `table: merge(DOCUMENTED, …)` or `table: DOCUMENTED`
    if (ts.isFunctionDeclaration(node) && node.name?.text === 'resolveHooks') {
      node.forEachChild(function walk(n: ts.Node): void {
        if (ts.isPropertyAssignment(n) && ts.isIdentifier(n.name)) {
          const init = unwrap(n.initializer);
          const base = ts.isCallExpression(init) ? init.arguments[0] : init;
          if (base && ts.isIdentifier(base) && imports.has(base.text)) add(n.name.text, [imports.get(base.text)!]);
        }
        n.forEachChild(walk);
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(hooks);
  // The `Hooks` interface: the imported types of each field.
  for (const st of hooks.statements) {
    if (!ts.isInterfaceDeclaration(st) || st.name.text !== 'Hooks') continue;
    for (const m of st.members) {
      if (!ts.isPropertySignature(m) || !m.type || !ts.isIdentifier(m.name)) continue;
      const found: string[] = [];
      m.type.forEachChild(function walk(n: ts.Node): void {
        if (ts.isTypeReferenceNode(n) && ts.isIdentifier(n.typeName) && imports.has(n.typeName.text))
          found.push(imports.get(n.typeName.text)!);
        n.forEachChild(walk);
      });
      add(m.name.text, found);
    }
  }
  if (tables.size === 0) throw new Error('fixtures/server/hooks.ts: no decision table found (resolveHooks, Hooks)');

  // orders/routes.ts: route key -> handler module (a wrapper's argument, e.g. withActionBody(pauseOrder), is the handler).
  const routesPath = join(SERVER, 'orders', 'routes.ts');
  const routeImports = importsOf(routesPath);
  const routes = new Map<string, string>();
  sourceFile(routesPath).forEachChild(function walk(n: ts.Node): void {
    if (ts.isObjectLiteralExpression(n)) {
      const prop = (name: string) =>
        n.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === name);
      const key = prop('key');
      const handle = prop('handle');
      if (key && handle && ts.isStringLiteral(key.initializer)) {
        let e = unwrap(handle.initializer);
        while (ts.isCallExpression(e)) {
          const arg = e.arguments.find((a) => ts.isIdentifier(a) || ts.isCallExpression(a));
          e = arg ?? e.expression;
        }
        if (ts.isIdentifier(e) && routeImports.has(e.text)) routes.set(key.initializer.text, rel(routeImports.get(e.text)!));
      }
    }
    n.forEachChild(walk);
  });
  if (routes.size === 0) throw new Error('fixtures/server/orders/routes.ts: no route found');

  const quotes = (file: string) => `fixtures/server/quotes/${file}`;
  const replyPoints: Record<string, string[]> = {
    orders: ['fixtures/server/orders/service.ts'],
    quotes: [quotes('service.ts')],
    'quotes:edge': [quotes('edge.ts')],
    'quotes:platform': [quotes('platform.ts'), quotes('distributor.ts')],
  };
  // A table without documented rows of its own (e.g. quoteBounds): the modules that read it.
  const readers = (table: string): string[] =>
    filesUnder(SERVER)
      .filter((p) => p !== hooksPath && new RegExp(`\\bhooks\\.${table}\\b`).test(readFileSync(p, 'utf8')))
      .map(rel);
  return (point) => {
    if (!point.startsWith('replies:')) return tables.get(point) ?? readers(point);
    const reply = point.slice('replies:'.length);
    if (replyPoints[reply]) return replyPoints[reply];
    if (reply.startsWith('orders:')) return [routes.get(reply.slice('orders:'.length))].filter((m): m is string => m !== undefined);
    if (reply.startsWith('quotes:')) {
      const engine = join(SERVER, 'quotes', 'engine', `${reply.slice('quotes:'.length).replace('/', '-')}.ts`);
      return readdirSync(dirname(engine)).includes(`${reply.slice('quotes:'.length).replace('/', '-')}.ts`) ? [rel(engine)] : [];
    }
    return [];
  };
}

// ---------------------------------------------------------------- the index

/** The first line of a file of `dir` that holds `needle`, as `path:LINE`. */
function findLine(files: readonly string[], needle: string): string | undefined {
  for (const path of files) {
    const lines = readFileSync(path, 'utf8').split('\n');
    const i = lines.findIndex((l) => l.includes(needle));
    if (i >= 0) return `${rel(path)}:${i + 1}`;
  }
  return undefined;
}

export function readNoMutantReasons(): Map<string, string> {
  const doc = parse(readFileSync(NO_MUTANT_FILE, 'utf8')) as { rules?: Record<string, string> } | null;
  return new Map(Object.entries(doc?.rules ?? {}));
}

export async function buildRulesIndex(): Promise<RulesIndex> {
  const { rules, areas } = loadCatalogue();
  const constants = await ruleListConstants();
  const modulesOf = hookPointModules();
  const reasons = readNoMutantReasons();
  const mutantFiles = filesUnder(join(ROOT, 'fixtures', 'mutants'));
  const fileText = new Map<string, string>();
  const textOf = (file: string): string => {
    if (!fileText.has(file)) fileText.set(file, readFileSync(join(ROOT, file), 'utf8'));
    return fileText.get(file)!;
  };

  const entries = new Map<string, RuleEntry>(
    [...rules.values()].map((rule) => [rule.id, { rule, citations: [], mutants: [], variants: [], serverMentions: [] }]),
  );
  const spreads: ConstantSpread[] = [];
  for (const check of allChecks) {
    const source = check.source ?? 'suites/';
    const path = join(ROOT, source.replace(/:\d+$/, ''));
    const text = path.endsWith('.ts') ? textOf(rel(path)) : '';
    const imported = path.endsWith('.ts') ? [...new Set(importsOf(path).values())].filter((p) => p.endsWith('.ts')) : [];
    const written = path.endsWith('.ts') ? writtenRules(path, check.name) : undefined;
    const spread = constants.filter((c) => written?.spreads.includes(c.name));
    for (const c of spread) spreads.push({ check: check.name, source, constant: c.name, rules: c.rules });
    for (const id of new Set(check.rules)) {
      const entry = entries.get(id);
      if (!entry) continue;
      let via: string[] = [];
      if (written && !written.literal.includes(id) && spread.some((c) => c.rules.includes(id))) {
        via = spread.filter((c) => c.rules.includes(id)).map((c) => c.name);
      } else if (!text.includes(`'${id}'`)) {
        const line = Number(/:(\d+)$/.exec(source)?.[1] ?? 1);
        const near = text
          .split('\n')
          .slice(line - 1, line + 15)
          .join('\n');
        const spread = (within: string) =>
          constants.filter((c) => c.rules.includes(id) && new RegExp(`\\b${c.name}\\b`).test(within)).map((c) => c.name);
        via = spread(near).length > 0 ? spread(near) : spread(text);
        if (via.length === 0) via = imported.filter((p) => textOf(rel(p)).includes(`'${id}'`)).map(rel);
        if (via.length === 0) via = ['computed'];
      }
      entry.citations.push({ check: check.name, source, via });
    }
  }
  for (const m of mutants) {
    const points = hookPointsOf(m.hooks);
    entries.get(m.rule)?.mutants.push({
      name: m.name,
      source: findLine(mutantFiles, `'${m.name}'`) ?? 'fixtures/mutants/',
      hookPoints: points,
      serverFiles: [...new Set(points.flatMap(modulesOf))],
    });
  }
  for (const v of variants) for (const id of v.rules ?? []) entries.get(id)?.variants.push(v.name);
  for (const path of filesUnder(SERVER)) {
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const id of new Set(line.match(RULE_ID) ?? [])) entries.get(id)?.serverMentions.push(`${rel(path)}:${i + 1}`);
      });
  }
  for (const [id, reason] of reasons) {
    const entry = entries.get(id);
    if (entry) entry.noMutantReason = reason;
  }
  return {
    entries: [...entries.values()],
    constants,
    spreads,
    areas: new Map([...areas.entries()].map(([key, a]) => [key, a.description])),
  };
}

// ---------------------------------------------------------------- rendering

const link = (site: string, text = site): string => {
  const [file, line] = site.split(/:(?=\d+$)/);
  return `[${text}](../${file}${line ? `#L${line}` : ''})`;
};

/** `must` rules whose deciding rules no check cites. */
export function uncoveredMustRules(index: RulesIndex): string[] {
  const cited = new Set(index.entries.filter((e) => e.citations.length > 0).map((e) => e.rule.id));
  return index.entries.filter((e) => e.rule.level === 'must' && !decidingIds(e.rule).every((id) => cited.has(id))).map((e) => e.rule.id);
}

/** `must` rules none of whose deciding rules a mutant breaks. */
export function mustRulesWithoutMutant(index: RulesIndex): string[] {
  const broken = new Set(index.entries.filter((e) => e.mutants.length > 0).map((e) => e.rule.id));
  return index.entries.filter((e) => e.rule.level === 'must' && !decidingIds(e.rule).some((id) => broken.has(id))).map((e) => e.rule.id);
}

export function renderRulesIndex(index: RulesIndex): string {
  const { entries } = index;
  const must = entries.filter((e) => e.rule.level === 'must');
  const withoutMutant = mustRulesWithoutMutant(index);
  const out: string[] = [
    '# Rules index',
    '',
    'Generated by `npm run rules:index` (bin/rules-index.ts; `npm test` regenerates it) from specs/rules/*.yaml, the checks of',
    'suites/index.ts, the mutants and variants of fixtures/mutants/index.ts and the hook points of fixtures/server/hooks.ts.',
    'Do not edit.',
    '',
    `${entries.length} rules, ${must.length} \`must\`; ${entries.filter((e) => e.citations.length > 0).length} cited by a check, ` +
      `${entries.filter((e) => e.mutants.length > 0).length} broken by a mutant. ` +
      `\`must\` rules no check covers: ${uncoveredMustRules(index).join(', ') || 'none'}. ` +
      `\`must\` rules without a mutant (reasons in specs/no-mutant.yaml): ${withoutMutant.join(', ') || 'none'}.`,
    '',
    'Per rule: **checks** (a check reached only through a rule-list constant says `via NAME`, `computed` when the id is built',
    'in code), **mutants** (hook points → the server modules behind them), **variants** (benign variants that exercise it),',
    '**server** (lines of fixtures/server that name the rule id).',
    '',
  ];
  let area = '';
  for (const e of entries) {
    const r = e.rule;
    const areaKey = `${r.service === 'order-automation' ? 'OA' : 'Q'}-${r.area}`;
    if (areaKey !== area) {
      area = areaKey;
      out.push(`## ${areaKey}: ${index.areas.get(areaKey) ?? ''}`, '');
    }
    out.push(
      `### ${r.id}`,
      '',
      `\`${r.level}\` · ${r.basis}${r.coveredBy ? ` · covered by ${r.coveredBy.join(', ')}` : ''} — ${r.statement}`,
      '',
    );
    const checks = e.citations.map((c) => `${link(c.source, c.check)}${c.via.length > 0 ? ` (via ${c.via.join(', ')})` : ''}`);
    out.push(`- checks: ${checks.join(', ') || (r.coveredBy ? '(through the rules it is covered by)' : '**none**')}`);
    const ms = e.mutants.map(
      (m) =>
        `${link(m.source, m.name)} (${m.hookPoints.map((p) => `\`${p}\``).join(', ')}${m.serverFiles.length > 0 ? ` → ${m.serverFiles.map((f) => link(f)).join(', ')}` : ''})`,
    );
    out.push(
      `- mutants: ${ms.join('; ') || (e.noMutantReason ? `none: ${e.noMutantReason}` : r.level === 'must' && !r.coveredBy ? '**none**' : 'none')}`,
    );
    if (e.variants.length > 0) out.push(`- variants: ${e.variants.join(', ')}`);
    const server = [...new Set([...e.serverMentions, ...e.mutants.flatMap((m) => m.serverFiles)])];
    out.push(`- server: ${server.map((s) => link(s)).join(', ') || '—'}`, '');
  }
  out.push(
    '## Rule-list constants',
    '',
    'Checks that spread these cite every rule listed; a grep for a rule id finds the constant, and the next section the checks.',
    '',
  );
  for (const c of index.constants) out.push(`- ${link(c.source, c.name)}: ${c.rules.join(', ')}`);
  out.push(
    '',
    '## Checks that spread a rule-list constant',
    '',
    'Each check that writes `...NAME` in its `rules`, with the rules that spread expands to.',
    '',
  );
  for (const s of index.spreads) out.push(`- ${link(s.source, s.check)} spreads \`${s.constant}\`: ${s.rules.join(', ')}`);
  const unnamed = variants.filter((v) => (v.rules ?? []).length === 0).map((v) => v.name);
  out.push('', '## Variants that name no rule', '', unnamed.join(', ') || 'none', '');
  return `${out.join('\n')}\n`;
}

export async function writeRulesIndex(path = RULES_MD): Promise<RulesIndex> {
  const index = await buildRulesIndex();
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, renderRulesIndex(index));
  return index;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const index = await writeRulesIndex();
  console.log(`wrote ${rel(RULES_MD)}: ${index.entries.length} rules, ${index.constants.length} rule-list constants`);
}
