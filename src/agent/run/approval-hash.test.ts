import { describe, expect, it } from "vitest";
import { hashCanonical } from "../../shared/index.js";
import { approvalArgsHash, approvalKeyOf, callKeyOf } from "./approval-hash.js";

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

describe("approval hash and key of a call that runs workspace files", () => {
  const args = { command: "bash deploy.sh" };
  it("binds the files' digests; without any the hash and key are unchanged", () => {
    const plain = approvalArgsHash("exec", args, "/ws", "sandbox");
    expect(approvalArgsHash("exec", args, "/ws", "sandbox", undefined)).toBe(plain);
    const v1 = approvalArgsHash("exec", args, "/ws", "sandbox", { "deploy.sh": "sha256:1" });
    const v2 = approvalArgsHash("exec", args, "/ws", "sandbox", { "deploy.sh": "sha256:2" });
    expect(new Set([plain, v1, v2]).size).toBe(3);
    expect(approvalKeyOf("k")).toBe("k");
    const k1 = approvalKeyOf("k", { "deploy.sh": "sha256:1" });
    expect(k1).not.toBe(approvalKeyOf("k", { "deploy.sh": "sha256:2" }));
    expect(callKeyOf(k1)).toBe("k");
    expect(callKeyOf("k")).toBe("k");
  });
});
