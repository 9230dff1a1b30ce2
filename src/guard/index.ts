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
export { commandPathOperands, NEUTRAL_DEVICE_PATHS } from "./command-path-operands.js";
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
  checkExecNetwork,
  EXEC_NETWORK_RULES,
  type ExecNetworkOptions,
  type ExecNetworkRule,
  type ExecNetworkVerdict,
} from "./exec-network.js";
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
export { FS_ENTRY_KINDS, type FsEntryKind, type FsView, memoryFsView } from "./fs-view.js";
export type { GuardAssessment } from "./guard-assessment.js";
export {
  findInvisibleCharacters,
  INVISIBLE_CHARACTERS_RULE,
  type InvisibleCharactersFinding,
} from "./invisible-characters.js";
export { type AddressClass, classifyAddress } from "./ip-ranges.js";
export { commandNetworkTargets, type NetworkTarget } from "./network-targets.js";
export {
  createPathFence,
  isInside,
  PATH_ACCESS,
  PATH_RULES,
  type PathAccess,
  type PathFence,
  type PathFenceOptions,
  type PathRule,
  type PathVerdict,
  type RealPath,
  resolveRealPath,
} from "./path-fence.js";
export { DEFAULT_SAFE_BIN_PROFILES, resolveSafeBinProfiles } from "./safe-bin-profiles.js";
export {
  compileSafeBinProfile,
  NEVER_SAFE_BINS,
  type SafeBinCheck,
  type SafeBinProfile,
  type SafeBinProfileConfig,
  validateSafeBinArgv,
} from "./safe-bins.js";
export { SHELL_DIALECTS, type ShellDialect } from "./shell-dialect.js";
export type { InputReaders } from "./shell-input.js";
export type { ParsedShell, ShellParser } from "./shell-parser.js";
export {
  checkHost,
  checkHostWithAddresses,
  checkUrl,
  checkUrlWithAddresses,
  FETCHABLE_SCHEMES,
  type HostResolver,
  inspectHost,
  inspectUrl,
  URL_RULES,
  type UrlRule,
  type UrlTarget,
  type UrlVerdict,
} from "./ssrf.js";
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
} from "./verdict.js";
