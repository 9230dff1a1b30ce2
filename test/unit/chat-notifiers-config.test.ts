import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { loadConfig } from "../../src/config/index.js";
import { chatNotifiersFromConfig } from "../../src/runtime/index.js";
import { isRunnerError } from "../../src/shared/index.js";

async function load(project: Record<string, unknown>) {
  const dir = await mkdtemp(join(tmpdir(), "echo-chatcfg-"));
  const path = join(dir, "echo.yaml");
  await writeFile(path, stringify(project));
  return loadConfig({ configPath: path, userConfigPath: null, env: {} });
}

describe("approvers' chat webhooks from config", () => {
  it("builds one channel notifier per webhook however many approvers list it, and one personal notifier", async () => {
    const { config } = await load({
      approvers: [
        {
          id: "ann",
          email: "ann@example.test",
          slack_webhook_env: "OPS_SLACK",
          chat_webhooks: [{ format: "slack", url_env: "ANN_SLACK", personal: true }],
        },
        { id: "bob", email: "bob@example.test", slack_webhook_env: "OPS_SLACK" },
        { id: "cy", email: "cy@example.test", chat_webhooks: [{ format: "teams", url_env: "OPS_TEAMS" }] },
      ],
    });
    expect(config.notifications.digest_window_seconds).toBe(60);
    const notifiers = chatNotifiersFromConfig(config, {
      OPS_SLACK: "https://hooks.slack.test/a",
      ANN_SLACK: "https://hooks.slack.test/ann",
      OPS_TEAMS: "https://teams.test/hook",
    });
    expect(notifiers.map((n) => [n.name, n.scope])).toEqual([
      ["slack:OPS_SLACK", "per_request"],
      ["slack-personal:ANN_SLACK", "per_approver"],
      ["teams:OPS_TEAMS", "per_request"],
    ]);
    const personal = notifiers[1]!;
    expect(personal.reaches({ id: "ann", email: null })).toBe(true);
    expect(personal.reaches({ id: "bob", email: null })).toBe(false);
  });

  it("fails at start when a webhook's variable is not set", async () => {
    const { config } = await load({
      approvers: [{ id: "ann", email: "ann@example.test", slack_webhook_env: "OPS_SLACK" }],
    });
    let error: unknown;
    try {
      chatNotifiersFromConfig(config, {});
    } catch (err) {
      error = err;
    }
    expect(isRunnerError(error) && error.code).toBe("CONFIG_SECRET_MISSING");
    expect((error as Error).message).toContain("OPS_SLACK");
  });

  it.each([
    [
      "declared personal by two approvers",
      [
        {
          id: "ann",
          email: "a@x.test",
          chat_webhooks: [{ format: "slack", url_env: "HOOK", personal: true }],
        },
        {
          id: "bob",
          email: "b@x.test",
          chat_webhooks: [{ format: "slack", url_env: "HOOK", personal: true }],
        },
      ],
    ],
    [
      "personal for one approver and a channel for another",
      [
        {
          id: "ann",
          email: "a@x.test",
          chat_webhooks: [{ format: "slack", url_env: "HOOK", personal: true }],
        },
        { id: "bob", email: "b@x.test", slack_webhook_env: "HOOK" },
      ],
    ],
  ])("refuses a personal webhook %s (its link would reach others)", async (_what, approvers) => {
    await expect(load({ approvers })).rejects.toThrow(
      /declared personal: it may belong to one approver only/,
    );
  });

  it("refuses an unknown format, naming the allowed ones", async () => {
    await expect(
      load({
        approvers: [{ id: "ann", email: "a@x.test", chat_webhooks: [{ format: "discord", url_env: "H" }] }],
      }),
    ).rejects.toThrow(/slack.*teams.*json/);
  });
});
