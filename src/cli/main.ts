import { manifestEntries } from "./command-manifest.js";
import { dispatch } from "./dispatch.js";
import { processIo } from "./io.js";

// Compiled (bin/echo-runner.js): the build's manifest, and only the running command's modules are
// loaded. From the sources (no manifest): every command, through run-cli.ts.
const entries = await manifestEntries();
const argv = process.argv.slice(2);
process.exitCode = entries
  ? await dispatch(argv, processIo(), entries)
  : await (await import("./run-cli.js")).runCli(argv, processIo());
