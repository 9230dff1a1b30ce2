import { describe, expect, it } from "vitest";
import { gitArgv, gitEnv, HARDENED_GIT_CONFIG, neutralisingEnv, programKeys } from "./git-invocation.js";

describe("the git invocation", () => {
  it("finds the program-running keys a repository sets, by their variable name, whatever the driver is called", () => {
    expect(
      programKeys([
        "core.bare",
        "filter.lfs.clean",
        "filter.evil=x.process",
        "diff.Pdf.TextConv",
        "credential.https://example.org.helper",
        "remote.origin.url",
        "remote.origin.vcs",
        "user.name",
        // Fixed by the -c settings already: not blanked again.
        "core.fsmonitor",
        "diff.external",
      ]),
    ).toEqual([
      "credential.https://example.org.helper",
      "diff.Pdf.TextConv",
      "filter.evil=x.process",
      "filter.lfs.clean",
      "remote.origin.vcs",
    ]);
  });

  it("blanks keys through GIT_CONFIG_KEY_n / VALUE_n, so '=' or a newline in a name cannot change what is set", () => {
    expect(neutralisingEnv(["filter.a=b\nc.clean", "diff.x.textconv"])).toEqual({
      GIT_CONFIG_COUNT: "3",
      GIT_CONFIG_KEY_0: "filter.a=b\nc.clean",
      GIT_CONFIG_VALUE_0: "",
      GIT_CONFIG_KEY_1: "filter.a=b\nc.required",
      GIT_CONFIG_VALUE_1: "false",
      GIT_CONFIG_KEY_2: "diff.x.textconv",
      GIT_CONFIG_VALUE_2: "",
    });
  });

  it("builds the environment from nothing and names the repository outright", () => {
    const env = gitEnv("/srv/ws");
    expect(env).toMatchObject({
      PATH: "/usr/bin:/bin",
      GIT_DIR: "/srv/ws/.git",
      GIT_WORK_TREE: "/srv/ws",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_LITERAL_PATHSPECS: "1",
      GIT_OPTIONAL_LOCKS: "0",
    });
    expect(Object.keys(env).some((k) => /TOKEN|KEY|REDIS|HOME/.test(k))).toBe(false);
  });

  it("puts every hardened setting before the command, as -c pairs, and no pager", () => {
    const argv = gitArgv("/srv/ws", ["log", "--end-of-options", "HEAD", "--"]);
    expect(argv.slice(0, 2)).toEqual(["-C", "/srv/ws"]);
    expect(argv.slice(-5)).toEqual(["--no-pager", "log", "--end-of-options", "HEAD", "--"]);
    for (const setting of [
      "core.fsmonitor=false",
      "core.hooksPath=/dev/null",
      "diff.external=",
      "protocol.allow=never",
    ]) {
      expect(HARDENED_GIT_CONFIG).toContain(setting);
      expect(argv[argv.indexOf(setting) - 1]).toBe("-c");
    }
  });
});
