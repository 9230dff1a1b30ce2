import { manifestEntries } from "./command-manifest.js";
import { dispatch } from "./dispatch.js";
import type { CliIo } from "./io.js";

/**
 * Runs the `echo-runner` command for argv; returns the exit code. Compiled (bin/echo-runner.js):
 * the build's manifest, and only the running command's modules are loaded. From the sources (no
 * manifest): every command, through run-cli.ts.
 */
export async function runMain(argv: readonly string[], io: CliIo): Promise<number> {
  const entries = await manifestEntries();
  return entries ? dispatch(argv, io, entries) : (await import("./run-cli.js")).runCli(argv, io);
}
