import { COMMANDS } from "./commands/index.js";
import { type CommandEntry, dispatch } from "./dispatch.js";
import type { CliIo } from "./io.js";

const ENTRIES: readonly CommandEntry[] = COMMANDS.map((command) => ({
  words: command.words,
  summary: command.summary,
  usage: command.usage,
  load: async () => command,
}));

/** Finds the command for argv and runs it; returns the exit code. Errors become messages, not traces. */
export function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  return dispatch(argv, io, ENTRIES);
}
