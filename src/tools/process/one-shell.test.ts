/** biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell syntax, not templates */
import { homedir } from "node:os";
import { describe, expect, it } from "vitest";
import { createPathFence } from "../../guard/index.js";
import { nodeFsView } from "../../platform/index.js";
import { callContext, eventually, fenceFactory, tempWorkspace } from "../registry/builtin-tools.fixture.js";
import { invokeTool } from "../registry/invoke-tool.js";
import { locateBash } from "./bash-shell.js";
import { childEnv, resolveEnvAllow } from "./child-env.js";
import { createExecTool } from "./exec.js";
import { createExecuteCodeTool } from "./execute-code.js";
import { createProcessTool } from "./process.js";
import { processToolTestSetup } from "./process-test-setup.fixture.js";

const { toolOptions } = processToolTestSetup(
  fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() }),
);

// What the worker's environment could hold that would make a shell run code before the command.
const HOSTILE_ENV = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  BASH_ENV: "/nonexistent/evil-bash-env",
  ENV: "/nonexistent/evil-env",
  SHELLOPTS: "xtrace",
  BASHOPTS: "extglob",
  "BASH_FUNC_echo%%": "() { builtin echo hijacked; }",
};
const options = toolOptions({ env: HOSTILE_ENV });

// Prints which shell runs the script and whether a bash-only construct works: dash fails `[[`.
const PROBE =
  'printf "shell=%s\\n" "$(readlink /proc/$$/exe)"; [[ 1 == 1 ]] && echo bash-syntax-ok; printf "env=%s|%s|%s|%s\\n" "${BASH_ENV-unset}" "${ENV-unset}" "${SHELLOPTS-x}" "$(env | grep -c BASH_FUNC)"; echo plain';

describe("one shell: exec-class tools run commands with bash, never /bin/sh", () => {
  const bash = locateBash();

  it("locates bash once, at an absolute path, with its version", () => {
    expect(bash?.path).toMatch(/^\/.*\/bash$/);
    expect(bash?.version).toMatch(/^GNU bash \d+\.\d+/);
    expect(locateBash()).toBe(bash);
  });

  it("exec runs bash --noprofile --norc with BASH_ENV, ENV, SHELLOPTS, BASH_FUNC_* scrubbed", async () => {
    const tool = createExecTool(options);
    const ws = await tempWorkspace();
    const result = await invokeTool(tool, { command: PROBE }, callContext(tool, ws));
    expect(result.success).toBe(true);
    expect(result.output).toContain(`shell=${bash?.path}`);
    expect(result.output).toContain("bash-syntax-ok");
    expect(result.output).toContain("env=unset|unset|");
    expect(result.output).toMatch(/\|0\n/);
    expect(result.output).toContain("plain");
    expect(result.output).not.toContain("hijacked");
  });

  it("process start runs bash too", async () => {
    const tool = createProcessTool(options);
    const ctx = callContext(tool, await tempWorkspace());
    const started = await invokeTool(tool, { action: "start", command: PROBE }, ctx);
    expect(started.success).toBe(true);
    const id = (started.data as { id: string }).id;
    let text = "";
    expect(
      await eventually(async () => {
        const read = await invokeTool(tool, { action: "read", id }, ctx);
        text = read.output;
        return text.includes("exited");
      }),
    ).toBe(true);
    expect(text).toContain(`shell=${bash?.path}`);
    expect(text).toContain("bash-syntax-ok");
    expect(text).toContain("env=unset|unset|");
  });

  it("execute_code bash runs the located bash without rc files", async () => {
    const tool = createExecuteCodeTool(options);
    const ws = await tempWorkspace();
    const result = await invokeTool(tool, { language: "bash", code: PROBE }, callContext(tool, ws));
    expect(result.success).toBe(true);
    expect(result.output).toContain(`shell=${bash?.path}`);
    expect(result.output).toContain("env=unset|unset|");
  });

  it("never passes shell start-up variables, even allow-listed or set by the tool", () => {
    expect(() => resolveEnvAllow(["BASH_ENV"])).toThrow(/BASH_ENV changes what bash runs/);
    expect(() => resolveEnvAllow(["SHELLOPTS"])).toThrow(/never passed/);
    const env = childEnv(
      HOSTILE_ENV,
      ["PATH", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "BASH_FUNC_echo%%"],
      {
        PWD: "/w",
        BASH_ENV: "/x",
      },
    );
    expect(Object.keys(env).sort()).toEqual(["PATH", "PWD"]);
  });
});
