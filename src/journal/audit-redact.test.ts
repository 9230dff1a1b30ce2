import { describe, expect, it } from "vitest";
import { isSecretName, REDACTED, redactSecrets } from "./audit-redact.js";

describe("isSecretName", () => {
  it.each([
    ["authorization", true],
    ["Proxy-Authorization", true],
    ["cookie", true],
    ["set-cookie", true],
    ["x-api-key", true],
    ["apiKey", true],
    ["X-Auth-Token", true],
    ["password", true],
    ["db_password", true],
    ["clientSecret", true],
    ["encrypted_content", true],
    ["private_key", true],
    ["tool", false],
    ["idempotencyKey", false],
    ["reason", false],
    ["traceId", false],
    ["keyboard", false],
  ])("treats a field named %s as secret: %s", (name, secret) => {
    expect(isSecretName(name)).toBe(secret);
  });
});

describe("redactSecrets", () => {
  it("replaces secret-named fields at any depth and leaves the rest", () => {
    const input = {
      tool: "web_fetch",
      detail: { headers: { Authorization: "Bearer abc", accept: "text/html" }, list: [{ password: "pw" }] },
    };
    expect(redactSecrets(input)).toEqual({
      tool: "web_fetch",
      detail: { headers: { Authorization: REDACTED, accept: "text/html" }, list: [{ password: REDACTED }] },
    });
    expect(input.detail.headers.Authorization).toBe("Bearer abc");
  });

  it("masks bearer credentials and URL passwords inside free text", () => {
    expect(
      redactSecrets("sent Authorization: Bearer sk-12345.abc to https://bob:hunter2@example.com/x"),
    ).toBe(`sent Authorization: Bearer ${REDACTED} to https://bob:${REDACTED}@example.com/x`);
  });

  it("keeps null and absent secret fields as they are, so absence stays visible", () => {
    expect(redactSecrets({ token: null })).toEqual({ token: null });
  });
});
