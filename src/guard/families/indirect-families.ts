import { normaliseTarget, writeTargets } from "../paths/index.js";
import type { Field } from "../shell/index.js";
import {
  DOWNLOADERS,
  type Invocation,
  isInterpreter,
  programName,
  TEXT_ONLY_PROGRAMS,
} from "../unwrap/index.js";
import { type GuardFinding, softFinding } from "../verdict/index.js";
import { hardInvocationFindings } from "./hard-families.js";

/**
 * Indirect routes to a dangerous command that the direct rules cannot see: a program the guard does
 * not know as a wrapper (`unshare -r rm -rf /`, `strace -f reboot`), and a script downloaded to a
 * file and run in a later command (`curl -o s.sh URL && bash s.sh`).
 */

/** Programs a hard family keys on (a wrapper around one of them may hide a hard command). */
export const HARD_PROGRAMS =
  /^(rm|find|dd|tee|cp|mv|shutdown|reboot|halt|poweroff|kexec|init|telinit|systemctl|loginctl|mk[a-z0-9_-]*fs(\..*)?|mkswap|wipefs|blkdiscard|shred|wipe|diskutil|sgdisk|nvme|badblocks|cryptsetup|hdparm|sg_format|sg_sanitize|zpool|mdadm|flashrom|socat|dbus-send|gdbus|busctl|qdbus|rtcwake|openrc-shutdown)$/;

/** Programs whose arguments name things rather than run them (`grep reboot log`, `git rm -r x`). */
export const NAMING_PROGRAMS = new Set([
  ...TEXT_ONLY_PROGRAMS,
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ag",
  "ack",
  "git",
  "man",
  "info",
  "whatis",
  "apropos",
  "tldr",
  "help",
  "less",
  "more",
  "head",
  "tail",
  "cat",
  "journalctl",
  "apt",
  "apt-get",
  "apt-cache",
  "dnf",
  "yum",
  "brew",
  "pip",
  "pip3",
  "npm",
  "yarn",
  "pnpm",
  "cargo",
  "go",
  "gh",
  "history",
  "alias",
  "complete",
  "compgen",
]);

const MAX_SCAN = 12;

/**
 * For a program that is not a known wrapper, whether a hard-family command appears among its
 * arguments as if it were run (`unshare -r rm -rf /`): asks, since the program may well run it.
 */
export function wrappedHardFindings(inv: Invocation): GuardFinding[] {
  if (NAMING_PROGRAMS.has(inv.name) || HARD_PROGRAMS.test(inv.name)) return [];
  const limit = Math.min(inv.args.length, MAX_SCAN);
  for (let k = 0; k < limit; k++) {
    const nameField = inv.args[k] as Field;
    const name = programName(nameField);
    if (!HARD_PROGRAMS.test(name)) continue;
    const inner: Invocation = {
      ...inv,
      name,
      nameField,
      args: inv.args.slice(k + 1),
      via: [...inv.via, inv.name],
    };
    const hard = hardInvocationFindings(inner).filter((f) => f.verdict === "deny");
    if (hard.length > 0) {
      const shown = inv.args
        .slice(k)
        .map((a) => a.text)
        .join(" ");
      return [
        softFinding(
          "soft.wrapped-command",
          `${inv.name} may run \`${shown}\`: ${(hard[0] as GuardFinding).reason}`,
        ),
      ];
    }
  }
  return [];
}

function optionValue(args: readonly Field[], short: string, long: string): Field[] {
  const out: Field[] = [];
  for (let i = 0; i < args.length; i++) {
    const text = (args[i] as Field).text;
    if (text === short || text === long) {
      const next = args[i + 1];
      if (next) out.push(next);
    } else if (text.startsWith(`${long}=`)) {
      out.push({ ...(args[i] as Field), text: text.slice(long.length + 1) });
    } else if (text.startsWith(short) && text.length > short.length && !text.startsWith("--")) {
      out.push({ ...(args[i] as Field), text: text.slice(short.length) });
    }
  }
  return out;
}

/** Remembers files a downloader wrote, and flags a later command that runs one of them. */
export class DownloadTracker {
  private readonly files = new Set<string>();
  private readonly runs: Array<{ path: string; inv: Invocation }> = [];

  /** Records what `inv` downloads to, or what it would run. */
  observe(inv: Invocation): void {
    const cwd = inv.source.cwd;
    if (DOWNLOADERS.has(inv.name)) {
      // curl -o / -O, wget -O or its default file name, read with the programs' option tables.
      const outputs =
        inv.name === "curl" || inv.name === "wget"
          ? writeTargets(inv)
          : optionValue(inv.args, "-o", "--output");
      for (const r of inv.source.redirects)
        if (r.op === ">" || r.op === ">>" || r.op === ">|") outputs.push(...r.target);
      for (const f of outputs) if (f.text !== "-") this.files.add(normaliseTarget(f, cwd));
      return;
    }
    if (
      inv.name === "tee" &&
      inv.source.upstream.some((u) => u.argv[0] && DOWNLOADERS.has(programName(u.argv[0])))
    ) {
      for (const f of inv.args) if (!f.text.startsWith("-")) this.files.add(normaliseTarget(f, cwd));
      return;
    }
    if (inv.nameField.text.includes("/")) this.runs.push({ path: normaliseTarget(inv.nameField, cwd), inv });
    if (isInterpreter(inv.name)) {
      const script = inv.args.find((a) => !a.text.startsWith("-"));
      if (script) this.runs.push({ path: normaliseTarget(script, cwd), inv });
    }
  }

  /** Findings for commands that run a file an earlier command downloaded. */
  findings(): GuardFinding[] {
    const out: GuardFinding[] = [];
    for (const run of this.runs) {
      if (this.files.has(run.path)) {
        out.push(
          softFinding(
            "soft.remote-script",
            `${run.inv.name} runs ${run.path}, which was just downloaded from the network`,
          ),
        );
      }
    }
    return out;
  }
}
