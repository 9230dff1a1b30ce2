import { describe, expect, it } from "vitest";
import { callTool } from "../../../test/helpers/tool-call.js";
import {
  createSessionSearchTool,
  type SessionArchive,
  type SessionSummary,
  type TranscriptEntry,
} from "./session-search.js";

/** An archive over fixed transcripts; it lists another user's run too, which the tool must drop. */
function archive(): SessionArchive {
  const runs: SessionSummary[] = [
    { runId: "past-1", userId: "alice", agentId: "triage", startedAt: Date.UTC(2025, 0, 1) },
    { runId: "past-2", userId: "alice", agentId: "report", startedAt: Date.UTC(2025, 0, 2) },
    { runId: "run-bob", userId: "bob", agentId: "triage", startedAt: Date.UTC(2025, 0, 3) },
  ];
  const transcripts: Record<string, TranscriptEntry[]> = {
    "past-1": [
      { role: "user", text: "Triage the inbox" },
      { role: "assistant", text: "Three invoices from Acme are overdue." },
    ],
    "past-2": [{ role: "tool", tool: "web_fetch", text: "Quarterly revenue grew by twelve percent." }],
    "run-bob": [{ role: "assistant", text: "Bob's private invoices from Acme." }],
  };
  return {
    runsVisibleTo: async () => runs,
    transcript: async (_userId, runId) => transcripts[runId] ?? [],
  };
}

describe("session_search", () => {
  it("finds messages in the user's own past runs with run, agent and date", async () => {
    const result = await callTool(createSessionSearchTool(archive()), { query: "acme invoices" });
    expect(result.success).toBe(true);
    expect(result.output).toBe(
      "1. run past-1 (agent triage, 2025-01-01T00:00:00.000Z) assistant:\nThree invoices from Acme are overdue.",
    );
  });

  it("never returns another user's run, even when the archive lists it", async () => {
    const result = await callTool(createSessionSearchTool(archive()), { query: "private" });
    expect(result.output).toBe('No past run of yours mentions "private" (2 runs searched).');
  });

  it("skips the current run and filters by agent", async () => {
    const tool = createSessionSearchTool(archive());
    expect((await callTool(tool, { query: "acme" }, { executionId: "past-1" })).output).toContain(
      "No past run",
    );
    expect((await callTool(tool, { query: "revenue", agent_id: "triage" })).output).toContain("No past run");
    expect((await callTool(tool, { query: "revenue", agent_id: "report" })).output).toContain(
      "tool web_fetch",
    );
  });

  it("is not ready without an archive", () => {
    expect(createSessionSearchTool(undefined).readinessDetail()).toEqual({
      ready: false,
      detail: "no session archive was given (run transcripts)",
    });
  });

  it.each([
    [{}, "query: is required"],
    [{ query: "x", limit: 99 }, "limit:"],
  ])("rejects %j naming the field", async (args, message) => {
    const result = await callTool(createSessionSearchTool(archive()), args);
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    if (!result.success) expect(result.error).toContain(message);
  });
});
