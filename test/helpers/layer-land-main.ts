import { readChangeSet } from "../../src/tools/layer/change-set.js";
import { landChangeSet } from "../../src/tools/layer/land-change-set.js";

/**
 * A worker's landing that dies: lands the change set of `upper` over `workspace` and SIGKILLs
 * itself right after step `killAfter` (argv: upper workspace recordDir killAfter).
 */
const [upper, workspace, recordDir, killAfter] = process.argv.slice(2) as [string, string, string, string];
const set = await readChangeSet(upper, workspace);
process.stdout.write(`steps ${set.changes.length}\n`);
await landChangeSet(set, {
  upper,
  workspace,
  recordDir,
  afterStep: (index) => {
    if (index === Number(killAfter)) process.kill(process.pid, "SIGKILL");
  },
});
process.stdout.write("landed\n");
