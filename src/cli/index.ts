// Only what the binary's entry (src/main.ts) needs: loading this index must not load every command.
export { processIo } from "./io.js";
export { runMain } from "./run-main.js";
