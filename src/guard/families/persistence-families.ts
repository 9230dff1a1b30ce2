import {
  extractionLanding,
  isCredentialFile,
  normaliseTarget,
  segmentRegex,
  writeTargets,
} from "../paths/index.js";
import type { Field, SimpleCommand } from "../shell/index.js";
import { literalField } from "../shell/index.js";
import type { Invocation } from "../unwrap/index.js";
import { GIT_COMMAND_KEY, GIT_LOADING_KEY, gitCommandLine } from "../unwrap/index.js";
import { type GuardFinding, type SoftRule, softFinding } from "../verdict/index.js";
import { isWriteRedirect } from "./hard-families.js";

/**
 * Soft families about writes that outlive the command: shell start-up files and other files a
 * program runs or trusts at its next start (`.bashrc`, `.profile`, `.ssh/authorized_keys`,
 * `.gitconfig`, autostart entries), system configuration (anything under `/etc`, systemd units,
 * `/etc/ld.so.preload`), cron tables, and jobs queued with `at` / `batch`. Writes are found through
 * every writer the guard knows (redirections, `tee`, `cp`, `mv`, `install`, `ln`, `dd of=`,
 * `sed -i`, `curl -o` / `-O`, `wget -O`, `sort -o`, awk `print >`, ...).
 */

const HOME = String.raw`(?:~[^/]*|/home/[^/]+|/Users/[^/]+|/root|/etc/skel|\$[^/]*)`;

const STARTUP = new RegExp(
  String.raw`^${HOME}/(\.(bashrc|bash_profile|bash_login|bash_logout|profile|zshrc|zshenv|zprofile|zlogin|zlogout|cshrc|tcshrc|login|kshrc|mkshrc|xprofile|xinitrc|xsession|xsessionrc|pam_environment|gitconfig|curlrc|wgetrc|vimrc|exrc|pythonrc|npmrc|yarnrc|inputrc)|\.bashrc\.d/.+|\.config/(fish/.+|autostart/.+|systemd/user/.+|git/config|environment\.d/.+)|\.local/share/systemd/.+|\.ssh/(rc|environment|config|authorized_keys2?))$`,
  "i",
);
const AUTHORIZED_KEYS = /(^|\/)authorized_keys2?$/i;
// git runs hooks, and its config can name commands (core.fsmonitor), in any repository.
const GIT_CODE = /(^|\/)\.git\/(hooks\/.+|config)$/i;
const CRON = /^\/(etc\/(cron|anacrontab)|var\/spool\/(cron|at|anacron))/i;
const SYSTEM_CONFIG = /^\/(etc|boot|usr\/lib\/systemd|lib\/systemd|usr\/local\/lib\/systemd)(\/|$)/i;

/**
 * One path for each kind of protected path above (`*` a segment of any name), for globs: a glob
 * word is protected when SOME expansion of it is, so each of its glob segments is tried as the
 * segment of an example it can match (`.gi?/hoo?s/x` as `.git/hooks/x`, `~/.*rc` as `~/.bashrc`).
 * The start-up names come from STARTUP itself, so the two cannot drift apart.
 */
const PROTECTED_EXAMPLES: readonly string[] = [
  ...(/\\\.\(([^)]*)\)/.exec(STARTUP.source)?.[1] ?? "").split("|").map((name) => `~/.${name}`),
  "~/.bashrc.d/*",
  "~/.config/fish/*",
  "~/.config/autostart/*",
  "~/.config/systemd/user/*",
  "~/.config/git/config",
  "~/.config/environment.d/*",
  "~/.local/share/systemd/*",
  "~/.ssh/rc",
  "~/.ssh/environment",
  "~/.ssh/config",
  "~/.ssh/authorized_keys",
  ".git/hooks/*",
  ".git/config",
  "/etc/cron.d/*",
  "/etc/crontab",
  "/var/spool/cron/*",
  "/etc/*",
  "/boot/*",
  "/lib/systemd/*",
  "/usr/lib/systemd/*",
];

/** `pattern` with its glob segments replaced by the segments of `example` they match, aligned at `from`. */
function asExample(pattern: string[], example: string[], from: "start" | "end"): string | undefined {
  if (example.length > pattern.length) return undefined;
  const offset = from === "start" ? 0 : pattern.length - example.length;
  const out = [...pattern];
  for (let i = 0; i < example.length; i++) {
    const seg = pattern[offset + i] as string;
    const want = example[i] as string;
    if (want === "*") out[offset + i] = /[*?[]/.test(seg) ? "x" : seg;
    else if (/[*?[]/.test(seg)) {
      if (!segmentRegex(seg).test(want)) return undefined;
      out[offset + i] = want;
    } else if (seg.toLowerCase() !== want.toLowerCase()) return undefined;
  }
  return out.join("/");
}

/** What a write to `path` means, if it needs a person: the rule and a description. */
export function classifyWrite(
  field: Field,
  cwd: string | undefined,
): { rule: SoftRule; what: string } | undefined {
  const path = normaliseTarget(field, cwd);
  if (path === "" || path === "/dev/null") return undefined;
  const direct = classifyPath(path);
  if (direct || !field.glob || !/[*?[]/.test(path)) return direct;
  const segments = path.split("/");
  for (const example of PROTECTED_EXAMPLES) {
    const parts = example.split("/");
    for (const from of ["start", "end"] as const) {
      const concrete = asExample(segments, parts, from);
      const c = concrete === undefined ? undefined : classifyPath(concrete);
      if (c) return { rule: c.rule, what: `${path}, which can expand to ${c.what}` };
    }
  }
  return undefined;
}

function classifyPath(path: string): { rule: SoftRule; what: string } | undefined {
  if (CRON.test(path)) return { rule: "soft.crontab", what: `${path}, a cron or at table` };
  if (AUTHORIZED_KEYS.test(path))
    return { rule: "soft.persistence", what: `${path}, which lets a key log in` };
  if (GIT_CODE.test(path))
    return {
      rule: "soft.persistence",
      what: `${path}, which git runs or reads commands from on later git commands`,
    };
  if (STARTUP.test(path))
    return {
      rule: "soft.persistence",
      what: `${path}, which a shell or program runs or trusts at its next start`,
    };
  if (SYSTEM_CONFIG.test(path))
    return { rule: "soft.system-config-write", what: `${path}, system configuration` };
  if (isCredentialFile(path)) return { rule: "soft.credential-write", what: `the credential file ${path}` };
  return undefined;
}

function describe(inv: Invocation): string {
  return inv.via.length > 0 ? `${inv.name} (through ${inv.via.join(" → ")})` : inv.name;
}

function scheduled(inv: Invocation): GuardFinding[] {
  if (inv.name === "batch")
    return [softFinding("soft.persistence", `${describe(inv)} queues a job that runs later, unattended`)];
  if (inv.name === "at") {
    // `at -l` / `-c N` / `-r N` list, print and remove jobs; everything else queues one.
    if (inv.args.some((a) => /^-[a-zA-Z]*[lcrd]$/.test(a.text) || a.text === "-V")) return [];
    return [softFinding("soft.persistence", `${describe(inv)} queues a job that runs later, unattended`)];
  }
  if (inv.name === "systemd-run" && inv.args.some((a) => /^--on-/.test(a.text)))
    return [softFinding("soft.persistence", `${describe(inv)} creates a timer that runs a command later`)];
  if (/^(systemctl|launchctl)$/.test(inv.name)) {
    const verb = inv.args.find((a) =>
      /^(enable|link|reenable|preset|edit|set-environment|import-environment|load|bootstrap)$/.test(a.text),
    );
    if (verb)
      return [
        softFinding(
          "soft.persistence",
          `${describe(inv)} ${verb.text} makes a service start by itself later`,
        ),
      ];
  }
  if (inv.name === "git") {
    const line = gitCommandLine(inv.args);
    if (line.subcommand === "config") {
      const key = line.args.find((a) => GIT_COMMAND_KEY.test(a.text) || GIT_LOADING_KEY.test(a.text));
      if (key)
        return [
          softFinding(
            "soft.persistence",
            `git config stores ${key.text}, which makes git run or load code later`,
          ),
        ];
    }
  }
  return [];
}

const HOME_ROOT = /^(~[^/]*|\/home\/[^/]+|\/Users\/[^/]+|\/root)$/i;

/** `cp -r dotfiles/. ~`, `rsync -a dotfiles/ ~/`: a directory's contents, dot files included, into a home. */
function homeContentsCopy(inv: Invocation): GuardFinding[] {
  if (!/^(cp|rsync|mv)$/.test(inv.name)) return [];
  const ops = inv.args.filter((a) => !a.text.startsWith("-"));
  const dest = ops[ops.length - 1];
  if (!dest || ops.length < 2 || !HOME_ROOT.test(normaliseTarget(dest, inv.source.cwd))) return [];
  const contents = ops
    .slice(0, -1)
    .some((s) => /\/\.$/.test(s.text) || (inv.name === "rsync" && s.text.endsWith("/")) || s.text === ".");
  return contents
    ? [
        softFinding(
          "soft.persistence",
          `${describe(inv)} copies a directory's contents into ${dest.text}, replacing its start-up files`,
        ),
      ]
    : [];
}

/** Whether a path segment written as a glob (or plain) can be the segment `want` (`*`: any name). */
function segmentMatches(segment: string, want: string): boolean {
  if (want === "*") return true;
  return /[*?[]/.test(segment)
    ? segmentRegex(segment).test(want)
    : segment.toLowerCase() === want.toLowerCase();
}

/**
 * A protected path an archive member extracted into `dir` (at any depth below it) can be, if any:
 * one below `dir` (`-C ~` reaches `~/.bashrc`, `-C .git` reaches `.git/hooks/x`, `-C x/.git` reaches
 * `x/.git/hooks/x`), and the repository's own `.git` when `dir` is the working directory or above it
 * (`tar -xf a.tar` may hold `.git/hooks/pre-commit`; `-C ..` may hold `repo/.git/hooks/x`). A
 * repository nested below `dir` is left out: git runs its hooks only inside it. `/` and a leading
 * `..` reach every protected path.
 */
function deepLanding(dir: string): { rule: SoftRule; what: string } | undefined {
  const prefix = dir === "." || dir === "" ? [] : dir === "/" ? [""] : dir.split("/");
  const anywhere = dir === "/" || prefix[0] === "..";
  const aboveCwd = anywhere || prefix.length === 0 || dir === "~";
  for (const example of PROTECTED_EXAMPLES) {
    const parts = example.split("/");
    const concrete = (tail: string[]) => [...prefix, ...tail].map((p) => (p === "*" ? "x" : p)).join("/");
    const candidates: string[] = [];
    if (anywhere) candidates.push(parts.map((p) => (p === "*" ? "x" : p)).join("/"));
    if (example.startsWith("/") || example.startsWith("~")) {
      // `dir` must be one of the example's folders.
      if (prefix.length < parts.length && prefix.every((seg, i) => segmentMatches(seg, parts[i] as string)))
        candidates.push(concrete(parts.slice(prefix.length)));
    } else {
      if (aboveCwd) candidates.push(parts.map((p) => (p === "*" ? "x" : p)).join("/"));
      // `dir` ends inside the example (`.git`, `x/.git/hooks`).
      for (let k = 1; k < parts.length && k <= prefix.length; k++) {
        const tail = prefix.slice(prefix.length - k);
        if (tail.every((seg, i) => segmentMatches(seg, parts[i] as string)))
          candidates.push(concrete(parts.slice(k)));
      }
    }
    for (const candidate of candidates) {
      const c = classifyPath(candidate);
      if (c) return c;
    }
  }
  return undefined;
}

/** An archive extracted where a member, at any depth, can land on a protected path. */
function extractionFindings(inv: Invocation): GuardFinding[] {
  const landing = extractionLanding(inv);
  if (landing === undefined) return [];
  const dirs = landing.absoluteNames ? [...landing.directories, literalField("/")] : landing.directories;
  for (const d of dirs) {
    const c = deepLanding(normaliseTarget(d, inv.source.cwd));
    if (c)
      return [
        softFinding(
          c.rule,
          `${describe(inv)} extracts an archive into ${d.text === "/" && landing.absoluteNames ? "any path its members name" : d.text}, where a member can be ${c.what}`,
        ),
      ];
  }
  return [];
}

/** Soft persistence and configuration findings for one invocation. */
export function persistenceFindings(inv: Invocation): GuardFinding[] {
  const out = [...scheduled(inv), ...homeContentsCopy(inv), ...extractionFindings(inv)];
  for (const target of writeTargets(inv)) {
    const c = classifyWrite(target, inv.source.cwd);
    if (c) out.push(softFinding(c.rule, `${describe(inv)} writes ${c.what}`));
  }
  return out;
}

/** The same for a command's write redirections. */
export function persistenceRedirectFindings(cmd: SimpleCommand): GuardFinding[] {
  const out: GuardFinding[] = [];
  for (const r of cmd.redirects) {
    if (!isWriteRedirect(r)) continue;
    for (const t of r.target) {
      const c = classifyWrite(t, cmd.cwd);
      if (c) out.push(softFinding(c.rule, `a redirection (${r.op}) writes ${c.what}`));
    }
  }
  return out;
}
