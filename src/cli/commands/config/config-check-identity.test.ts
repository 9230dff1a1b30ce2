import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bufferIo } from "../../buffer-io.fixture.js";
import { runCli } from "../../run-cli.js";

/** A config with one of each identity problem the config checks catch (the owner's `а` is Cyrillic). */
const CONFIG = `permissions:
  approval:
    forbid_self_approval: true
    required_approvals: { exec: 2 }
approvers:
  - { id: ann, email: ops@example.test }
  - { id: bob, email: OPS@example.test, chat_webhooks: [{ format: slack, url_env: BOB_HOOK, personal: true }] }
tools:
  messaging:
    webhooks:
      meta: { url: "http://169.254.169.254/latest", secret_env: "" }
agents:
  a: { model: m, task: t, workspace: /tmp }
schedules:
  - { id: nightly, cron: "0 3 * * *", timezone: UTC, agent: a, overlap: skip, catch_up: none, jitter_seconds: 0, enabled: true, owner: "\u0430nn", authorized: false }
`;

const KEYS = [
  "approvers.1.email",
  "schedules.0.owner",
  "permissions.approval.required_approvals.exec",
  "tools.messaging.webhooks.meta.url",
];

async function setup(): Promise<{ dir: string; path: string }> {
  const dir = await mkdtemp(join(tmpdir(), "echo-cli-identity-"));
  const path = join(dir, "echo.yaml");
  await writeFile(path, CONFIG);
  return { dir, path };
}

describe("echo-runner config check and doctor refuse identity problems", () => {
  it("config check exits 2 naming each key: shared mailbox, look-alike owner, unreachable quorum, metadata webhook", async () => {
    const { dir, path } = await setup();
    const out = bufferIo("", { HOME: dir }, dir);
    expect(await runCli(["config", "check", "--config", path], out.io)).toBe(2);
    for (const key of KEYS) expect(out.stderr()).toContain(`- ${key}:`);
    expect(out.stderr()).toContain("UTS #39");
    expect(out.stderr()).toContain("cloud metadata");
  });

  it("config check names a personal chat webhook over plain http by its key, not its URL", async () => {
    const { dir, path } = await setup();
    const env = { HOME: dir, BOB_HOOK: "http://chat.example.com/hooks/secret-part" };
    const out = bufferIo("", env, dir);
    // The URL variables are read once the config itself is valid.
    await writeFile(
      path,
      "approvers:\n  - { id: ann }\n  - { id: bob, chat_webhooks: [{ format: slack, url_env: BOB_HOOK, personal: true }] }\n",
    );
    expect(await runCli(["config", "check", "--config", path, "--json"], out.io)).toBe(2);
    const report = JSON.parse(out.stdout());
    expect(report.problems.map((p: { path: string }) => p.path)).toContain(
      "approvers.1.chat_webhooks.0.url_env",
    );
    expect(out.stdout()).not.toContain("secret-part");
  });

  it("doctor fails its config check with the same keys", async () => {
    const { dir, path } = await setup();
    const out = bufferIo("", { HOME: dir }, dir);
    expect(await runCli(["doctor", "--config", path], out.io)).toBe(1);
    for (const key of KEYS) expect(out.stdout()).toContain(key);
  });
});
