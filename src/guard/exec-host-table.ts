import type { ExecHost } from "../catalog/index.js";
import { assertNever } from "../shared/index.js";
import type { HardRule, SoftRule } from "./verdict/index.js";

/** Where exec-class tools run (`tools.exec.host`): the catalog's EXEC_HOSTS. */
export type ExecHostKind = ExecHost;

/**
 * What a guard finding does to a call on a host: `deny` (no approval lifts it), `flag` (the call
 * needs a person: a cron grant never covers it), `contained` (the sandbox holds the effect: not
 * flagged, so an unattended run's cron grant covers the call).
 */
export const HOST_EFFECTS = ["deny", "flag", "contained"] as const;
export type HostEffect = (typeof HOST_EFFECTS)[number];

/** Findings that are not guard families but still flag a call on the local host. */
export const EXEC_POLICY_FINDINGS = ["exec.allowlist-miss", "exec.code"] as const;
export type ExecPolicyFinding = (typeof EXEC_POLICY_FINDINGS)[number];

/** One row of the table: the effect on the local host and in the sandbox, and why. */
export interface ExecHostRow {
  readonly local: Exclude<HostEffect, "contained">;
  readonly sandbox: HostEffect;
  readonly why: string;
}

const HARD = (why: string): ExecHostRow => ({ local: "deny", sandbox: "deny", why });
const CROSSES = (why: string): ExecHostRow => ({ local: "flag", sandbox: "flag", why });
const CONTAINED = (why: string): ExecHostRow => ({ local: "flag", sandbox: "contained", why });

/**
 * THE table (docs/SANDBOX.md "The one table" renders it): for every guard family, hard and
 * soft, what happens on the local host and in the sandbox. Hard families stay denied everywhere.
 * In the sandbox a soft family stays flagged only when its effect can cross the sandbox (network,
 * a remote, other people) or destroy what the workspace holds, or when what the command does cannot
 * be known; families whose effect the sandbox contains are not flagged there. Attended and
 * unattended follow from the effect: `deny` is denied in both; `flag` asks a person when attended
 * and is never covered by a cron grant when unattended (it parks under unattended_policy allow_safe,
 * is denied under deny); `contained` is an unflagged exec call (attended: the gate's later steps;
 * unattended: covered by the schedule's cron grant). A family added to verdict.ts breaks the build
 * here until it has a row.
 */
export const EXEC_HOST_TABLE: Readonly<Record<HardRule | SoftRule | ExecPolicyFinding, ExecHostRow>> =
  Object.freeze({
    "hard.recursive-delete-system": HARD("deletes system directories; never, on any host"),
    "hard.block-device-write": HARD("writes raw disks; never, on any host"),
    "hard.filesystem-format": HARD("formats or wipes disks; never, on any host"),
    "hard.shutdown": HARD("stops or restarts the machine; never, on any host"),
    "hard.fork-bomb": HARD("a fork bomb; never, on any host (the sandbox's process limit is the backstop)"),
    "hard.system-secret-read": HARD("reads system secrets (/etc/shadow); never, on any host"),
    "soft.recursive-delete": CROSSES(
      "destroys the workspace's files: at once without a layer, at landing with one",
    ),
    "soft.world-writable": CONTAINED("chmod: only the workspace and a private /tmp are writable inside"),
    "soft.setuid": CONTAINED("setuid bits do nothing inside (no capabilities, nosuid user namespace)"),
    "soft.chown-system": CONTAINED("chown to root fails inside (no capabilities)"),
    "soft.service-control": CONTAINED("no service manager is reachable inside"),
    "soft.remote-script": CROSSES("downloads code from the network"),
    "soft.piped-interpreter": CONTAINED("an interpreter's effects stay inside"),
    "soft.inline-interpreter": CONTAINED("inline code's effects stay inside"),
    "soft.credential-write": CROSSES("credentials written into the workspace outlive the sandbox"),
    "soft.private-key-read": CROSSES("keys in the workspace could leave through the network"),
    "soft.destructive-sql": CROSSES("the database is outside the sandbox"),
    "soft.kill-all": CONTAINED("only the sandbox's own processes are visible (own PID namespace)"),
    "soft.crontab": CONTAINED("the host's cron tables are not mounted inside"),
    "soft.persistence": CROSSES(
      "start-up files and git hooks written into the workspace run later on the host",
    ),
    "soft.system-config-write": CONTAINED("/etc and the rest of the system are read-only inside"),
    "soft.git-history": CROSSES("rewrites or destroys the workspace's history, or a remote's"),
    "soft.raw-disk-read": CONTAINED("no block devices inside"),
    "soft.secret-read": CROSSES("a secret read inside could leave through the network or the workspace"),
    "soft.network-internal": CROSSES("reaches an internal address: network egress crosses the sandbox"),
    "soft.network-unknown-host": CROSSES("which host it reaches is not known until run time"),
    "soft.computed-command": CROSSES("what runs is not known until run time"),
    "soft.wrapped-command": CROSSES("what the wrapper runs is not known"),
    "soft.env-injection": CONTAINED("code loaded into a program stays inside"),
    "soft.partition-tool": CONTAINED("no block devices inside"),
    "soft.hidden-characters": CROSSES("a person cannot read what the command does"),
    "soft.unparseable": CROSSES("the guard cannot tell what the command does"),
    "soft.too-complex": CROSSES("the guard cannot tell what the command does"),
    "soft.shell-dialect": CROSSES("the guard cannot tell what the command does in the other shell"),
    "soft.shell-input": CROSSES("what is written to the shell later is not known now"),
    "soft.unknown-parts": CROSSES("with some value it is a hard family; which one runs is not known"),
    "exec.allowlist-miss": CONTAINED(
      "not a safe bin: on the local host it needs a person, inside the sandbox holds it",
    ),
    "exec.code": CONTAINED("code the guard cannot analyse runs inside"),
  });

/** What a finding (a rule id) does on a host; an id the table does not know is flagged (fail closed). */
export function hostEffect(rule: string, host: ExecHostKind): HostEffect {
  const row = (EXEC_HOST_TABLE as Readonly<Record<string, ExecHostRow>>)[rule];
  if (row === undefined) return rule.startsWith("hard.") ? "deny" : "flag";
  switch (host) {
    case "local":
    case "remote":
      return row.local;
    case "sandbox":
      return row.sandbox;
    default:
      return assertNever(host, "tools.exec.host");
  }
}
