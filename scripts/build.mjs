// `npm run build` (also `prepare`, so `npm ci` builds, and `pretest`): compiles every non-test .ts
// file under src/ and workers/ to dist/, and the worker processes tests start (test/helpers/*-main.ts) (tsconfig.build.json: no type check here, `npm run
// typecheck` does that), links dist/config to config/ (sources find their YAML files by relative
// path), bundles TypeBox into dist/vendor (see vendorTypebox), writes the CLI's command manifest (so
// a command loads only its own modules), bundles the commands that must start fast (see
// bundleCommands), and writes the stamp bin/echo-runner.js compares the
// sources against last.
//   node scripts/build.mjs             always rebuild
//   node scripts/build.mjs --if-stale  only when dist/ is missing or older than a source
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildState, SOURCE_DIRS, STAMP, TEST_ENTRY_DIRS } from "../bin/freshness.js";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const dist = join(root, "dist");
/**
 * The commands whose start-up is a target (issue 20: `guard command` ≤ 400 ms p50), each bundled by
 * esbuild into one module, dist/src/cli/commands/bundled/<file>, which the manifest then names.
 */
const BUNDLED_COMMANDS = ["guard-command.js"];
/**
 * Packages copied into those bundles: ipaddr.js is CommonJS, which Node loads from ESM through its
 * CommonJS loader and export scanner. The rest stay imports from node_modules (web-tree-sitter finds
 * its WASM next to its own file).
 */
const INLINED_PACKAGES = ["ipaddr.js"];

const everything = [...SOURCE_DIRS, ...TEST_ENTRY_DIRS];
if (process.argv.includes("--if-stale") && buildState(root, everything).state === "fresh") process.exit(0);

const started = Date.now();
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const compiled = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], {
  cwd: root,
  stdio: "inherit",
});
if (compiled.status !== 0) {
  process.stderr.write("build: tsc failed; dist/ is incomplete and bin/echo-runner.js will refuse it\n");
  process.exit(compiled.status ?? 1);
}
mkdirSync(dist, { recursive: true });
symlinkSync("../config", join(dist, "config"), "dir");
await vendorTypebox();

// The manifest: every command's words, summary and usage, and the module and export that run it.
const commandsDir = join(dist, "src", "cli", "commands");
const { COMMANDS } = await import(pathToFileURL(join(commandsDir, "index.js")).href);
const where = new Map();
const moduleFiles = readdirSync(commandsDir, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith(".js") && f !== "index.js")
  .sort();
for (const file of moduleFiles) {
  const module = await import(pathToFileURL(join(commandsDir, file)).href);
  for (const [name, value] of Object.entries(module)) {
    if (value && typeof value === "object" && COMMANDS.includes(value) && !where.has(value))
      where.set(value, { file, export: name });
  }
}
const manifest = COMMANDS.map((command) => {
  const found = where.get(command);
  if (!found) throw new Error(`build: no module under src/cli/commands exports "${command.words.join(" ")}"`);
  return { words: command.words, summary: command.summary, usage: command.usage, ...found };
});
await bundleCommands(manifest);
writeFileSync(join(commandsDir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);

writeFileSync(join(root, STAMP), `${JSON.stringify({ builtFrom: started })}\n`);
process.stdout.write(
  `build: dist/ from src/ and workers/ in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
);
process.exit(0);

/**
 * TypeBox 1.x ships as ~700 separate ES modules, and importing it opens, stats and compiles every
 * one: 682 of the ~800 files `echo-runner guard command ls` opened, about 260 ms of its start on the
 * 2-core machine (issue 20, start-up). dist/ imports one bundled copy instead — the same package
 * version from node_modules, bundled by esbuild (already the compiler under tsx, pinned as a dev
 * dependency for this step) with its two entry points sharing one chunk, so `typebox` and
 * `typebox/compile` still see one set of TypeBox internals.
 */
async function vendorTypebox() {
  const { build } = await import("esbuild");
  const require = createRequire(import.meta.url);
  const outdir = join(dist, "vendor", "typebox");
  await build({
    entryPoints: { index: require.resolve("typebox"), compile: require.resolve("typebox/compile") },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outdir,
    outExtension: { ".js": ".mjs" },
    legalComments: "eof",
    logLevel: "warning",
  });
  const specifiers = { typebox: "index.mjs", "typebox/compile": "compile.mjs" };
  for (const file of readdirSync(dist, { recursive: true }).map(String)) {
    if (!file.endsWith(".js") || file.startsWith("vendor")) continue;
    const path = join(dist, file);
    const text = readFileSync(path, "utf8");
    const rewritten = text.replace(
      /(from\s*|import\s*\(\s*)"(typebox(?:\/compile)?)"/g,
      (whole, lead, name) => {
        const target = specifiers[name];
        if (!target) return whole;
        const rel = relative(dirname(path), join(outdir, target)).split("\\").join("/");
        return `${lead}"${rel.startsWith(".") ? rel : `./${rel}`}"`;
      },
    );
    if (rewritten !== text) writeFileSync(path, rewritten);
  }
}

/**
 * Loading `guard command` from dist/ opened ~120 modules: the guard's barrel (src/guard/index.ts)
 * re-exports the call guard, which loads the catalog, the policy and TypeBox, none of which the
 * command guard runs. The bundle is built from the compiled output itself (the same JavaScript, not
 * a second compilation of the sources), and holds only what the command reaches:
 * - every module of dist/src is declared free of side effects at load, so a module none of whose
 *   exports the command uses is left out (for `guard command`: the catalog, the policy, TypeBox,
 *   the call/path/exec guards and src/platform's other adapters, whose modules only compute their
 *   own values at load); test/integration/compiled-cli.test.ts checks which files the command loads
 *   and compares its answers with the sources' for a corpus of commands;
 * - the modules the dispatcher has loaded already (dist/src/main.js and what it imports: cli/io,
 *   shared, ...) stay imports of those very files, so there is one RunnerError class, one EXIT table;
 * - packages other than INLINED_PACKAGES stay imports from node_modules;
 * - names are kept (`keepNames`), so a function's or class's `name` is what it was.
 */
async function bundleCommands(manifest) {
  const { build } = await import("esbuild");
  const src = join(dist, "src");
  // The static graph of dist/src/main.js (dynamic imports are the parts it loads later).
  const graph = await build({
    entryPoints: [join(src, "main.js")],
    absWorkingDir: root,
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "node",
    logLevel: "warning",
    plugins: [
      {
        name: "static-graph",
        setup(b) {
          b.onResolve({ filter: /.*/ }, (args) =>
            args.kind === "dynamic-import" || (args.kind !== "entry-point" && !args.path.startsWith("."))
              ? { external: true }
              : undefined,
          );
        },
      },
    ],
  });
  const loaded = new Set(Object.keys(graph.metafile.inputs).map((input) => join(root, input)));
  if (!loaded.has(join(src, "cli", "dispatch.js")) || !loaded.has(join(src, "shared", "index.js")))
    throw new Error(
      "build: could not find the modules dist/src/main.js loads; the command bundles would copy them",
    );
  for (const file of BUNDLED_COMMANDS) {
    const line = manifest.find((entry) => entry.file === file);
    if (!line) throw new Error(`build: no command in the manifest runs from commands/${file}`);
    const outfile = join(commandsDir, "bundled", file);
    await build({
      entryPoints: [join(commandsDir, file)],
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20",
      outfile,
      keepNames: true,
      sourcemap: "linked",
      legalComments: "eof",
      logLevel: "warning",
      plugins: [
        {
          name: "command-bundle",
          setup(b) {
            b.onResolve({ filter: /.*/ }, async (args) => {
              if (args.kind === "entry-point" || args.pluginData === "resolving") return undefined;
              if (!args.path.startsWith(".") && !INLINED_PACKAGES.includes(args.path))
                return { external: true };
              const resolved = await b.resolve(args.path, {
                resolveDir: args.resolveDir,
                kind: args.kind,
                importer: args.importer,
                pluginData: "resolving",
              });
              if (resolved.errors.length > 0) return { errors: resolved.errors };
              if (loaded.has(resolved.path)) {
                const rel = relative(dirname(outfile), resolved.path).split("\\").join("/");
                return { path: rel.startsWith(".") ? rel : `./${rel}`, external: true };
              }
              return { path: resolved.path, sideEffects: !resolved.path.startsWith(src + sep) };
            });
          },
        },
      ],
    });
    line.file = `bundled/${file}`;
  }
}
