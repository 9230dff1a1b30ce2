import { execFileSync } from "node:child_process";
import { accessSync, constants, realpathSync } from "node:fs";

/**
 * The one shell exec-class tools run commands with: bash, the shell whose grammar the command guard
 * parses (tree-sitter-bash). Never `/bin/sh`, which is dash on Debian: bash-only constructs (`$'…'`,
 * `((…))`, `[[ … ]]`) read differently there and hid commands from the guard.
 */
export interface BashShell {
  /** Absolute path (symlinks resolved) of the bash binary. */
  readonly path: string;
  /** First line of `bash --version`. */
  readonly version: string;
}

/**
 * Where bash is looked for, in order. Fixed, root-owned directories only: the worker's PATH is not
 * consulted, so a `bash` planted in a user-writable directory on it is never the one that runs.
 */
export const BASH_CANDIDATES = ["/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash"] as const;

/**
 * Arguments put before the script: no profile, no rc file. A non-interactive bash reads neither
 * anyway, but saying so keeps it true whatever the invocation; `BASH_ENV` and friends are kept out
 * of the environment by child-env.
 */
export const BASH_FLAGS = ["--noprofile", "--norc"] as const;

let located: BashShell | null | undefined;

/** Finds bash once per process; undefined when none of {@link BASH_CANDIDATES} is executable. */
export function locateBash(): BashShell | undefined {
  if (located !== undefined) return located ?? undefined;
  located = null;
  for (const candidate of BASH_CANDIDATES) {
    try {
      accessSync(candidate, constants.X_OK);
      const path = realpathSync(candidate);
      const out = execFileSync(path, ["--noprofile", "--norc", "-c", 'printf %s "$BASH_VERSION"'], {
        env: { PATH: "/usr/bin:/bin" },
        encoding: "utf8",
        timeout: 5000,
        stdio: ["ignore", "pipe", "ignore"],
      });
      if (out.trim() === "") continue;
      located = { path, version: `GNU bash ${out.trim()}` };
      break;
    } catch {}
  }
  return located ?? undefined;
}

/** The argv (after the program) that runs `script` with bash: `--noprofile --norc -c script`. */
export function bashScriptArgs(script: string): string[] {
  return [...BASH_FLAGS, "-c", script];
}

/** Readiness of the exec-class tools as far as the shell goes. */
export function bashReadiness(): { ready: true; detail: string } | { ready: false; detail: string } {
  const bash = locateBash();
  if (bash === undefined) {
    return {
      ready: false,
      detail: `bash was not found at ${BASH_CANDIDATES.join(", ")}; exec-class tools run commands only with bash (the shell the command guard parses), never /bin/sh: install bash`,
    };
  }
  return { ready: true, detail: `bash ${bash.path} (${bash.version})` };
}
