import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { RunnerError } from "../../shared/index.js";
import { FINISH_REASONS } from "./model-client.js";

/** One tool call of a scripted turn. */
export const ScriptedToolCall = z
  .object({
    /** Tool name, sent as the model would (not checked against any catalog here). */
    name: z.string().min(1),
    /**
     * Arguments: a mapping, or a string that is treated like a model's raw arguments text (a JSON
     * object string becomes the object; anything else stays raw, to exercise validation errors).
     * Default `{}`.
     */
    arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).optional(),
    /** Call id; default `call_<turn>_<index>`. */
    id: z.string().min(1).optional(),
  })
  .strict();
export type ScriptedToolCall = z.infer<typeof ScriptedToolCall>;

/** One model turn: tool calls, final content, or both. */
export const ScriptedTurn = z
  .object({
    content: z.string().optional(),
    tool_calls: z.array(ScriptedToolCall).optional(),
    /** Override of the finish reason; default `tool_calls` when the turn has calls, else `stop`. */
    finish_reason: z.enum(FINISH_REASONS).optional(),
  })
  .strict()
  .refine((turn) => turn.content !== undefined || (turn.tool_calls?.length ?? 0) > 0, {
    message: "a turn needs content, at least one tool call, or both",
  });
export type ScriptedTurn = z.infer<typeof ScriptedTurn>;

/** A playbook: the YAML list of turns, answered in order. */
export const ScriptedScript = z.array(ScriptedTurn).min(1, "a script needs at least one turn");
export type ScriptedScript = z.infer<typeof ScriptedScript>;

/**
 * Playbooks by task: the run's task (its first user message) picks the list of turns. A sub-agent
 * started with delegate_task uses its parent's model, so a demo whose parent delegates needs the
 * child's task to select a playbook of its own.
 *
 * ```yaml
 * tasks:
 *   "write the report":
 *     - tool_calls: [{ name: delegate_task, arguments: { task: "check the report" } }]
 *     - content: Done.
 *   "check the report":
 *     - content: Looks fine.
 * ```
 */
export const ScriptedPlaybooks = z.strictObject({
  tasks: z.record(z.string().min(1), ScriptedScript).refine((tasks) => Object.keys(tasks).length > 0, {
    message: "name at least one task",
  }),
});
export type ScriptedPlaybooks = z.infer<typeof ScriptedPlaybooks>;

/** A script file: one list of turns for every run, or playbooks by task (see {@link ScriptedPlaybooks}). */
export function parseScriptedFile(
  yamlText: string,
  source = "scripted model script",
): ScriptedScript | ScriptedPlaybooks {
  let document: unknown;
  try {
    document = parseYaml(yamlText, { prettyErrors: true, uniqueKeys: true });
  } catch (cause) {
    throw new RunnerError(
      "MODEL_SCRIPT_INVALID",
      `${source} is not valid YAML: ${(cause as Error).message}`,
      {
        cause,
        data: { source },
      },
    );
  }
  // Only a mapping with `tasks` is read as playbooks; any other mapping is a list of turns gone wrong.
  const byTask =
    document !== null && typeof document === "object" && !Array.isArray(document) && "tasks" in document;
  const parsed = byTask ? ScriptedPlaybooks.safeParse(document) : ScriptedScript.safeParse(document);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `${byTask ? formatTaskPath(issue.path) : formatPath(issue.path)}: ${issue.message}`,
  );
  throw new RunnerError(
    "MODEL_SCRIPT_INVALID",
    `${source} is invalid:\n  ${problems.join("\n  ")}\nA script is a YAML list of turns (or \`tasks:\` mapping each task to such a list); each turn has content, tool_calls (name, arguments, id) or both, and optionally finish_reason (${FINISH_REASONS.join(" | ")}).`,
    { data: { source, problems } },
  );
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = "turns";
  for (const part of path) out += typeof part === "number" ? `[${part}]` : `.${String(part)}`;
  return out;
}

function formatTaskPath(path: readonly PropertyKey[]): string {
  if (path[0] !== "tasks" || path.length < 2) return path.map(String).join(".") || "(top)";
  return `tasks[${JSON.stringify(String(path[1]))}].${formatPath(path.slice(2))}`;
}
