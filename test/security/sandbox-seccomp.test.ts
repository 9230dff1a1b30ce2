import { afterAll, describe, expect, it } from "vitest";
import { buildSeccompFilter } from "../../src/tools/sandbox/seccomp-filter.js";
import { sandboxedExec } from "../helpers/sandbox-exec.js";

/**
 * The sandbox's seccomp filter, from inside a real bubblewrap sandbox through the
 * real exec tool. Each system call is made directly (perl's syscall(), so no library wrapper can
 * hide the answer) and its errno printed: the denied ones answer EPERM (clone3 ENOSYS), harmless
 * ones still work. Without the filter ptrace(TRACEME), io_uring_setup and userfaultfd answer
 * otherwise, and clone with CLONE_NEWUSER is refused only by bubblewrap's --disable-userns.
 */

const { run, supervisor } = sandboxedExec({ limits: { maxProcesses: 64 } });
afterAll(() => supervisor.close());

// x86-64 numbers: the suite runs on x86-64 CI machines (the filter's own tables cover arm64).
const CALLS: ReadonlyArray<{ name: string; perl: string; errno: number }> = [
  { name: "ptrace(PTRACE_TRACEME)", perl: "syscall(101, 0, 0, 0, 0)", errno: 1 },
  { name: "io_uring_setup", perl: 'do { my $p = "\\0" x 120; syscall(425, 1, $p) }', errno: 1 },
  { name: "io_uring_enter", perl: "syscall(426, 0, 0, 0, 0, 0, 0)", errno: 1 },
  { name: "bpf", perl: "syscall(321, 0, 0, 0)", errno: 1 },
  { name: "perf_event_open", perl: "syscall(298, 0, 0, -1, -1, 0)", errno: 1 },
  { name: "userfaultfd", perl: "syscall(323, 0)", errno: 1 },
  { name: "keyctl", perl: "syscall(250, 0, 0, 0, 0, 0)", errno: 1 },
  { name: "add_key", perl: "syscall(248, 0, 0, 0, 0, 0)", errno: 1 },
  { name: "unshare(CLONE_NEWUSER)", perl: "syscall(272, 0x10000000)", errno: 1 },
  { name: "clone(CLONE_NEWUSER)", perl: "syscall(56, 0x10000000 | 17, 0, 0, 0, 0)", errno: 1 },
  { name: "clone3", perl: "syscall(435, 0, 0)", errno: 38 },
  { name: "process_vm_readv", perl: "syscall(310, 1, 0, 0, 0, 0, 0)", errno: 1 },
  { name: "kexec_load", perl: "syscall(246, 0, 0, 0, 0)", errno: 1 },
  { name: "fsopen", perl: 'do { my $s = "tmpfs"; syscall(430, $s, 0) }', errno: 1 },
  { name: "open_tree", perl: 'do { my $s = "/"; syscall(428, -100, $s, 0) }', errno: 1 },
];

async function errnoOf(perl: string): Promise<string> {
  const result = await run(`perl -e '$! = 0; my $r = ${perl}; print $r == -1 ? ($! + 0) : "ok"'`);
  expect(result.success, JSON.stringify(result)).toBe(true);
  return result.success ? result.output.trim() : "";
}

describe("the sandbox's seccomp filter", () => {
  it("is built for this machine", () => {
    expect(buildSeccompFilter()?.length).toBeGreaterThan(0);
  });

  for (const call of CALLS) {
    it(`${call.name} fails with errno ${call.errno} inside the sandbox`, async () => {
      expect(await errnoOf(call.perl)).toBe(String(call.errno));
    });
  }

  it("leaves ordinary calls alone: getpid, a plain fork (clone without namespace flags), a pipeline", async () => {
    expect(await errnoOf("syscall(39)")).toBe("ok");
    const result = await run(
      "echo hello | tr a-z A-Z; (sleep 0; echo sub) & wait; perl -e 'fork or exit; wait; print \"forked\"'",
    );
    expect(result).toMatchObject({ success: true, output: expect.stringContaining("HELLO\nsub\nforked") });
  });
});
