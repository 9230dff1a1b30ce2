import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { metricsTokenFromConfig, operatorsFromConfig } from "../../src/runtime/index.js";
import { isRunnerError } from "../../src/shared/index.js";
import { testConfig } from "../helpers/agent-harness.js";

const ANN = "ann-token-0123456789abcdefghijklmnopqrstuv";
const BOB = "bob-token-0123456789abcdefghijklmnopqrstuv";

async function config(approvers: unknown[], extra: Record<string, unknown> = {}) {
  const dir = await mkdtemp(join(tmpdir(), "echo-ops-"));
  return testConfig(dir, { approvers, ...extra });
}

function failure(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(isRunnerError(err, "CONFIG_INVALID")).toBe(true);
    return (err as Error).message;
  }
  throw new Error("expected a CONFIG_INVALID error");
}

describe("named operators from config", () => {
  it("gives each approver with a token_env their own token, and identifies them by it", async () => {
    const c = await config([
      { id: "ann", email: "ann@example.test", token_env: "ANN_TOKEN" },
      { id: "Bob", token_env: "BOB_TOKEN" },
      { id: "carol", email: "carol@example.test" },
    ]);
    const operators = operatorsFromConfig(c, { ANN_TOKEN: ANN, BOB_TOKEN: BOB });
    expect(operators.size).toBe(2);
    expect(operators.identify(ANN)).toBe("ann");
    expect(operators.identify(BOB)).toBe("Bob");
    expect(operators.identify(`${ANN} `)).toBeNull();
    expect(operators.identify("")).toBeNull();
    expect(operators.idOf("BOB ")).toBe("Bob");
    expect(operators.idOf("carol")).toBeNull();
  });

  it("refuses to start with a token shorter than 32 characters, naming the approver and the variable", async () => {
    const c = await config([{ id: "ann", token_env: "ANN_TOKEN" }]);
    const message = failure(() => operatorsFromConfig(c, { ANN_TOKEN: "short-token" }));
    expect(message).toContain("approvers[0].token_env (ANN_TOKEN");
    expect(message).toContain("at least 32");
    expect(message).not.toContain("short-token");
  });

  it("refuses to start when a token_env names an unset variable", async () => {
    const c = await config([{ id: "ann", token_env: "ANN_TOKEN" }]);
    expect(failure(() => operatorsFromConfig(c, {}))).toContain("is not set");
  });

  it("refuses two people sharing one token", async () => {
    const c = await config([
      { id: "ann", token_env: "ANN_TOKEN" },
      { id: "bob", token_env: "BOB_TOKEN" },
    ]);
    expect(failure(() => operatorsFromConfig(c, { ANN_TOKEN: ANN, BOB_TOKEN: ANN }))).toContain(
      "a token of their own",
    );
  });

  it("keeps the shared http.api_token_env as a read-only token of at least 32 characters, never an operator's", async () => {
    const c = await config([{ id: "ann", token_env: "ANN_TOKEN" }]);
    const operators = operatorsFromConfig(c, { ANN_TOKEN: ANN });
    expect(metricsTokenFromConfig(c, {}, operators)).toBeUndefined();
    expect(metricsTokenFromConfig(c, { ECHO_RUNNER_API_TOKEN: BOB }, operators)).toBe(BOB);
    expect(failure(() => metricsTokenFromConfig(c, { ECHO_RUNNER_API_TOKEN: "tok" }, operators))).toContain(
      "http.api_token_env (ECHO_RUNNER_API_TOKEN)",
    );
    expect(failure(() => metricsTokenFromConfig(c, { ECHO_RUNNER_API_TOKEN: ANN }, operators))).toContain(
      "same token as an operator",
    );
  });

  it.each([
    [[{ id: "alice" }, { id: "Alice " }], "names the same person as approvers[0]"],
    [[{ id: "alice" }, { id: "ａｌｉｃｅ" }], "names the same person"],
    [[{ id: "ali\u202ece" }], "must be a visible name"],
    [[{ id: "\u200b" }], "must be a visible name"],
    [
      [
        { id: "ann", token_env: "T" },
        { id: "bob", token_env: "T" },
      ],
      "a token of their own",
    ],
  ])("rejects the approvers %j in config check", async (approvers, message) => {
    await expect(config(approvers)).rejects.toThrow(message);
  });
});
