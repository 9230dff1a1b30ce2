import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readAgentFile } from "../../src/cli/commands/run/run-agent-file.js";
import { readScheduleFile } from "../../src/cli/commands/schedules/schedules-file.js";
import { configScheduleEntry } from "../../src/cli/commands/schedules/schedules-shared.js";
import { loadConfig } from "../../src/config/index.js";
import { runLimitsFromConfig } from "../../src/runtime/run-limits-from-config.js";
import { parseSchedule } from "../../src/scheduler/index.js";
import { testPayload } from "../helpers/agent-harness.js";

/**
 * One schedule shape and one agent shape: a config schedule may leave out the policies, as a
 * schedule file may, and both get the scheduler's defaults; an agent file and a schedule file's
 * inline agent take every key a config agent takes, and its limits reach the run.
 */

const MODELS =
  "models:\n  main:\n    provider: openai\n    base_url: http://127.0.0.1:9/v1\n    model: m\n    api_key_env: K\n";

async function load(yaml: string) {
  const dir = await mkdtemp(join(tmpdir(), "echo-shapes-"));
  const path = join(dir, "echo.yaml");
  await writeFile(path, yaml);
  return { dir, loaded: await loadConfig({ configPath: path, userConfigPath: null, env: {} }) };
}

describe("schedule and agent shapes", () => {
  it("a config schedule without its policies gets the same defaults as one added from a file", async () => {
    const { dir, loaded } = await load(
      `${MODELS}agents:\n  nightly:\n    model: main\n    task: summarise\n    workspace: ws\nschedules:\n  - id: s1\n    cron: "0 2 * * *"\n    timezone: UTC\n    agent: nightly\n    owner: ann\n`,
    );
    const fromConfig = configScheduleEntry(loaded, 0, dir);
    expect(fromConfig.authorized).toBe(false);
    await writeFile(
      join(dir, "add.yaml"),
      'id: s1\ncron: "0 2 * * *"\ntimezone: UTC\nagent: nightly\nowner: ann\n',
    );
    const [fromFile] = await readScheduleFile("add.yaml", dir, loaded.config, () => "ann");
    const policies = (s: ReturnType<typeof parseSchedule>) => ({
      overlap: s.overlap,
      catchUp: s.catchUp,
      catchUpMax: s.catchUpMax,
      jitterSeconds: s.jitterSeconds,
      enabled: s.enabled,
      agent: s.agent,
    });
    const configured = policies(parseSchedule(fromConfig.schedule));
    expect(configured).toEqual(policies(parseSchedule(fromFile)));
    expect(configured).toMatchObject({ overlap: "skip", catchUp: "latest", jitterSeconds: 0, enabled: true });
  });

  it("an agent file takes every key a config agent takes, and its limits only tighten the config's", async () => {
    const { dir, loaded } = await load(
      `${MODELS}agents:\n  nightly:\n    model: main\n    task: t\n    workspace: ws\n    max_cost_usd: 2\n    max_wall_seconds: 600\n`,
    );
    const file = join(dir, "nightly.yaml");
    await writeFile(
      file,
      "model: main\ntask: check the logs\nworkspace: ws\ncontext_budget: 4000\nmax_cost_usd: 5\nmax_wall_seconds: 60\nlive_output_chars:\n  exec: 900\n",
    );
    const { agentId, spec } = await readAgentFile(file, loaded.config);
    expect(agentId).toBe("nightly");
    expect(spec.limits).toEqual({
      contextBudget: 4000,
      maxCostUsd: 5,
      maxWallSeconds: 60,
      liveOutputChars: { exec: 900 },
    });
    const limits = runLimitsFromConfig(loaded.config, testPayload({ agentId }, spec));
    expect(limits.contextBudget).toBe(4000);
    expect(limits.liveOutputChars).toEqual({ exec: 900 });
    // The config's 2 USD stays (the file cannot loosen it); the file's 60 s tightens the config's 600.
    expect(limits.budget).toMatchObject({ maxCostUsd: 2, maxWallSeconds: 60 });
  });

  it("an inline agent of a schedule file takes the config agent's keys too", async () => {
    const { dir, loaded } = await load(MODELS);
    await writeFile(
      join(dir, "add.yaml"),
      'id: s2\ncron: "0 3 * * *"\ntimezone: UTC\nagent:\n  model: main\n  task: t\n  workspace: ws\n  max_input_tokens: 9000\n',
    );
    const [input] = await readScheduleFile("add.yaml", dir, loaded.config, () => "ann");
    expect(parseSchedule(input).agent.limits).toEqual({ maxInputTokens: 9000 });
  });
});
