import { describe, expect, it } from "vitest";
import { memoryFsView } from "./fs-view.js";
import { createPathFence, type PathAccess, resolveRealPath } from "./path-fence.js";

// /ws is the workspace (reached through the link /link-ws), /ws/out links outside, /ws/loop loops.
const fs = memoryFsView({
  "/ws": "directory",
  "/link-ws": { link: "/ws" },
  "/ws/src": "directory",
  "/ws/src/a.ts": "file",
  "/ws/out": { link: "/etc" },
  "/ws/rel-out": { link: "../secret" },
  "/ws/inner": { link: "src" },
  "/ws/loop": { link: "loop2" },
  "/ws/loop2": { link: "loop" },
  "/ws/.git": "directory",
  "/ws/.git/hooks": "directory",
  "/ws/build": "directory",
  "/ws/.echo-runner": "directory",
  "/ws/.env": "file",
  "/etc": "directory",
  "/etc/passwd": "file",
  "/secret": "directory",
  "/home": "directory",
  "/home/me": "directory",
  "/home/me/.ssh": "directory",
  "/home/me/notes.txt": "file",
});

const fence = createPathFence({
  workspaceRoot: "/link-ws",
  homeDir: "/home/me",
  protectedPaths: ["/ws/.echo-runner"],
  fs,
});

const writeFence = createPathFence({
  workspaceRoot: "/ws",
  safeWriteRoot: "/ws/build",
  homeDir: "/home/me",
  fs,
});
const open = createPathFence({ workspaceRoot: "/ws", restrictToWorkspace: false, homeDir: "/home/me", fs });

describe("path fence layer 1: path parameters", () => {
  it.each([
    ["src/a.ts", "read", "allow", "path.inside", "/ws/src/a.ts"],
    ["./src//a.ts", "read", "allow", "path.inside", "/ws/src/a.ts"],
    ["/ws/src/a.ts", "read", "allow", "path.inside", "/ws/src/a.ts"],
    ["/link-ws/src/a.ts", "read", "allow", "path.inside", "/ws/src/a.ts"],
    ["src/new/file.ts", "write", "allow", "path.inside", "/ws/src/new/file.ts"],
    ["inner/a.ts", "read", "allow", "path.inside", "/ws/src/a.ts"],
    ["src/../src/a.ts", "read", "allow", "path.inside", "/ws/src/a.ts"],
    ["", "read", "deny", "path.invalid", ""],
    ["a\u0000b", "read", "deny", "path.invalid", ""],
    ["../etc/passwd", "read", "deny", "path.outside-workspace", "/etc/passwd"],
    ["src/../../etc/passwd", "read", "deny", "path.outside-workspace", "/etc/passwd"],
    ["/etc/passwd", "read", "deny", "path.outside-workspace", "/etc/passwd"],
    ["//etc///passwd", "read", "deny", "path.outside-workspace", "/etc/passwd"],
    ["~/notes.txt", "read", "deny", "path.outside-workspace", "/home/me/notes.txt"],
    ["~", "read", "deny", "path.outside-workspace", "/home/me"],
    ["out/passwd", "read", "deny", "path.outside-workspace", "/etc/passwd"],
    ["out/new-file", "write", "deny", "path.outside-workspace", "/etc/new-file"],
    ["rel-out/x", "write", "deny", "path.outside-workspace", "/secret/x"],
    ["out/../x", "read", "deny", "path.outside-workspace", "/x"],
    ["loop/x", "read", "deny", "path.link-loop", "/ws/loop"],
    [".git/hooks/pre-commit", "write", "deny", "path.protected", "/ws/.git/hooks/pre-commit"],
    [".git/config", "write", "deny", "path.protected", "/ws/.git/config"],
    [".git/config", "read", "allow", "path.inside", "/ws/.git/config"],
    [".env", "write", "deny", "path.protected", "/ws/.env"],
    [".env", "read", "allow", "path.inside", "/ws/.env"],
    ["deploy/id_ed25519", "write", "deny", "path.protected", "/ws/deploy/id_ed25519"],
    [".echo-runner/config.yaml", "write", "deny", "path.protected", "/ws/.echo-runner/config.yaml"],
    [".echo-runner/config.yaml", "read", "allow", "path.inside", "/ws/.echo-runner/config.yaml"],
  ] as Array<[string, PathAccess, string, string, string]>)(
    "%j (%s) → %s %s",
    (path, access, verdict, rule, resolved) => {
      expect(fence.check(path, access)).toMatchObject({ verdict, rule, resolvedPath: resolved });
    },
  );

  it.each([
    ["build/out.js", "write", "allow", "path.inside"],
    ["src/a.ts", "write", "deny", "path.outside-write-root"],
    ["src/a.ts", "read", "allow", "path.inside"],
  ] as Array<[string, PathAccess, string, string]>)(
    "with safe_write_root: %j (%s) → %s",
    (path, access, verdict, rule) => {
      expect(writeFence.check(path, access)).toMatchObject({ verdict, rule });
    },
  );

  it.each([
    ["/etc/passwd", "read", "allow", "path.inside"],
    ["~/.ssh/authorized_keys", "write", "deny", "path.protected"],
    ["/ws/.git/HEAD", "write", "deny", "path.protected"],
  ] as Array<[string, PathAccess, string, string]>)(
    "without restrict_to_workspace: %j (%s) → %s",
    (path, access, verdict, rule) => {
      expect(open.check(path, access)).toMatchObject({ verdict, rule });
    },
  );

  it("resolves symlinks of the longest existing prefix only", () => {
    expect(resolveRealPath("/ws/out/missing/deeper", "/", "/home/me", fs)).toEqual({
      path: "/etc/missing/deeper",
      loop: false,
    });
    expect(resolveRealPath("/ws/missing/../src", "/", "/home/me", fs).path).toBe("/ws/src");
  });
});

describe("path fence layer 2: patterns and what a walk reaches", () => {
  it.each([
    ["src/**/*.ts", "allow", "path.inside"],
    ["*.md", "allow", "path.inside"],
    ["../*", "deny", "path.pattern-escapes"],
    ["/etc/*.conf", "deny", "path.pattern-escapes"],
    ["src/*/../../../etc/*", "deny", "path.pattern-escapes"],
    ["out/*", "deny", "path.pattern-escapes"],
    ["~/*", "deny", "path.pattern-escapes"],
  ])("pattern %j → %s", (pattern, verdict, rule) => {
    expect(fence.checkPattern(pattern, "read")).toMatchObject({ verdict, rule });
  });

  it("drops entries a walk reached through links that point outside", () => {
    const { allowed, denied } = fence.filterReached(
      ["/ws/src/a.ts", "/ws/out/passwd", "/ws/inner/a.ts", "/ws/rel-out/k"],
      "read",
    );
    expect(allowed).toEqual(["/ws/src/a.ts", "/ws/src/a.ts"]);
    expect(denied.map((d) => d.resolvedPath)).toEqual(["/etc/passwd", "/secret/k"]);
    expect(denied[0]?.reason).toContain("the walk reached /ws/out/passwd");
  });
});
