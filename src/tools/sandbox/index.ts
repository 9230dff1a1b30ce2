export { SANDBOX_CODE_DIR, SANDBOX_PATH } from "./bwrap-args.js";
export { cgroupsDescription } from "./sandbox-cgroup.js";
export {
  createSandboxHost,
  type SandboxHost,
  type SandboxHostOptions,
  type SandboxNetworkPolicy,
} from "./sandbox-host.js";
export { probeSandbox } from "./sandbox-probe.js";
export { checkWorkspaceOverlap } from "./workspace-overlap.js";
