import { normaliseTarget, pathRelation } from "../paths/index.js";
import type { Field, SimpleCommand } from "../shell/index.js";
import type { Invocation } from "../unwrap/index.js";
import { pathCandidates, TEXT_ONLY_PROGRAMS } from "../unwrap/index.js";
import { type GuardFinding, hardFinding, softFinding } from "../verdict/index.js";

/**
 * Secrets outside the workspace: the host's SSH private host keys (hard, like `/etc/shadow`: they
 * let anyone impersonate the machine), and secrets a person should see handed out (soft): Docker
 * and Kubernetes secrets under `/run/secrets` and `/var/run/secrets` (the service-account token),
 * cluster admin configs, and another process's `/proc/<pid>/environ`, `mem`, `maps`, `cmdline`, ...
 * (the worker's environment, undoing the scrubbing of the child's own).
 */

const HOST_KEY = "/etc/ssh/ssh_host_*_key";
const SOFT_SECRETS = [
  /^\/(var\/)?run\/secrets(\/|$)/i,
  /^\/etc\/kubernetes\/(admin|kubelet|controller-manager|scheduler|super-admin)\.conf$/i,
  /^\/etc\/kubernetes\/pki\/.+\.key$/i,
  /^\/var\/lib\/kubelet\/(pods\/.+\/token|pki\/.+\.key)$/i,
  /^\/proc\/kcore$/i,
];
// `/proc/self` is the reader itself; any other pid (a number, `$PPID`, a glob) is someone else.
const PROC_OTHER =
  /^\/proc\/(?!self\/|thread-self\/)[^/]+\/(task\/[^/]+\/)?(environ|mem|maps|smaps|smaps_rollup|pagemap|cmdline|auxv|stack|syscall|fd(\/.*)?|fdinfo(\/.*)?|map_files(\/.*)?|mountinfo|personality|io)$/i;

const NOT_READING = new Set([
  ...TEXT_ONLY_PROGRAMS,
  "ls",
  "stat",
  "test",
  "file",
  "chmod",
  "chown",
  "touch",
  "mkdir",
  "rm",
]);

function describe(inv: Invocation): string {
  return inv.via.length > 0 ? `${inv.name} (through ${inv.via.join(" → ")})` : inv.name;
}

function judge(path: string, glob: boolean, who: string): GuardFinding | undefined {
  const hostKey =
    /^\/etc\/ssh\/ssh_host_[^/]*_key$/i.test(path) ||
    (glob && pathRelation(path, true, HOST_KEY) === "exact") ||
    (glob && /^\/etc\/ssh\/[^/]*[*?[][^/]*$/.test(path) && !path.endsWith(".pub"));
  if (hostKey || /^\/etc\/ssh$/i.test(path))
    return hardFinding(
      "hard.system-secret-read",
      `${who} reads ${path}, the machine's SSH private host keys`,
    );
  if (SOFT_SECRETS.some((re) => re.test(path)))
    return softFinding("soft.secret-read", `${who} reads ${path}, a secret of the host or the cluster`);
  if (PROC_OTHER.test(path))
    return softFinding(
      "soft.secret-read",
      `${who} reads ${path}, the environment or memory of another process`,
    );
  return undefined;
}

/** Secret-read findings for one invocation. */
export function secretFindings(inv: Invocation): GuardFinding[] {
  if (NOT_READING.has(inv.name)) return [];
  // Cheap pre-check before normalising every candidate path.
  const cwd = inv.source.cwd ?? "";
  if (
    !/^\/(etc|run|var|proc)/.test(cwd) &&
    ![...inv.args, ...inv.implicitOperands].some((a) => a.glob || /ssh|secret|kube|proc|\.\./.test(a.text))
  )
    return [];
  for (const f of pathCandidates(inv)) {
    const found = judge(normaliseTarget(f, inv.source.cwd), f.glob, describe(inv));
    if (found) return [found];
  }
  return [];
}

/** The same for input redirections (`< /proc/1/environ`). */
export function secretRedirectFindings(cmd: SimpleCommand): GuardFinding[] {
  const out: GuardFinding[] = [];
  for (const r of cmd.redirects) {
    if (r.op !== "<" && r.op !== "<&" && r.op !== "<>") continue;
    for (const t of r.target as Field[]) {
      const found = judge(normaliseTarget(t, cmd.cwd), t.glob, "a redirection");
      if (found) out.push(found);
    }
  }
  return out;
}
