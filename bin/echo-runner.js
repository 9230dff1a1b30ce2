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
await import("../dist/src/main.js");
