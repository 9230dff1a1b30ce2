export { parseArgs, pathCandidates } from "./command-facts.js";
export { runnerCommands } from "./command-runners.js";
export { envCommandAssignments, environmentCommands, optionCommands } from "./embedded-commands.js";
export {
  GIT_COMMAND_KEY,
  GIT_LOADING_KEY,
  gitCommandLine,
  gitCommandLineSettings,
  judgeGitSettings,
} from "./git-config.js";
export { interpreterInlineFlag, shellInlineFlag } from "./inline-code.js";
export { invocationEnv } from "./option-commands.js";
export { hasOption, optionValuesOf, type ReadArgs, readOptions } from "./option-reader.js";
export { optionSpec } from "./option-tables.js";
export { DOWNLOADERS, isInterpreter, SHELL_PROGRAMS, TEXT_ONLY_PROGRAMS } from "./programs.js";
export { type InputReaders, inputReaders } from "./shell-input.js";
export {
  declaredAssignments,
  stateAssignmentUses,
  stateDeclarationUses,
  stateInvocationUses,
} from "./shell-state.js";
export { findStartPaths, type Invocation, programName, skipOptions, unwrapCommand } from "./unwrap.js";
