export { queueChildren } from "./children.js";
export type {
  ChildFlowRecord,
  ChildrenPort,
  ChildState,
  ChildStopOutcome,
  ChildUpdateOutcome,
} from "./children-port.js";
export { coalesceWrites } from "./coalesced-writes.js";
export { AGENT_JOB_ATTEMPTS, enqueueAgentRun } from "./enqueue.js";
export { failForGood, type JobPark, parkJob } from "./job-signals.js";
export {
  type OutageRider,
  type OutageRiderOptions,
  type RedisOutage,
  rideRedisOutages,
} from "./outage-rider.js";
export {
  AgentJobPayload,
  AgentSpec,
  parseAgentJobPayload,
  RUN_ORIGINS,
  type RunOrigin,
} from "./payload.js";
export { type Promoter, type PromoterOptions, startPromoter, type WakeEvent } from "./promoter.js";
export {
  AGENT_QUEUE,
  type AgentQueue,
  type AgentQueueEvents,
  bullPrefix,
  findRunJob,
  openAgentQueue,
  openAgentQueueEvents,
  QUEUE_NAMES,
  type QueueName,
  queueConnection,
  type RunJob,
} from "./queues.js";
export { type ReclaimReport, reclaimRunsOf } from "./reclaim-runs.js";
export {
  createRedisConnection,
  describeRedisTarget,
  duplicateRedisConnection,
  parseClusterNode,
  type RedisConnection,
  type RedisTarget,
} from "./redis-connection.js";
export {
  COMPACT_HASH_FIX,
  COMPACT_HASH_VALUE,
  hashListpackValue,
  lowHashListpackValues,
} from "./redis-memory.js";
export { type RemovedRunsWatch, watchRemovedRuns } from "./removed-runs.js";
export {
  CANCEL_EVENT,
  CancelRequest,
  type CancelWatch,
  cancelledReason,
  isCancelledReason,
  OPERATOR_CHANNELS,
  type OperatorChannel,
  type QueuedCancelOutcome,
  RunCancels,
  watchCancels,
} from "./run-cancel.js";
export { RunReruns, retryFailedJob } from "./run-restart.js";
export { type RunProcessor, type RunWorker, type RunWorkerOptions, startRunWorker } from "./run-worker.js";
export { isUnreadableJobData, UnreadableJobData } from "./unreadable-job.js";
export { wakeRun } from "./wake.js";
export { WorkerRecords } from "./worker-records.js";
