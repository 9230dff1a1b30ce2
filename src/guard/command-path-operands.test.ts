/** biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, not templates */
import { beforeAll, describe, expect, it } from "vitest";
import { createCommandGuard } from "../platform/index.js";
import type { CommandGuard } from "./command-guard.js";
import { commandNamedPaths, commandPathOperands } from "./command-path-operands.js";

let guard: CommandGuard;
beforeAll(async () => {
  guard = await createCommandGuard();
});

const operands = (command: string) => commandPathOperands(guard.analyse(command));

describe("commandPathOperands", () => {
  it.each([
    ["cat /etc/shadow", ["/etc/shadow"]],
    ["ls src && grep -r x lib", []],
    ["cp notes.txt ../outside.txt", ["../outside.txt"]],
    ["cat ~/.ssh/id_rsa", ["~/.ssh/id_rsa"]],
    ["cat $HOME/.netrc", ["~/.netrc"]],
    ["echo hi > /tmp/x", ["/tmp/x"]],
    ["make 2>/dev/null", []],
    ["head -c 8 /dev/urandom | od", []],
    ["cd /etc && cat passwd", ["/etc", "/etc/passwd"]],
    ["./configure --prefix=/usr/local", ["/usr/local"]],
    ["echo $(cat /root/secret)", ["/root/secret"]],
    ["/usr/bin/env true", []],
    // `/proc/self` is the process that runs the command (was "outside": the fence resolved it to
    // the guard's own pid); what leads elsewhere from it still counts.
    ["cat /proc/self/mountinfo", []],
    ["cat /proc/self/status /proc/thread-self/maps /proc/self/task/1/stat", []],
    ["echo x > /proc/self/fd/2", []],
    ["cat /proc/self/exe", ["/proc/self/exe"]],
    ["ls /proc/self/map_files/", ["/proc/self/map_files"]],
    ["cat /proc/self/root/etc/passwd", ["/etc/passwd"]],
    ["cat /proc/1/status /proc/$PPID/environ", ["/proc/1/status", "/proc/$PPID/environ"]],
    // A relative `cd` is followed (was "outside": `../../hook.sh` read from the start directory).
    ["cd .git/hooks && cp ../../hook.sh pre-commit", []],
    ["cd a/b && cat ../x ../../y", []],
    // ... where the shell may still be elsewhere, every directory counts.
    ["cd .git/hooks; cp ../../hook.sh pre-commit", ["../../hook.sh"]],
    ["(cd a/b/c); cat ../../x", ["../../x"]],
    ["cd a/b && cat ../../x; cat ../y", ["../y"]],
    ["cd .git && cd hooks && cp ../../h x", ["../h", "../../h"]],
    ["cd a/b; sh -c 'cat ../../x'", ["../../x"]],
    ['cd "$d" && cd a/b && cat ../../x', ["../../x"]],
    ["cd .. && cat x", ["..", "../x"]],
  ])("%s → %j", (command, expected) => {
    expect(operands(command).sort()).toEqual([...expected].sort());
  });
});

describe("commandNamedPaths: what an approver sees listed", () => {
  const named = (command: string, max?: number) => commandNamedPaths(guard.analyse(command), max);

  it("lists relative and absolute operands and redirection targets, no options, devices or unknown words", () => {
    expect(named("rm -rf drafts old/x.md")).toEqual(["drafts", "old/x.md"]);
    expect(named("tar -czf report.tar.gz report.md 2>/dev/null")).toEqual(["report.tar.gz", "report.md"]);
    expect(named('cat "$X" *.md /etc/hosts > out.txt')).toEqual(["/etc/hosts", "out.txt"]);
    expect(named("cd sub && rm a")).toEqual(["sub", "sub/a"]);
  });

  it("stops at the bound", () => {
    const many = Array.from({ length: 50 }, (_, i) => `f${i}`).join(" ");
    expect(named(`rm ${many}`, 20)).toHaveLength(20);
  });
});
