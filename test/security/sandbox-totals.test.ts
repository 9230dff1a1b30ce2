import { spawn } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isAlive } from "../../src/tools/process/process-group.js";
import { createSandboxCgroup, detectSandboxCgroups } from "../../src/tools/sandbox/sandbox-cgroup.js";
import { sandboxedExec } from "../helpers/sandbox-exec.js";

/**
 * Limits per sandbox, not per process. Under memory_mb 300 one call started four
 * processes of 200 MiB each, every one within its own RLIMIT_AS. With the sandbox's cgroup the
 * four together are bound: the call fails naming the limit and its setting, the groups are gone
 * afterwards and the next call runs. CI runs as root on cgroup v1 (memory + pids), where the
 * sandbox makes its groups; the first test says so, and fails, anywhere else.
 */

const cgroups = detectSandboxCgroups();
const { sandbox, supervisor, run } = sandboxedExec({ limits: { memoryMb: 300, maxProcesses: 64 } });
afterAll(() => supervisor.close());

describe("the sandbox's totals", () => {
  it("are bound by cgroups on this machine", () => {
    expect(cgroups.kind, JSON.stringify(cgroups)).toBe("v1");
    expect(sandbox.cgroups.kind).toBe("v1");
  });

  it("four processes of 100 MiB under memory_mb 300: the call fails naming the limit", async () => {
    // Each child touches 100 MiB (200 with perl's copy: within its own 300 MiB address space); together they exceed 300.
    const hog = `perl -e 'my $x = "a" x (100*1024*1024); sleep 5'`;
    const result = await run(`for i in 1 2 3 4; do ${hog} & done; wait; echo survived`, 60);
    expect(result.success, JSON.stringify(result)).toBe(false);
    expect(!result.success && result.error).toContain("memory limit of 300 MiB");
    expect(!result.success && result.error).toContain("tools.exec.sandbox.memory_mb");
  });

  it("a sandbox's groups are removed with what is left in them", async () => {
    if (cgroups.kind !== "v1") throw new Error(`no cgroup v1 here: ${JSON.stringify(cgroups)}`);
    const group = createSandboxCgroup(cgroups, sandbox.limits);
    const left = spawn("/bin/sleep", ["293"], { stdio: "ignore" });
    for (const procs of group.procs) writeFileSync(procs, String(left.pid));
    const names = group.procs.map((p) => basename(dirname(p)));
    expect(names[0]).toMatch(/^sbx-/);
    await group.remove();
    await expect.poll(() => isAlive(left.pid as number)).toBe(false);
    expect(readdirSync(cgroups.memory)).not.toContain(names[0]);
    expect(readdirSync(cgroups.pids)).not.toContain(names[1]);
  });

  it("one process of 100 MiB fits, and ordinary work runs", async () => {
    const result = await run(
      `perl -e 'my $x = "a" x (100*1024*1024); print "fits\\n"'; echo ok | tr a-z A-Z`,
    );
    expect(result).toMatchObject({ success: true, output: "fits\nOK\n" });
  });
});
