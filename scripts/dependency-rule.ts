import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { basename, join, relative, sep } from "node:path";
import ts from "typescript";

/**
 * The dependency rule of docs/DESIGN.md §2, checked by reading every import with the TypeScript parser
 * (not regexes): imports point inward by layer, other folders are reached only through their
 * index.ts, there are no import cycles between files, and the pure core does no I/O — checked by
 * walking the run-time import graph transitively, so a pure file that imports a barrel that loads
 * execa is caught, and each violation names the chain of files that leads to the I/O module.
 */

/** Layer of each folder under src/ (and workers/). A folder may import only from lower layers. */
export const LAYERS: Record<string, number> = {
  shared: 0,
  logging: 0,
  /** Facts about processes read from /proc (start times that tell a live process from a reused pid). */
  proc: 0,
  /** Redis scripts read from the .lua files beside their users. */
  lua: 0,
  catalog: 1,
  tools: 1,
  platform: 2,
  policy: 2,
  guard: 2,
  gate: 3,
  config: 4,
  journal: 4,
  approvals: 4,
  agent: 4,
  queue: 4,
  scheduler: 4,
  /** The read model of runs (what a run did): above the rooms it reads, below those that show it. */
  runs: 4.5,
  http: 5,
  metrics: 5,
  /** Alerts to people about runs and schedules: built on the approvals notifiers. */
  alerts: 5,
  /** Traces of runs (OpenTelemetry): implements the run loop's RunTracer port; runtime composes it. */
  telemetry: 5,
  /** The composition root: builds everything from config; cli and workers import it, not each other. */
  runtime: 6,
  cli: 7,
  workers: 7,
  root: 8,
};

/**
 * Sub-rooms: the folders directly inside a room, per room that has them, lowest first. A file in a
 * sub-room imports only its own sub-room and those listed before it, each through its index.ts; the
 * room's top-level files sit above every sub-room and reach them through their index.ts too. A folder
 * inside a listed room that is missing here is an error, so a new sub-room must be placed in the
 * order. Rooms not listed here are checked as one folder, as before. Because the order is a line, no
 * cycle between sub-rooms can pass; cycles between files are caught by the cycle check.
 */
export const SUB_ROOMS: Readonly<Record<string, readonly string[]>> = {
  /** Parse, then unwrap, then judge by family; the deciding files (command-guard, call-guard) on top. */
  guard: ["verdict", "shell", "unwrap", "safe-bins", "paths", "network", "families"],
  /** The stored requests and decisions, then the messages that tell people about them. */
  approvals: ["store", "notify"],
  /**
   * Who may ask (tokens, throttles), the pages and error replies, then the route families that use
   * them; the server that mounts them all on top.
   */
  http: ["auth", "pages", "approvals", "runs", "slack", "admin"],
  /**
   * The commands by noun (a key may name a folder inside a room): what several nouns share, the
   * schedules a config names, then the config check that reads them, the tool rows doctor lists.
   */
  "cli/commands": [
    "shared",
    "schedules",
    "config",
    "tools",
    "approvals",
    "audit",
    "guard",
    "jobs",
    "policy",
    "run",
    "runs",
    "start",
    "doctor",
  ],
};

/** Same-layer imports that are allowed (the pair must stay acyclic, which the cycle check proves). */
const SAME_LAYER_ALLOWED = new Set([
  "lua->shared",
  "tools->catalog",
  "guard->policy",
  "platform->guard",
  "journal->queue",
  "agent->journal",
  "agent->queue",
  "agent->approvals",
  "approvals->queue",
  "approvals->journal",
  "scheduler->queue",
  "scheduler->agent",
  "scheduler->approvals",
  "queue->journal",
  "http->metrics",
]);

/**
 * The pure core (docs/DESIGN.md §2) and the only folders each of its folders may import. Nothing
 * these folders reach at run time, directly or through other files, may do I/O.
 */
const PURE_FOLDER_IMPORTS: Record<string, readonly string[]> = {
  catalog: ["shared"],
  policy: ["catalog", "shared"],
  guard: ["policy", "catalog", "shared"],
  gate: ["guard", "policy", "catalog", "shared"],
};
const PURE_FOLDERS = new Set(Object.keys(PURE_FOLDER_IMPORTS));

/**
 * Packages and Node built-ins the pure core may load: computation only (parsing, hashing, matching).
 * Anything else it reaches is a violation, so a new dependency must be judged before the core uses it.
 */
const PURE_CORE_MODULES = new Set([
  "zod",
  "picomatch",
  "re2js",
  "ipaddr.js",
  /** Argument schemas and their validation. */
  "typebox",
  "node:crypto",
  "node:path",
  "node:util",
  "node:buffer",
  "node:url",
]);

/** Modules known to perform I/O (named in messages; the pure core reaches none of them). */
const IO_MODULES = new Set([
  "ioredis",
  "bullmq",
  "fastify",
  "@fastify/formbody",
  "nodemailer",
  "pino",
  "pino-pretty",
  "execa",
  "undici",
  "tar",
  "prom-client",
  "@modelcontextprotocol/sdk",
  "@anthropic-ai/sdk",
  /** Its runtime and grammar are WASM loaded from disk (Parser.init, Language.load). */
  "web-tree-sitter",
  "node:fs",
  "node:fs/promises",
  "node:net",
  "node:http",
  "node:https",
  "node:http2",
  "node:dns",
  "node:dns/promises",
  "node:tls",
  "node:dgram",
  "node:child_process",
  "node:worker_threads",
  "node:cluster",
  "node:os",
  "node:module",
  "node:readline",
  "node:process",
]);

/** Direct-import checks on the pure folders' own files (kept from the first rule: clock and timers). */
const IMPURE_CALLS =
  /\b(Date\.now\(|new Date\(\)|setTimeout\(|setInterval\(|performance\.now\(|Math\.random\()/;

/** Only these folders may load config (read files, environment); others receive values. */
const CONFIG_LOADERS = new Set(["cli", "workers", "config", "runtime"]);

/** BullMQ is wrapped by src/queue/ alone, so queue semantics live in one room; the bench's raw baseline lives outside src/. */
const BULLMQ_OWNER = "queue";

/** Entry-point folders that must not import each other: both build through src/runtime. */
const ENTRY_FOLDERS = new Set(["cli", "workers"]);

/** Which check a violation comes from. */
export const RULE_IDS = [
  "layer-map",
  "sub-room-map",
  "inward",
  "sub-room-upward",
  "index-only",
  "pure-folder-edge",
  "pure-direct-io",
  "pure-clock",
  "pure-reaches-io",
  "config-loader",
  "bullmq-outside-queue",
  "entry-cross-import",
  "cycle",
] as const;
export type RuleId = (typeof RULE_IDS)[number];

export interface RuleViolation {
  rule: RuleId;
  /** The file that breaks the rule (for pure-reaches-io: the pure folder, as `src/<folder>`). */
  file: string;
  /** What it reaches or imports: a folder, a module, or "" when not applicable. */
  target: string;
  message: string;
}

interface ImportRef {
  specifier: string;
  /** Absolute path of a resolved project file, or undefined for a package / built-in. */
  resolved: string | undefined;
  /** False for `import type` / `export type`: erased, loads nothing at run time. */
  runtime: boolean;
}

interface SourceFile {
  path: string;
  folder: string;
  /** The sub-room of a listed room (or folder) the file lives in; sub "" for its top-level files. */
  place: SubRoomPlace;
  imports: ImportRef[];
  text: string;
}

function listTs(dir: string): string[] {
  let out: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out = out.concat(listTs(full));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

function folderOf(root: string, file: string): string {
  const rel = relative(root, file).split(sep);
  if (rel[0] === "workers") return "workers";
  if (rel[0] === "src" && rel.length > 2) return rel[1] ?? "root";
  return "root";
}

/** Where a file sits among sub-rooms: the SUB_ROOMS key it falls under, and its sub-room there. */
interface SubRoomPlace {
  /** The longest SUB_ROOMS key the file's folder is inside (`guard`, `cli/commands`), or "". */
  readonly key: string;
  /** `src/<key>/<sub>/…` → `<sub>`; "" for a file directly in the key's folder (or under no key). */
  readonly sub: string;
}

function subRoomOf(root: string, file: string): SubRoomPlace {
  const rel = relative(root, file).split(sep);
  if (rel[0] !== "src") return { key: "", sub: "" };
  const folders = rel.slice(1, -1);
  for (let depth = folders.length; depth >= 1; depth--) {
    const key = folders.slice(0, depth).join("/");
    if (SUB_ROOMS[key] === undefined) continue;
    return { key, sub: folders[depth] ?? "" };
  }
  return { key: "", sub: "" };
}

function isTestFile(file: string): boolean {
  return file.endsWith(".test.ts");
}

/** Test files and their helpers (`*.fixture.ts`, `test-fixture.ts`): never loaded by the product. */
function isTestSupport(file: string): boolean {
  return isTestFile(file) || file.endsWith(".fixture.ts") || basename(file) === "test-fixture.ts";
}

const COMPILER_OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  allowImportingTsExtensions: false,
};

/** Every module specifier of a file, with whether it survives compilation (is loaded at run time). */
function importsOf(file: string, text: string): { specifier: string; runtime: boolean }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: { specifier: string; runtime: boolean }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      // verbatimModuleSyntax: only a whole `import type` is erased; `import { type X }` still loads.
      out.push({ specifier: node.moduleSpecifier.text, runtime: node.importClause?.isTypeOnly !== true });
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      out.push({ specifier: node.moduleSpecifier.text, runtime: !node.isTypeOnly });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      out.push({ specifier: node.arguments[0].text, runtime: true });
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal)) {
        out.push({ specifier: arg.literal.text, runtime: false });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function readSource(root: string, file: string, cache: ts.ModuleResolutionCache): SourceFile {
  const text = readFileSync(file, "utf8");
  const imports = importsOf(file, text).map(({ specifier, runtime }) => {
    let resolved: string | undefined;
    if (specifier.startsWith(".")) {
      const result = ts.resolveModuleName(specifier, file, COMPILER_OPTIONS, ts.sys, cache);
      const name = result.resolvedModule?.resolvedFileName;
      // An unresolvable relative import is left to tsc; the layer checks still see where it points.
      resolved = name ?? join(file, "..", specifier.replace(/\.js$/, ".ts"));
    }
    return { specifier, resolved, runtime };
  });
  return { path: file, folder: folderOf(root, file), place: subRoomOf(root, file), imports, text };
}

/** `node:fs/promises` for "fs/promises" and "node:fs/promises"; `@scope/pkg` / `pkg` for packages. */
export function moduleName(specifier: string): string {
  const bare = specifier.startsWith("node:") ? specifier.slice(5) : specifier;
  if (specifier.startsWith("node:") || builtinModules.includes(bare)) return `node:${bare}`;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

/** Every violation of the rule in the tree under `root` (which holds src/ and workers/). */
export function findViolations(root: string): RuleViolation[] {
  const cache = ts.createModuleResolutionCache(root, (name) => name, COMPILER_OPTIONS);
  const files = [...listTs(join(root, "src")), ...listTs(join(root, "workers"))].map((f) =>
    readSource(root, f, cache),
  );
  const violations: RuleViolation[] = [];
  const byPath = new Map(files.map((f) => [f.path, f]));
  const edges = new Map<string, string[]>();

  for (const file of files) {
    const rel = relative(root, file.path);
    const test = isTestFile(file.path);
    const layer = LAYERS[file.folder];
    if (layer === undefined) {
      violations.push({
        rule: "layer-map",
        file: rel,
        target: file.folder,
        message: `folder "${file.folder}" is not in the layer map of docs/DESIGN.md §2`,
      });
      continue;
    }
    const { key, sub } = file.place;
    const order = SUB_ROOMS[key];
    if (order && sub !== "" && !order.includes(sub)) {
      violations.push({
        rule: "sub-room-map",
        file: rel,
        target: `${key}/${sub}`,
        message: `sub-room "src/${key}/${sub}" is not in the order of "${key}" in SUB_ROOMS (scripts/dependency-rule.ts: ${order.join(" < ")}); add it where its imports put it`,
      });
      continue;
    }
    const targets: string[] = [];
    for (const imp of file.imports) {
      if (!imp.resolved) {
        checkPackageImport(file, rel, imp, violations);
        continue;
      }
      if (byPath.has(imp.resolved)) targets.push(imp.resolved);
      const targetFolder = folderOf(root, imp.resolved);
      if (targetFolder === file.folder) {
        const target = subRoomOf(root, imp.resolved);
        const targetOrder = SUB_ROOMS[target.key];
        if (targetOrder) {
          const viaIndex = relative(root, imp.resolved) === join("src", target.key, target.sub, "index.ts");
          // A file of the room outside the key's folder stands above all its sub-rooms.
          const from = file.place.key === target.key ? file.place.sub : "";
          checkSubRoomImport(rel, from, imp, target, viaIndex, targetOrder, test, violations);
        }
        continue;
      }
      const targetLayer = LAYERS[targetFolder];
      if (targetLayer === undefined) continue;
      checkFolderImport(file, rel, imp, targetFolder, targetLayer, layer, test, root, violations);
    }
    if (PURE_FOLDERS.has(file.folder) && !test && IMPURE_CALLS.test(file.text)) {
      violations.push({
        rule: "pure-clock",
        file: rel,
        target: "",
        message: `pure folder "${file.folder}" reads the clock, timers or randomness`,
      });
    }
    edges.set(file.path, targets);
  }

  violations.push(...pureCoreReachesIo(root, files, byPath));

  for (const cycle of findCycles(edges)) {
    violations.push({
      rule: "cycle",
      file: relative(root, cycle[0] ?? ""),
      target: "",
      message: `import cycle: ${cycle.map((p) => relative(root, p)).join(" -> ")}`,
    });
  }
  return violations;
}

function checkPackageImport(file: SourceFile, rel: string, imp: ImportRef, violations: RuleViolation[]) {
  const name = moduleName(imp.specifier);
  if (PURE_FOLDERS.has(file.folder) && !isTestFile(file.path) && imp.runtime && IO_MODULES.has(name)) {
    violations.push({
      rule: "pure-direct-io",
      file: rel,
      target: name,
      message: `pure folder "${file.folder}" imports "${imp.specifier}"`,
    });
  }
  // Test files under src/ and workers/ too: they use the queue module's factories like the code does.
  if (name === "bullmq" && file.folder !== BULLMQ_OWNER) {
    violations.push({
      rule: "bullmq-outside-queue",
      file: rel,
      target: name,
      message: `imports bullmq outside src/queue/; use the queue module's factories and operations`,
    });
  }
}

function checkFolderImport(
  file: SourceFile,
  rel: string,
  imp: ImportRef,
  targetFolder: string,
  targetLayer: number,
  layer: number,
  test: boolean,
  root: string,
  violations: RuleViolation[],
) {
  const pureEdges = PURE_FOLDER_IMPORTS[file.folder];
  if (pureEdges && !test && !pureEdges.includes(targetFolder)) {
    violations.push({
      rule: "pure-folder-edge",
      file: rel,
      target: targetFolder,
      message: `pure folder "${file.folder}" may import only ${pureEdges.join(", ")}; it imports "${targetFolder}"`,
    });
  }
  if (ENTRY_FOLDERS.has(file.folder) && ENTRY_FOLDERS.has(targetFolder)) {
    violations.push({
      rule: "entry-cross-import",
      file: rel,
      target: targetFolder,
      message: `"${file.folder}" imports "${targetFolder}": entry points share code through src/runtime, not each other`,
    });
  }
  const pair = `${file.folder}->${targetFolder}`;
  const entryPair = ENTRY_FOLDERS.has(file.folder) && ENTRY_FOLDERS.has(targetFolder);
  if (!test && targetLayer >= layer && !SAME_LAYER_ALLOWED.has(pair) && !entryPair) {
    violations.push({
      rule: "inward",
      file: rel,
      target: targetFolder,
      message: `"${file.folder}" (layer ${layer}) may not import "${targetFolder}" (layer ${targetLayer}): imports point inward`,
    });
  }
  const targetRel = relative(root, imp.resolved ?? "").split(sep);
  const isIndex = targetRel[targetRel.length - 1] === "index.ts" && targetRel.length === 3;
  if (targetFolder !== "workers" && targetFolder !== "root" && !isIndex) {
    violations.push({
      rule: "index-only",
      file: rel,
      target: targetFolder,
      message: `imports "${imp.specifier}" from another folder; import it through src/${targetFolder}/index.ts`,
    });
  }
  if (targetFolder === "config" && !CONFIG_LOADERS.has(file.folder) && !test) {
    violations.push({
      rule: "config-loader",
      file: rel,
      target: targetFolder,
      message: `only cli/, workers/ and runtime/ load config; "${file.folder}" receives values`,
    });
  }
}

/**
 * An import between two places of one room that has sub-rooms: never up the order (tests aside, as
 * for layers: a sub-room's test may drive the room's top-level check), and into another sub-room only
 * through its index.ts (tests included, as between rooms).
 */
function checkSubRoomImport(
  rel: string,
  fromSubRoom: string,
  imp: ImportRef,
  target: SubRoomPlace,
  viaIndex: boolean,
  order: readonly string[],
  test: boolean,
  violations: RuleViolation[],
) {
  const targetSubRoom = target.sub;
  if (targetSubRoom === fromSubRoom) return;
  const room = target.key;
  const rank = (sub: string) => (sub === "" ? order.length : order.indexOf(sub));
  const where = (sub: string) => (sub === "" ? `the top level of "${room}"` : `"${room}/${sub}"`);
  if (!test && rank(targetSubRoom) > rank(fromSubRoom)) {
    violations.push({
      rule: "sub-room-upward",
      file: rel,
      target: `${room}/${targetSubRoom}`,
      message: `${where(fromSubRoom)} may not import ${where(targetSubRoom)} ("${imp.specifier}"): inside "${room}" imports point down the order ${order.join(" < ")} < top-level files`,
    });
  }
  if (targetSubRoom !== "" && !viaIndex) {
    violations.push({
      rule: "index-only",
      file: rel,
      target: `${room}/${targetSubRoom}`,
      message: `imports "${imp.specifier}" from another sub-room; import it through src/${room}/${targetSubRoom}/index.ts`,
    });
  }
}

/**
 * Walks the run-time import graph (type-only imports are erased and skipped) from every product file
 * of each pure folder, breadth first, and reports each module outside PURE_CORE_MODULES it reaches,
 * once per folder and module, with the shortest chain of files that loads it.
 */
function pureCoreReachesIo(
  root: string,
  files: readonly SourceFile[],
  byPath: ReadonlyMap<string, SourceFile>,
): RuleViolation[] {
  const violations: RuleViolation[] = [];
  for (const folder of PURE_FOLDERS) {
    const starts = files.filter((f) => f.folder === folder && !isTestSupport(f.path)).map((f) => f.path);
    const parent = new Map<string, string | null>(starts.map((s) => [s, null]));
    const queue = [...starts];
    const reached = new Map<string, string>();
    for (let i = 0; i < queue.length; i++) {
      const path = queue[i]!;
      const file = byPath.get(path);
      if (!file) continue;
      for (const imp of file.imports) {
        if (!imp.runtime) continue;
        if (imp.resolved) {
          if (!parent.has(imp.resolved)) {
            parent.set(imp.resolved, path);
            queue.push(imp.resolved);
          }
          continue;
        }
        const name = moduleName(imp.specifier);
        if (!PURE_CORE_MODULES.has(name) && !reached.has(name)) reached.set(name, path);
      }
    }
    for (const [name, via] of reached) {
      const chain: string[] = [];
      for (let at: string | null | undefined = via; at; at = parent.get(at))
        chain.unshift(relative(root, at));
      const what = IO_MODULES.has(name)
        ? "the I/O module"
        : "a module not listed as pure (add it to PURE_CORE_MODULES if it does no I/O)";
      violations.push({
        rule: "pure-reaches-io",
        file: `src/${folder}`,
        target: name,
        message: `pure folder "${folder}" loads ${what} "${name}": ${[...chain, name].join(" -> ")}`,
      });
    }
  }
  return violations;
}

/** Cycles in a directed graph (Tarjan's strongly connected components of size > 1, or self-loops). */
export function findCycles(edges: Map<string, string[]>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const onStack = new Set<string>();
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, indices.get(next) ?? 0));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (edges.get(node) ?? []).includes(node)) cycles.push(component.reverse());
    }
  };
  for (const node of edges.keys()) if (!indices.has(node)) visit(node);
  return cycles;
}
