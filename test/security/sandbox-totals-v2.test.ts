import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The sandbox's totals on cgroup v2. This machine's kernel keeps the memory and pids controllers in
 * cgroup v1, so the test boots a user-mode Linux kernel (Debian's user-mode-linux, a real 6.1
 * kernel run as a process) on the host's own filesystem, mounts the cgroup v2 tree there, and runs
 * the real sandbox inside it (test/security/uml/): a worker in a delegated group moves itself into
 * a leaf, four processes together pass the memory total, a fork storm passes the process total,
 * and a group's removal ends what was left in it.
 */

const repo = resolve(import.meta.dirname, "../..");

function bootProbe(probe: string): Promise<string> {
  return new Promise((done, fail) => {
    const kernel = spawn(
      "linux",
      [
        "quiet",
        "mem=1G",
        "rootfstype=hostfs",
        "rootflags=/",
        "rw",
        `init=${repo}/test/security/uml/init.sh`,
        "con=null",
        "con0=fd:0,fd:1",
        `ECHO_UML_REPO=${repo}`,
        `ECHO_UML_PROBE=${probe}`,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    kernel.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    kernel.stderr.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    const timer = setTimeout(() => kernel.kill("SIGKILL"), 240_000);
    kernel.on("error", fail);
    kernel.on("close", () => {
      clearTimeout(timer);
      done(out);
    });
  });
}

describe("the sandbox's totals on cgroup v2 (in user-mode Linux)", () => {
  it("bind memory and processes per sandbox, from a delegated group", async () => {
    const console = await bootProbe("test/security/uml/sandbox-totals-v2.probe.ts");
    const line = console.split("\n").find((l) => l.startsWith("RESULT "));
    expect(line, console.slice(-4000)).toBeDefined();
    const result = JSON.parse((line as string).slice("RESULT ".length));

    expect(result.cgroups).toEqual({ kind: "v2", parent: "/sys/fs/cgroup/svc/echo-runner" });
    expect(result.readiness.detail).toContain("memory and processes bound per sandbox (cgroup v2)");
    // The worker left its delegated group for a leaf, so the group could hand its controllers down.
    expect(result.ownAfter).toBe("0::/svc/worker");
    expect(result.svcProcs).toBe("");
    expect(result.svcControl).toBe("memory pids");

    expect(result.memory.success, JSON.stringify(result.memory)).toBe(false);
    expect(result.memory.error).toContain("memory limit of 100 MiB for all its processes together");
    expect(result.memory.error).toContain("tools.exec.sandbox.memory_mb");
    expect(result.fits).toMatchObject({ success: true, output: "fits\nOK\n" });
    expect(result.forks.success, JSON.stringify(result.forks)).toBe(false);
    expect(result.forks.error).toContain("limit of 32 processes (tools.exec.sandbox.max_processes)");

    expect(result.removal.name).toMatch(/^sbx-/);
    expect(result.removal.aliveAfter).toBe(false);
    expect(result.removal.groupsAfter).not.toContain(result.removal.name);
    expect(result.removal.groupsAfter.filter((n: string) => n.startsWith("sbx-"))).toEqual([]);
  }, 300_000);
});
