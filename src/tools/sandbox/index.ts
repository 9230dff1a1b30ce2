export { adoptWorkspace } from "./adopt-workspace.js";
export {
  type BwrapPlan,
  buildBwrapArgs,
  limitArgs,
  proxyEnv,
  SANDBOX_CODE_DIR,
  SANDBOX_PATH,
  SANDBOX_PROXY_PORT,
} from "./bwrap-args.js";
export {
  decideEgress,
  type EgressProxy,
  type EgressProxyOptions,
  startEgressProxy,
} from "./egress-proxy.js";
export { cgroupsDescription, type SandboxCgroups } from "./sandbox-cgroup.js";
export {
  createSandboxHost,
  SANDBOX_NETWORK_POLICIES,
  type SandboxHost,
  type SandboxHostOptions,
  type SandboxNetworkPolicy,
  type SandboxRequest,
} from "./sandbox-host.js";
export { probeSandbox, type SandboxProbe } from "./sandbox-probe.js";
export { DEFAULT_SANDBOX_LIMITS, resolveSandboxLimits, type SandboxLimits } from "./sandbox-settings.js";
export { ETC_ENTRIES, ETC_NEVER, resolveSystemMounts, type SandboxMount } from "./system-mounts.js";
export { checkWorkspaceOverlap } from "./workspace-overlap.js";
