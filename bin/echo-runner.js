#!/usr/bin/env node
// Runs the compiled JavaScript in dist/ (built by `npm ci` through `prepare`, by `npm test` and
// `npm start` when a source changed, and by `npm run build`). It refuses output older than the
// TypeScript sources, so what runs is always what is checked in.
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { buildState } from "./freshness.js";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const build = buildState(root);
if (build.state !== "fresh") {
  process.stderr.write(
    build.state === "missing"
      ? "echo-runner: there is no compiled output in dist/; run `npm run build` (npm ci does it)\n"
      : `echo-runner: the compiled output in dist/ is older than ${build.source}; run \`npm run build\`\n`,
  );
  process.exit(2);
}
// `guard command` starts from one module, the dispatcher and the command bundled together
// (scripts/build.mjs, FUSED_COMMANDS): it runs as dist/src/main.js would run it.
const [first, second] = process.argv.slice(2);
await import(
  first === "guard" && second === "command" ? "../dist/src/cli/main-guard-command.js" : "../dist/src/main.js"
);
