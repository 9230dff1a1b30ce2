/**
 * How the git tools start git: a fixed argv (never a shell) whose `-c` options switch off every
 * setting that makes a read-only command run a program or reach the network, and an environment
 * built from nothing. The workspace's `.git/config` (and anything it includes) is hostile input:
 * command-line configuration outranks it, so each setting below wins over whatever the repository
 * says. The command itself reads no repository configuration at all: it runs against a git
 * directory of the runner's own (see git-shadow-dir.ts), so settings keyed by a name the
 * repository chooses (`filter.<driver>.clean`, `diff.<driver>.textconv`, ...) do not exist for it.
 * The `-c` settings stay for the one read of the real configuration (the object format) and as a
 * second wall.
 */

/** `-c` settings given to every git call, in this order. */
export const HARDENED_GIT_CONFIG = [
  // Programs a read-only command could start.
  "core.fsmonitor=false",
  "core.hooksPath=/dev/null",
  "core.pager=cat",
  "core.editor=false",
  "core.askPass=",
  "core.sshCommand=",
  "core.gitProxy=",
  "core.alternateRefsCommand=",
  "diff.external=",
  "credential.helper=",
  "gpg.program=false",
  "gpg.ssh.program=false",
  "gpg.x509.program=false",
  "log.showSignature=false",
  "sequence.editor=false",
  "uploadpack.packObjectsHook=",
  // No transport at all: a partial clone's lazy fetch, remote helpers and ext:: would start programs.
  "protocol.allow=never",
  "protocol.ext.allow=never",
  "protocol.file.allow=never",
  // Files outside the repository the host would read on the workspace's say.
  "core.attributesFile=/dev/null",
  "core.excludesFile=/dev/null",
  "mailmap.file=",
  "mailmap.blob=",
  "log.mailmap=false",
  "diff.orderFile=/dev/null",
  // Submodules are other repositories with their own configs; never entered.
  "diff.ignoreSubmodules=all",
  "status.submoduleSummary=false",
  "submodule.recurse=false",
  // Nothing written as a side effect of reading.
  "gc.auto=0",
  "maintenance.auto=false",
  "core.untrackedCache=false",
  "color.ui=false",
] as const;

/**
 * The whole environment of a git call: nothing of the worker's. The repository is named outright
 * (GIT_DIR, GIT_WORK_TREE), so git neither searches upwards out of the workspace nor follows a
 * `core.worktree` the repository sets; system and global configuration are not read; pathspecs are
 * literal (no `:(magic)`, no globs); replace refs are ignored; no lock is taken for an optional
 * index refresh. `gitDir` defaults to the repository's own `.git`.
 */
export function gitEnv(repo: string, gitDir = `${repo}/.git`): Record<string, string> {
  return {
    PATH: "/usr/bin:/bin",
    LANG: "C",
    LC_ALL: "C",
    TZ: "UTC",
    GIT_DIR: gitDir,
    GIT_WORK_TREE: repo,
    GIT_CEILING_DIRECTORIES: repo,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_LITERAL_PATHSPECS: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_NO_LAZY_FETCH: "1",
    GIT_PAGER: "cat",
    PAGER: "cat",
  };
}

/** The argv that reads the repository's object format (`extensions.objectformat`; exit 1 when unset). */
export function objectFormatArgv(repo: string): string[] {
  return gitArgv(repo, ["config", "--get", "extensions.objectformat"]);
}

/** The argv after the git binary: `-C repo`, the hardened settings, `--no-pager`, then the command. */
export function gitArgv(repo: string, command: readonly string[]): string[] {
  return ["-C", repo, ...HARDENED_GIT_CONFIG.flatMap((setting) => ["-c", setting]), "--no-pager", ...command];
}
