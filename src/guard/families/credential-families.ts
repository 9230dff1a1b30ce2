import { normaliseTarget, pathRelation } from "../paths/index.js";
import type { Field, SimpleCommand } from "../shell/index.js";
import type { Invocation } from "../unwrap/index.js";
import { pathCandidates, TEXT_ONLY_PROGRAMS } from "../unwrap/index.js";
import { type GuardFinding, softFinding } from "../verdict/index.js";

/**
 * Credentials recognised by what they are, not by a few file names: whole credential directories
 * (`~/.ssh`, `~/.gnupg`, `~/.aws`, cloud CLI configs, `~/.kube`, `~/.docker`, password stores,
 * `/etc/ssl/private`) and anything in them; token files by their kind (`.npmrc`, `.pypirc`,
 * `.netrc`, keytabs, ...) outside the workspace; a recursive read of a directory that holds
 * credential directories (`grep -r PRIVATE ~`, `tar -cz ~`, `cp -r /home/u .`); and commands that
 * print credentials (`gpg --export-secret-keys`, `gh auth token`, `gcloud auth
 * print-access-token`, ...). Each asks (`soft.private-key-read`): copying `~/.ssh` into the workspace
 * hands its keys out as surely as `cat ~/.ssh/id_rsa`.
 */

/** Directories that hold credentials, as home-relative or absolute patterns. */
const CREDENTIAL_DIRECTORIES = [
  "~/.ssh",
  "~/.gnupg",
  "~/.aws",
  "~/.azure",
  "~/.config/gcloud",
  "~/.config/gh",
  "~/.config/hub",
  "~/.config/op",
  "~/.kube",
  "~/.docker",
  "~/.password-store",
  "~/.local/share/keyrings",
  "~/.terraform.d",
  "~/.oci",
  "~/.vault-token",
  "~/.config/rclone",
  "~/.cargo/credentials",
  "~/.cargo/credentials.toml",
  "~/.gem/credentials",
  "~/.config/git/credentials",
  "/etc/ssl/private",
  "/etc/pki/tls/private",
  "/root",
  "/var/lib/sss",
] as const;

/** Token and key files by their kind, wherever they are outside the workspace. */
const CREDENTIAL_FILE =
  /(^|\/)(\.npmrc|\.yarnrc(\.yml)?|\.pypirc|\.netrc|_netrc|\.pgpass|\.my\.cnf|\.git-credentials|\.boto|\.s3cfg|\.dockercfg|\.vault-token|\.htpasswd|[^/]*\.keytab|krb5cc_[^/]*|credentials(\.json|\.db|\.toml)?|access_tokens\.db|application_default_credentials\.json|[^/]*\.(pem|key|p12|pfx|jks|keystore|kdbx))$/i;
/** Where `.pem` files are public certificates. */
const CERTIFICATES =
  /^\/(usr|lib|opt|snap)\/|^\/etc\/(ssl\/certs|pki\/(ca-trust|tls\/certs)|ca-certificates)\//i;

/** Home and system directories that contain credential directories. */
const CREDENTIAL_ANCESTOR =
  /^(\/|~[^/]*|\/home(\/[^/]+)?|\/Users(\/[^/]+)?|\/root|\/etc|\/etc\/ssl|\/var|\/var\/lib|~[^/]*\/\.config|~[^/]*\/\.local(\/share)?)$/i;

const OUTSIDE_HINT = /(^|[=@<]|file:\/\/)(\/|~|\$\{?HOME|\.\.)/;

/** Programs that only name, list or change metadata of their operands. */
const NOT_READING = new Set([
  ...TEXT_ONLY_PROGRAMS,
  "ls",
  "stat",
  "file",
  "chmod",
  "chown",
  "chgrp",
  "touch",
  "mkdir",
  "rm",
  "rmdir",
  "cd",
  "pushd",
  "du",
  "df",
  "realpath",
  "readlink",
  "basename",
  "dirname",
  "ssh",
  "ssh-add",
  "ssh-keygen",
  "ssh-copy-id",
  "git",
  "find",
  "tree",
]);

/** Programs and options that read a directory's files recursively. */
function readsRecursively(inv: Invocation): boolean {
  const flags = inv.args.filter((a) => a.text.startsWith("-")).map((a) => a.text);
  const has = (re: RegExp) => flags.some((f) => re.test(f));
  switch (inv.name) {
    case "grep":
    case "egrep":
    case "fgrep":
      return has(/^-[A-Za-z]*[rR]|^--(recursive|dereference-recursive)$|^--directories=recurse$/);
    case "rg":
    case "ag":
    case "ack":
    case "tar":
    case "bsdtar":
    case "zip":
    case "7z":
    case "7za":
    case "rclone":
    case "restic":
    case "borg":
      return true;
    case "cp":
    case "scp":
    case "rsync":
    case "chattr":
      return has(/^-[A-Za-z]*[rRa]|^--(recursive|archive)$/);
    default:
      return false;
  }
}

function describe(inv: Invocation): string {
  return inv.via.length > 0 ? `${inv.name} (through ${inv.via.join(" → ")})` : inv.name;
}

/** Files of a credential directory that hold nothing secret (public keys, the known hosts). */
const PUBLIC_PART =
  /\/\.ssh\/([^/]+\.pub|known_hosts(\.old)?|authorized_keys2?|config)$|\/\.gnupg\/(pubring\.kbx|gpg\.conf|trustdb\.gpg)$/i;

function credentialDirectory(path: string, glob: boolean): string | undefined {
  if (!glob && PUBLIC_PART.test(path)) return undefined;
  for (const dir of CREDENTIAL_DIRECTORIES) if (pathRelation(path, glob, dir) !== undefined) return dir;
  // `~alice/.ssh`, `/home/alice/.aws`: someone's home spelt out.
  const home = /^(~[^/]+|\/home\/[^/]+|\/Users\/[^/]+)(\/.*)$/.exec(path);
  if (home?.[2] !== undefined) {
    const asOwn = `~${home[2]}`;
    for (const dir of CREDENTIAL_DIRECTORIES)
      if (dir.startsWith("~") && pathRelation(asOwn, glob, dir) !== undefined) return dir;
  }
  return undefined;
}

/** Commands that print credentials: `[program, words that must follow, in order]`. */
const CREDENTIAL_PRINTERS: ReadonlyArray<readonly [string, RegExp]> = [
  ["gpg", /(^| )--export-secret-(sub)?keys\b|(^| )--export-ssh-key\b/],
  ["gpg2", /(^| )--export-secret-(sub)?keys\b/],
  ["gh", /^auth token\b/],
  ["glab", /^auth (token|status -t)\b/],
  ["gcloud", /\bauth (application-default )?print-(access|identity)-token\b/],
  ["az", /^account get-access-token\b/],
  ["aws", /^(configure (get|export-credentials)|ecr get-login-password|sts get-session-token)\b/],
  ["kubectl", /^config view\b.*--raw\b|--raw\b.*^config view/],
  ["git", /^credential (fill|get)\b/],
  ["secret-tool", /^lookup\b/],
  ["security", /^find-(generic|internet)-password\b/],
  ["op", /^(read|item get)\b/],
  ["vault", /^(read|kv get|token lookup|print token)\b/],
  ["pass", /^(show )?[^-]/],
];

const PRINTER_NAMES: ReadonlySet<string> = new Set(CREDENTIAL_PRINTERS.map(([name]) => name));

function printsCredentials(inv: Invocation): boolean {
  if (!PRINTER_NAMES.has(inv.name) && !inv.name.startsWith("docker-credential-")) return false;
  const words = inv.args.map((a) => a.text).join(" ");
  if (/^docker-credential-/.test(inv.name)) return /(^| )get\b/.test(words);
  return CREDENTIAL_PRINTERS.some(([name, re]) => name === inv.name && re.test(words));
}

/** Credential findings for one invocation. */
export function credentialFindings(inv: Invocation): GuardFinding[] {
  if (printsCredentials(inv))
    return [softFinding("soft.private-key-read", `${describe(inv)} prints credentials`)];
  if (NOT_READING.has(inv.name)) return [];
  // Cheap pre-check: only paths outside the workspace (absolute, `~`, `$HOME`) or climbing out,
  // also after `=`, `@` or `file://`, or a directory an earlier `cd` set.
  if (
    inv.implicitOperands.length === 0 &&
    inv.source.cwd === undefined &&
    !inv.args.some((a) => OUTSIDE_HINT.test(a.text))
  )
    return [];
  const candidates: Field[] = pathCandidates(inv);
  const recursive = readsRecursively(inv);
  for (const f of candidates) {
    const path = normaliseTarget(f, inv.source.cwd);
    if (!/^(\/|~)/.test(path)) continue;
    const dir = credentialDirectory(path, f.glob);
    if (dir)
      return [
        softFinding(
          "soft.private-key-read",
          `${describe(inv)} reads ${path}, in ${dir}, a store of credentials`,
        ),
      ];
    if (CREDENTIAL_FILE.test(path) && !CERTIFICATES.test(path))
      return [softFinding("soft.private-key-read", `${describe(inv)} reads ${path}, a credential file`)];
    if (recursive && CREDENTIAL_ANCESTOR.test(path))
      return [
        softFinding(
          "soft.private-key-read",
          `${describe(inv)} reads ${path} recursively, which holds credential directories (~/.ssh, ~/.aws, ...)`,
        ),
      ];
  }
  return [];
}

/** The same for input redirections (`< ~/.npmrc`, `< ~/.aws/config`). */
export function credentialRedirectFindings(cmd: SimpleCommand): GuardFinding[] {
  const out: GuardFinding[] = [];
  for (const r of cmd.redirects) {
    if (r.op !== "<" && r.op !== "<&") continue;
    for (const t of r.target) {
      const path = normaliseTarget(t, cmd.cwd);
      if (!/^(\/|~)/.test(path)) continue;
      const dir = credentialDirectory(path, t.glob);
      if (dir || (CREDENTIAL_FILE.test(path) && !CERTIFICATES.test(path)))
        out.push(softFinding("soft.private-key-read", `a redirection reads ${path}, a credential file`));
    }
  }
  return out;
}
