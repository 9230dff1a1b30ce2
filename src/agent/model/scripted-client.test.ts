import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RunnerError } from "../../shared/index.js";
import type { ChatMessage } from "./model-client.js";
import { ModelResponse } from "./model-client.js";
import { loadScriptedModel, scriptedModelFromYaml } from "./scripted-client.js";
import { parseScriptedScript } from "./scripted-script.fixture.js";

const PLAYBOOK = `
- content: Let me look.
  tool_calls:
    - name: read_file
      arguments: { path: notes.txt }
    - name: exec
      id: my-id
      arguments: '{"command": "ls"'
- tool_calls:
    - name: write_file
      arguments: '{"path": "out.txt", "content": "hi"}'
- content: Done.
`;

function thrown(fn: () => unknown): RunnerError {
  try {
    fn();
  } catch (err) {
    if (err instanceof RunnerError) return err;
    throw err;
  }
  throw new Error("expected a RunnerError");
}

function assistantTurns(n: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: "user", content: "go" }];
  for (let i = 0; i < n; i++) messages.push({ role: "assistant", content: null, toolCalls: [] });
  return messages;
}

describe("the scripted model", () => {
  it("answers turn N when the conversation holds N assistant messages, with valid model responses", async () => {
    const model = scriptedModelFromYaml(PLAYBOOK);
    const first = await model.complete({ messages: assistantTurns(0), tools: [] });
    expect(first).toEqual({
      message: {
        content: "Let me look.",
        toolCalls: [
          { id: "call_0_0", name: "read_file", arguments: { path: "notes.txt" } },
          { id: "my-id", name: "exec", arguments: '{"command": "ls"' },
        ],
      },
      finishReason: "tool_calls",
      usage: null,
    });
    const second = await model.complete({ messages: assistantTurns(1), tools: [] });
    expect(second.message.toolCalls[0]?.arguments).toEqual({ path: "out.txt", content: "hi" });
    const last = await model.complete({ messages: assistantTurns(2), tools: [] });
    expect(last).toMatchObject({ message: { content: "Done.", toolCalls: [] }, finishReason: "stop" });
    for (const response of [first, second, last])
      expect(ModelResponse.safeParse(response).success).toBe(true);
  });

  it("answers the same turn the same way every time (a fresh client resumes where the run is)", async () => {
    const a = await scriptedModelFromYaml(PLAYBOOK).complete({ messages: assistantTurns(1), tools: [] });
    const model = scriptedModelFromYaml(PLAYBOOK);
    const b = await model.complete({ messages: assistantTurns(1), tools: [] });
    b.message.toolCalls.pop();
    expect(await model.complete({ messages: assistantTurns(1), tools: [] })).toEqual(a);
  });

  it("raises MODEL_SCRIPT_EXHAUSTED past the last turn", async () => {
    const model = scriptedModelFromYaml("- content: only one");
    await expect(model.complete({ messages: assistantTurns(1), tools: [] })).rejects.toMatchObject({
      code: "MODEL_SCRIPT_EXHAUSTED",
    });
  });

  it("honours a finish_reason override", async () => {
    const model = scriptedModelFromYaml("- content: cut\n  finish_reason: length");
    expect((await model.complete({ messages: [], tools: [] })).finishReason).toBe("length");
  });

  it("reads a playbook file and names an unreadable one", async () => {
    const dir = await mkdtemp(join(tmpdir(), "scripted-"));
    try {
      const file = join(dir, "play.yaml");
      await writeFile(file, PLAYBOOK);
      const model = await loadScriptedModel(file);
      expect((await model.complete({ messages: [], tools: [] })).message.content).toBe("Let me look.");
      await expect(loadScriptedModel(join(dir, "missing.yaml"))).rejects.toMatchObject({
        code: "MODEL_SCRIPT_INVALID",
        message: expect.stringContaining("missing.yaml"),
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("parseScriptedScript errors", () => {
  it.each([
    ["a mapping instead of a list", "content: hi", ["turns: "]],
    ["an empty list", "[]", ["turns: a script needs at least one turn"]],
    ["an empty turn", "- {}", ["turns[0]: a turn needs content"]],
    ["a tool call without a name", "- tool_calls:\n    - arguments: {}", ["turns[0].tool_calls[0].name:"]],
    ["an unknown key", "- content: x\n  toolcalls: []", ["turns[0]: ", "toolcalls"]],
    [
      "arguments that are a list",
      "- tool_calls:\n    - name: a\n      arguments: [1]",
      ["turns[0].tool_calls[0].arguments:"],
    ],
    ["a bad finish reason", "- content: x\n  finish_reason: done", ["turns[0].finish_reason:"]],
    [
      "several problems at once",
      "- content: 1\n- tool_calls:\n    - name: ''",
      ["turns[0].content:", "turns[1].tool_calls[0].name:"],
    ],
  ])("names the path of %s", (_label, yaml, mentions) => {
    const err = thrown(() => parseScriptedScript(yaml, "play.yaml"));
    expect(err.code).toBe("MODEL_SCRIPT_INVALID");
    expect(err.message).toContain("play.yaml");
    for (const mention of mentions) expect(err.message).toContain(mention);
  });

  it.each([
    ["a syntax error", "- content: [unclosed", "line 1"],
    ["a duplicate key", "- content: a\n  content: b", "content"],
  ])("reports %s in the YAML with its position", (_label, yaml, mention) => {
    const err = thrown(() => parseScriptedScript(yaml));
    expect(err.code).toBe("MODEL_SCRIPT_INVALID");
    expect(err.message).toContain("not valid YAML");
    expect(err.message).toContain(mention);
  });
});

describe("scripted playbooks by task", () => {
  const BY_TASK = `
tasks:
  "parent task":
    - tool_calls: [{ name: delegate_task, arguments: { task: child task } }]
    - content: parent done
  "child task":
    - content: child done
`;
  const ask = (task: string, turns: number) => {
    const messages: ChatMessage[] = [{ role: "user", content: task }];
    for (let i = 0; i < turns; i++) messages.push({ role: "assistant", content: null, toolCalls: [] });
    return { messages, tools: [] };
  };

  it("answers each run from the playbook of its task, turn by turn", async () => {
    const model = scriptedModelFromYaml(BY_TASK, "demo.yaml");
    expect((await model.complete(ask("parent task", 0))).message.toolCalls[0]?.name).toBe("delegate_task");
    expect((await model.complete(ask("parent task", 1))).message.content).toBe("parent done");
    expect((await model.complete(ask("child task", 0))).message.content).toBe("child done");
  });

  it("fails naming the known tasks when a run's task has no playbook", async () => {
    const model = scriptedModelFromYaml(BY_TASK, "demo.yaml");
    const err = await model.complete(ask("other", 0)).then(
      () => undefined,
      (e: unknown) => e as RunnerError,
    );
    expect(err?.code).toBe("MODEL_SCRIPT_EXHAUSTED");
    expect(err?.message).toContain('"child task"');
  });

  it("names the task and turn of a bad entry, and refuses playbooks where one list is expected", () => {
    const err = thrown(() => scriptedModelFromYaml('tasks:\n  "a":\n    - content: 1', "demo.yaml"));
    expect(err.code).toBe("MODEL_SCRIPT_INVALID");
    expect(err.message).toContain('tasks["a"].turns[0].content');
    expect(thrown(() => parseScriptedScript(BY_TASK)).message).toContain("playbooks by task");
    expect(thrown(() => scriptedModelFromYaml("tasks: {}")).message).toContain("at least one task");
  });
});
