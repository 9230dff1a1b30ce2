import { RunnerError } from "../../shared/index.js";
import { parseScriptedFile, type ScriptedScript } from "./scripted-script.js";

/**
 * Parses a scripted-model playbook (a YAML list of turns). Every problem is reported at once, each
 * named by its path (`turns[2].tool_calls[0].name: ...`); YAML syntax errors carry line and column.
 * Duplicate keys are errors.
 *
 * ```yaml
 * - tool_calls:
 *     - name: write_file
 *       arguments: { path: notes.txt, content: hello }
 * - content: Done.
 * ```
 */
export function parseScriptedScript(yamlText: string, source = "scripted model script"): ScriptedScript {
  const file = parseScriptedFile(yamlText, source);
  if (Array.isArray(file)) return file;
  throw new RunnerError(
    "MODEL_SCRIPT_INVALID",
    `${source} holds playbooks by task (tasks:), where one list of turns was expected`,
    { data: { source } },
  );
}
