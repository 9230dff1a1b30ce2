import { describe, expect, it } from "vitest";
import { isRunnerError } from "../../shared/index.js";
import { CHILD_ENV_ALLOW, childEnv, isSecretEnvName, resolveEnvAllow } from "./child-env.js";

describe("child process environment", () => {
  it.each([
    ["REDIS_URL", true],
    ["DATABASE_URL", true],
    ["OPENAI_API_KEY", true],
    ["GITHUB_TOKEN", true],
    ["DB_PASSWORD", true],
    ["AWS_SECRET_ACCESS_KEY", true],
    ["SMTP_PASS", true],
    ["ECHO_RUNNER_API_TOKEN", true],
    ["NPM_CONFIG_AUTH", true],
    ["SSH_PRIVATE_KEY", true],
    ["PATH", false],
    ["HOME", false],
    ["LANG", false],
    ["NODE_ENV", false],
    ["OLDPWD", false],
  ])("treats %s as secret: %s", (name, secret) => {
    expect(isSecretEnvName(name)).toBe(secret);
  });

  it("passes only allow-listed variables and adds a PATH when the worker has none", () => {
    const env = childEnv(
      { HOME: "/home/a", LANG: "C", REDIS_URL: "redis://x", FOO: "bar" },
      CHILD_ENV_ALLOW,
      {
        PWD: "/w",
      },
    );
    expect(env).toEqual({ HOME: "/home/a", LANG: "C", PATH: "/usr/local/bin:/usr/bin:/bin", PWD: "/w" });
  });

  it("accepts an operator's extra names, never secret-looking ones", () => {
    expect(resolveEnvAllow(["NODE_ENV"])).toContain("NODE_ENV");
    for (const name of ["GH_TOKEN", "REDIS_URL", "1BAD", "A-B"]) {
      let error: unknown;
      try {
        resolveEnvAllow([name]);
      } catch (err) {
        error = err;
      }
      expect(isRunnerError(error) && error.code).toBe("TOOL_DEFINITION_INVALID");
    }
  });
});
