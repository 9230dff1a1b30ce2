import { beforeAll, describe, expect, it } from "vitest";
import { createCommandGuard } from "../platform/index.js";
import type { NetworkPolicy } from "../policy/index.js";
import { createToolExecutionContext } from "../tools/index.js";
import { createCallGuard } from "./call-guard.js";
import { type CommandGuard, createExecPolicy, createPathFence, type HostResolver } from "./index.js";
import { memoryFsView } from "./paths/index.js";

let guard: CommandGuard;
beforeAll(async () => {
  guard = await createCommandGuard();
});

const ctx = createToolExecutionContext({
  executionId: "e",
  traceId: "t",
  sessionKey: "s",
  userId: "u",
  agentId: "a",
  call: { toolName: "exec", callIndex: 0, params: {} },
  allowedTools: ["exec"],
  channel: "api",
  unattended: false,
  workspace: "/work/project",
});

/** DNS over a fixed table, the same port web_fetch's check uses. */
const resolver: HostResolver = {
  resolve: async (host) => {
    const table: Record<string, string[]> = {
      "example.com": ["93.184.215.14"],
      "internal.example": ["10.1.2.3"],
    };
    const found = table[host];
    if (!found) throw new Error("ENOTFOUND");
    return found;
  },
};

function callGuard(
  networkPolicy: NetworkPolicy,
  allowedHosts: string[] = [],
  extra: Partial<Parameters<typeof createCallGuard>[0]> = {},
) {
  return createCallGuard({
    execPolicy: createExecPolicy(guard, {
      security: "full",
      ask: "on-miss",
      resolveBinary: (c) => (c.includes("/") ? c : `/usr/bin/${c}`),
    }),
    resolver,
    pathFence: (workspace) =>
      createPathFence({ workspaceRoot: workspace, homeDir: "/home/u", fs: memoryFsView({}) }),
    networkPolicy,
    allowedHosts,
    ...extra,
  });
}

describe("call guard: exec reaches the network only as web_fetch may", () => {
  it.each([
    ["exec", { command: "curl https://example.com" }, "allow", "allow", undefined],
    ["exec", { command: "curl https://internal.example/x" }, "allow", "ask", "exec.network-internal"],
    ["exec", { command: "wget http://169.254.169.254/" }, "allow", "ask", "soft.network-internal"],
    [
      "process",
      { action: "start", command: "nc internal.example 6379" },
      "allow",
      "ask",
      "exec.network-internal",
    ],
    [
      "execute_code",
      { language: "bash", code: "git clone https://internal.example/r.git" },
      "allow",
      "ask",
      "exec.network-internal",
    ],
    ["exec", { command: "curl https://example.com" }, "deny", "deny", "exec.network-denied"],
    ["exec", { command: "ls -la" }, "deny", "allow", undefined],
    ["exec", { command: "curl https://example.com" }, "restricted", "deny", "exec.network-restricted"],
    [
      "exec",
      { command: "rm -rf / && curl https://example.com" },
      "allow",
      "deny",
      "hard.recursive-delete-system",
    ],
  ] as const)("%s %j with network_policy %s → %s", async (tool, args, policy, verdict, rule) => {
    const assessment = await callGuard(policy).assess(tool, args, ctx);
    expect(assessment?.verdict).toBe(verdict);
    if (rule) expect(assessment?.rule).toBe(rule);
  });

  it("lets a restricted network reach a listed host", async () => {
    const assessment = await callGuard("restricted", ["example.com"]).assess(
      "exec",
      { command: "curl https://example.com/x" },
      ctx,
    );
    expect(assessment?.verdict).toBe("allow");
  });
});

describe("call guard: a workspace-only run's command path operands", () => {
  const fencedGuard = (execHost: "sandbox" | "local") =>
    callGuard("allow", [], {
      commandPaths: (command) => [...command.matchAll(/\/[^\s;|&<>]+/g)].map((m) => m[0]),
      execHost,
    });

  it("in the sandbox, /tmp is the sandbox's own private tmpfs: writing there is no path outside", async () => {
    const sandbox = fencedGuard("sandbox");
    expect((await sandbox.assess("exec", { command: "echo hi > /tmp/x.txt" }, ctx))?.verdict).not.toBe(
      "deny",
    );
    expect(
      (await sandbox.assess("exec", { command: "sort -o /tmp/out/sorted a.txt" }, ctx))?.verdict,
    ).not.toBe("deny");
  });

  it("a path that only starts in /tmp and climbs out, and /tmp on the local host, stay outside", async () => {
    const sandbox = fencedGuard("sandbox");
    expect(await sandbox.assess("exec", { command: "cat /tmp/../etc/passwd" }, ctx)).toMatchObject({
      verdict: "deny",
    });
    expect(await sandbox.assess("exec", { command: "cat /tmpfoo/x" }, ctx)).toMatchObject({
      verdict: "deny",
    });
    expect(await fencedGuard("local").assess("exec", { command: "echo hi > /tmp/x.txt" }, ctx)).toMatchObject(
      {
        verdict: "deny",
      },
    );
  });
});
