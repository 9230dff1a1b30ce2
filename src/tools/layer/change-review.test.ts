import { describe, expect, it } from "vitest";
import { reviewChangeSet } from "./change-review.js";
import type { LayerChange } from "./change-set.js";

const write = (path: string, existed = false): LayerChange => ({
  kind: "write",
  path,
  mode: 0o644,
  size: 1,
  existed,
});
const review = (...changes: LayerChange[]) => reviewChangeSet({ changes });

describe("reviewChangeSet", () => {
  it("lands git's index and new objects by themselves (git status, git add)", () => {
    expect(
      review(write(".git/index", true), { kind: "mkdir", path: ".git/objects/ab", mode: 0o755 }),
    ).toEqual({
      needsPerson: false,
      reasons: [],
    });
    expect(review(write(`.git/objects/ab/${"c".repeat(38)}`)).needsPerson).toBe(false);
  });

  it("asks a person for hooks, refs, HEAD, config, a changed object and a deleted index", () => {
    for (const change of [
      write(".git/hooks/pre-commit"),
      write(".git/refs/heads/main", true),
      write(".git/HEAD", true),
      write(".git/config", true),
      write(`.git/objects/ab/${"c".repeat(38)}`, true),
      { kind: "delete", path: ".git/index" } as const,
      write("sub/.git/index.lock"),
    ]) {
      expect(review(change).needsPerson, change.path).toBe(true);
    }
  });

  it("asks for many deletions, setuid bits and links out, naming them", () => {
    const deletes = Array.from({ length: 21 }, (_, i): LayerChange => ({ kind: "delete", path: `f${i}` }));
    expect(review(...deletes).reasons.join()).toMatch(/deletes 21 paths/);
    expect(
      review({ kind: "write", path: "x", mode: 0o4755, size: 1, existed: false }).reasons.join(),
    ).toMatch(/setuid/);
    expect(review({ kind: "symlink", path: "a/l", target: "../../etc" }).reasons.join()).toMatch(/lead out/);
    expect(review({ kind: "symlink", path: "a/l", target: "../b" }).needsPerson).toBe(false);
  });
});
