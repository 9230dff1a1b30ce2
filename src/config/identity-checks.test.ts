import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isRunnerError, RunnerError } from "../shared/index.js";
import { loadConfig } from "./load.js";

/** Loads the built-in defaults + one project file written as YAML, with `env`, no real HOME. */
async function load(yaml: string, env: NodeJS.ProcessEnv = {}) {
  const dir = await mkdtemp(join(tmpdir(), "echo-identity-"));
  const configPath = join(dir, "project.yaml");
  await writeFile(configPath, yaml);
  return loadConfig({ configPath, userConfigPath: null, env });
}

async function problemsOf(yaml: string, env: NodeJS.ProcessEnv = {}) {
  try {
    await load(yaml, env);
  } catch (err) {
    if (!isRunnerError(err)) throw err;
    expect(err).toBeInstanceOf(RunnerError);
    expect(err.code).toBe("CONFIG_INVALID");
    return { message: err.message, problems: err.data.problems as { path: string; message: string }[] };
  }
  throw new Error("expected the config to be rejected");
}

const schedule = (owner: string, id = "nightly") =>
  `  - { id: ${id}, cron: "0 3 * * *", timezone: UTC, agent: a, overlap: skip, catch_up: none, jitter_seconds: 0, enabled: true, owner: "${owner}", authorized: false }\n`;
// A model of its own, so the reference checks (agent -> model) have nothing to say here.
const agents =
  "models:\n  m: { provider: scripted, script: ./m.yaml }\nagents:\n  a: { model: m, task: t, workspace: /tmp }\n";
const selfBarred = "permissions:\n  approval:\n    forbid_self_approval: true\n";

describe("config check refuses identities that are not one person each", () => {
  it.each([
    [
      "two approvers sharing a mailbox (case ignored)",
      "approvers:\n  - { id: ann, email: ops@example.test }\n  - { id: bob, email: OPS@Example.TEST }\n",
      "approvers.1.email",
      ['"OPS@Example.TEST"', 'approvers[0] ("ann")', "mailbox of their own"],
    ],
    [
      "an approver id with a Cyrillic а that reads as another approver's",
      'approvers:\n  - { id: anna }\n  - { id: "\u0430nna" }\n',
      "approvers.1.id",
      ['approvers[0] ("anna")', "UTS #39"],
    ],
    [
      "an approver id with a Greek ο and a digit 1 that reads as another's",
      'approvers:\n  - { id: bob.li }\n  - { id: "b\u03bfb.1i" }\n',
      "approvers.1.id",
      ['approvers[0] ("bob.li")', "allowed:"],
    ],
    [
      "a schedule owner that looks like an approver but is a different name",
      `approvers:\n  - { id: ann }\n  - { id: bob }\n${agents}schedules:\n${schedule("\u0430nn")}`,
      "schedules.0.owner",
      ['approver "ann"', "self-approval"],
    ],
    [
      "an operator that looks like an approver",
      'approvers:\n  - { id: ann }\noperator: "\u0430nn"\n',
      "operator",
      ['approver "ann"'],
    ],
    [
      "a schedule owner that is no approver while forbid_self_approval is on",
      `${selfBarred}approvers:\n  - { id: ann }\n  - { id: bob }\n  - { id: cy }\n${agents}schedules:\n${schedule("mallory")}`,
      "schedules.0.owner",
      ['"mallory"', "forbid_self_approval", 'allowed: "ann", "bob", "cy"'],
    ],
  ])("refuses %s, naming the key", async (_what, yaml, path, fragments) => {
    const { message, problems } = await problemsOf(yaml);
    const problem = problems.find((p) => p.path === path);
    expect(problem, `no problem at ${path}: ${message}`).toBeDefined();
    for (const fragment of fragments) expect(problem?.message).toContain(fragment);
    expect(message).toContain(path);
  });

  it.each([
    ["two approvers with different plain ids", "approvers:\n  - { id: ann }\n  - { id: carl }\n"],
    [
      "two different plain ids and owners on the list",
      `${selfBarred}approvers:\n  - { id: ann }\n  - { id: bob }\n${agents}schedules:\n${schedule("Ann")}`,
    ],
    [
      "an owner who is no approver while self-approval is allowed",
      `approvers:\n  - { id: ann }\n${agents}schedules:\n${schedule("ops-team")}`,
    ],
    [
      "approvers without email sharing nothing",
      "approvers:\n  - { id: ann }\n  - { id: bob, email: bob@example.test }\n",
    ],
  ])("accepts %s", async (_what, yaml) => {
    await expect(load(yaml)).resolves.toBeDefined();
  });
});

describe("config check refuses a quorum the listed approvers cannot reach", () => {
  it.each([
    [
      "more approvals than approvers",
      "permissions:\n  approval:\n    required_approvals: { exec: 3 }\napprovers:\n  - { id: ann }\n  - { id: bob }\n",
      "permissions.approval.required_approvals.exec",
      ["needs 3", "only 2 approver(s)", "at most 2"],
    ],
    [
      "N approvals of N approvers when the owner may not vote",
      `${selfBarred}    required_approvals: { dangerous: 2 }\napprovers:\n  - { id: ann }\n  - { id: bob }\n`,
      "permissions.approval.required_approvals.dangerous",
      ["needs 2", "forbid_self_approval is on", "at most 1"],
    ],
    [
      "a single approver barred from the runs of the schedule they own",
      `${selfBarred}approvers:\n  - { id: ann }\n${agents}schedules:\n${schedule("ann")}`,
      "permissions.approval.forbid_self_approval",
      ['only approver ("ann")', "nightly", "can only expire"],
    ],
  ])("refuses %s", async (_what, yaml, path, fragments) => {
    const { message, problems } = await problemsOf(yaml);
    const problem = problems.find((p) => p.path === path);
    expect(problem, `no problem at ${path}: ${message}`).toBeDefined();
    for (const fragment of fragments) expect(problem?.message).toContain(fragment);
  });

  it.each([
    [
      "N approvals of N approvers",
      "permissions:\n  approval:\n    required_approvals: { exec: 2 }\napprovers:\n  - { id: ann }\n  - { id: bob }\n",
    ],
    [
      "N - 1 approvals with the owner barred",
      `${selfBarred}    required_approvals: { exec: 2 }\napprovers:\n  - { id: ann }\n  - { id: bob }\n  - { id: cy }\n`,
    ],
  ])("accepts %s", async (_what, yaml) => {
    await expect(load(yaml)).resolves.toBeDefined();
  });
});

describe("config check refuses webhooks that point inside or carry links in the clear", () => {
  const messaging = (url: string, allow = "[]") =>
    `tools:\n  messaging:\n    webhooks:\n      ops: { url: "${url}", secret_env: "" }\nnotifications:\n  allow_internal_webhooks: ${allow}\n`;
  const chat = (hooks: string, allow = "[]") =>
    `approvers:\n${hooks}notifications:\n  allow_internal_webhooks: ${allow}\n`;

  it.each([
    ["loopback", "http://127.0.0.1:9000/hook", "range loopback"],
    ["an IPv4 loopback written as one number", "https://2130706433/hook", "127.0.0.1"],
    ["the IPv4 metadata service", "http://169.254.169.254/latest/meta-data", "cloud metadata"],
    ["the IPv6 metadata service", "http://[fd00:ec2::254]/", "cloud metadata"],
    ["GCP's metadata name", "http://metadata.google.internal/computeMetadata/v1", "cloud metadata"],
    ["a private address", "https://10.1.2.3/hook", "range private"],
    ["an IPv4-mapped IPv6 private address", "https://[::ffff:192.168.1.5]/hook", "192.168.1.5"],
    ["link-local IPv6", "https://[fe80::1]/hook", "range linkLocal"],
    ["a name under localhost", "https://hooks.localhost/x", "loopback"],
  ])("refuses a message webhook to %s", async (_what, url, fragment) => {
    const { problems } = await problemsOf(messaging(url));
    const problem = problems.find((p) => p.path === "tools.messaging.webhooks.ops.url");
    expect(problem?.message).toContain(fragment);
    expect(problem?.message).toContain("notifications.allow_internal_webhooks");
  });

  it.each([
    ["a public https URL", "https://hooks.example.com/x", "[]"],
    [
      "plain http to a public host (message webhooks carry no approval links)",
      "http://hooks.example.com/x",
      "[]",
    ],
    ["an allowed host", "http://10.1.2.3:8080/hook", "[10.1.2.3]"],
    ["an allowed host and port", "http://10.1.2.3:8080/hook", "['10.1.2.3:8080']"],
    ["an allowed exact URL", "http://127.0.0.1:9000/hook", "['http://127.0.0.1:9000/hook']"],
  ])("accepts %s", async (_what, url, allow) => {
    await expect(load(messaging(url, allow))).resolves.toBeDefined();
  });

  it("an allowed host with another port does not allow the webhook", async () => {
    const { problems } = await problemsOf(messaging("http://10.1.2.3:8080/hook", "['10.1.2.3:9090']"));
    expect(problems.map((p) => p.path)).toEqual(["tools.messaging.webhooks.ops.url"]);
  });

  it("refuses an allow entry that is neither a URL nor a host", async () => {
    const { problems } = await problemsOf(messaging("https://hooks.example.com/x", "['not a host']"));
    expect(problems[0]?.path).toBe("notifications.allow_internal_webhooks.0");
  });

  it.each([
    [
      "a personal chat webhook at a private address",
      "  - { id: ann, chat_webhooks: [{ format: slack, url_env: ANN_HOOK, personal: true }] }\n",
      { ANN_HOOK: "https://10.0.0.8/services/T/B/secret-path" },
      "approvers.0.chat_webhooks.0.url_env",
      ['"ANN_HOOK"', "range private"],
    ],
    [
      "a channel webhook over plain http (its message carries the /admin link)",
      "  - { id: ann, slack_webhook_env: OPS_HOOK }\n",
      { OPS_HOOK: "http://hooks.example.com/services/T/B/secret-path" },
      "approvers.0.slack_webhook_env",
      ["plain http", "approval links", "https"],
    ],
    [
      "two approvers whose different variables hold one personal webhook URL",
      "  - { id: ann, chat_webhooks: [{ format: slack, url_env: ANN_HOOK, personal: true }] }\n  - { id: bob, chat_webhooks: [{ format: slack, url_env: BOB_HOOK, personal: true }] }\n",
      {
        ANN_HOOK: "https://hooks.example.com/services/T/B/one",
        BOB_HOOK: "https://hooks.example.com/services/T/B/one",
      },
      "approvers.1.chat_webhooks.0.url_env",
      ['"BOB_HOOK"', 'ANN_HOOK of approvers[0] ("ann")', "chat identity"],
    ],
  ])("refuses %s, naming the key and never the URL", async (_what, hooks, env, path, fragments) => {
    const { message, problems } = await problemsOf(chat(hooks), env);
    const problem = problems.find((p) => p.path === path);
    expect(problem, `no problem at ${path}: ${message}`).toBeDefined();
    for (const fragment of fragments) expect(problem?.message).toContain(fragment);
    expect(message).not.toContain("/services/");
  });

  it("accepts approvers' chat webhooks over https to public hosts, an allowed internal host, and unset variables", async () => {
    const yaml = chat(
      "  - { id: ann, slack_webhook_env: OPS_HOOK, chat_webhooks: [{ format: json, url_env: ANN_HOOK, personal: true }] }\n  - { id: bob, slack_webhook_env: OPS_HOOK, chat_webhooks: [{ format: slack, url_env: BOB_HOOK, personal: true }] }\n",
      "['chat.internal']",
    );
    const env = {
      OPS_HOOK: "https://hooks.example.com/services/T/B/ops",
      ANN_HOOK: "http://chat.internal/ann",
    };
    await expect(load(yaml, env)).resolves.toBeDefined();
  });
});

describe("config check refuses Slack identities and escalation lists that do not name one person each", () => {
  const esc = (minutes: number, to: string) =>
    `permissions:\n  approval:\n    escalate_after_minutes: ${minutes}\n    escalate_to: ${to}\n`;
  it.each([
    [
      "two approvers sharing one Slack user id",
      "approvers:\n  - { id: ann, slack_user_id: U0ANN }\n  - { id: bob, slack_user_id: U0ANN }\n",
      "approvers.1.slack_user_id",
      ['approvers[0] ("ann")', "one approver only"],
    ],
    [
      "a Slack user id that is not a Slack member id",
      "approvers:\n  - { id: ann, slack_user_id: ann }\n",
      "approvers.0.slack_user_id",
      ["Slack member id"],
    ],
    [
      "an escalation to someone not on the approvers list",
      `${esc(30, "[carol]")}approvers:\n  - { id: ann }\n  - { id: bob }\n`,
      "permissions.approval.escalate_to.0",
      ['"carol" is not the id of any approver', 'allowed: "ann", "bob"'],
    ],
    [
      "an escalation to a look-alike of an approver",
      `${esc(30, '["\u0430nn"]')}approvers:\n  - { id: ann }\n`,
      "permissions.approval.escalate_to.0",
      ["is not the id of any approver"],
    ],
    [
      "an escalation time with nobody to tell",
      `${esc(30, "[]")}approvers:\n  - { id: ann }\n`,
      "permissions.approval.escalate_to",
      ["nobody would be told"],
    ],
    [
      "an escalation list that is never used",
      `${esc(0, "[ann]")}approvers:\n  - { id: ann }\n`,
      "permissions.approval.escalate_after_minutes",
      ["never"],
    ],
  ])("refuses %s, naming the key", async (_what, yaml, path, fragments) => {
    const { message, problems } = await problemsOf(yaml);
    const problem = problems.find((p) => p.path === path);
    expect(problem, `no problem at ${path}: ${message}`).toBeDefined();
    for (const fragment of fragments) expect(problem?.message).toContain(fragment);
  });

  it("accepts distinct Slack ids and an escalation to a listed approver", async () => {
    const { config } = await load(
      `${esc(30, "[carol]")}approvers:\n  - { id: ann, slack_user_id: U0ANN }\n  - { id: carol, slack_user_id: W0CAROL }\n`,
    );
    expect(config.permissions.approval.escalate_to).toEqual(["carol"]);
    expect(config.approvers[1]?.slack_user_id).toBe("W0CAROL");
  });
});
