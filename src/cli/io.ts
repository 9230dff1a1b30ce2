import type { StartProcess } from "../runtime/index.js";

/** Where a CLI command reads and writes; tests pass buffers, src/main.ts passes the process streams. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Reads all of standard input (for --batch). */
  readStdin: () => Promise<string>;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /**
   * Runs the long-lived parts in this process (workers/all-in-one.ts, handed in by src/main.ts);
   * absent where commands run in memory (tests), so `start` and its siblings cannot run there.
   */
  startProcess?: StartProcess;
}

/** A CLI command: gets its arguments after the command words, returns the exit code. */
export interface CliCommand {
  /** The command words, e.g. ["config", "check"]. */
  words: readonly string[];
  /** One line for `echo-runner help`. */
  summary: string;
  /** Usage line(s) shown on a usage error. */
  usage: string;
  run(args: string[], io: CliIo): Promise<number>;
}

/** Exit codes: 0 ok, 1 the thing checked failed / was denied, 2 usage or invalid input. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** The real process streams. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
    env: process.env,
    cwd: process.cwd(),
  };
}
