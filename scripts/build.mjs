// `npm run build` (also `prepare`, so `npm ci` builds, and `pretest`): compiles the .ts files under
// src/ and workers/ to dist/, leaving out tests and their fixtures (`*.fixture.ts`, `test-fixture.ts`:
// never in dist/ or the image), plus the worker processes tests start (test/helpers/*-main.ts)
// (tsconfig.build.json: no type check here, `npm run typecheck` does that), links dist/config to
// config/ (sources find their YAML files by relative path), bundles TypeBox into dist/vendor (see vendorTypebox), writes the CLI's command manifest (so
// a command loads only its own modules), bundles the commands that must start fast with the
// dispatcher (see fuseCommands), and writes the stamp bin/echo-runner.js compares the
// sources against last.
//   node scripts/build.mjs             always rebuild
//   node scripts/build.mjs --if-stale  only when dist/ is missing or older than a source
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildState, SOURCE_DIRS, STAMP, TEST_ENTRY_DIRS } from "../bin/freshness.js";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const dist = join(root, "dist");
/**
 * The commands whose start-up is a target (`guard command` ≤ 400 ms p50, docs/BENCHMARKS.md): each gets one
 * module, dist/src/cli/<out>, of the dispatcher and the command bundled together by esbuild,
 * which bin/echo-runner.js loads for those command words instead of dist/src/main.js.
 */
const FUSED_COMMANDS = [
  { words: ["guard", "command"], file: "guard/guard-command.js", out: "main-guard-command.js" },
];
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
  // A folder's index.js only re-exports: the manifest names the module that defines the command, so
  // running it loads that module and what it imports, not every command of its folder.
  .filter((f) => f.endsWith(".js") && basename(f) !== "index.js")
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
await fuseCommands(manifest);
writeFileSync(join(commandsDir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);

writeFileSync(join(root, STAMP), `${JSON.stringify({ builtFrom: started })}\n`);
process.stdout.write(
  `build: dist/ from src/ and workers/ in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
);
process.exit(0);

/**
 * TypeBox 1.x ships as ~700 separate ES modules, and importing it opens, stats and compiles every
 * one: 682 of the ~800 files `echo-runner guard command ls` opened, about 260 ms of its start on the
 * 2-core machine (docs/BENCHMARKS.md, start-up). dist/ imports one bundled copy instead — the same package
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
 * Loading `guard command` from dist/ opened ~120 modules: the dispatcher's (cli, shared), and the
 * guard's barrel (src/guard/index.ts), which re-exports the call guard, which loads the catalog, the
 * policy and TypeBox, none of which the command guard runs. For each of FUSED_COMMANDS the build
 * bundles, from the compiled output itself (the same JavaScript, not a second compilation of the
 * sources), an entry that runs src/cli's runMain as src/main.ts does (without its startProcess,
 * which only the commands that start the long-lived parts use), with the command's module handed in
 * already loaded, into dist/src/cli/<out> (next to command-manifest.js, so the
 * manifest is found where it is). One module, so one copy of everything (one RunnerError class):
 * - every module of dist/src is declared free of side effects at load, so a module none of whose
 *   exports is used is left out (for `guard command`: the catalog, the policy, TypeBox, the
 *   call/path/exec guards and src/platform's other adapters, whose modules only compute their own
 *   values at load); test/integration/compiled-cli.test.ts checks which files the command loads and
 *   compares its answers with the sources' for a corpus of commands;
 * - packages other than INLINED_PACKAGES stay imports from node_modules;
 * - names are kept (`keepNames`), so a function's or class's `name` is what it was.
 * The command's line in the manifest still names its own module (what dist/src/main.js would load).
 */
async function fuseCommands(manifest) {
  const { build } = await import("esbuild");
  const src = join(dist, "src");
  const cliDir = join(src, "cli");
  for (const { words, file, out } of FUSED_COMMANDS) {
    const line = manifest.find((entry) => entry.words.join(" ") === words.join(" "));
    if (line?.file !== file)
      throw new Error(`build: "${words.join(" ")}" does not run from commands/${file}`);
    const entry = join(cliDir, `fused-entry-${out}`);
    writeFileSync(
      entry,
      `import * as command from "./commands/${file}";\n` +
        `import { processIo, runMain } from "./index.js";\n` +
        `process.exitCode = await runMain(process.argv.slice(2), processIo(), { ${JSON.stringify(file)}: command });\n`,
    );
    try {
      await build({
        entryPoints: [entry],
        bundle: true,
        format: "esm",
        platform: "node",
        target: "node20",
        outfile: join(cliDir, out),
        keepNames: true,
        sourcemap: "linked",
        legalComments: "eof",
        logLevel: "warning",
        plugins: [
          {
            name: "fused-command",
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
                // What the code loads later (runMain's fallback to every command) stays a module of its own.
                if (args.kind === "dynamic-import") {
                  const rel = relative(cliDir, resolved.path).split("\\").join("/");
                  return { path: rel.startsWith(".") ? rel : `./${rel}`, external: true };
                }
                return { path: resolved.path, sideEffects: !resolved.path.startsWith(src + sep) };
              });
            },
          },
        ],
      });
    } finally {
      rmSync(entry);
    }
  }
}
