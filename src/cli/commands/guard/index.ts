export { guardArgvCommand } from "./guard-argv.js";
export { guardCommandCommand } from "./guard-command.js";
export { guardPathCommand } from "./guard-path.js";
export { guardUrlCommand } from "./guard-url.js";
