export { runCommand } from "./run.js";
