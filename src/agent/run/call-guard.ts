import type { GuardAssessment } from "../../gate/index.js";
import {
  checkExecNetwork,
  checkUrl,
  type ExecPolicy,
  type ExecVerdict,
  type HostResolver,
  type PathAccess,
  type PathFence,
} from "../../guard/index.js";
import { isHostAllowed, type NetworkPolicy } from "../../policy/index.js";
import type { CallGuard } from "./ports.js";

/** Options for {@link createCallGuard}. */
export interface CallGuardOptions {
  /** `tools.exec.security` / `ask` / safe bins over the command guard. */
  execPolicy: ExecPolicy;
  resolver: HostResolver;
  /** The path fence of a workspace (callers cache per workspace). */
  pathFence(workspace: string): PathFence;
  networkPolicy: NetworkPolicy;
  allowedHosts: readonly string[];
}

/** Path arguments of the file tools, and whether the tool writes through them. */
const PATH_TOOLS: Readonly<Record<string, { fields: readonly string[]; access: PathAccess }>> = {
  read_file: { fields: ["path"], access: "read" },
  list_dir: { fields: ["path"], access: "read" },
  search_files: { fields: ["path"], access: "read" },
  knowledge_index: { fields: ["path"], access: "read" },
  write_file: { fields: ["path"], access: "write" },
  edit_file: { fields: ["path"], access: "write" },
  patch: { fields: ["path"], access: "write" },
  vision_analyze: { fields: ["path"], access: "read" },
  image_generate: { fields: ["path"], access: "write" },
  text_to_speech: { fields: ["path"], access: "write" },
  skill_install: { fields: ["path"], access: "read" },
};

function fromExec(
  verdict: { verdict: "allow" | "ask" | "deny"; rule: string; reason: string },
  safeBins: boolean,
): GuardAssessment {
  return { verdict: verdict.verdict, rule: verdict.rule, reason: verdict.reason, safeBins };
}

const RANK = { allow: 0, ask: 1, deny: 2 } as const;

/**
 * The guard as the gate's step 1 sees it: commands of exec / process / execute_code through the
 * exec policy (command guard + safe bins), URLs through the SSRF check (resolved once) and the
 * restricted-network host list, and path arguments of file tools through the path fence.
 */
export function createCallGuard(options: CallGuardOptions): CallGuard {
  /** The exec verdict, made stricter by the network check of the hosts it connects to. */
  async function execWithNetwork(verdict: ExecVerdict, safeBins: boolean): Promise<GuardAssessment> {
    const base = fromExec(verdict, safeBins);
    if (base.verdict === "deny") return base;
    const network = await checkExecNetwork(verdict.networkTargets, {
      networkPolicy: options.networkPolicy,
      allowedHosts: options.allowedHosts,
      resolver: options.resolver,
    });
    if (network === undefined || RANK[network.verdict] <= RANK[base.verdict]) return base;
    return { verdict: network.verdict, rule: network.rule, reason: network.reason, safeBins: false };
  }

  return {
    async assess(tool, args, ctx) {
      switch (tool) {
        case "exec": {
          const command = args.command;
          if (typeof command !== "string")
            return { verdict: "ask", rule: "exec.no-command", reason: "no command to check" };
          const verdict = options.execPolicy.check(command);
          return execWithNetwork(verdict, verdict.safeBins);
        }
        case "process": {
          const command = args.command;
          if (typeof command !== "string") return undefined;
          // A background process is never judged safe by safe-bin profiles.
          return execWithNetwork(options.execPolicy.check(command), false);
        }
        case "execute_code": {
          const code = typeof args.code === "string" ? args.code : "";
          if (args.language === "bash" || args.language === "sh")
            return execWithNetwork(options.execPolicy.check(code), false);
          return {
            verdict: "ask",
            rule: "exec.code",
            reason: `runs ${String(args.language ?? "unknown")} code, which the command guard cannot analyse`,
          };
        }
        default:
          break;
      }
      const url = args.url;
      if (typeof url === "string") {
        const verdict = await checkUrl(url, options.resolver);
        // A restricted network denies every host off the list, internal or not: deny outranks ask.
        if (options.networkPolicy === "restricted" && !isHostAllowed(verdict.host, options.allowedHosts)) {
          return {
            verdict: "deny",
            rule: "network.restricted",
            reason: `${verdict.host || url} is not in execution.allowed_hosts (network_policy is restricted)`,
          };
        }
        if (verdict.verdict !== "allow")
          return { verdict: verdict.verdict, rule: verdict.rule, reason: verdict.reason };
        return { verdict: "allow", rule: verdict.rule, reason: verdict.reason };
      }
      const paths = PATH_TOOLS[tool];
      if (paths) {
        const fence = options.pathFence(ctx.workspace);
        for (const field of paths.fields) {
          const value = args[field];
          if (typeof value !== "string") continue;
          const verdict = fence.check(value, paths.access);
          if (verdict.verdict === "deny")
            return { verdict: "deny", rule: verdict.rule, reason: verdict.reason };
        }
        return { verdict: "allow", rule: "path.inside", reason: "every path stays inside the fence" };
      }
      return undefined;
    },
  };
}
