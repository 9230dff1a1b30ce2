import { posix } from "node:path";
import type { Field } from "../shell/index.js";

/**
 * Path matching for the command guard. Paths are compared as bash would see them: `$HOME` and `~`
 * are the home directory, `..`, `.` and repeated slashes are folded, `/proc/self/root` is `/`, a
 * relative path is resolved against a directory set by an earlier literal `cd`, and a glob matches
 * a protected path when it could expand to it.
 */

/** Top-level directories whose recursive deletion is never allowed (besides `/` and homes). */
export const SYSTEM_DIRECTORIES = [
  "/etc",
  "/usr",
  "/var",
  "/boot",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/home",
  "/root",
  "/opt",
  "/srv",
  "/dev",
  "/proc",
  "/sys",
  "/snap",
  "/mnt",
  "/run",
  "/System",
  "/Library",
  "/Applications",
  "/Users",
  "/private",
  "/Volumes",
  "/nix",
] as const;

const SYSTEM_SET = new Set<string>(SYSTEM_DIRECTORIES.map((d) => d.toLowerCase()));

/** Normalises a path word for matching; the result is absolute, `~`-based or relative. */
export function normaliseTarget(field: Field, cwd: string | undefined): string {
  let text = field.text;
  text = text.replace(/^\$\{?HOME\}?(?=\/|$)/, "~");
  if (text === "") return "";
  let path: string;
  if (text.startsWith("/") || text.startsWith("~")) path = text;
  else if (cwd !== undefined) path = posix.join(cwd, text);
  else path = text;
  path = procRoot(path);
  path = posix.normalize(path);
  path = procRoot(path);
  if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
  if (path.startsWith("//")) path = path.replace(/^\/+/, "/");
  return path;
}

/** A regex for one path segment written as a glob (`*`, `?`, `[...]`), matching case-insensitively. */
export // `/proc/<pid>/root` is a symlink to that process's `/` and `/proc/<pid>/cwd` to its directory (`/`
// at worst): a path under them is the path they lead to, and `..` after them stays at `/`. Any pid
// segment counts: `self`, a number, a glob (`/proc/*/root`) or an unknown part (`/proc/$p/root`).
const PROC_ROOT = /^\/+proc\/+[^/]+\/+(?:root|cwd)(?=\/|$)/;

function procRoot(path: string): string {
  let out = path;
  for (let i = 0; i < 8 && PROC_ROOT.test(out); i++) {
    out = out.replace(PROC_ROOT, "");
    // `..` right after the symlink's target `/` stays at `/`.
    out = out.replace(/^(\/+\.\.(?=\/|$))+/, "") || "/";
    if (!out.startsWith("/")) out = `/${out}`;
  }
  return out;
}

/** A regex for one path segment written as a glob (`*`, `?`, `[...]`), case-insensitive. */
export function segmentRegex(segment: string): RegExp {
  let out = "^";
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i] as string;
    if (ch === "*") out += "[^/]*";
    else if (ch === "?") out += "[^/]";
    else if (ch === "[") {
      const close = segment.indexOf("]", i + 2);
      if (close === -1) out += "\\[";
      else {
        let body = segment.slice(i + 1, close);
        if (body.startsWith("!")) body = `^${body.slice(1)}`;
        out += `[${body.replace(/\\/g, "\\\\")}]`;
        i = close;
      }
    } else out += ch.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  try {
    return new RegExp(`${out}$`, "i");
  } catch {
    return /^.*$/;
  }
}

/**
 * How `pattern` (a normalised path, possibly a glob) relates to `target`: "exact" when it can name
 * the target itself, "under" when it names something inside it, undefined otherwise.
 */
export function pathRelation(pattern: string, glob: boolean, target: string): "exact" | "under" | undefined {
  if (!glob) {
    const p = pattern.toLowerCase();
    const t = target.toLowerCase();
    if (p === t) return "exact";
    if (p.startsWith(t === "/" ? "/" : `${t}/`)) return "under";
    return undefined;
  }
  const ps = pattern.split("/");
  const ts = target.split("/");
  if (target === "/")
    return ps.length >= 2 && ps[0] === "" ? (ps.length === 2 && ps[1] === "" ? "exact" : "under") : undefined;
  if (ps.length < ts.length) return undefined;
  for (let i = 0; i < ts.length; i++) {
    const seg = ps[i] as string;
    const want = ts[i] as string;
    if (/[*?[]/.test(seg) ? !segmentRegex(seg).test(want) : seg.toLowerCase() !== want.toLowerCase())
      return undefined;
  }
  return ps.length === ts.length ? "exact" : "under";
}

const ONLY_GLOB = /^[*?.{},]+$/;

/**
 * True when deleting `path` recursively would wipe `/`, a top-level system directory, a home
 * directory (`~`, `~user`, `/home/<user>`, `/Users/<user>`), or every entry of one of those (`/*`,
 * `/etc/*`, `~/*`).
 */
export function isProtectedDeleteTarget(path: string, glob: boolean): boolean {
  if (path === "/" || path === "~" || /^~[^/]*$/.test(path)) return true;
  const lower = path.toLowerCase();
  if (!glob) {
    if (SYSTEM_SET.has(lower)) return true;
    return /^\/(home|users)\/[^/]+$/.test(lower);
  }
  // A glob is protected if it can expand to a protected directory, or to all entries of one.
  const slash = path.lastIndexOf("/");
  const dir =
    slash <= 0
      ? path.startsWith("/")
        ? "/"
        : slash === -1
          ? ""
          : path.slice(0, slash)
      : path.slice(0, slash);
  const base = path.slice(slash + 1);
  if (
    ONLY_GLOB.test(base) &&
    /[*]/.test(base) &&
    dir !== "" &&
    isProtectedDeleteTarget(dir, /[*?[]/.test(dir))
  )
    return true;
  if (!path.startsWith("/")) return false;
  const segments = path.split("/").length - 1;
  if (segments === 1) {
    for (const sys of SYSTEM_DIRECTORIES) if (pathRelation(path, true, sys) === "exact") return true;
  }
  if (segments === 2) {
    // `/h*/alice` can expand to a home directory.
    const [, first = "", second = ""] = path.split("/");
    const homeLike = segmentRegex(first).test("home") || segmentRegex(first).test("users");
    return homeLike && (ONLY_GLOB.test(second) || !/[*?[]/.test(second));
  }
  return false;
}

const SYSTEM_SECRETS = [
  "/etc/shadow",
  "/etc/gshadow",
  "/etc/shadow-",
  "/etc/gshadow-",
  "/etc/security/opasswd",
  "/root/.ssh",
  "~root/.ssh",
];

/**
 * True when `path` is (or could glob to) /etc/shadow, /etc/gshadow, /etc/security/opasswd (old
 * password hashes) or anything under /root/.ssh.
 */
export function isSystemSecret(path: string, glob: boolean): boolean {
  // Fast exit for the common case: no glob and nothing that could name a secret.
  if (!glob && !/shadow|\.ssh|opasswd/i.test(path)) return false;
  for (const secret of SYSTEM_SECRETS) {
    const rel = pathRelation(path, glob, secret);
    if (rel === "exact" || (rel === "under" && secret.endsWith(".ssh"))) return true;
  }
  return false;
}

const BLOCK_DEVICE =
  /^\/dev\/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d|disk\/|dm-\d|md\d|mapper\/|sr\d|loop\d|mem$|kmem$|port$)/i;

/** True when `path` names a block device or raw memory (`/dev/sda1`, `/dev/nvme0n1`, `/dev/mem`). */
export function isBlockDevice(path: string, glob: boolean): boolean {
  if (BLOCK_DEVICE.test(path)) return true;
  if (!glob || !path.toLowerCase().startsWith("/dev/")) return false;
  return ["/dev/sda", "/dev/nvme0n1", "/dev/vda", "/dev/mmcblk0", "/dev/hda", "/dev/xvda"].some(
    (dev) => pathRelation(path, true, dev) === "exact",
  );
}

const CREDENTIAL_BASENAME =
  /^(\.env(\.(?!example$|sample$|template$|dist$)[\w.-]+)?|id_(rsa|dsa|ecdsa|ed25519)(_sk)?(\.pub)?|authorized_keys2?|\.netrc|_netrc|\.npmrc|\.pgpass|\.git-credentials|\.pypirc|\.my\.cnf|credentials\.json|\.htpasswd)$/i;
const CREDENTIAL_PATH =
  /(^|\/)(\.aws\/(credentials|config)|\.ssh\/[^/]+|\.docker\/config\.json|\.kube\/config|\.gnupg\/.+|\.config\/gh\/hosts\.yml)$/i;

/** True when `path` is a credential file: `.env`, SSH keys, `.netrc`, `.aws/credentials`, ... */
export function isCredentialFile(path: string): boolean {
  const base = path.slice(path.lastIndexOf("/") + 1);
  return CREDENTIAL_BASENAME.test(base) || CREDENTIAL_PATH.test(path);
}

const PRIVATE_KEY =
  /(^|\/)(id_(rsa|dsa|ecdsa|ed25519)(_sk)?|\.gnupg\/private-keys[^/]*\/.*|\.ssh\/(?!.*\.pub$|known_hosts|config$|authorized_keys)[^/]+)$/i;
// Key files by extension count only in someone's home directory; in a workspace they are usually
// test fixtures or files being generated.
const HOME_KEY_FILE = /^(~[^/]*|\/home\/[^/]+|\/Users\/[^/]+|\/root)\/(.+\/)?[^/]*\.(pem|key|p12|pfx)$/i;

/** True when `path` looks like a private key (`~/.ssh/id_ed25519`, `*.pem`, GnuPG private keys). */
export function isPrivateKey(path: string, glob: boolean): boolean {
  if (PRIVATE_KEY.test(path) || HOME_KEY_FILE.test(path)) return true;
  return glob && /(^|\/)\.ssh\/[^/]*[*?[][^/]*$/.test(path) && !path.endsWith(".pub");
}

/** System paths whose recursive ownership change needs approval. */
export function isSystemPath(path: string): boolean {
  if (path === "/" || path === "~") return true;
  const lower = path.toLowerCase();
  return SYSTEM_DIRECTORIES.some((d) => lower === d.toLowerCase() || lower.startsWith(`${d.toLowerCase()}/`));
}
