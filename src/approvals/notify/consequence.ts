import { type Capability, TOOL_CATALOG } from "../../catalog/index.js";
import type { SoftRule } from "../../guard/index.js";

/** Findings outside the command guard's families that a request can carry. */
type CallFinding =
  | "exec.allowlist-miss"
  | "exec.code"
  | "exec.no-command"
  | "exec.network-internal"
  | "exec.network-unknown-host"
  | "url.internal-address"
  | "url.internal-host"
  | "url.unresolved"
  | "path.outside-workspace"
  | "path.outside-write-root"
  | "path.pattern-escapes"
  | "tool.check";

/**
 * THE table of consequences: what a call does if a person approves it, in plain words, keyed by
 * the guard finding that flagged it or, when nothing did, by the tool's capabilities. Every soft
 * family has a row (a family added to the guard breaks the build here until it has one).
 */
const CONSEQUENCES: Readonly<Record<SoftRule | CallFinding, string> & Partial<Record<Capability, string>>> = {
  "soft.recursive-delete": "deletes files in the workspace",
  "soft.world-writable": "makes files writable by every user",
  "soft.setuid": "lets a program run with its owner's rights",
  "soft.chown-system": "gives files to the system's users",
  "soft.service-control": "starts, stops or changes system services",
  "soft.remote-script": "downloads code from the network and runs it",
  "soft.piped-interpreter": "runs code fed into an interpreter",
  "soft.inline-interpreter": "runs inline code in an interpreter",
  "soft.credential-write": "writes credentials to disk",
  "soft.private-key-read": "reads a private key",
  "soft.destructive-sql": "deletes or alters database data",
  "soft.kill-all": "stops every process it matches",
  "soft.crontab": "changes scheduled jobs",
  "soft.persistence": "installs something that runs again later (start-up files, git hooks)",
  "soft.system-config-write": "changes system configuration",
  "soft.git-history": "rewrites or deletes git history, or a remote's",
  "soft.raw-disk-read": "reads a raw disk",
  "soft.secret-read": "reads secrets",
  "soft.network-internal": "reaches an internal network address",
  "soft.network-unknown-host": "reaches a host that is known only when it runs",
  "soft.computed-command": "runs a command that is known only when it runs",
  "soft.wrapped-command": "runs a command through a wrapper whose target is not known",
  "soft.env-injection": "loads code into another program",
  "soft.partition-tool": "changes disk partitions",
  "soft.shell-dialect": "runs shell syntax the guard reads differently",
  "soft.shell-input": "feeds input to a shell or interpreter",
  "soft.unknown-parts": "runs parts the guard cannot read",
  "soft.hidden-characters": "runs a command with hidden characters",
  "soft.unparseable": "runs a command the guard cannot parse",
  "soft.too-complex": "runs a command too complex for the guard to check",
  "exec.allowlist-miss": "runs a program that is not on the allowlist",
  "exec.code": "runs code the guard cannot analyse",
  "exec.no-command": "runs no readable command",
  "exec.network-internal": "reaches an internal network address",
  "exec.network-unknown-host": "reaches a host that is known only when it runs",
  "url.internal-address": "reaches an internal network address",
  "url.internal-host": "reaches an internal host",
  "url.unresolved": "reaches a host whose address could not be checked",
  "path.outside-workspace": "touches files outside the workspace",
  "path.outside-write-root": "writes outside the allowed write root",
  "path.pattern-escapes": "touches files outside the workspace",
  "tool.check": "does what the tool's own check asked a person about",
  "fs.write": "writes files in the workspace",
  "process.exec": "runs a command",
  "process.manage": "starts or stops background processes",
  "code.exec": "runs code",
  "network.outbound": "sends data over the network",
  "scheduler.write": "creates or changes a schedule",
  "skill.install": "installs a skill",
  "skill.write": "changes a skill",
  "workflow.write": "changes a workflow",
  "memory.write": "changes the agent's memory",
  "message.send": "sends a message",
  "media.generate": "generates media",
  "knowledge.write": "changes the knowledge index",
  "task.write": "changes tasks",
  "agent.dispatch": "starts another agent",
  "mcp.call": "calls an external MCP server",
};

function sentence(key: string): string | undefined {
  return Object.hasOwn(CONSEQUENCES, key) ? CONSEQUENCES[key as keyof typeof CONSEQUENCES] : undefined;
}

/** The host a call's `url` argument names, or null. */
function urlHost(argsCanonical: string): string | null {
  try {
    const args = JSON.parse(argsCanonical) as { url?: unknown; args?: { url?: unknown } };
    const url = typeof args.url === "string" ? args.url : args.args?.url;
    return typeof url === "string" ? new URL(url).host || null : null;
  } catch {
    return null;
  }
}

/**
 * What the call does if approved, in one plain sentence: from its findings (flags), else from its
 * tool's capabilities; null when nothing in the table says more than the risk word.
 */
export function consequenceOf(request: {
  readonly tool: string;
  readonly flags: readonly string[];
  readonly argsCanonical: string;
}): string | null {
  const fromFindings = request.flags.map(sentence).filter((s): s is string => s !== undefined);
  const entry = TOOL_CATALOG.find((tool) => tool.name === request.tool);
  const fromCapabilities = (entry?.capabilities ?? []).map((capability) => {
    if (capability !== "network.outbound") return sentence(capability);
    const host = urlHost(request.argsCanonical);
    return host === null ? sentence(capability) : `sends data to ${host}`;
  });
  const said = [...new Set(fromFindings.length > 0 ? fromFindings : fromCapabilities)].filter(
    (s): s is string => s !== undefined,
  );
  if (said.length === 0) return null;
  const text = said.join("; ");
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}
