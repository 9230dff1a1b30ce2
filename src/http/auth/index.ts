export {
  AuthFailureThrottle,
  DEFAULT_FAILURE_LIMITS,
  type FailureLimits,
  resolveFailureLimits,
  retryAfterSeconds,
} from "./failure-throttle.js";
export { checkBearer, type HttpAuth } from "./http-auth.js";
export { LinkFailures } from "./link-failures.js";
export { assertTokenStrength, OperatorCredentials } from "./operator-credentials.js";
