import { afterAll } from "vitest";
import type { PathFenceFactory } from "../path-fence-port.js";
import { processToolOptions, testSupervisor } from "../registry/builtin-tools.fixture.js";

/**
 * The setup every exec-class tool test file shares: one supervisor for the file (closed after its
 * tests, so no process outlives them) and the tools' options over it and `fence`. The fence is
 * guard's real one, built by the test (tools and their fixtures may not import guard; tests may).
 * Call it once at the top of the test file.
 */
export function processToolTestSetup(fence: PathFenceFactory) {
  const supervisor = testSupervisor();
  afterAll(() => supervisor.close());
  const toolOptions = (overrides: Parameters<typeof processToolOptions>[2] = {}) =>
    processToolOptions(fence, supervisor, overrides);
  return { supervisor, toolOptions };
}
