export { type CallGuard, createCallGuard } from "./call-guard.js";
export { type CommandGuard, commandGuardFromParser, MAX_COMMAND_LENGTH, MAX_PIPES } from "./command-guard.js";
export { commandNamedPaths, commandPathOperands } from "./command-path-operands.js";
export { commandRunFiles } from "./command-run-files.js";
export { EXEC_HOST_TABLE } from "./exec-host-table.js";
export { createExecPolicy, type ExecPolicyOptions, type ExecVerdict } from "./exec-policy.js";
export type { GuardAssessment } from "./guard-assessment.js";
export {
  checkUrl,
  checkUrlWithAddresses,
  classifyAddress,
  type HostResolver,
  type UrlVerdict,
} from "./network/index.js";
export {
  createPathFence,
  type FsEntryKind,
  type FsView,
  type PathAccess,
  type PathFence,
} from "./paths/index.js";
export { compileSafeBinProfile, type SafeBinProfileConfig } from "./safe-bins/index.js";
export type { ShellParser } from "./shell/index.js";
export { type CommandVerdict, GUARD_VERDICTS, type SoftRule } from "./verdict/index.js";
