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
const agents = "agents:\n  a: { model: m, task: t, workspace: /tmp }\n";
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
