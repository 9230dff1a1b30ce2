import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  type ConfigSource,
  DEFAULT_CONFIG_PATH,
  envOverrideSource,
  parseYamlConfig,
  validateSources,
} from "../../src/config/index.js";
import { isRunnerError } from "../../src/shared/index.js";

/** Regressions of two holes the config fuzzing found in src/config/merge.ts (both fixed). */

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).sort();

const defaults: ConfigSource = {
  kind: "default",
  origin: DEFAULT_CONFIG_PATH,
  data: parseYamlConfig(readFileSync(DEFAULT_CONFIG_PATH, "utf8"), DEFAULT_CONFIG_PATH),
};
const file = (kind: "project" | "user", origin: string, text: string): ConfigSource => ({
  kind,
  origin,
  data: parseYamlConfig(text, origin),
});

function problemsOf(sources: ConfigSource[]): { path: string; origins: readonly string[] }[] {
  try {
    validateSources(sources);
  } catch (err) {
    if (isRunnerError(err) && err.code === "CONFIG_INVALID") {
      return (err.data as { problems: { path: string; origins: readonly string[] }[] }).problems;
    }
    throw err;
  }
  throw new Error("expected the config to be rejected");
}

describe("tools.deny stays a union when one source's value is not a list", () => {
  it("rejects `deny: exec` in the user file even when the environment sets a list after it", () => {
    // Before the fix this loaded with deny = [web_fetch]: the project's exec and process were gone.
    const problems = problemsOf([
      defaults,
      file("project", "project.yaml", "tools:\n  deny: [exec, process]\n"),
      file("user", "user.yaml", "tools:\n  deny: exec\n"),
      envOverrideSource({ ECHO_RUNNER_TOOLS__DENY: "[web_fetch]" }, new Set()),
    ]);
    expect(problems).toEqual([expect.objectContaining({ path: "tools.deny", origins: ["user.yaml"] })]);
  });

  it("still unions lists from every source", () => {
    const loaded = validateSources([
      defaults,
      file("project", "project.yaml", "tools:\n  deny: [exec, process]\n"),
      file("user", "user.yaml", "tools:\n  deny: [exec]\n"),
      envOverrideSource({ ECHO_RUNNER_TOOLS__DENY: "[web_fetch]" }, new Set()),
    ]);
    expect([...loaded.config.tools.deny].sort()).toEqual(["exec", "process", "web_fetch"]);
  });
});

describe("a __proto__ key in a config source", () => {
  it.each([
    ["permissions:\n  approval:\n    __proto__:\n      mode: smart\n", "permissions.approval.__proto__"],
    ["__proto__:\n  tools:\n    deny: []\n", "__proto__"],
    ["tools:\n  exec:\n    __proto__:\n      security: full\n", "tools.exec.__proto__"],
    ["tools:\n  constructor:\n    prototype:\n      x: 1\n", "tools.constructor"],
  ])("is an unknown key and leaves Object.prototype alone: %j", (text, path) => {
    // Before the fix the merge wrote the source's values into Object.prototype, process-wide.
    const problems = problemsOf([defaults, file("project", "project.yaml", text)]);
    expect(problems).toEqual([expect.objectContaining({ path, origins: ["project.yaml"] })]);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTOTYPE_NAMES);
    expect(({} as Record<string, unknown>).mode).toBeUndefined();
    expect(({} as Record<string, unknown>).security).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it("from an environment override's YAML value is refused the same way", () => {
    const problems = problemsOf([
      defaults,
      envOverrideSource({ ECHO_RUNNER_PERMISSIONS: "{__proto__: {approval: {mode: smart}}}" }, new Set()),
    ]);
    expect(problems).toEqual([
      expect.objectContaining({ path: "permissions.__proto__", origins: ["environment"] }),
    ]);
    expect(({} as Record<string, unknown>).approval).toBeUndefined();
  });
});
