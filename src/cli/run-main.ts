import { manifestEntries } from "./command-manifest.js";
import { dispatch } from "./dispatch.js";
import type { CliIo } from "./io.js";

/**
 * Runs the `echo-runner` command for argv; returns the exit code. Compiled (bin/echo-runner.js):
 * the build's manifest, and only the running command's modules are loaded. From the sources (no
 * manifest): every command, through run-cli.ts. `preloaded`: command modules already loaded, by
 * their manifest file (a bundle of the dispatcher and one command, see scripts/build.mjs).
 */
export async function runMain(
  argv: readonly string[],
  io: CliIo,
  preloaded: Readonly<Record<string, object>> = {},
): Promise<number> {
  const entries = await manifestEntries(preloaded);
  return entries ? dispatch(argv, io, entries) : (await import("./run-cli.js")).runCli(argv, io);
}
