import type { CliIo } from "./io.js";

/** An in-memory CliIo for tests: collects stdout and stderr, serves `stdin`. */
export function bufferIo(stdin = "", env: NodeJS.ProcessEnv = {}, cwd = process.cwd()) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    readStdin: async () => stdin,
    env,
    cwd,
  };
  return { io, stdout: () => out.join(""), stderr: () => err.join("") };
}
