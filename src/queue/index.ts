export { AGENT_JOB_ATTEMPTS, enqueueAgentRun } from "./enqueue.js";
export {
  AgentJobPayload,
  AgentSpec,
  parseAgentJobPayload,
  RUN_ORIGINS,
  type RunOrigin,
} from "./payload.js";
export { bullPrefix, QUEUE_NAMES, type QueueName } from "./queues.js";
export {
  createRedisConnection,
  describeRedisTarget,
  parseClusterNode,
  type RedisConnection,
  type RedisTarget,
} from "./redis-connection.js";
