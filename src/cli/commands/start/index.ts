export { schedulerCommand, serveCommand, startCommand, workerCommand } from "./start.js";
