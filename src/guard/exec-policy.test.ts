import { beforeAll, describe, expect, it } from "vitest";
import { createCommandGuard } from "../platform/index.js";
import type { ExecAsk, ExecSecurity } from "../policy/index.js";
import type { CommandGuard } from "./command-guard.js";
import { createExecPolicy } from "./exec-policy.js";

let guard: CommandGuard;
beforeAll(async () => {
  guard = await createCommandGuard();
});

/** A PATH lookup over a fixed table: coreutils in /usr/bin, a planted `head` in the workspace. */
function resolveBinary(command: string): string | undefined {
  if (command === "./head") return "/work/project/head";
  if (command === "evilhead") return "/tmp/evil/head";
  if (command.includes("/")) return command;
  return `/usr/bin/${command}`;
}

function policy(security: ExecSecurity, ask: ExecAsk) {
  return createExecPolicy(guard, { security, ask, resolveBinary });
}

describe("exec policy: security and ask", () => {
  it.each([
    // security, ask, command, verdict, rule
    ["deny", "off", "ls", "deny", "exec.security-deny"],
    ["deny", "always", "head -n 5", "deny", "exec.security-deny"],
    ["full", "off", "ls -la", "allow", "allow.no-findings"],
    ["full", "on-miss", "npm test", "allow", "allow.no-findings"],
    ["full", "always", "ls", "ask", "exec.ask-always"],
    ["full", "off", "rm -rf build", "ask", "soft.recursive-delete"],
    ["full", "always", "rm -rf /", "deny", "hard.recursive-delete-system"],
    ["allowlist", "off", "rm -rf /", "deny", "hard.recursive-delete-system"],
    ["allowlist", "on-miss", "head -n 5", "allow", "exec.safe-bins"],
    ["allowlist", "on-miss", "sort | uniq -c | sort -rn | head -n 10", "allow", "exec.safe-bins"],
    ["allowlist", "on-miss", "grep -e TODO | wc -l", "allow", "exec.safe-bins"],
    ["allowlist", "on-miss", "jq -r .name 2>/dev/null", "allow", "exec.safe-bins"],
    ["allowlist", "on-miss", "/usr/bin/head -n 1", "allow", "exec.safe-bins"],
    ["allowlist", "always", "head -n 5", "ask", "exec.ask-always"],
    ["allowlist", "on-miss", "ls", "ask", "exec.allowlist-miss"],
    ["allowlist", "off", "ls", "deny", "exec.allowlist-miss"],
    ["allowlist", "on-miss", "cat package.json | jq .name", "ask", "exec.allowlist-miss"],
    ["allowlist", "on-miss", "head -n 5 /etc/passwd", "ask", "exec.allowlist-miss"],
    ["allowlist", "on-miss", "sort -o out.txt", "ask", "exec.allowlist-miss"],
    ["allowlist", "on-miss", "head -n 5 > out.txt", "ask", "exec.allowlist-miss"],
    ["allowlist", "on-miss", "head -n 5 < /etc/passwd", "ask", "exec.allowlist-miss"],
    ["allowlist", "on-miss", "LD_PRELOAD=/tmp/x.so head", "ask", "soft.env-injection"],
    ["allowlist", "on-miss", "LC_ALL=C sort", "ask", "exec.allowlist-miss"],
    ["allowlist", "on-miss", "./head -n 1", "ask", "exec.allowlist-miss"],
    ["allowlist", "on-miss", "head -n $(id -u)", "ask", "exec.allowlist-miss"],
    ["allowlist", "on-miss", "f() { head; }; f", "ask", "exec.allowlist-miss"],
    ["allowlist", "on-miss", "sudo head", "ask", "exec.allowlist-miss"],
    ["allowlist", "on-miss", "awk '{print}'", "ask", "exec.allowlist-miss"],
    ["allowlist", "on-miss", "jq -n env", "ask", "exec.allowlist-miss"],
    ["allowlist", "on-miss", "head -n 1 'unterminated", "ask", "soft.unparseable"],
    ["allowlist", "off", "python -c 'x'", "deny", "exec.allowlist-miss"],
  ] as const)("security=%s ask=%s: %j → %s (%s)", (security, ask, command, verdict, rule) => {
    const result = policy(security, ask).check(command);
    expect(result.verdict).toBe(verdict);
    expect(result.rule).toBe(rule);
    expect(result.reason).not.toBe("");
  });

  it("checks an argv the same way", () => {
    const p = policy("allowlist", "on-miss");
    expect(p.checkArgv(["sort", "-rn"])).toMatchObject({ verdict: "allow", safeBins: true });
    expect(p.checkArgv(["sort", "--compress-program=sh"])).toMatchObject({ verdict: "ask", safeBins: false });
    expect(p.checkArgv(["rm", "-rf", "/"]).verdict).toBe("deny");
  });

  it("refuses a safe bin whose real path is outside the trusted directories", () => {
    const p = createExecPolicy(guard, {
      security: "allowlist",
      ask: "on-miss",
      resolveBinary: () => "/home/me/bin/head",
    });
    const result = p.check("head -n 1");
    expect(result).toMatchObject({ verdict: "ask", rule: "exec.allowlist-miss", safeBins: false });
    expect(result.reason).toContain("outside the trusted directories");
  });

  it("uses operator profiles from tools.exec.safe_bins", () => {
    const p = createExecPolicy(guard, {
      security: "allowlist",
      ask: "on-miss",
      resolveBinary,
      safeBins: { column: { flags: ["-t"], value_flags: ["-s"] } },
    });
    expect(p.check("column -t -s ,").verdict).toBe("allow");
    expect(p.check("column -x").verdict).toBe("ask");
  });
});
