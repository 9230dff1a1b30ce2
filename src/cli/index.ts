export { COMMANDS } from "./commands/index.js";
export { bufferIo, type CliCommand, type CliIo, EXIT, processIo } from "./io.js";
export { runCli } from "./run-cli.js";
