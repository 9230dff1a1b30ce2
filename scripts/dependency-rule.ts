import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

/**
 * The dependency rule of DESIGN.md §2, checked by reading every import (TypeScript's own
 * pre-processor, not regexes): imports point inward by layer, other folders are reached only through
 * their index.ts, the pure core does no I/O, and there are no import cycles between files.
 */

/** Layer of each folder under src/ (and workers/). A folder may import only from lower layers. */
export const LAYERS: Record<string, number> = {
  shared: 0,
  logging: 0,
  catalog: 1,
  platform: 2,
  tools: 1,
  policy: 2,
  guard: 2,
  gate: 3,
  config: 4,
  journal: 4,
  approvals: 4,
  agent: 4,
  queue: 4,
  scheduler: 4,
  http: 5,
  metrics: 5,
  cli: 6,
  workers: 6,
  root: 7,
};

/** Same-layer imports that are allowed (the pair must stay acyclic, which the cycle check proves). */
const SAME_LAYER_ALLOWED = new Set([
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
  "cli->workers",
  "workers->cli",
]);

/** Folders that must stay pure: no I/O modules, no wall clock, no timers. */
const PURE_FOLDERS = new Set(["catalog", "policy", "guard", "gate"]);
/** Folders the pure core may not import even indirectly (they wrap I/O). */
const IMPURE_FOLDERS = new Set([
  "tools",
  "logging",
  "config",
  "journal",
  "approvals",
  "agent",
  "queue",
  "scheduler",
  "http",
  "metrics",
  "cli",
]);
const IMPURE_MODULES = [
  "ioredis",
  "bullmq",
  "fastify",
  "nodemailer",
  "pino",
  "execa",
  "undici",
  "node:fs",
  "node:fs/promises",
  "fs",
  "node:net",
  "node:http",
  "node:https",
  "node:dns",
  "node:child_process",
  "child_process",
];
const IMPURE_CALLS =
  /\b(Date\.now\(|new Date\(\)|setTimeout\(|setInterval\(|performance\.now\(|Math\.random\()/;

/** Only these folders may load config (read files, environment); others receive values. */
const CONFIG_LOADERS = new Set(["cli", "workers", "config"]);

export interface RuleViolation {
  file: string;
  message: string;
}

interface SourceFile {
  path: string;
  folder: string;
  imports: { specifier: string; resolved: string | undefined }[];
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

function isTestFile(file: string): boolean {
  return file.endsWith(".test.ts");
}

function readSource(root: string, file: string): SourceFile {
  const text = readFileSync(file, "utf8");
  const info = ts.preProcessFile(text, true, true);
  const imports = info.importedFiles.map((ref) => {
    const specifier = ref.fileName;
    let resolved: string | undefined;
    if (specifier.startsWith(".")) {
      resolved = resolve(dirname(file), specifier.replace(/\.js$/, ".ts"));
    }
    return { specifier, resolved };
  });
  return { path: file, folder: folderOf(root, file), imports, text };
}

/** Checks the tree under `root` (which holds src/ and workers/). Test files are exempt from purity. */
export function checkDependencyRule(root: string): RuleViolation[] {
  const files = [...listTs(join(root, "src")), ...listTs(join(root, "workers"))].map((f) =>
    readSource(root, f),
  );
  const violations: RuleViolation[] = [];
  const known = new Set(files.map((f) => f.path));
  const edges = new Map<string, string[]>();

  for (const file of files) {
    const rel = relative(root, file.path);
    const test = isTestFile(file.path);
    const layer = LAYERS[file.folder];
    if (layer === undefined) {
      violations.push({
        file: rel,
        message: `folder "${file.folder}" is not in the layer map of DESIGN.md §2`,
      });
      continue;
    }
    const targets: string[] = [];
    for (const imp of file.imports) {
      if (PURE_FOLDERS.has(file.folder) && !test && IMPURE_MODULES.includes(imp.specifier)) {
        violations.push({ file: rel, message: `pure folder "${file.folder}" imports "${imp.specifier}"` });
      }
      if (!imp.resolved) continue;
      if (known.has(imp.resolved)) targets.push(imp.resolved);
      const targetFolder = folderOf(root, imp.resolved);
      if (targetFolder === file.folder) continue;
      const targetLayer = LAYERS[targetFolder];
      if (targetLayer === undefined) continue;
      if (PURE_FOLDERS.has(file.folder) && !test && IMPURE_FOLDERS.has(targetFolder)) {
        violations.push({
          file: rel,
          message: `pure folder "${file.folder}" imports the I/O folder "${targetFolder}"`,
        });
      }
      const pair = `${file.folder}->${targetFolder}`;
      if (!test && targetLayer >= layer && !SAME_LAYER_ALLOWED.has(pair)) {
        violations.push({
          file: rel,
          message: `"${file.folder}" (layer ${layer}) may not import "${targetFolder}" (layer ${targetLayer}): imports point inward`,
        });
      }
      const targetRel = relative(root, imp.resolved).split(sep);
      const isIndex = targetRel[targetRel.length - 1] === "index.ts" && targetRel.length === 3;
      if (targetFolder !== "workers" && targetFolder !== "root" && !isIndex) {
        violations.push({
          file: rel,
          message: `imports "${imp.specifier}" from another folder; import it through src/${targetFolder}/index.ts`,
        });
      }
      if (targetFolder === "config" && !CONFIG_LOADERS.has(file.folder) && !test) {
        violations.push({
          file: rel,
          message: `only cli/ and workers/ load config; "${file.folder}" receives values`,
        });
      }
    }
    if (PURE_FOLDERS.has(file.folder) && !test && IMPURE_CALLS.test(file.text)) {
      violations.push({
        file: rel,
        message: `pure folder "${file.folder}" reads the clock, timers or randomness`,
      });
    }
    edges.set(file.path, targets);
  }

  for (const cycle of findCycles(edges)) {
    violations.push({
      file: relative(root, cycle[0] ?? ""),
      message: `import cycle: ${cycle.map((p) => relative(root, p)).join(" -> ")}`,
    });
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
