import { describe, expect, it } from "vitest";
import { gitArgv, gitEnv, HARDENED_GIT_CONFIG } from "./git-invocation.js";

describe("the git invocation", () => {
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
    expect(gitEnv("/srv/ws", "/tmp/shadow").GIT_DIR).toBe("/tmp/shadow");
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
