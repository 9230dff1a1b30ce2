import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isRunnerError } from "../shared/index.js";
import { loadConfig } from "./load.js";
import type { ConfigProblem } from "./problems.js";

/** Two models, one agent using one of them, and an MCP server: the base every case edits. */
const BASE = `
models:
  main: { provider: scripted, script: ./main.yaml }
  fast: { provider: scripted, script: ./fast.yaml }
tools:
  mcp:
    servers:
      ops: { command: ops-mcp }
`;

async function load(project: string) {
  const dir = await mkdtemp(join(tmpdir(), "echo-config-refs-"));
  const configPath = join(dir, "project.yaml");
  await writeFile(configPath, project);
  return loadConfig({ configPath, userConfigPath: null, env: {} });
}

async function problemsOf(project: string): Promise<ConfigProblem[]> {
  try {
    await load(project);
  } catch (err) {
    if (isRunnerError(err, "CONFIG_INVALID")) return err.data.problems as ConfigProblem[];
    throw err;
  }
  throw new Error("expected the config to be rejected");
}

const agent = (fields: string) =>
  `agents:\n  nightly: { model: main, task: "run the tests", workspace: /srv/repo, ${fields} }\n`;

describe("loading the config refuses every reference to something the config does not define", () => {
  it.each([
    [
      "an agent's model that is not in models",
      `${BASE}agents:\n  nightly: { model: mian, task: t, workspace: /srv }\n`,
      "agents.nightly.model",
      ['"mian"', "is not a model in models (defined: main, fast)"],
    ],
    [
      "an agent's model when no model is defined",
      "agents:\n  nightly: { model: main, task: t, workspace: /srv }\n",
      "agents.nightly.model",
      ['"main"', "(none is defined)"],
    ],
    [
      "a smart-approval model that is not in models",
      `${BASE}permissions:\n  approval: { smart_model: judge }\n`,
      "permissions.approval.smart_model",
      ['"judge"', "(defined: main, fast)", '"" for no smart approval'],
    ],
    [
      "a misspelt tool in tools.deny",
      `${BASE}  deny: [raed_file]\n`,
      "tools.deny.0",
      ['"raed_file"', "is not a tool in the catalog (did you mean read_file?)", "group:<section>"],
    ],
    [
      "a tool of an MCP server that is not configured, in tools.also_allow",
      `${BASE}  also_allow: [mcp__ghost__wipe]\n`,
      "tools.also_allow.0",
      ['names MCP server "ghost"', "configured: ops"],
    ],
    [
      "a prefix in tools.allow that matches no tool",
      `${BASE}  allow: ["zzz*"]\n`,
      "tools.allow.0",
      ['"zzz*"', "matches no tool in the catalog"],
    ],
    [
      "a misspelt tool in tools.deferred",
      `${BASE}  deferred: [web_fetc]\n`,
      "tools.deferred.0",
      ["did you mean web_fetch?"],
    ],
    [
      "a misspelt tool in an agent's allowed_tools",
      `${BASE}${agent("allowed_tools: [read_file, exce]")}`,
      "agents.nightly.allowed_tools.1",
      ['"exce"', "did you mean exec?"],
    ],
    [
      "an unknown group in an agent's allowed_tools",
      `${BASE}${agent("allowed_tools: [group:nope]")}`,
      "agents.nightly.allowed_tools.0",
      ['"group:nope" is not a tool group', "group:fs"],
    ],
    [
      "a misspelt tool in an agent's live_output_chars",
      `${BASE}${agent("live_output_chars: { exce: 12000 }")}`,
      "agents.nightly.live_output_chars.exce",
      ["is not a tool in the catalog"],
    ],
    [
      "a prefix in auto_approve, which compares exact names",
      `${BASE}permissions:\n  approval: { auto_approve: ["read_*"] }\n`,
      "permissions.approval.auto_approve.0",
      ['"read_*"', "exact, no * or group:"],
    ],
    [
      "a tool of an unconfigured MCP server in auto_approve",
      `${BASE}permissions:\n  approval: { auto_approve: [mcp__ghost__read] }\n`,
      "permissions.approval.auto_approve.0",
      ['names MCP server "ghost"'],
    ],
    [
      "a key of required_approvals that is neither a tool nor a risk level",
      `${BASE}approvers:\n  - { id: ann }\n  - { id: bob }\npermissions:\n  approval: { required_approvals: { exce: 2 } }\n`,
      "permissions.approval.required_approvals.exce",
      ["did you mean exec?", "read_only, write, exec, dangerous"],
    ],
    [
      "a tool in tools.credentials that is not in the catalog",
      `${BASE}  credentials: { wirte_file: { TOKEN: MY_TOKEN } }\n`,
      "tools.credentials.wirte_file",
      ["did you mean write_file?"],
    ],
    [
      "a safe bin the guard can never accept",
      `${BASE}  exec:\n    safe_bins:\n      awk: { flags: ["-F"] }\n`,
      "tools.exec.safe_bins.awk",
      ["awk runs code or writes files and can never be a safe bin", "SAFE_BINS.md"],
    ],
    [
      "a safe-bin profile with a flag both allowed and denied",
      `${BASE}  exec:\n    safe_bins:\n      column: { flags: ["-t"], denied_flags: ["-t"] }\n`,
      "tools.exec.safe_bins.column",
      ["-t is both allowed and denied"],
    ],
    [
      "a safe-bin profile whose operand limits contradict",
      `${BASE}  exec:\n    safe_bins:\n      column: { min_positional: 2, max_positional: 1 }\n`,
      "tools.exec.safe_bins.column",
      ["max_positional is smaller than min_positional"],
    ],
  ])("%s", async (_name, yaml, path, fragments) => {
    const problems = await problemsOf(yaml);
    const problem = problems.find((p) => p.path === path);
    expect(problem, JSON.stringify(problems)).toBeDefined();
    for (const fragment of fragments) expect(problem?.message).toContain(fragment);
    expect(problem?.origins.some((o) => o.endsWith("project.yaml"))).toBe(true);
  });

  it("reports every broken reference at once, not only the first", async () => {
    const problems = await problemsOf(
      `${BASE}  deny: [raed_file]\n  exec:\n    safe_bins:\n      awk: {}\n${agent("model: mian, allowed_tools: [exce]").replace("model: main, ", "")}permissions:\n  approval: { smart_model: judge }\n`,
    );
    expect(problems.map((p) => p.path).sort()).toEqual([
      "agents.nightly.allowed_tools.0",
      "agents.nightly.model",
      "permissions.approval.smart_model",
      "tools.deny.0",
      "tools.exec.safe_bins.awk",
    ]);
  });

  it("loads a config whose every reference resolves: catalog names, prefixes, groups, MCP tools, risk levels", async () => {
    const loaded = await load(
      `${BASE}  also_allow: [read_file, "web_*", group:fs, group:mcp:ops, mcp__ops__wipe, "mcp__ops__*"]
  deny: [cronjob]
  credentials: { write_file: { TOKEN: MY_TOKEN }, mcp__ops__wipe: { KEY: OPS_KEY } }
  exec:
    safe_bins:
      column: { flags: ["-t"], value_flags: ["-s"] }
approvers:
  - { id: ann }
  - { id: bob }
permissions:
  approval: { smart_model: fast, auto_approve: [read_file, mcp__ops__read], required_approvals: { dangerous: 2, exec: 2 } }
${agent('allowed_tools: [exec, "read_*", group:web, mcp__ops__wipe], live_output_chars: { exec: 12000 }')}`,
    );
    expect(loaded.config.agents.nightly?.model).toBe("main");
    expect(loaded.config.permissions.approval.smart_model).toBe("fast");
  });

  it('accepts smart_model "" (no smart approval) with no models defined', async () => {
    const loaded = await load("permissions:\n  approval: { smart_model: '' }\n");
    expect(loaded.config.permissions.approval.smart_model).toBe("");
  });
});
