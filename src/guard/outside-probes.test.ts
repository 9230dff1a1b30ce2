/** biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, not templates */
import { beforeAll, describe, expect, it } from "vitest";
import { createCommandGuard } from "../platform/index.js";
import type { CommandGuard } from "./command-guard.js";
import { createExecPolicy, type ExecPolicy } from "./exec-policy.js";

/** Inputs tried from outside while working on #15 that no test listed; each passed before. */
let guard: CommandGuard;
let allowlist: ExecPolicy;
beforeAll(async () => {
  guard = await createCommandGuard();
  allowlist = createExecPolicy(guard, {
    security: "allowlist",
    ask: "on-miss",
    resolveBinary: (c) => (c.includes("/") ? c : `/usr/bin/${c}`),
  });
});

describe("probes from outside", () => {
  it.each([
    // `..` after an unknown part climbs to / (was allowed: normalised to the relative etc/shadow).
    ['cat "${HOME%/*}/../etc/shadow"', "ask"],
    ['cat "$d/../../etc/shadow"', "ask"],
    // IFS changed: unquoted expansions split on it (was allowed: `$x` read as one known word).
    ['IFS=,; x="rm,-rf,/"; $x', "ask"],
    ['read IFS < f; x="rm,-rf,/"; $x', "ask"],
    // a 100 KB broken pipeline used to abort the parser; the guard must still deny afterwards.
    ["rm -rf /", "deny"],
    // Tried from outside after #19 moved the shell parser into src/platform (each held already).
    ["f=rm; $f -rf /", "deny"],
    ["awk 'BEGIN{system(\"rm -rf /\")}'", "deny"],
    ["env -S 'rm -rf /'", "deny"],
    ["find / -delete", "deny"],
    ["tee /dev/sda < /dev/zero", "deny"],
    [": $(rm -rf ~)", "deny"],
    ["printf '%s' 'cm0gLXJmIC8=' | base64 -d | sh", "ask"],
    ["xargs -a list.txt -I{} sh -c '{}'", "ask"],
    ["perl -e 'unlink glob q{/etc/*}'", "ask"],
  ])("%s → %s", (command, verdict) => {
    expect(guard.check(command).verdict).toBe(verdict);
  });

  it.each([
    // A name reference to a name known only at run time: `r=1` may assign `a[$(cmd)]`.
    'declare -n r="$v"; r=1; head -n 1',
    // tree-sitter reads this `[[` (as a division); bash rejects it.
    "head -n 1; [[ 1 || touch /tmp/x/y ]]",
  ])("never counts %s as safe bins", (command) => {
    expect(allowlist.check(command).verdict).toBe("ask");
  });

  it("keeps ordinary uses of the same constructs allowed", () => {
    expect(guard.check('cat "$d/../x.txt"').verdict).toBe("allow");
    expect(guard.check('x="a b"; echo $x').verdict).toBe("allow");
    expect(allowlist.check("head -n 1; [[ -f a || -f b ]]").verdict).toBe("allow");
  });
});
