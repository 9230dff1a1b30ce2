import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";

/** The repository root (where bin/echo-runner.js is). */
export const REPO_ROOT = resolve(import.meta.dirname, "../..");

/** A CLI process started with `node bin/echo-runner.js ...`, with its output collected. */
export interface CliProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
  /** Resolves when the collected output matches, rejects when the process exits or after timeoutMs. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

export function startCli(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): CliProcess {
  const child = spawn(process.execPath, [resolve(REPO_ROOT, "bin/echo-runner.js"), ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  const listeners = new Set<() => void>();
  const onChunk = (chunk: Buffer) => {
    text += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on("data", onChunk);
  child.stderr?.on("data", onChunk);
  const exited = new Promise<number | string>((done) =>
    child.once("exit", (code, signal) => done(code ?? signal ?? "unknown")),
  );
  return {
    child,
    output: () => text,
    exited,
    waitForOutput(pattern, timeoutMs = 20_000) {
      return new Promise((resolveWait, reject) => {
        const check = () => {
          if (!pattern.test(text)) return;
          cleanup();
          resolveWait();
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for ${pattern}; output so far:\n${text}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        void exited.then((code) => {
          if (!pattern.test(text)) {
            cleanup();
            reject(new Error(`process exited (${code}) before ${pattern}; output:\n${text}`));
          }
        });
        listeners.add(check);
        check();
      });
    },
  };
}
