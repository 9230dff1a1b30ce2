import type { Cluster, Redis } from "ioredis";
import type { EchoRunnerConfig } from "../config/index.js";
import type { Logger } from "../logging/index.js";
import type { DeepReadonly } from "../shared/index.js";

/** What every part of a process shares: config, logger, one Redis connection. */
export interface PartContext {
  config: DeepReadonly<EchoRunnerConfig>;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  redis: Redis | Cluster;
  /** Directory relative paths in config (scripted models) are read from. */
  baseDir: string;
  /** Read-only in every mode for the agents' file tools: the config files and the data dir. */
  protectedPaths: readonly string[];
  /** The runner's data dir (`./data`), where a worker records its process groups; none for one-shot commands. */
  dataDir?: string;
}
