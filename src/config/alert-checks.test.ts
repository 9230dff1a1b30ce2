import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isRunnerError } from "../shared/index.js";
import { loadConfig } from "./load.js";
import type { ConfigProblem } from "./problems.js";

async function load(project: string, env: NodeJS.ProcessEnv = {}) {
  const dir = await mkdtemp(join(tmpdir(), "echo-config-alerts-"));
  const configPath = join(dir, "project.yaml");
  await writeFile(configPath, project);
  return loadConfig({ configPath, userConfigPath: null, env });
}

async function problemsOf(project: string, env: NodeJS.ProcessEnv = {}): Promise<ConfigProblem[]> {
  try {
    await load(project, env);
  } catch (err) {
    if (isRunnerError(err, "CONFIG_INVALID")) return err.data.problems as ConfigProblem[];
    throw err;
  }
  throw new Error("expected the config to be rejected");
}

const APPROVERS = "approvers:\n  - { id: ann, email: ann@example.test }\n  - { id: bob }\n";

describe("alerts: in the config", () => {
  it("has every default from config/default.yaml", async () => {
    const { config } = await load("");
    expect(config.alerts).toEqual({
      on: ["run_failed", "call_expired", "schedule_failing", "schedule_missed"],
      owner: true,
      approvers: [],
      chat_webhooks: [],
      schedule_failures: 3,
      gather_seconds: 10,
      digest_window_seconds: 300,
    });
  });

  it("accepts a listed approver with an email, compared as identities are", async () => {
    const { config } = await load(`${APPROVERS}alerts: { approvers: [ANN] }\n`);
    expect(config.alerts.approvers).toEqual(["ANN"]);
  });

  it.each([
    [
      "a name that is no approvers entry",
      `${APPROVERS}alerts: { approvers: [anne] }\n`,
      "alerts.approvers.0",
      '"anne" is not an entry of approvers (defined: ann, bob)',
    ],
    [
      "an approver without an email",
      `${APPROVERS}alerts: { approvers: [ann, bob] }\n`,
      "alerts.approvers.1",
      '"bob" has no email in approvers',
    ],
    ["an unknown kind", "alerts: { on: [run_failed, run_slow] }\n", "alerts.on.1", "run_failed"],
    ["a streak of 0", "alerts: { schedule_failures: 0 }\n", "alerts.schedule_failures", ""],
    ["an unknown key", "alerts: { ownr: true }\n", "alerts.ownr", "allowed keys here: on, owner"],
    [
      "a chat webhook in an unknown format",
      "alerts: { chat_webhooks: [{ format: discord, url_env: HOOK }] }\n",
      "alerts.chat_webhooks.0.format",
      "slack",
    ],
  ])("refuses %s, naming the key path", async (_what, project, path, words) => {
    const problems = await problemsOf(project);
    const problem = problems.find((p) => p.path === path);
    expect(problem, JSON.stringify(problems)).toBeDefined();
    expect(problem?.message).toContain(words);
  });

  const HOOK = "alerts: { chat_webhooks: [{ format: json, url_env: ALERT_HOOK }] }\n";

  it("refuses an alert webhook to an internal address, naming its variable's key, not its URL", async () => {
    const url = "http://127.0.0.1:9/secret-path";
    const problems = await problemsOf(HOOK, { ALERT_HOOK: url });
    const problem = problems.find((p) => p.path === "alerts.chat_webhooks.0.url_env");
    expect(problem?.message).toContain("allow_internal_webhooks");
    expect(JSON.stringify(problems)).not.toContain("secret-path");
  });

  it("accepts that webhook once notifications.allow_internal_webhooks lists its host", async () => {
    const { config } = await load(`${HOOK}notifications: { allow_internal_webhooks: ["127.0.0.1:9"] }\n`, {
      ALERT_HOOK: "http://127.0.0.1:9/secret-path",
    });
    expect(config.alerts.chat_webhooks).toEqual([{ format: "json", url_env: "ALERT_HOOK" }]);
  });
});
