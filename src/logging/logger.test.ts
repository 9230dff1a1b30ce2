import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.js";

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...chunk.toString().split("\n").filter(Boolean));
      done();
    },
  });
  return { stream, lines };
}

describe("createLogger", () => {
  it("writes JSON lines by default and redacts secrets at any of the first three levels", () => {
    const { stream, lines } = capture();
    const log = createLogger({ level: "info", format: "json", destination: stream });
    log.info(
      {
        password: "hunter2",
        smtp: { password: "p2", user: "u" },
        request: { headers: { authorization: "Bearer abc", "x-api-key": "k1", accept: "json" } },
        approvalLink: "http://x/approvals/1?t=secret-token",
        token: "t0",
      },
      "hello",
    );
    expect(lines).toHaveLength(1);
    const line = lines[0] ?? "";
    for (const secret of ["hunter2", "p2", "Bearer abc", "k1", "secret-token", "t0"])
      expect(line).not.toContain(secret);
    const parsed = JSON.parse(line);
    expect(parsed.msg).toBe("hello");
    expect(parsed.smtp.user).toBe("u");
    expect(parsed.request.headers.accept).toBe("json");
    expect(parsed.request.headers.authorization).toBe("[redacted]");
  });

  it("writes readable lines when pretty, still redacted", () => {
    const { stream, lines } = capture();
    const log = createLogger({ level: "info", format: "pretty", destination: stream, isTty: false });
    log.info({ password: "hunter2" }, "readable");
    const text = lines.join("\n");
    expect(text).toContain("readable");
    expect(text).not.toContain("hunter2");
    expect(() => JSON.parse(lines[0] ?? "")).toThrow();
  });
});
