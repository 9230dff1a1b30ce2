export { toolRows, toolsFromConfig, toolsListCommand } from "./tools-list.js";
