import { readFile } from "node:fs/promises";
import { RunnerError } from "../../shared/index.js";
import {
  type FinishReason,
  type ModelClient,
  type ModelRequest,
  type ModelResponse,
  type ModelToolCall,
  parseToolArguments,
} from "./model-client.js";
import { parseScriptedFile, type ScriptedPlaybooks, type ScriptedScript } from "./scripted-script.js";

/**
 * A model that answers from a script, for deterministic playbooks, demos and tests. It keeps no
 * state: the turn it answers is the number of assistant messages already in the conversation, so a
 * restarted worker resuming a run at step 5 gets turn 5, exactly as the first worker would have.
 */
export function createScriptedModelClient(script: ScriptedScript): ModelClient {
  const turns = script.map((_, index) => toResponse(script, index));
  return {
    async complete(request: ModelRequest): Promise<ModelResponse> {
      if (request.signal?.aborted) {
        throw new RunnerError("MODEL_ABORTED", "Scripted model request was cancelled by the caller");
      }
      const index = request.messages.filter((message) => message.role === "assistant").length;
      const turn = turns[index];
      if (turn === undefined) {
        throw new RunnerError(
          "MODEL_SCRIPT_EXHAUSTED",
          `Scripted model has ${turns.length} turn(s) but turn ${index + 1} was requested; end the script with a turn that has content and no tool calls`,
          { data: { turns: turns.length, requested: index } },
        );
      }
      return structuredClone(turn);
    },
  };
}

/**
 * A model that answers each run from the playbook of its task (the first user message), so a
 * parent and the sub-agent it delegates to can share one model and follow different scripts.
 */
export function createScriptedPlaybooksClient(playbooks: ScriptedPlaybooks): ModelClient {
  const clients = new Map(
    Object.entries(playbooks.tasks).map(([task, script]) => [task, createScriptedModelClient(script)]),
  );
  return {
    async complete(request: ModelRequest): Promise<ModelResponse> {
      const task = request.messages.find((message) => message.role === "user")?.content ?? "";
      const client = clients.get(task);
      if (!client) {
        throw new RunnerError(
          "MODEL_SCRIPT_EXHAUSTED",
          `Scripted model has no playbook for the task ${JSON.stringify(task.slice(0, 200))}; its tasks are: ${[...clients.keys()].map((t) => JSON.stringify(t)).join(", ")}`,
          { data: { tasks: [...clients.keys()] } },
        );
      }
      return client.complete(request);
    },
  };
}

/** Parses `yamlText` (a list of turns, or playbooks by task) and returns a client for it. */
export function scriptedModelFromYaml(yamlText: string, source?: string): ModelClient {
  const file = parseScriptedFile(yamlText, source);
  return Array.isArray(file) ? createScriptedModelClient(file) : createScriptedPlaybooksClient(file);
}

/** Reads a playbook file and returns a client for it; an unreadable file is MODEL_SCRIPT_INVALID. */
export async function loadScriptedModel(path: string): Promise<ModelClient> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    throw new RunnerError(
      "MODEL_SCRIPT_INVALID",
      `Cannot read scripted model script ${path}: ${(cause as Error).message}`,
      {
        cause,
        data: { path },
      },
    );
  }
  return scriptedModelFromYaml(text, path);
}

function toResponse(script: ScriptedScript, index: number): ModelResponse {
  const turn = script[index]!;
  const toolCalls: ModelToolCall[] = (turn.tool_calls ?? []).map((call, i) => ({
    id: call.id ?? `call_${index}_${i}`,
    name: call.name,
    arguments:
      call.arguments === undefined
        ? {}
        : typeof call.arguments === "string"
          ? parseToolArguments(call.arguments)
          : call.arguments,
  }));
  const finishReason: FinishReason = turn.finish_reason ?? (toolCalls.length > 0 ? "tool_calls" : "stop");
  return { message: { content: turn.content ?? null, toolCalls }, finishReason, usage: null };
}
