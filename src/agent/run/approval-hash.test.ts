import { describe, expect, it } from "vitest";
import { hashCanonical } from "../../shared/index.js";
import { approvalArgsHash } from "./approval-hash.js";

describe("approvalArgsHash", () => {
  const args = { command: "tar -czf r.tgz r.md" };

  it("binds an exec call to its host: a sandbox approval never matches the same call on the local host", () => {
    expect(approvalArgsHash("exec", args, "/srv/ws", "sandbox")).not.toBe(
      approvalArgsHash("exec", args, "/srv/ws", "local"),
    );
  });

  it("binds an exec call to its working directory", () => {
    expect(approvalArgsHash("exec", args, "/srv/ws", "sandbox")).not.toBe(
      approvalArgsHash("exec", args, "/srv/other", "sandbox"),
    );
    expect(approvalArgsHash("exec", { ...args, cwd: "sub" }, "/srv/ws", "sandbox")).not.toBe(
      approvalArgsHash("exec", args, "/srv/ws", "sandbox"),
    );
    expect(
      approvalArgsHash("process", { action: "start", command: "x", cwd: "." }, "/srv/ws", "sandbox"),
    ).toBe(approvalArgsHash("process", { action: "start", command: "x", cwd: "." }, "/srv/ws/", "sandbox"));
  });

  it("keeps the plain canonical hash for tools that run no process", () => {
    expect(approvalArgsHash("write_file", { path: "a", content: "b" }, "/srv/ws", "sandbox")).toBe(
      hashCanonical({ path: "a", content: "b" }),
    );
  });
});
