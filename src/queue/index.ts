export { queueChildren } from "./children.js";
export type {
  ChildFlowRecord,
  ChildrenPort,
  ChildState,
  ChildStopOutcome,
  ChildUpdateOutcome,
} from "./children-port.js";
export { AGENT_JOB_ATTEMPTS, enqueueAgentRun } from "./enqueue.js";
export { failForGood, parkJob } from "./job-signals.js";
export { type OutageRider, rideRedisOutages } from "./outage-rider.js";
export { AgentJobPayload, AgentSpec, parseAgentJobPayload, type RunOrigin } from "./payload.js";
export { type Promoter, startPromoter } from "./promoter.js";
export {
  type AgentQueue,
  bullPrefix,
  findRunJob,
  openAgentQueue,
  openAgentQueueEvents,
  type RunJob,
} from "./queues.js";
export {
  createRedisConnection,
  describeRedisTarget,
  duplicateRedisConnection,
  parseClusterNode,
  type RedisConnection,
} from "./redis-connection.js";
export {
  COMPACT_HASH_FIX,
  COMPACT_HASH_VALUE,
  hashListpackValue,
  lowHashListpackValues,
} from "./redis-memory.js";
export { watchRemovedRuns } from "./removed-runs.js";
export {
  CancelRequest,
  cancelledReason,
  isCancelledReason,
  OPERATOR_CHANNELS,
  type OperatorChannel,
  RunCancels,
  watchCancels,
} from "./run-cancel.js";
export { RunReruns, retryFailedJob } from "./run-restart.js";
export { type RunWorker, startRunWorker } from "./run-worker.js";
export { isUnreadableJobData } from "./unreadable-job.js";
export { WorkerRecords } from "./worker-records.js";
