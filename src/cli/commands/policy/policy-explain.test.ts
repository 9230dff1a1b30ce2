import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isRunnerError } from "../../../shared/index.js";
import { bufferIo } from "../../buffer-io.fixture.js";
import { runCli } from "../../run-cli.js";
import { explainInputFromConfig } from "./explain-input.js";
import { policyExplainCommand } from "./policy-explain.js";

/** A project config file in a fresh directory; HOME points there too so no user config leaks in. */
async function project(yaml: string) {
  const dir = await mkdtemp(join(tmpdir(), "echo-policy-explain-"));
  const path = join(dir, "echo.yaml");
  await writeFile(path, yaml);
  return { dir, path, env: { HOME: dir } };
}

const DAEMON =
  "security:\n  profile: daemon\nexecution:\n  network_policy: allow\ntools:\n  deny: [cronjob]\n";

describe("echo-runner policy explain", () => {
  it("prints each layer's verdict with its reason and exits 1 when a layer removes the tool", async () => {
    const { dir, path, env } = await project(DAEMON);
    const out = bufferIo("", env, dir);
    const code = await policyExplainCommand.run(["exec", "--config", path], out.io);
    const text = out.stdout();
    expect(code).toBe(1);
    expect(text).toContain('Tool "exec" (catalog tool, section runtime)');
    expect(text).toContain("risk:         exec (static exec, declared none)");
    expect(text).toMatch(/KEEP\s+catalog\s+catalog tool, section runtime/);
    expect(text).toMatch(
      /REMOVE\s+security_profile=daemon\s+Tool "exec" removed by layer security_profile=daemon: capability process\.exec is denied/,
    );
    expect(text).toMatch(/SKIP\s+deferred_loading/);
    expect(text).toContain("Result: not available — removed by layer security_profile=daemon");
    expect(text).toContain("Approval gate: not evaluated");
  });

  it("names the config file whose deny removed the tool", async () => {
    const { dir, path, env } = await project(DAEMON);
    const out = bufferIo("", env, dir);
    expect(await policyExplainCommand.run(["cronjob", "--config", path], out.io)).toBe(1);
    expect(out.stdout()).toMatch(
      /REMOVE\s+deny\s+Tool "cronjob" removed by layer deny: it is denied by tools.deny "cronjob"/,
    );
    expect(out.stdout()).toContain(path);
  });

  it("exits 0 for an available tool and applies --mode", async () => {
    const { dir, path, env } = await project(DAEMON);
    const full = bufferIo("", env, dir);
    expect(
      await policyExplainCommand.run(["write_file", "--config", path, "--mode", "workspace"], full.io),
    ).toBe(0);
    expect(full.stdout()).toContain("Result: available (sent to the model)");
    expect(full.stdout()).toContain("session:      workspace (exec mode auto)");
    expect(full.stdout()).toContain("paths:        workspace-only:");
    const readOnly = bufferIo("", env, dir);
    expect(
      await policyExplainCommand.run(["write_file", "--config", path, "--mode", "read-only"], readOnly.io),
    ).toBe(1);
    expect(readOnly.stdout()).toContain("removed by layer session_mode=read-only");
  });

  it("prints the same explanation as JSON with --json", async () => {
    const { dir, path, env } = await project(DAEMON);
    const out = bufferIo("", env, dir);
    expect(await policyExplainCommand.run(["exec", "--config", path, "--json"], out.io)).toBe(1);
    const report = JSON.parse(out.stdout());
    expect(report).toMatchObject({
      tool: "exec",
      kind: "catalog",
      outcome: "removed",
      removedBy: { layer: "security_profile", label: "security_profile=daemon" },
      risk: { level: "exec", staticRisk: "exec" },
      gate: { evaluated: false, steps: [] },
    });
    expect(report.layers.map((l: { layer: string }) => l.layer)).toEqual([
      "catalog",
      "profile",
      "deny",
      "security_profile",
      "network_policy",
      "session_mode",
      "job_subset",
      "tool_state",
      "deferred_loading",
    ]);
  });

  it("explains one call with --args: a child handed exec makes spawn_task unavailable under daemon", async () => {
    const { dir, path, env } = await project(DAEMON);
    const listed = bufferIo("", env, dir);
    expect(await policyExplainCommand.run(["spawn_task", "--config", path], listed.io)).toBe(0);
    const call = bufferIo("", env, dir);
    const code = await policyExplainCommand.run(
      ["spawn_task", "--config", path, "--args", '{"task":"t","allowed_tools":["exec"]}'],
      call.io,
    );
    expect(code).toBe(1);
    expect(call.stdout()).toContain("for the given arguments");
    expect(call.stdout()).toContain("capabilities: agent.dispatch, process.exec");
  });

  it("treats a configured MCP server's tool without a declared risk as exec", async () => {
    const { dir, path, env } = await project(
      "tools:\n  profile: full\n  mcp:\n    servers:\n      slack:\n        command: slack-mcp\nsecurity:\n  profile: personal_cli\n",
    );
    const out = bufferIo("", env, dir);
    await policyExplainCommand.run(["mcp__slack__send", "--config", path, "--json"], out.io);
    const report = JSON.parse(out.stdout());
    expect(report).toMatchObject({
      kind: "external",
      present: true,
      risk: { level: "exec" },
      capabilities: ["mcp.call"],
    });
  });

  it.each([
    [["exec", "--mode", "yolo"], "--mode must be one of full, workspace, guarded, read-only"],
    [["exec", "--args", "{nope"], "--args is not valid JSON"],
    [["exec", "--args", "[1]"], "--args must be a JSON object"],
    [[], "expected exactly one tool name, got 0"],
  ])("rejects %j as a usage error naming what is allowed", async (args, message) => {
    const out = bufferIo();
    let caught: unknown;
    try {
      await policyExplainCommand.run(args, out.io);
    } catch (err) {
      caught = err;
    }
    expect(isRunnerError(caught, "CLI_USAGE")).toBe(true);
    expect((caught as Error).message).toContain(message);
  });

  it("is reachable through the CLI and exits 2 on a usage error", async () => {
    const { dir, env } = await project("");
    const out = bufferIo("", env, dir);
    expect(await runCli(["policy", "explain", "exec", "--mode", "yolo"], out.io)).toBe(2);
    expect(out.stderr()).toContain("CLI_USAGE");
  });
});

describe("explainInputFromConfig", () => {
  const config = {
    tools: {
      profile: "coding",
      allow: [],
      also_allow: ["exec"],
      deny: ["cronjob"],
      deferred: ["web_*"],
      restrict_to_workspace: true,
      mcp: { servers: { ops: { command: "ops-mcp", risk: "dangerous" } } },
    },
    security: { profile: "daemon" },
    execution: { network_policy: "restricted", allowed_hosts: ["api.example.com"], session_mode: "guarded" },
  } as unknown as Parameters<typeof explainInputFromConfig>[0]["config"];
  const origins = new Map([["tools.deny", ["default.yaml", "project.yaml"]]]);

  it("maps the config keys onto the policy input and labels each list with its sources", () => {
    const input = explainInputFromConfig({ config, origins });
    expect(input).toMatchObject({
      profile: "coding",
      securityProfile: "daemon",
      networkPolicy: "restricted",
      allowedHosts: ["api.example.com"],
      sessionMode: "guarded",
      restrictToWorkspace: true,
      deferred: ["web_*"],
      jobSubsets: [],
    });
    expect(input.lists).toContainEqual({ label: "default.yaml, project.yaml", deny: ["cronjob"] });
  });

  it("takes the stricter of the configured session mode and --mode, as a run would", () => {
    expect(explainInputFromConfig({ config, origins }, { sessionMode: "read-only" }).sessionMode).toBe(
      "read-only",
    );
    expect(explainInputFromConfig({ config, origins }, { sessionMode: "full" }).sessionMode).toBe("guarded");
  });

  it("adds a configured server's external tool with the server's declared risk, and no unconfigured one", () => {
    const withOps = explainInputFromConfig({ config, origins }, { tool: "mcp__ops__deploy" });
    expect(withOps.tools.find((t) => t.name === "mcp__ops__deploy")?.declaredRisk).toBe("dangerous");
    const without = explainInputFromConfig({ config, origins }, { tool: "mcp__other__x" });
    expect(without.tools.some((t) => t.name.startsWith("mcp__"))).toBe(false);
  });
});
