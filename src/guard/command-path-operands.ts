import type { CommandAnalysis } from "./command-guard.js";
import { normaliseTarget } from "./paths/index.js";
import type { Field } from "./shell/index.js";

/**
 * Device files every shell command may name without leaving its workspace: they hold no data of
 * the host (`2>/dev/null`, `head -c 16 /dev/urandom`, `tee /dev/stderr`).
 */
export const NEUTRAL_DEVICE_PATHS = [
  "/dev/null",
  "/dev/zero",
  "/dev/random",
  "/dev/urandom",
  "/dev/stdin",
  "/dev/stdout",
  "/dev/stderr",
  "/dev/tty",
] as const;

const NEUTRAL: ReadonlySet<string> = new Set(NEUTRAL_DEVICE_PATHS);

/**
 * `/proc/self` (and `/proc/thread-self`) in a command is the process that runs the command, not the
 * guard's own process, which is what the fence would resolve it to: `cat /proc/self/mountinfo`
 * reads the command's own mounts and `/proc/self/fd/1` its own output, nothing of the host outside
 * the workspace. Not so `exe` (the program's binary), `map_files` (the files mapped into it) and
 * `root` / `cwd` (folded to `/` before this by normaliseTarget): those lead to files elsewhere.
 */
const OWN_PROCESS =
  /^\/proc\/(?:self|thread-self)(?:\/task\/[^/]+)?(?:$|\/(?!exe$|map_files(?:\/|$)|root(?:\/|$)|cwd(?:\/|$)))/;

/** True when a word names a path that may leave the working directory: absolute, `~`, or with `..`. */
function leavesCwd(text: string): boolean {
  return (
    text.startsWith("/") ||
    text === "~" ||
    text.startsWith("~/") ||
    text === ".." ||
    text.startsWith("../") ||
    text.includes("/../") ||
    text.endsWith("/..")
  );
}

function candidates(field: Field): Field[] {
  const out = [field];
  // `--prefix=/etc`, `if=/dev/sda`: the value after `=` is a path too.
  const eq = field.text.indexOf("=");
  if (eq > 0) out.push({ ...field, text: field.text.slice(eq + 1) });
  // `curl -d @/etc/passwd`.
  if (field.text.startsWith("@")) out.push({ ...field, text: field.text.slice(1) });
  return out;
}

/**
 * The path operands of a command that may lead out of its working directory (which is always
 * inside the workspace): every argument after the program name and every redirection target of
 * every simple command, nested scripts and substitutions included, that is absolute, starts with
 * `~` (or `$HOME`) or climbs with `..` — normalised as bash would see it (`cd` earlier in the script
 * counts, and so does every directory the shell may still be in when a `cd` may have failed). The program name itself is not an operand. Words whose value is wholly unknown (`$X`)
 * cannot be judged here; the sandbox contains what they name. Pure.
 */
export function commandPathOperands(analysis: CommandAnalysis): string[] {
  const out = new Set<string>();
  for (const cmd of analysis.commands) {
    const words = [...cmd.argv.slice(1), ...cmd.redirects.flatMap((r) => r.target)];
    for (const word of words) {
      for (const field of candidates(word)) {
        // Every directory the command may run in (a `cd` before it may have failed).
        for (const cwd of [cmd.cwd, ...(cmd.otherCwds ?? [])]) {
          const path = normaliseTarget(field, cwd);
          if (path === "" || NEUTRAL.has(path) || /^\/dev\/fd\/\d+$/.test(path) || OWN_PROCESS.test(path))
            continue;
          if (leavesCwd(path)) out.add(path);
        }
      }
    }
  }
  return [...out];
}

/**
 * Every operand of a command that may name a file, as a person reading an approval wants it shown:
 * each argument after the program name and each redirection target, relative or not, in the order
 * written, without options (`-rf`), device files, or words whose value is known only when the
 * command runs (`$X`, globs). Relative operands are joined to the directory `cd` left the command
 * in. At most `max` are returned. Pure; display only (the fence judges with commandPathOperands).
 */
export function commandNamedPaths(analysis: CommandAnalysis, max = 20): string[] {
  const out = new Set<string>();
  for (const cmd of analysis.commands) {
    for (const word of [...cmd.argv.slice(1), ...cmd.redirects.flatMap((r) => r.target)]) {
      if (word.dynamic || word.glob || word.text.startsWith("-")) continue;
      const path = normaliseTarget(word, cmd.cwd);
      if (path === "" || NEUTRAL.has(path) || path.startsWith("/dev/") || path.startsWith("/proc/")) continue;
      out.add(path);
      if (out.size >= max) return [...out];
    }
  }
  return [...out];
}
