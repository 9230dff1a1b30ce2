import { lstatSync, readlinkSync } from "node:fs";

/** One mount of the sandbox's filesystem, in bwrap's terms. */
export type SandboxMount =
  | { readonly kind: "ro-bind"; readonly source: string; readonly dest: string }
  | { readonly kind: "bind"; readonly source: string; readonly dest: string }
  | { readonly kind: "symlink"; readonly target: string; readonly dest: string };

/** Top-level system directories: /usr read-only, the rest as the host has them (often symlinks into /usr). */
export const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"] as const;

/**
 * What programs need of /etc: user and host names, the dynamic linker's cache, alternatives,
 * certificates, time zone, git's and python's system config. Never /etc/shadow, /etc/gshadow,
 * sudoers, ssh host keys or anything else that holds a secret: only these names are mounted.
 */
export const ETC_ENTRIES = [
  "passwd",
  "group",
  "hosts",
  "host.conf",
  "nsswitch.conf",
  "gai.conf",
  "protocols",
  "services",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "alternatives",
  "ssl/certs",
  "ssl/openssl.cnf",
  "ca-certificates",
  "ca-certificates.conf",
  "localtime",
  "timezone",
  "locale.alias",
  "mime.types",
  "magic",
  "magic.mime",
  "gitconfig",
  "os-release",
  "debian_version",
  "python3",
  "python3.11",
  "python3.12",
  "perl",
] as const;

/** Entries of /etc that are never mounted, whatever a list says (the resolver refuses them). */
export const ETC_NEVER = ["shadow", "gshadow", "shadow-", "gshadow-", "sudoers", "sudoers.d", "ssh"] as const;

function kindOf(path: string): "dir" | "file" | "symlink" | undefined {
  try {
    const info = lstatSync(path);
    if (info.isSymbolicLink()) return "symlink";
    return info.isDirectory() ? "dir" : "file";
  } catch {
    return undefined;
  }
}

/**
 * The read-only system part of the sandbox's filesystem, resolved against this host: each system
 * directory that exists (a symlink such as /bin → usr/bin stays a symlink), and the listed /etc
 * entries that exist. Nothing under /root, /home, the runner's directories or the workspace.
 */
export function resolveSystemMounts(etcEntries: readonly string[] = ETC_ENTRIES): readonly SandboxMount[] {
  const mounts: SandboxMount[] = [];
  for (const dir of SYSTEM_DIRS) {
    const kind = kindOf(dir);
    if (kind === undefined) continue;
    if (kind === "symlink") mounts.push({ kind: "symlink", target: readlinkSync(dir), dest: dir });
    else mounts.push({ kind: "ro-bind", source: dir, dest: dir });
  }
  const never: ReadonlySet<string> = new Set(ETC_NEVER);
  for (const entry of etcEntries) {
    if (entry.split("/").some((part) => never.has(part) || part === "" || part === "." || part === "..")) {
      continue;
    }
    const path = `/etc/${entry}`;
    const kind = kindOf(path);
    if (kind === undefined) continue;
    if (kind === "symlink") mounts.push({ kind: "symlink", target: readlinkSync(path), dest: path });
    else mounts.push({ kind: "ro-bind", source: path, dest: path });
  }
  return Object.freeze(mounts);
}
