#!/usr/bin/env node
// Runs one TypeScript entry point (a worker or a benchmark) through tsx: `node bin/run-ts.js FILE [args]`.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { register } from "tsx/esm/api";

const file = process.argv[2];
if (!file) {
  process.stderr.write("usage: node bin/run-ts.js FILE.ts [args...]\n");
  process.exit(2);
}
process.argv.splice(2, 1);
register();
await import(pathToFileURL(resolve(file)).href);
