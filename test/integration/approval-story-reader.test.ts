import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ApprovalStore } from "../../src/approvals/index.js";
import { storyTextLines } from "../../src/approvals/notify/story-message.js";
import { commandNamedPaths } from "../../src/guard/index.js";
import { execPlaceSection } from "../../src/http/pages/approval-story.js";
import { createCommandGuard } from "../../src/platform/index.js";
import { enqueueAgentRun } from "../../src/queue/index.js";
import { ApprovalStoryReader, RunInspector } from "../../src/runs/index.js";
import { agentQueue, testPayload } from "../helpers/agent-harness.js";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../helpers/test-redis.js";

/**
 * The story reader over real Redis and BullMQ jobs: a sub-agent's call names its parent run and the
 * parent's task; an exec call says where it runs; secrets are redacted as in the audit trail; long
 * texts are cut with a note; a run whose journal is gone says so instead of failing.
 */

const redis = testRedisClient();
const keyPrefix = uniquePrefix("storyread");
const queue = agentQueue(redis, keyPrefix);
const store = new ApprovalStore({
  redis,
  keyPrefix,
  policy: { waitTimeoutMs: 3_600_000, approvers: [{ id: "ann", email: "ann@example.test" }] },
});
const inspector = new RunInspector({ redis, keyPrefix, approvals: store, maxChars: 100_000 });

afterAll(async () => {
  await inspector.close();
  await queue.obliterate({ force: true });
  await queue.close();
  await deleteKeysWithPrefix(redis, keyPrefix);
  redis.disconnect();
});

describe("ApprovalStoryReader", () => {
  it("tells a sub-agent's exec call: parent run and task, working directory and host, secrets redacted, long text cut", async () => {
    const parent = testPayload({}, { task: "Triage the inbox; delegate the cleanup to a helper." });
    const child = testPayload(
      { parentExecutionId: parent.runId, depth: 1 },
      {
        task: `Clean up with Authorization: Bearer sk-live-abcdef0123456789 then report. ${"x".repeat(5000)}`,
        workspace: "/srv/agents/inbox",
      },
    );
    await enqueueAgentRun(queue, parent);
    await enqueueAgentRun(queue, child);
    const { record } = await store.register({
      runId: child.runId,
      jobId: child.runId,
      traceId: child.traceId,
      idempotencyKey: "key-1",
      tool: "exec",
      args: { command: "rm -rf cache", cwd: "tmp" },
      risk: "exec",
      reason: "recursive delete",
      agent: "helper",
      channel: "api",
      parentRunId: parent.runId,
    });
    const story = await new ApprovalStoryReader({ inspector, execHost: "local" }).read(record);
    expect(story.parent).toEqual({
      runId: parent.runId,
      task: "Triage the inbox; delegate the cleanup to a helper.",
    });
    expect(story.exec).toEqual({
      cwd: "/srv/agents/inbox/tmp",
      host: "local: this machine, as the runner's user, no sandbox",
    });
    expect(story.task).toContain("Bearer [REDACTED]");
    expect(story.task).not.toContain("sk-live");
    expect(story.task).toMatch(/\n… \(\d+ more characters cut; the approval page shows more\)$/);
    expect(story.task!.length).toBeLessThan(4200);
    expect(story.agentWords).toBeNull();
    expect(story.steps).toEqual([]);
    expect(story.notes.join(" ")).toContain("not in the journal");
  });

  it("says what exists now at each path an exec command names, read beneath the workspace", async () => {
    const workspace = await mkdtemp(join(tmpdir(), "story-paths-"));
    await mkdir(join(workspace, "drafts"));
    await writeFile(join(workspace, "drafts", "old.md"), "old");
    await writeFile(join(workspace, "notes.md"), "1234567");
    const run = testPayload({}, { task: "Tidy up.", workspace });
    await enqueueAgentRun(queue, run);
    const { record } = await store.register({
      runId: run.runId,
      jobId: run.runId,
      traceId: run.traceId,
      idempotencyKey: "key-paths",
      tool: "exec",
      args: {
        args: { command: "rm -rf drafts notes.md gone /etc/hosts" },
        execHost: "sandbox",
        workingDirectory: workspace,
      },
      risk: "exec",
      reason: "recursive delete",
      agent: "tidy",
      channel: "cron",
    });
    const guard = await createCommandGuard();
    const story = await new ApprovalStoryReader({
      inspector,
      execHost: "sandbox",
      namedPaths: async (command, max) => commandNamedPaths(guard.analyse(command), max),
    }).read(record);
    expect(story.exec?.paths).toEqual([
      { path: "drafts", state: "folder, 1 entry" },
      { path: "notes.md", state: "file, 7 bytes" },
      { path: "gone", state: "missing" },
      { path: "/etc/hosts", state: "outside the workspace (not read)" },
    ]);
    const text = storyTextLines(story).join("\n");
    expect(text).toContain(
      "What the command names holds now:\n  drafts: folder, 1 entry\n  notes.md: file, 7 bytes",
    );
    expect(execPlaceSection(story)).toContain("folder, 1 entry");
  });

  it("reads a call whose job is gone as a story with notes, and no exec place for other tools", async () => {
    const { record } = await store.register({
      runId: "run-gone",
      jobId: "run-gone",
      traceId: "trace-gone",
      idempotencyKey: "key-2",
      tool: "write_file",
      args: { path: "a.txt", content: "x" },
      risk: "write",
      reason: "write",
      agent: "a",
      channel: "api",
    });
    const story = await new ApprovalStoryReader({ inspector, execHost: "sandbox" }).read(record);
    expect(story).toMatchObject({ task: null, agentWords: null, steps: [], exec: null, parent: null });
    expect(story.notes.join(" ")).toContain("no longer kept");
  });
});
