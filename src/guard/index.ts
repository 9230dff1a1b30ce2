export {
  type CallGuard,
  type CallGuardContext,
  type CallGuardOptions,
  createCallGuard,
} from "./call-guard.js";
export {
  type CommandAnalysis,
  type CommandGuard,
  commandGuardFromParser,
  MAX_COMMAND_LENGTH,
  MAX_PIPES,
  MAX_SCRIPT_NESTING,
} from "./command-guard.js";
export { commandNamedPaths, commandPathOperands, NEUTRAL_DEVICE_PATHS } from "./command-path-operands.js";
export { commandRunFiles, type RunFile } from "./command-run-files.js";
export {
  EXEC_HOST_TABLE,
  EXEC_POLICY_FINDINGS,
  type ExecHostKind,
  type ExecHostRow,
  type ExecPolicyFinding,
  HOST_EFFECTS,
  type HostEffect,
  hostEffect,
} from "./exec-host-table.js";
export {
  createExecPolicy,
  DEFAULT_TRUSTED_DIRS,
  EXEC_RULES,
  type ExecPolicy,
  type ExecPolicyOptions,
  type ExecRule,
  type ExecVerdict,
  stricterExecVerdict,
} from "./exec-policy.js";
export type { GuardAssessment } from "./guard-assessment.js";
export {
  type AddressClass,
  checkExecNetwork,
  checkHost,
  checkHostWithAddresses,
  checkUrl,
  checkUrlWithAddresses,
  classifyAddress,
  commandNetworkTargets,
  EXEC_NETWORK_RULES,
  type ExecNetworkOptions,
  type ExecNetworkRule,
  type ExecNetworkVerdict,
  FETCHABLE_SCHEMES,
  type HostResolver,
  inspectHost,
  inspectUrl,
  type NetworkTarget,
  URL_RULES,
  type UrlRule,
  type UrlTarget,
  type UrlVerdict,
} from "./network/index.js";
export {
  createPathFence,
  FS_ENTRY_KINDS,
  type FsEntryKind,
  type FsView,
  isInside,
  memoryFsView,
  PATH_ACCESS,
  PATH_RULES,
  type PathAccess,
  type PathFence,
  type PathFenceOptions,
  type PathRule,
  type PathVerdict,
  type RealPath,
  resolveRealPath,
} from "./paths/index.js";
export {
  compileSafeBinProfile,
  DEFAULT_SAFE_BIN_PROFILES,
  NEVER_SAFE_BINS,
  resolveSafeBinProfiles,
  type SafeBinCheck,
  type SafeBinProfile,
  type SafeBinProfileConfig,
  validateSafeBinArgv,
} from "./safe-bins/index.js";
export type { ParsedShell, ShellParser } from "./shell/index.js";
export {
  findInvisibleCharacters,
  INVISIBLE_CHARACTERS_RULE,
  type InvisibleCharactersFinding,
  SHELL_DIALECTS,
  type ShellDialect,
} from "./shell/index.js";
export type { InputReaders } from "./unwrap/index.js";
export {
  COMMAND_RULES,
  type CommandRule,
  type CommandVerdict,
  decideCommand,
  GUARD_VERDICTS,
  type GuardFinding,
  type GuardVerdictKind,
  HARD_RULES,
  SOFT_RULES,
  type SoftRule,
} from "./verdict/index.js";
