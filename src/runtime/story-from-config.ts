import type { Cluster, Redis } from "ioredis";
import type { ApprovalStore } from "../approvals/index.js";
import type { EchoRunnerConfig } from "../config/index.js";
import { commandNamedPaths } from "../guard/index.js";
import { createCommandGuard } from "../platform/index.js";
import { ApprovalStoryReader, RunInspector } from "../runs/index.js";
import type { DeepReadonly } from "../shared/index.js";

/**
 * Longest field the story's inspector reads before the story cuts it with a note: large enough
 * that the note counts what was left out (a task is at most 100,000 characters).
 */
const STORY_INSPECTOR_MAX_CHARS = 100_000;

/**
 * The reader of approval stories (pages and mails): an inspector of its own over the shared Redis,
 * and `tools.exec.host` for where exec calls run. `close` releases the inspector's queue handle.
 */
export function storyReaderFromConfig(
  config: DeepReadonly<EchoRunnerConfig>,
  redis: Redis | Cluster,
  store: ApprovalStore,
): { story: ApprovalStoryReader; close(): Promise<void> } {
  // The parser loads on the first exec story, not at start (most pages are not exec calls).
  let guard: ReturnType<typeof createCommandGuard> | undefined;
  const commandGuard = () => {
    guard ??= createCommandGuard();
    return guard;
  };
  const inspector = new RunInspector({
    redis,
    keyPrefix: config.redis.key_prefix,
    approvals: store,
    maxChars: STORY_INSPECTOR_MAX_CHARS,
  });
  return {
    story: new ApprovalStoryReader({
      inspector,
      execHost: config.tools.exec.host,
      namedPaths: async (command, max) => commandNamedPaths((await commandGuard()).analyse(command), max),
    }),
    close: () => inspector.close(),
  };
}
