import { homedir } from "node:os";
import { describe, expect, it } from "vitest";
import { createPathFence } from "../../guard/index.js";
import { nodeFsView } from "../../platform/index.js";
import { createExecTool } from "../process/exec.js";
import { createExecuteCodeTool } from "../process/execute-code.js";
import { createProcessTool } from "../process/process.js";
import { processToolTestSetup } from "../process/process-test-setup.fixture.js";
import { callContext, fenceFactory, tempWorkspace } from "../registry/builtin-tools.fixture.js";
import { invokeTool } from "../registry/invoke-tool.js";
import { createSandboxHost } from "./sandbox-host.js";

const { toolOptions } = processToolTestSetup(
  fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() }),
);

describe("exec-class tools on the sandbox host", () => {
  const missing = createSandboxHost({ network: "deny", bwrap: "/nonexistent/bin/bwrap" });
  const options = {
    ...toolOptions(),
    execHost: "sandbox" as const,
    sandbox: missing,
  };

  it.each([
    ["exec", createExecTool(options)],
    ["execute_code", createExecuteCodeTool(options)],
    ["process", createProcessTool(options)],
  ])("%s is not ready without bubblewrap, saying how to install it or to choose local", (_name, tool) => {
    const readiness = tool.readinessDetail();
    expect(readiness.ready).toBe(false);
    expect(readiness.detail).toContain("apt-get install bubblewrap");
    expect(readiness.detail).toContain("tools.exec.host: local");
  });

  it("never falls back to the local host when called anyway", async () => {
    const tool = createExecTool(options);
    const ws = await tempWorkspace("nobwrap");
    const result = await invokeTool(tool, { command: "touch ran-on-host" }, callContext(tool, ws));
    expect(result).toMatchObject({ success: false, errorKind: "not_ready" });
    const { existsSync } = await import("node:fs");
    expect(existsSync(`${ws}/ran-on-host`)).toBe(false);
  });

  it("is not ready when no sandbox host was built", () => {
    const tool = createExecTool({ ...toolOptions(), execHost: "sandbox" });
    expect(tool.readinessDetail()).toMatchObject({
      ready: false,
      detail: expect.stringContaining("sandbox"),
    });
  });
});
