import { segmentRegex } from "../paths/index.js";
import type { Field, SimpleCommand } from "../shell/index.js";
import type { Invocation } from "../unwrap/index.js";

/**
 * Unknown means "could be anything". A word with a part the guard cannot know (a parameter, a
 * command substitution) or a glob is compared with the families as a pattern, not as text:
 * `/etc/sha${u}dow` is `/etc/sha*dow`, which can be `/etc/shadow`; `/bin/r[m]` and `r${x}m` can be
 * `rm`. `variantsOf` returns the invocation as each such reading makes it; the guard runs the
 * families on them too. A match that needs a glob alone holds as it is (the shell expands it the
 * same way whatever happens); one that holds only through a parameter or substitution is softened
 * to a question (`rm -rf "$OUT"` asks, `rm -rf /` is denied).
 */

/** Program names the families key on: a name pattern is tried against each. */
export const FAMILY_PROGRAMS = [
  "rm",
  "rmdir",
  "shred",
  "wipe",
  "unlink",
  "dd",
  "tee",
  "cp",
  "mv",
  "install",
  "ln",
  "rsync",
  "truncate",
  "mkfs",
  "mkfs.ext4",
  "mkfs.ext3",
  "mkfs.xfs",
  "mkfs.btrfs",
  "mkfs.vfat",
  "mke2fs",
  "mkswap",
  "wipefs",
  "blkdiscard",
  "fdisk",
  "sfdisk",
  "parted",
  "gdisk",
  "sgdisk",
  "cfdisk",
  "shutdown",
  "reboot",
  "halt",
  "poweroff",
  "kexec",
  "init",
  "telinit",
  "systemctl",
  "loginctl",
  "chmod",
  "chown",
  "chgrp",
  "kill",
  "killall",
  "pkill",
  "crontab",
  "curl",
  "wget",
  "sh",
  "bash",
  "dash",
  "zsh",
  "python",
  "python3",
  "perl",
  "ruby",
  "node",
  "php",
  "eval",
  "sudo",
  "su",
  "env",
  "xargs",
  "find",
  "cat",
  "less",
  "head",
  "tail",
  "mysql",
  "psql",
  "sqlite3",
  "git",
  "ssh",
  "nc",
  "socat",
  "tar",
  "awk",
  "sed",
  "at",
  "nvme",
  "cryptsetup",
  "badblocks",
  "dbus-send",
  "rtcwake",
] as const;

/** How a variant reads the invocation: through a glob only, or through an unknown value. */
export type VariantKind = "glob" | "unknown";

/** One reading of an invocation with its unknown parts or globs filled in. */
export interface InvocationVariant {
  kind: VariantKind;
  invocation: Invocation;
}

const MAX_VARIANTS = 16;

function basename(text: string): string {
  const slash = text.lastIndexOf("/");
  return slash === -1 ? text : text.slice(slash + 1);
}

/** The family programs a name pattern (`r*m`, `rebo?t`, `r[m]`) can be. */
export function namesMatching(pattern: string): string[] {
  const base = basename(pattern).toLowerCase();
  if (!/[*?[]/.test(base)) return [];
  // An unknown part in a name may be several characters, never a slash.
  const re = segmentRegex(base);
  return FAMILY_PROGRAMS.filter((name) => re.test(name));
}

/** What `$(echo /etc/shadow)` / `$(printf %s /x)` prints, when the substitution is that simple. */
function echoedValue(field: Field, inv: Invocation): string | undefined {
  const index = inv.source.argv.indexOf(field);
  const inner = index >= 0 ? (inv.source.argInner[index] ?? []) : [];
  if (inner.length !== 1) return undefined;
  const argv = inner[0]?.argv ?? [];
  const name = argv[0]?.text;
  const args = argv.slice(1);
  if (args.some((a) => a.dynamic)) return undefined;
  if (name === "echo")
    return args
      .filter((a) => !/^-[neE]+$/.test(a.text))
      .map((a) => a.text)
      .join(" ");
  if (name === "printf" && args.length >= 2 && /^%s\\?n?$/.test(args[0]?.text ?? ""))
    return args
      .slice(1)
      .map((a) => a.text)
      .join("");
  return undefined;
}

/** The field as a pattern (unknown parts as `*`), or what a simple substitution prints. */
function patternOf(field: Field, inv: Invocation): Field | undefined {
  if (!field.dynamic || field.pattern === undefined) return undefined;
  const echoed = echoedValue(field, inv);
  if (echoed !== undefined && echoed !== "") return { ...field, text: echoed, glob: /[*?[]/.test(echoed) };
  // A word that is nothing but unknown parts says nothing about what it names.
  if (/^[*/]*$/.test(field.pattern)) return undefined;
  // `${HOME%/*}/../etc/shadow`: `..` after an unknown part can climb to `/`, so what follows the
  // last `..` is read from the root.
  const climb = /\*[^/]*\/(?:.*\/)?\.\.\/(?!.*\/\.\.\/)(.*)$/.exec(field.pattern);
  if (climb?.[1]) return { ...field, text: `/${climb[1]}`, glob: /[*?[]/.test(climb[1]) };
  return { ...field, text: field.pattern, glob: true };
}

/**
 * The readings of `inv` in which its unknown parts and globs take the values that would make a
 * family match (see the module comment). Empty when the invocation has none.
 */
export function variantsOf(inv: Invocation): InvocationVariant[] {
  const out: InvocationVariant[] = [];
  const name = inv.nameField;
  const nameCandidates =
    name.glob || name.dynamic ? namesMatching(name.dynamic ? (name.pattern ?? name.text) : name.text) : [];
  const nameKind: VariantKind = name.dynamic ? "unknown" : "glob";
  let argsChanged = false;
  const args = inv.args.map((a) => {
    const p = patternOf(a, inv);
    if (p === undefined) return a;
    argsChanged = true;
    return p;
  });
  const implicitOperands = inv.implicitOperands.map((a) => {
    const p = patternOf(a, inv);
    if (p === undefined) return a;
    argsChanged = true;
    return p;
  });
  if (argsChanged) out.push({ kind: "unknown", invocation: { ...inv, args, implicitOperands } });
  for (const candidate of nameCandidates) {
    if (out.length >= MAX_VARIANTS) break;
    if (candidate === inv.name) continue;
    const nameField: Field = { ...name, text: candidate, bare: candidate, dynamic: false, glob: false };
    out.push({ kind: nameKind, invocation: { ...inv, name: candidate, nameField } });
    if (argsChanged)
      out.push({
        kind: "unknown",
        invocation: { ...inv, name: candidate, nameField, args, implicitOperands },
      });
  }
  return out;
}

/** The command with its redirection targets as patterns, when one has unknown parts. */
export function redirectPatterns(cmd: SimpleCommand): SimpleCommand | undefined {
  let changed = false;
  const redirects = cmd.redirects.map((r) => {
    const target = r.target.map((t) => {
      if (!t.dynamic || t.pattern === undefined || /^[*/]*$/.test(t.pattern)) return t;
      changed = true;
      return { ...t, text: t.pattern, glob: true };
    });
    return { ...r, target };
  });
  return changed ? { ...cmd, redirects } : undefined;
}
