export { runsDiffCommand, runsDiscardCommand, runsLandCommand, runsLayersCommand } from "./runs-layers.js";
