/** biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, not templates */
import { beforeAll, describe, expect, it } from "vitest";
import { createCommandGuard } from "../../platform/index.js";
import type { CommandGuard } from "../command-guard.js";
import { normaliseTarget } from "../paths/index.js";
import { literalField } from "../shell/index.js";
import { namesMatching } from "./unknown-parts.js";

let guard: CommandGuard;
beforeAll(async () => {
  guard = await createCommandGuard();
});

describe("unknown parts could be anything: words are matched as patterns", () => {
  it.each([
    // A parameter or substitution: a person looks (soft), never a silent pass.
    ["cat /etc/sha${u}dow", "ask", "soft.unknown-parts"],
    ["cat /etc/sha$(printf '')dow", "ask", "soft.unknown-parts"],
    ["dd if=x of=/dev/sd${u}a", "ask", "soft.unknown-parts"],
    ["echo x > /dev/sd$d", "ask", "soft.unknown-parts"],
    ["echo c > /proc/sysrq${u}-trigger", "ask", "soft.unknown-parts"],
    ["cat $(echo /etc/shadow)", "ask", "soft.unknown-parts"],
    ["cat `echo /etc/shadow`", "ask", "soft.unknown-parts"],
    ["rm -rf /${x}", "ask", undefined],
    ['rm -rf "$OUT"', "ask", "soft.recursive-delete"],
    // Globs: the shell expands them the same way whatever happens, so the match holds as is.
    ["/bin/r[m] -rf /", "deny", "hard.recursive-delete-system"],
    ["/sbin/rebo?t", "deny", "hard.shutdown"],
    ["/usr/sbin/shutdow* -h now", "deny", "hard.shutdown"],
    ["/sbin/mkfs.ext[4] /dev/sdb", "deny", undefined],
    ["echo c > /proc/sysrq-trigge?", "deny", "hard.shutdown"],
    // /proc/*/root and /proc/*/cwd lead to /, and `..` there stays at /.
    ["cat /proc/self/root/../etc/shadow", "deny", "hard.system-secret-read"],
    ["cat /proc/1/root/etc/shadow", "deny", "hard.system-secret-read"],
    ["cat /proc/*/root/etc/shadow", "deny", "hard.system-secret-read"],
    ["cat /proc/$p/cwd/../../etc/shadow", "deny", "hard.system-secret-read"],
    ["rm -rf /proc/self/root/../../", "deny", "hard.recursive-delete-system"],
    // Known values stay exact.
    ["rm -rf /", "deny", "hard.recursive-delete-system"],
  ])("%s → %s", (command, verdict, rule) => {
    const v = guard.check(command);
    expect(v.verdict).toBe(verdict);
    if (rule !== undefined) expect(v.findings.map((f) => f.rule)).toContain(rule);
  });

  it("tries a name pattern against the programs the families know", () => {
    expect(namesMatching("/bin/r[m]")).toEqual(["rm"]);
    expect(namesMatching("rebo?t")).toEqual(["reboot"]);
    expect(namesMatching("ls")).toEqual([]);
    expect(namesMatching("r*m")).toContain("rm");
  });

  it("judges /proc/<pid>/root paths as the path they lead to", () => {
    expect(normaliseTarget(literalField("/proc/self/root/../etc/shadow"), undefined)).toBe("/etc/shadow");
    expect(normaliseTarget(literalField("/proc/*/cwd/etc"), undefined)).toBe("/etc");
    expect(normaliseTarget(literalField("/proc/self/root"), undefined)).toBe("/");
    expect(normaliseTarget(literalField("/proc/self/status"), undefined)).toBe("/proc/self/status");
  });
});
