import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { deleteKeysWithPrefix, testRedisClient, uniquePrefix } from "../../../test/helpers/test-redis.js";
import { callTool, journalledCall, toolContext } from "../../../test/helpers/tool-call.js";
import { Journal } from "../../journal/index.js";
import { CHUNK_MAX_CHARS, chunkText } from "./knowledge-chunks.js";
import { createKnowledgeIndexTool } from "./knowledge-index.js";
import { createKnowledgeSearchTool } from "./knowledge-search.js";
import { KnowledgeStore } from "./knowledge-store.js";

const redis: Redis = testRedisClient();
const prefix = uniquePrefix("knowledge");
let workspace: string;
let store: KnowledgeStore;

afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "kb-"));
  store = new KnowledgeStore({ redis, keyPrefix: prefix });
  await mkdir(join(workspace, "docs"));
  await writeFile(
    join(workspace, "docs", "runbook.md"),
    "# Runbook\n\nRestart the worker with systemctl.\n\n## Redis\n\nRedis must use appendonly yes and noeviction.\n",
  );
  await writeFile(join(workspace, "docs", "faq.md"), "# FAQ\n\nApprovals arrive by email with a link.\n");
  await writeFile(join(workspace, "notes.txt"), "Quarterly revenue grew by twelve percent.\n");
});

const index = () => createKnowledgeIndexTool(store);
const search = () => createKnowledgeSearchTool(store);

describe("chunkText", () => {
  it("starts chunks at headings and records line ranges and the heading", () => {
    const text = `# A\n${"alpha ".repeat(50)}\n# B\nbeta\n`;
    const chunks = chunkText("x.md", text);
    expect(chunks.map((c) => [c.id, c.startLine, c.endLine, c.heading])).toEqual([
      ["x.md#0", 1, 2, "A"],
      ["x.md#1", 3, 5, "B"],
    ]);
  });

  it("keeps every chunk near the size limit", () => {
    const text = Array.from({ length: 400 }, (_, i) => `line ${i} ${"w".repeat(40)}`).join("\n");
    const chunks = chunkText("big.txt", text);
    expect(chunks.length).toBeGreaterThan(10);
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(CHUNK_MAX_CHARS + 50);
    expect(chunks.at(-1)?.endLine).toBe(400);
  });
});

describe("knowledge_index and knowledge_search", () => {
  it("indexes the workspace and finds passages with file and lines", async () => {
    const indexed = await callTool(index(), {}, { workspace });
    expect(indexed).toMatchObject({
      success: true,
      data: { added: 3, updated: 0, removed: 0, unchanged: 0 },
    });
    const result = await callTool(search(), { query: "appendonly noeviction" }, { workspace });
    expect(result.success).toBe(true);
    expect(result.output).toMatch(/^1\. docs\/runbook\.md:1-8 \(Runbook\) score/);
    expect(result.output).toContain("Redis must use appendonly yes");
  });

  it("re-indexes only what changed: unchanged files are skipped, edits replace, deletions drop", async () => {
    await callTool(index(), {}, { workspace });
    const again = await callTool(index(), {}, { workspace });
    expect(again.data).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: 3, chunks: 0 });
    await writeFile(join(workspace, "notes.txt"), "Quarterly revenue shrank; costs rose sharply.\n");
    await rm(join(workspace, "docs", "faq.md"));
    const changed = await callTool(index(), {}, { workspace });
    expect(changed.data).toMatchObject({ added: 0, updated: 1, removed: 1, unchanged: 1 });
    expect((await callTool(search(), { query: "twelve" }, { workspace })).output).toBe(
      'No passages match "twelve".',
    );
    expect((await callTool(search(), { query: "sharply" }, { workspace })).output).toContain("notes.txt:1-2");
    expect((await callTool(search(), { query: "approvals email" }, { workspace })).output).toContain(
      "No passages match",
    );
  });

  it("indexing a folder removes only vanished files under that folder", async () => {
    await callTool(index(), {}, { workspace });
    await rm(join(workspace, "notes.txt"));
    const docsOnly = await callTool(index(), { path: "docs" }, { workspace });
    expect(docsOnly.data).toMatchObject({ removed: 0, unchanged: 2 });
    expect((await callTool(search(), { query: "revenue" }, { workspace })).output).toContain("notes.txt");
  });

  it("sees a concurrent writer's changes: two stores over one Redis stay consistent", async () => {
    const other = new KnowledgeStore({ redis, keyPrefix: prefix });
    await Promise.all([
      callTool(createKnowledgeIndexTool(store), { path: "docs" }, { workspace }),
      callTool(createKnowledgeIndexTool(other), { path: "notes.txt" }, { workspace }),
    ]);
    const everything = await callTool(index(), {}, { workspace });
    expect(everything.data).toMatchObject({ added: 0, unchanged: 3, total: 3 });
  });

  it("filters by path prefix and keeps workspaces apart", async () => {
    await callTool(index(), {}, { workspace });
    const scoped = await callTool(
      search(),
      { query: "runbook redis faq approvals", path_prefix: "docs/" },
      { workspace },
    );
    expect(scoped.output).not.toContain("notes.txt");
    const elsewhere = await mkdtemp(join(tmpdir(), "kb-other-"));
    expect((await callTool(search(), { query: "redis" }, { workspace: elsewhere })).output).toBe(
      "The knowledge base of this workspace is empty; run knowledge_index first.",
    );
  });

  it("skips binary files and does not follow a symlink out of the workspace", async () => {
    const outside = await mkdtemp(join(tmpdir(), "kb-outside-"));
    await writeFile(join(outside, "secret.md"), "top secret launch codes");
    await symlink(join(outside, "secret.md"), join(workspace, "docs", "link.md"));
    await writeFile(join(workspace, "blob.bin"), Buffer.from([0, 1, 2, 3]));
    const indexed = await callTool(index(), {}, { workspace });
    expect(indexed.data).toMatchObject({ added: 3, skipped: 1 });
    expect((await callTool(search(), { query: "launch codes" }, { workspace })).output).toContain(
      "No passages match",
    );
    expect(await callTool(index(), { path: "docs/link.md" }, { workspace })).toMatchObject({
      errorKind: "denied",
    });
    expect(await callTool(index(), { path: outside }, { workspace })).toMatchObject({ errorKind: "denied" });
  });

  it("replays a journalled indexing without indexing again", async () => {
    const journal = new Journal({ redis, keyPrefix: prefix });
    const tool = index();
    const ctx = toolContext(tool, {}, { workspace });
    const first = await journalledCall(journal, "run-kb", tool, {}, ctx);
    await writeFile(join(workspace, "notes.txt"), "A replay must not pick up this zebra.\n");
    const second = await journalledCall(journal, "run-kb", tool, {}, ctx);
    expect(second).toEqual({ result: first.result, replay: true });
    expect((await callTool(search(), { query: "zebra" }, { workspace })).output).toContain(
      "No passages match",
    );
  });

  it("is not ready without Redis", async () => {
    expect(createKnowledgeSearchTool(undefined).readinessDetail()).toEqual({
      ready: false,
      detail: "no Redis client was given for the knowledge base",
    });
  });

  it.each([
    ["knowledge_search", () => search(), {}, "query: is required"],
    ["knowledge_search", () => search(), { query: "x", limit: 0 }, "limit:"],
    ["knowledge_index", () => index(), { max_files: "all" }, "max_files:"],
    ["knowledge_index", () => index(), { path: "" }, "path:"],
  ])("%s rejects %j naming the field", async (_name, build, args, message) => {
    const result = await callTool(build(), args, { workspace });
    expect(result).toMatchObject({ success: false, errorKind: "validation" });
    if (!result.success) expect(result.error).toContain(message);
  });
});
