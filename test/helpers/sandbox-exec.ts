import { homedir } from "node:os";
import type { AnyTool } from "../../src/catalog/index.js";
import { createPathFence } from "../../src/guard/index.js";
import { nodeFsView } from "../../src/platform/index.js";
import { createSandboxHost, type SandboxHostOptions } from "../../src/tools/index.js";
import { createExecTool } from "../../src/tools/process/exec.js";
import {
  callContext,
  fenceFactory,
  processToolOptions,
  tempWorkspace,
  testSupervisor,
} from "../../src/tools/registry/builtin-tools.fixture.js";
import { invokeTool } from "../../src/tools/registry/invoke-tool.js";

/**
 * The real exec tool on a real sandbox host (no network unless asked), with its own supervisor: for
 * security tests that run commands inside bubblewrap. `run` makes a fresh workspace per call.
 */
export function sandboxedExec(options: Partial<SandboxHostOptions> = {}) {
  const fence = fenceFactory(createPathFence, { homeDir: homedir(), fs: nodeFsView() });
  const supervisor = testSupervisor();
  const sandbox = createSandboxHost({ network: "deny", ...options });
  const exec = createExecTool({
    ...processToolOptions(fence, supervisor),
    execHost: "sandbox",
    sandbox,
  }) as unknown as AnyTool;
  return {
    sandbox,
    exec,
    supervisor,
    async run(command: string, timeoutSeconds?: number) {
      const ws = await tempWorkspace("sandboxed");
      const args = { command, ...(timeoutSeconds ? { timeout_seconds: timeoutSeconds } : {}) };
      return invokeTool(exec, args, callContext(exec, ws));
    },
  };
}
