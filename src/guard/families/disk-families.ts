import { isBlockDevice, normaliseTarget, writeTargets } from "../paths/index.js";
import type { Field, SimpleCommand } from "../shell/index.js";
import type { Invocation } from "../unwrap/index.js";
import { pathCandidates, TEXT_ONLY_PROGRAMS } from "../unwrap/index.js";
import { type GuardFinding, hardFinding, softFinding } from "../verdict/index.js";

/**
 * Disk families beyond `mkfs`: every `mk*fs` / `mkfs.*` formatter, NVMe format and sanitize,
 * `badblocks -w`, `cryptsetup luksFormat` / `erase`, ATA secure erase, SCSI format, ZFS and MD
 * label wipes, firmware flashing (hard: no approval lifts them); writes to a block device through
 * any writer the guard knows or a `socat` address (hard); and reads of raw disks or memory
 * (`dd if=/dev/sda`, `cat /dev/nvme0n1`, `< /dev/sda`), which hand over every file on the disk
 * past every permission (soft).
 */

// mksquashfs, mkisofs, mkcramfs, genromfs, mkinitramfs build image files from directories.
const FORMATTER = /^mk(?!squashfs$|isofs$|cramfs$|initramfs$|hybrid$)[a-z0-9_-]*fs(\.[\w.-]+)?$/;

function describe(inv: Invocation): string {
  return inv.via.length > 0 ? `${inv.name} (through ${inv.via.join(" → ")})` : inv.name;
}

function firstOperand(inv: Invocation): string | undefined {
  return inv.args.find((a) => !a.text.startsWith("-"))?.text.toLowerCase();
}

/** Why `inv` erases a disk, or undefined. */
function erases(inv: Invocation): string | undefined {
  const texts = inv.args.map((a) => a.text);
  const verb = firstOperand(inv);
  if (FORMATTER.test(inv.name)) return "formats a disk or partition";
  switch (inv.name) {
    case "nvme":
      return verb && /^(format|sanitize|write-zeroes|delete-ns|detach-ns)$/.test(verb)
        ? `${verb} erases an NVMe namespace`
        : undefined;
    case "badblocks":
      return texts.some((t) => /^-[a-zA-Z]*w/.test(t)) ? "-w overwrites every block of the disk" : undefined;
    case "cryptsetup":
      return inv.args.some((a) => /^(luksformat|erase|luksErase|reencrypt|luksKillSlot)$/i.test(a.text))
        ? "replaces the disk's encryption header, making its data unreadable"
        : undefined;
    case "hdparm":
      return texts.some((t) =>
        /^--(security-erase(-enhanced)?|trim-sector-ranges(-stdin)?|write-sector|fwdownload.*|dco-restore|make-bad-sector)/.test(
          t,
        ),
      )
        ? "erases or overwrites the disk"
        : undefined;
    case "sg_format":
    case "sg_sanitize":
    case "sg_unmap":
      return "erases a SCSI disk";
    case "zpool":
      return verb && /^(destroy|labelclear)$/.test(verb) ? `${verb} wipes a ZFS pool` : undefined;
    case "mdadm":
      return texts.some((t) => t === "--zero-superblock") ? "wipes a RAID superblock" : undefined;
    case "parted":
      return inv.args.some((a) => /^(mklabel|mktable|rm)$/i.test(a.text))
        ? "replaces or removes entries of the partition table"
        : undefined;
    case "sfdisk":
      return texts.some((t) => /^(--delete|--wipe(=always)?)$/.test(t))
        ? "deletes partitions or wipes signatures"
        : undefined;
    case "flashrom":
      return texts.some((t) => /^(-w|--write|-E|--erase)$/.test(t)) ? "rewrites the firmware" : undefined;
    default:
      return undefined;
  }
}

/** Block-device paths in socat addresses (`OPEN:/dev/sda,…`, `/dev/sda`). */
function socatDevices(inv: Invocation): Field[] {
  if (inv.name !== "socat") return [];
  return inv.args.map((a) => ({ ...a, text: a.text.replace(/^[A-Za-z-]+:(?=\/)/, "").replace(/,.*$/, "") }));
}

/** Hard disk findings for one invocation. */
export function diskHardFindings(inv: Invocation): GuardFinding[] {
  const why = erases(inv);
  if (why) return [hardFinding("hard.filesystem-format", `${describe(inv)} ${why}`)];
  for (const t of [...writeTargets(inv), ...socatDevices(inv)]) {
    const path = normaliseTarget(t, inv.source.cwd);
    if (isBlockDevice(path, t.glob))
      return [hardFinding("hard.block-device-write", `${describe(inv)} writes to the block device ${path}`)];
  }
  return [];
}

/** Programs that take a device as an argument without reading its contents. */
const DEVICE_NAMING = new Set([
  ...TEXT_ONLY_PROGRAMS,
  "mount",
  "umount",
  "lsblk",
  "blkid",
  "findmnt",
  "df",
  "smartctl",
  "udevadm",
  "eject",
  "ls",
  "stat",
  "losetup",
  "badblocks",
  "hdparm",
  "blockdev",
  "nvme",
  "cryptsetup",
  "fdisk",
  "sfdisk",
  "parted",
]);

/** Cheap pre-check: could any argument name something under /dev (a glob, `..`, or a cwd there)? */
function mayNameDevice(inv: Invocation): boolean {
  if (inv.source.cwd?.startsWith("/dev")) return true;
  return [...inv.args, ...inv.implicitOperands].some(
    (a) => a.glob || a.text.includes("dev") || a.text.includes(".."),
  );
}

/** Soft raw-disk reads for one invocation. */
export function rawDiskReadFindings(inv: Invocation): GuardFinding[] {
  if (DEVICE_NAMING.has(inv.name) || !mayNameDevice(inv) || erases(inv)) return [];
  const written = new Set(writeTargets(inv).map((t) => normaliseTarget(t, inv.source.cwd)));
  const candidates =
    inv.name === "dd"
      ? inv.args.filter((a) => a.text.startsWith("if=")).map((a) => ({ ...a, text: a.text.slice(3) }))
      : pathCandidates(inv);
  for (const f of candidates) {
    const path = normaliseTarget(f, inv.source.cwd);
    if (!written.has(path) && isBlockDevice(path, f.glob))
      return [
        softFinding(
          "soft.raw-disk-read",
          `${describe(inv)} reads the raw device ${path}, past every file permission`,
        ),
      ];
  }
  return [];
}

/** Soft raw-disk reads through input redirections (`< /dev/sda`). */
export function rawDiskRedirectFindings(cmd: SimpleCommand): GuardFinding[] {
  const out: GuardFinding[] = [];
  for (const r of cmd.redirects) {
    if (r.op !== "<" && r.op !== "<&") continue;
    for (const t of r.target) {
      const path = normaliseTarget(t, cmd.cwd);
      if (isBlockDevice(path, t.glob))
        out.push(
          softFinding(
            "soft.raw-disk-read",
            `a redirection reads the raw device ${path}, past every file permission`,
          ),
        );
    }
  }
  return out;
}
