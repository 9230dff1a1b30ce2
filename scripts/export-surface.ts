import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

/**
 * The used surface of every room: an `index.ts` under src/ is a room's (or a sub-room's) front door,
 * and a name it exports that no file outside that room imports is surface nobody needs — it widens
 * what others may come to lean on, and hides dead code behind an export. Importers are every
 * TypeScript file of the repository outside the room (src/, workers/, test/, bench/, scripts/), tests
 * included: a name only tests use is still used through the door tests are meant to use.
 */

/** One exported name of an index.ts that nothing outside its room imports. */
export interface UnusedExport {
  /** The index.ts, relative to the repository root. */
  readonly index: string;
  readonly name: string;
}

const SOURCE_DIRS = ["src", "workers", "test", "bench", "scripts"] as const;

function listTs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist") continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listTs(full));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(
    file,
    readFileSync(file, "utf8"),
    ts.ScriptTarget.Latest,
    true,
    ts.ScriptKind.TS,
  );
}

/** The names an index.ts exports (re-exports, exported declarations), in file order. */
export function exportedNames(source: ts.SourceFile): string[] {
  const names: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      if (statement.exportClause && ts.isNamedExports(statement.exportClause)) {
        for (const element of statement.exportClause.elements) names.push(element.name.text);
      } else if (statement.exportClause && ts.isNamespaceExport(statement.exportClause)) {
        names.push(statement.exportClause.name.text);
      }
      continue;
    }
    const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined;
    if (!modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
    if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) {
        if (ts.isIdentifier(d.name)) names.push(d.name.text);
      }
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement)) &&
      statement.name
    ) {
      names.push(statement.name.text);
    }
  }
  return names;
}

/** The file a relative specifier names (`./x.js` → `x.ts`, `./dir/index.js` → `dir/index.ts`). */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** Every name each index.ts is asked for by one file: named imports and re-exports; `*` for all. */
function requestedNames(source: ts.SourceFile): Map<string, Set<string>> {
  const wanted = new Map<string, Set<string>>();
  const want = (specifier: string, names: readonly string[]) => {
    const target = resolveSpecifier(source.fileName, specifier);
    if (target === undefined || !target.endsWith(`${sep}index.ts`)) return;
    const set = wanted.get(target) ?? new Set<string>();
    for (const n of names) set.add(n);
    wanted.set(target, set);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const names: string[] = [];
      if (clause?.name) names.push("default");
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.push("*");
      if (bindings && ts.isNamedImports(bindings)) {
        for (const e of bindings.elements) names.push((e.propertyName ?? e.name).text);
      }
      want(node.moduleSpecifier.text, names);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const clause = node.exportClause;
      const names =
        clause && ts.isNamedExports(clause)
          ? clause.elements.map((e) => (e.propertyName ?? e.name).text)
          : ["*"];
      want(node.moduleSpecifier.text, names);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      // A dynamic import: the names destructured from it, else all of them.
      const parent = node.parent;
      const binding = ts.isAwaitExpression(parent) ? parent.parent : parent;
      const names =
        binding && ts.isVariableDeclaration(binding) && ts.isObjectBindingPattern(binding.name)
          ? binding.name.elements.map((e) => (e.propertyName ?? e.name).getText(source))
          : ["*"];
      want(node.arguments[0].text, names);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const literal = node.argument.literal;
      if (ts.isStringLiteral(literal))
        want(literal.text, node.qualifier ? [node.qualifier.getText(source).split(".")[0] ?? "*"] : ["*"]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return wanted;
}

/** Every index.ts under src/ with each exported name that no file outside its folder imports. */
export function findUnusedExports(root: string): UnusedExport[] {
  const files = SOURCE_DIRS.flatMap((d) => listTs(join(root, d)));
  const indexes = files.filter((f) => f.startsWith(join(root, "src") + sep) && f.endsWith(`${sep}index.ts`));
  const used = new Map<string, Set<string>>(indexes.map((i) => [i, new Set<string>()]));
  for (const file of files) {
    for (const [index, names] of requestedNames(parse(file))) {
      // Inside its own room a file uses its neighbours directly; only outside use counts.
      if (file.startsWith(dirname(index) + sep)) continue;
      const set = used.get(index);
      if (set) for (const n of names) set.add(n);
    }
  }
  const unused: UnusedExport[] = [];
  for (const index of indexes) {
    const set = used.get(index) ?? new Set<string>();
    if (set.has("*")) continue;
    for (const name of exportedNames(parse(index))) {
      if (!set.has(name)) unused.push({ index: relative(root, index), name });
    }
  }
  return unused;
}

/**
 * Removes `names` from an index.ts's export lists (a declaration left empty goes whole). Only
 * re-export lists are edited; an exported declaration in the index itself is left for a person.
 */
export function trimIndex(text: string, names: ReadonlySet<string>): string {
  const source = ts.createSourceFile("index.ts", text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const edits: { start: number; end: number; replacement: string }[] = [];
  for (const statement of source.statements) {
    if (
      !ts.isExportDeclaration(statement) ||
      !statement.exportClause ||
      !ts.isNamedExports(statement.exportClause)
    )
      continue;
    const elements = statement.exportClause.elements;
    const kept = elements.filter((e) => !names.has(e.name.text));
    if (kept.length === elements.length) continue;
    if (kept.length === 0) {
      edits.push({ start: statement.getFullStart(), end: statement.getEnd(), replacement: "" });
      continue;
    }
    const list = kept.map((e) => e.getText(source)).join(", ");
    edits.push({
      start: statement.exportClause.getStart(source),
      end: statement.exportClause.getEnd(),
      replacement: `{ ${list} }`,
    });
  }
  let out = text;
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    out = out.slice(0, edit.start) + edit.replacement + out.slice(edit.end);
  }
  return out;
}
