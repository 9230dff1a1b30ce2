import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { testRedisClient } from "../../../../test/helpers/test-redis.js";
import { TOOL_CATALOG } from "../../../catalog/index.js";
import { loadConfig } from "../../../config/index.js";
import { createLogger } from "../../../logging/index.js";
import { hostPolicyFromConfig, mcpServersFromConfig, toolRegistryFor } from "../../../runtime/index.js";
import { bufferIo } from "../../buffer-io.fixture.js";
import { type ToolRow, toolsListCommand } from "./tools-list.js";

const ROOT = resolve(import.meta.dirname, "../../../..");

/** A project config file in a fresh directory; HOME points there too so no user config leaks in. */
async function project(yaml: string) {
  const dir = await mkdtemp(join(tmpdir(), "echo-tools-list-"));
  const path = join(dir, "echo.yaml");
  await writeFile(path, yaml);
  return { dir, path, env: { HOME: dir, PATH: process.env.PATH ?? "" } };
}

async function listJson(yaml: string, extra: string[] = []): Promise<ToolRow[]> {
  const { dir, path, env } = await project(yaml);
  const out = bufferIo("", env, dir);
  expect(await toolsListCommand.run(["--config", path, "--json", ...extra], out.io)).toBe(0);
  return JSON.parse(out.stdout()) as ToolRow[];
}

describe("echo-runner tools list", () => {
  it("lists every catalog tool with risk, capabilities, profiles and readiness", async () => {
    const rows = await listJson("tools:\n  exec:\n    host: local\n");
    expect(rows.map((r) => r.name)).toEqual(TOOL_CATALOG.map((e) => e.name));
    const by = new Map(rows.map((r) => [r.name, r]));
    expect(by.get("web_fetch")).toEqual({
      name: "web_fetch",
      section: "web",
      risk: "read_only",
      capabilities: ["network.outbound"],
      profiles: ["minimal", "messaging", "coding", "full"],
      status: "ready",
      reason: "ready",
    });
    expect(by.get("web_search")).toMatchObject({
      status: "not_ready",
      reason: "no search provider is configured (tools.web.search.provider is none)",
    });
    expect(by.get("notify")).toMatchObject({
      status: "not_ready",
      reason: "no message channel is configured (smtp.host or tools.messaging.webhooks)",
    });
    expect(by.get("skill_install")).toMatchObject({
      risk: "dangerous",
      profiles: ["full"],
      capabilities: ["skill.install", "network.outbound", "fs.write"],
      status: "not_ready",
    });
    expect(by.get("agents_list")).toMatchObject({
      status: "reserved",
      reason: "declared in the catalog, never callable",
    });
    expect(by.get("read_file")).toMatchObject({ status: "ready" });
    expect(by.get("knowledge_search")).toMatchObject({ status: "ready" });
    expect(by.get("tool_search")).toMatchObject({ status: "ready" });
  });

  it("shows notify ready once SMTP is configured, and exec not ready on a remote exec host", async () => {
    const rows = await listJson('smtp:\n  host: "127.0.0.1"\ntools:\n  exec:\n    host: remote\n');
    const by = new Map(rows.map((r) => [r.name, r]));
    expect(by.get("notify")).toMatchObject({ status: "ready", reason: "delivers by email" });
    expect(by.get("exec")?.status).toBe("not_ready");
  });

  it("prints a table with a status summary", async () => {
    const { dir, path, env } = await project("{}\n");
    const out = bufferIo("", env, dir);
    expect(await toolsListCommand.run(["--config", path], out.io)).toBe(0);
    const text = out.stdout();
    expect(text).toMatch(/^SECTION\s+TOOL\s+RISK\s+PROFILES\s+CAPABILITIES\s+STATUS/);
    expect(text).toMatch(
      /web\s+web_search\s+read_only\s+minimal,messaging,coding,full\s+network\.outbound\s+not ready: no search provider/,
    );
    expect(text).toMatch(
      /\n\d+ tools: \d+ ready, \d+ not ready, \d+ disabled, 2 reserved, \d+ not implemented\n$/,
    );
  });

  it("with --mcp connects to the configured servers and lists their tools and failures", async () => {
    const yaml = [
      "tools:",
      "  mcp:",
      "    servers:",
      "      fixture:",
      `        command: ${JSON.stringify(process.execPath)}`,
      `        args: [${JSON.stringify(join(ROOT, "bin/run-ts.js"))}, ${JSON.stringify(join(ROOT, "test/fixtures/mcp/echo-server.ts"))}]`,
      "      gone:",
      `        command: ${JSON.stringify(join(ROOT, "test/fixtures/mcp/no-such-server"))}`,
      "",
    ].join("\n");
    const rows = await listJson(yaml, ["--mcp"]);
    const by = new Map(rows.map((r) => [r.name, r]));
    expect(by.get("mcp__fixture__echo")).toMatchObject({
      section: "mcp",
      risk: "read_only",
      capabilities: ["mcp.call"],
      profiles: ["full"],
      status: "ready",
    });
    expect(by.get("mcp__fixture__add_note")).toMatchObject({ risk: "exec", status: "ready" });
    expect(by.get("mcp__gone__*")).toMatchObject({
      status: "not_ready",
      reason: expect.stringContaining('MCP server "gone" is not available'),
    });
  }, 30_000);

  it("shows exactly the tools a worker registers from the same config, with their readiness", async () => {
    const yaml = [
      "tools:",
      "  web:",
      "    search: { provider: brave, endpoint: '', api_key_env: SEARCH_KEY_T }",
      "  skills: { dir: skills }",
      "  messaging:",
      "    allowed_recipients: ['webhook:ops']",
      "    webhooks: { ops: { url: 'https://hooks.example/ops', secret_env: '' } }",
      "    notify_webhook: ops",
      "",
    ].join("\n");
    const { dir, path, env } = await project(yaml);
    const out = bufferIo("", env, dir);
    expect(await toolsListCommand.run(["--config", path, "--json"], out.io)).toBe(0);
    const rows = JSON.parse(out.stdout()) as ToolRow[];
    const redis = testRedisClient();
    const logger = createLogger({ level: "silent", format: "json" });
    const { config } = await loadConfig({ configPath: path, userConfigPath: null, env });
    const worker = await toolRegistryFor({ config, logger, env, redis, baseDir: dir, protectedPaths: [] });
    try {
      const registered = worker.registry.all();
      const listed = rows.filter((r) => r.status !== "reserved" && r.status !== "not_implemented");
      expect(listed.map((r) => r.name).sort()).toEqual(registered.map((t) => t.name).sort());
      for (const tool of registered) {
        const readiness = tool.readinessDetail();
        const row = rows.find((r) => r.name === tool.name);
        expect([tool.name, row?.status === "not_ready" ? false : readiness.ready]).toEqual([
          tool.name,
          readiness.ready,
        ]);
        if (!readiness.ready) expect(row?.reason).toBe(readiness.detail);
      }
      const by = new Map(rows.map((r) => [r.name, r]));
      // Run tools that only the worker built before: present in the list now.
      for (const name of ["delegate_task", "spawn_task", "task", "workflow", "clarify", "session_search"])
        expect(by.get(name)?.status).toBe("ready");
      expect(by.get("web_search")).toMatchObject({
        status: "not_ready",
        reason:
          "SEARCH_KEY_T is not set (API key of the brave search provider, tools.web.search.api_key_env)",
      });
      expect(by.get("notify")).toMatchObject({ status: "ready", reason: "delivers by webhook" });
      // The relative skills dir is read from the config file's folder (which has no skills/ yet).
      expect(by.get("skills_list")?.reason).toContain(join(dir, "skills"));
    } finally {
      await worker.close();
      redis.disconnect();
    }
  });

  it("rejects an unknown option", async () => {
    const { dir, env } = await project("{}\n");
    await expect(toolsListCommand.run(["--bogus"], bufferIo("", env, dir).io)).rejects.toThrow(/bogus/);
  });
});

describe("config mapping", () => {
  it.each<[string, string, string | undefined]>([
    ["allow", "anything.example", undefined],
    ["deny", "api.example.com", "api.example.com cannot be contacted: execution.network_policy is deny"],
    ["restricted", "api.example.com", undefined],
    [
      "restricted",
      "other.example",
      "other.example is not in execution.allowed_hosts (execution.network_policy is restricted)",
    ],
  ])("network_policy %s judges %s", (policy, host, expected) => {
    const config = { execution: { network_policy: policy, allowed_hosts: ["api.example.com"] } };
    expect(hostPolicyFromConfig(config as never)(host)).toBe(expected);
  });

  it("resolves MCP secrets from the environment and fails naming a missing one", () => {
    const config = {
      tools: {
        mcp: {
          servers: {
            a: { command: "srv", env_from: { API_KEY: "A_KEY" }, risk: "write" },
            b: { url: "https://mcp.example/mcp", token_env: "B_TOKEN" },
          },
        },
      },
    };
    expect(mcpServersFromConfig(config as never, { A_KEY: "k", B_TOKEN: "t" })).toEqual({
      a: { command: "srv", args: [], env: { API_KEY: "k" }, risk: "write" },
      b: { url: "https://mcp.example/mcp", token: "t" },
    });
    expect(() => mcpServersFromConfig(config as never, { A_KEY: "k" })).toThrow(/B_TOKEN/);
  });
});
