import { readFile } from "node:fs/promises";
import { basename, dirname, extname, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { AgentConfigSchema, type EchoRunnerConfig } from "../../../config/index.js";
import type { AgentSpec } from "../../../queue/index.js";
import { type DeepReadonly, RunnerError } from "../../../shared/index.js";
import { agentSpecOf } from "../schedules/index.js";

/**
 * An agent file for `echo-runner run`: the keys of a config `agents.<name>` entry, plus an optional
 * `name` (the agent id; default the file name). A relative workspace is resolved against the file's
 * directory; the model must be one of config `models` (the worker runs it with its own config).
 */
export const AgentFile = AgentConfigSchema.extend({
  name: z
    .string()
    .regex(/^[a-zA-Z0-9_.:-]{1,64}$/, "letters, digits, _ . : - (1-64 characters)")
    .optional(),
});

/** Reads and checks an agent file; every problem is named with its key. */
export async function readAgentFile(
  path: string,
  config: DeepReadonly<EchoRunnerConfig>,
): Promise<{ agentId: string; spec: AgentSpec }> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    throw new RunnerError(
      "CLI_USAGE",
      `cannot read the agent file ${path}: ${(cause as NodeJS.ErrnoException).code ?? cause}`,
      { cause },
    );
  }
  let document: unknown;
  try {
    document = parseYaml(text, { uniqueKeys: true, prettyErrors: true });
  } catch (cause) {
    throw new RunnerError(
      "CLI_USAGE",
      `the agent file ${path} is not valid YAML: ${(cause as Error).message}`,
    );
  }
  const parsed = AgentFile.safeParse(document);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  - ${i.path.join(".") || "(top)"}: ${i.message}`);
    throw new RunnerError(
      "CLI_USAGE",
      `the agent file ${path} is invalid:\n${problems.join("\n")}\nAn agent file has the keys of a config agent (${Object.keys(AgentFile.shape).join(", ")}).`,
    );
  }
  const agent = parsed.data;
  if (!config.models[agent.model]) {
    const known = Object.keys(config.models);
    throw new RunnerError(
      "CLI_USAGE",
      `the agent file ${path} names model "${agent.model}", which is not in config models (known: ${known.length > 0 ? known.join(", ") : "none"}); workers run only models their config defines`,
    );
  }
  return {
    agentId: agent.name ?? basename(path, extname(path)),
    spec: agentSpecOf(agent, config.execution.max_steps, dirname(resolve(path))),
  };
}
