import { beforeAll, describe, expect, it } from "vitest";
import { createCommandGuard } from "../platform/index.js";
import type { CommandGuard } from "./command-guard.js";
import { commandPathOperands } from "./command-path-operands.js";

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
  ])("%s → %j", (command, expected) => {
    expect(operands(command).sort()).toEqual([...expected].sort());
  });
});
