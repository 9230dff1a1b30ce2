export { ALERT_KINDS, type AlertKind } from "./alert-kinds.js";
export { assertNever } from "./assert-never.js";
export { canonicalJson } from "./canonical-json.js";
export { CHAT_WEBHOOK_FORMATS, type ChatWebhookFormat } from "./chat-formats.js";
export { type Clock, ManualClock, systemClock } from "./clock.js";
export { type DeepReadonly, deepFreeze } from "./deep-freeze.js";
export { defangLinks } from "./defang-links.js";
export {
  ERROR_CODES,
  type ErrorCode,
  isRunnerError,
  MODEL_ERROR_CODES,
  type ModelErrorCode,
  RunnerError,
} from "./errors.js";
export { hashCanonical, sha256Hex } from "./hash.js";
export { normaliseIdentity, sameIdentity } from "./identity.js";
export { type IdFactory, randomId, randomToken } from "./ids.js";
export { IN_DOUBT_POLICIES, type InDoubtPolicy } from "./in-doubt-policies.js";
export { type NeutralSink, neutralise } from "./neutralise.js";
export { describeRedisOutage, type RedisOutageCondition, redisOutageOf } from "./redis-outage.js";
export {
  CATCH_UP_POLICIES,
  type CatchUpPolicy,
  OVERLAP_POLICIES,
  type OverlapPolicy,
} from "./schedule-policies.js";
export { otelTraceId } from "./trace-id.js";
export {
  hasHiddenCharacters,
  hiddenCharactersIn,
  hiddenCharactersWarning,
  makeVisible,
} from "./visible-text.js";
