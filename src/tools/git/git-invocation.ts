/**
 * How the git tools start git: a fixed argv (never a shell) whose `-c` options switch off every
 * setting that makes a read-only command run a program or reach the network, and an environment
 * built from nothing. The workspace's `.git/config` (and anything it includes) is hostile input:
 * command-line configuration outranks it, so each setting below wins over whatever the repository
 * says. Settings keyed by a name the repository chooses (`filter.<driver>.clean`,
 * `diff.<driver>.textconv`, `credential.<url>.helper`, ...) cannot be listed in advance; the
 * runner reads the repository's key names first and blanks each program-running one through
 * {@link neutralisingEnv}.
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
 * Variable names (the last part of a key, lower case) whose value is a program or a command line.
 * Any key of the repository's configuration ending in one of these is set to the empty string.
 */
export const PROGRAM_VARIABLES = new Set([
  "clean",
  "smudge",
  "process",
  "textconv",
  "command",
  "driver",
  "helper",
  "program",
  "uploadpack",
  "receivepack",
  "vcs",
  "proxy",
  "sshcommand",
  "askpass",
  "editor",
  "pager",
  "fsmonitor",
  "hookspath",
  "external",
  "gitproxy",
  "alternaterefscommand",
  "packobjectshook",
]);

const HARDENED_KEYS = new Set(HARDENED_GIT_CONFIG.map((s) => s.slice(0, s.indexOf("=")).toLowerCase()));

/**
 * The program-running keys among a repository's configuration key names (as `git config --list
 * --name-only` lists them). Keys the hardened `-c` settings already fix are left to those, so no
 * blank value competes with them.
 */
export function programKeys(names: readonly string[]): string[] {
  const found = new Set<string>();
  for (const name of names) {
    const variable = name.slice(name.lastIndexOf(".") + 1).toLowerCase();
    if (PROGRAM_VARIABLES.has(variable) && !HARDENED_KEYS.has(name.toLowerCase())) found.add(name);
  }
  return [...found].sort();
}

/**
 * Environment entries that blank `keys` (GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n):
 * the key travels apart from its value, so a driver name holding `=` or a newline cannot change
 * what is set. A filter driver is also made optional, so a blanked `required` filter is no error.
 */
export function neutralisingEnv(keys: readonly string[]): Record<string, string> {
  const pairs: [string, string][] = [];
  for (const key of keys) {
    pairs.push([key, ""]);
    if (key.toLowerCase().startsWith("filter.")) {
      pairs.push([`${key.slice(0, key.lastIndexOf("."))}.required`, "false"]);
    }
  }
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(pairs.length) };
  pairs.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/**
 * The whole environment of a git call: nothing of the worker's. The repository is named outright
 * (GIT_DIR, GIT_WORK_TREE), so git neither searches upwards out of the workspace nor follows a
 * `core.worktree` the repository sets; system and global configuration are not read; pathspecs are
 * literal (no `:(magic)`, no globs); replace refs are ignored; no lock is taken for an optional
 * index refresh.
 */
export function gitEnv(repo: string, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return {
    PATH: "/usr/bin:/bin",
    LANG: "C",
    LC_ALL: "C",
    TZ: "UTC",
    GIT_DIR: `${repo}/.git`,
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
    ...extra,
  };
}

/** The argv that lists the repository's configuration key names, NUL-separated (runs no program). */
export function configNamesArgv(repo: string): string[] {
  return ["-C", repo, "--no-pager", "config", "--list", "--name-only", "-z"];
}

/** The argv after the git binary: `-C repo`, the hardened settings, `--no-pager`, then the command. */
export function gitArgv(repo: string, command: readonly string[]): string[] {
  return ["-C", repo, ...HARDENED_GIT_CONFIG.flatMap((setting) => ["-c", setting]), "--no-pager", ...command];
}
