import {
  isBlockDevice,
  isProtectedDeleteTarget,
  isSystemSecret,
  normaliseTarget,
  pathRelation,
} from "../paths/index.js";
import type { Field, Redirect, SimpleCommand } from "../shell/index.js";
import {
  findStartPaths,
  type Invocation,
  parseArgs,
  pathCandidates,
  TEXT_ONLY_PROGRAMS,
} from "../unwrap/index.js";
import { type GuardFinding, hardFinding, softFinding } from "../verdict/index.js";
import { diskHardFindings } from "./disk-families.js";
import { powerFindings } from "./power-families.js";

const RM_LONG = [
  "force",
  "interactive",
  "one-file-system",
  "no-preserve-root",
  "preserve-root",
  "recursive",
  "dir",
  "verbose",
  "help",
  "version",
];
const FORMATTERS =
  /^(mkfs(\..*)?|mke2fs|mkswap|wipefs|blkdiscard|mkdosfs|mkntfs|mkexfatfs|mkfs_\w+|newfs(_\w+)?|mformat|shred|wipe)$/;
const POWER_PROGRAMS = new Set(["shutdown", "reboot", "halt", "poweroff", "kexec"]);
const POWER_VERBS =
  /^(poweroff|reboot|halt|kexec|soft-reboot|rescue|emergency|(poweroff|reboot|halt|kexec|soft-reboot|shutdown|ctrl-alt-del|rescue|emergency)\.target)$/;
const SYSRQ = "/proc/sysrq-trigger";
const WRITE_OPS = /^(>|>>|>\||&>|&>>|<>|>&)$/;

function describe(inv: Invocation): string {
  return inv.via.length > 0 ? `${inv.name} (through ${inv.via.join(" → ")})` : inv.name;
}

function targets(
  fields: readonly Field[],
  cwd: string | undefined,
): Array<{ path: string; glob: boolean; raw: string }> {
  return fields.map((f) => ({ path: normaliseTarget(f, cwd), glob: f.glob, raw: f.text }));
}

/** Recursive deletion of `/`, a top-level system directory or a home directory. */
function recursiveDelete(inv: Invocation): GuardFinding[] {
  const cwd = inv.source.cwd;
  if (inv.name === "rm") {
    const parsed = parseArgs(inv.args, RM_LONG);
    const recursiveFlag = parsed.short.has("r") || parsed.short.has("R") || parsed.long.has("recursive");
    // Under `find -exec` every file of the tree is removed, whatever rm's own flags say.
    const recursive = recursiveFlag || inv.via.includes("find");
    for (const t of targets(parsed.operands, cwd)) {
      if (recursive && isProtectedDeleteTarget(t.path, t.glob)) {
        return [
          hardFinding(
            "hard.recursive-delete-system",
            `${describe(inv)} recursively deletes ${t.raw === t.path ? t.path : `${t.raw} (${t.path})`}, a system or home directory`,
          ),
        ];
      }
    }
    // Operands read at run time (`find / | xargs rm`, `find / -exec rm {} +`) cover a whole tree.
    for (const t of targets(inv.implicitOperands, cwd)) {
      if (isProtectedDeleteTarget(t.path, t.glob)) {
        return [
          hardFinding(
            "hard.recursive-delete-system",
            `${describe(inv)} deletes what ${t.path} holds, a system or home directory`,
          ),
        ];
      }
    }
    if (!recursiveFlag) return [];
    if (parsed.long.has("no-preserve-root")) {
      return [
        hardFinding(
          "hard.recursive-delete-system",
          `${describe(inv)} uses --no-preserve-root, which lets it delete /`,
        ),
      ];
    }
    const operands = [...parsed.operands, ...inv.implicitOperands];
    const shown = operands.map((o) => o.text).join(" ") || "(operands from input)";
    return [softFinding("soft.recursive-delete", `${describe(inv)} recursively deletes ${shown}`)];
  }
  if (inv.name === "find") {
    const deletes = inv.args.some((a) => a.text === "-delete");
    if (!deletes) return [];
    const starts = findStartPaths(inv.args);
    for (const t of targets(starts, cwd)) {
      if (isProtectedDeleteTarget(t.path, t.glob) || t.path === "/") {
        return [
          hardFinding(
            "hard.recursive-delete-system",
            `find -delete under ${t.path}, a system or home directory`,
          ),
        ];
      }
    }
    return [
      softFinding(
        "soft.recursive-delete",
        `find deletes files under ${starts.map((s) => s.text).join(" ") || "."}`,
      ),
    ];
  }
  return [];
}

/** Writes to a block device through dd, tee, cp and friends. */
function deviceWrite(inv: Invocation): GuardFinding[] {
  const cwd = inv.source.cwd;
  let dests: Field[] = [];
  if (inv.name === "dd")
    dests = inv.args.filter((a) => a.text.startsWith("of=")).map((a) => ({ ...a, text: a.text.slice(3) }));
  else if (inv.name === "tee") dests = inv.args.filter((a) => !a.text.startsWith("-"));
  else if (/^(cp|mv|install|ln|rsync|pv|ddrescue|dcfldd|cat)$/.test(inv.name)) {
    const operands = inv.args.filter((a) => !a.text.startsWith("-"));
    dests = inv.name === "ddrescue" ? operands.slice(1) : operands.slice(-1);
    if (inv.name === "cat") dests = [];
  } else if (
    FORMATTERS.test(inv.name) ||
    /^(sgdisk|sfdisk|fdisk|parted|gdisk|cfdisk|diskutil)$/.test(inv.name)
  ) {
    return [];
  }
  for (const t of targets(dests, cwd)) {
    if (isBlockDevice(t.path, t.glob)) {
      return [
        hardFinding("hard.block-device-write", `${describe(inv)} writes to the block device ${t.path}`),
      ];
    }
    if (pathRelation(t.path, t.glob, SYSRQ) === "exact") {
      return [
        hardFinding(
          "hard.shutdown",
          `${describe(inv)} writes to ${SYSRQ}, which can reboot or halt the machine at once`,
        ),
      ];
    }
  }
  return [];
}

function formatting(inv: Invocation): GuardFinding[] {
  if (FORMATTERS.test(inv.name)) {
    if (
      (inv.name === "shred" || inv.name === "wipe") &&
      !inv.args.some((a) => isBlockDevice(normaliseTarget(a, inv.source.cwd), a.glob))
    ) {
      return [];
    }
    return [hardFinding("hard.filesystem-format", `${describe(inv)} formats or wipes a disk or partition`)];
  }
  if (
    inv.name === "diskutil" &&
    inv.args.some((a) => /^(erase|zero|secureerase|partitiondisk|reformat)/i.test(a.text))
  ) {
    return [hardFinding("hard.filesystem-format", `${describe(inv)} erases a disk`)];
  }
  if (
    /^(sgdisk|gdisk)$/.test(inv.name) &&
    inv.args.some((a) => /^(-Z|--zap-all|-o|--clear|-z|--zap)$/.test(a.text))
  ) {
    return [hardFinding("hard.filesystem-format", `${describe(inv)} destroys a partition table`)];
  }
  if (/^(fdisk|sfdisk|parted|gdisk|cfdisk|sgdisk)$/.test(inv.name)) {
    return [softFinding("soft.partition-tool", `${describe(inv)} edits disk partitions`)];
  }
  return [];
}

function shutdown(inv: Invocation): GuardFinding[] {
  if (POWER_PROGRAMS.has(inv.name))
    return [hardFinding("hard.shutdown", `${describe(inv)} shuts down or restarts the machine`)];
  if ((inv.name === "init" || inv.name === "telinit") && inv.args.some((a) => /^[06sS]$/.test(a.text))) {
    return [
      hardFinding(
        "hard.shutdown",
        `${describe(inv)} ${inv.args.map((a) => a.text).join(" ")} changes the run level to halt or reboot`,
      ),
    ];
  }
  if (/^(systemctl|loginctl)$/.test(inv.name)) {
    const verb = inv.args.find((a) => POWER_VERBS.test(a.text.toLowerCase()));
    if (verb)
      return [
        hardFinding("hard.shutdown", `${describe(inv)} ${verb.text} shuts down or restarts the machine`),
      ];
  }
  return [];
}

function systemSecretRead(inv: Invocation): GuardFinding[] {
  if (TEXT_ONLY_PROGRAMS.has(inv.name)) return [];
  for (const f of pathCandidates(inv)) {
    const path = normaliseTarget(f, inv.source.cwd);
    if (isSystemSecret(path, f.glob))
      return [
        hardFinding(
          "hard.system-secret-read",
          `${describe(inv)} reads ${path}, which holds system password hashes or root's SSH keys`,
        ),
      ];
  }
  return [];
}

/** Hard rules over one invocation. */
export function hardInvocationFindings(inv: Invocation): GuardFinding[] {
  return [
    ...recursiveDelete(inv),
    ...deviceWrite(inv),
    ...formatting(inv),
    ...shutdown(inv),
    ...systemSecretRead(inv),
    ...diskHardFindings(inv),
    ...powerFindings(inv),
  ];
}

/** True when a redirect writes (rather than reads). */
export function isWriteRedirect(r: Redirect): boolean {
  return WRITE_OPS.test(r.op) && !(r.op === ">&" && r.target.every((t) => /^\d+$|^-$/.test(t.text)));
}

/** Hard rules over a command's redirections: device writes and reads of system secrets. */
export function hardRedirectFindings(cmd: SimpleCommand): GuardFinding[] {
  const out: GuardFinding[] = [];
  for (const r of cmd.redirects) {
    for (const t of r.target) {
      const path = normaliseTarget(t, cmd.cwd);
      if (isWriteRedirect(r) && pathRelation(path, t.glob, SYSRQ) === "exact")
        out.push(
          hardFinding(
            "hard.shutdown",
            `a redirection writes to ${SYSRQ}, which can reboot or halt the machine at once`,
          ),
        );
      if (isWriteRedirect(r) && isBlockDevice(path, t.glob))
        out.push(
          hardFinding(
            "hard.block-device-write",
            `a redirection (${r.op}) writes to the block device ${path}`,
          ),
        );
      if (isSystemSecret(path, t.glob))
        out.push(
          hardFinding(
            "hard.system-secret-read",
            `a redirection (${r.op}) touches ${path}, which holds system password hashes or root's SSH keys`,
          ),
        );
    }
  }
  return out;
}
