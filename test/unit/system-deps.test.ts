import { execFile } from "node:child_process";
import { chmod, mkdtemp, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/cli-process.js";

/**
 * scripts/ensure-system-deps.sh, which `npm test` (pretest), `npm start` (prestart) and .ci/run run
 * first: with a program missing and no way to install it (here: a PATH without apt-get), it stops at
 * once naming what is missing and the exact command that installs it. Run against a PATH of stand-ins
 * so the machine's own programs (and apt-get, as root) are never used.
 */
const SCRIPT = resolve(REPO_ROOT, "scripts/ensure-system-deps.sh");
const ALL = ["redis-server", "redis-cli", "bwrap", "strace", "socat", "getfattr", "linux"];

async function fakeBin(present: readonly string[]): Promise<{ dir: string; chromium: string }> {
  const dir = await mkdtemp(join(tmpdir(), "echo-sysdeps-"));
  for (const tool of ["id", "uname"]) {
    const real = await promisify(execFile)("bash", ["-c", `command -v ${tool}`]);
    await symlink(real.stdout.trim(), join(dir, tool));
  }
  for (const name of present) {
    await writeFile(join(dir, name), "#!/bin/sh\nexit 0\n");
    await chmod(join(dir, name), 0o755);
  }
  return { dir, chromium: join(dir, "chromium") };
}

async function run(purpose: string, env: NodeJS.ProcessEnv) {
  const started = Date.now();
  try {
    const { stdout, stderr } = await promisify(execFile)("/bin/bash", [SCRIPT, purpose], {
      env,
      timeout: 20_000,
    });
    return { code: 0, stdout, stderr, ms: Date.now() - started };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "", ms: Date.now() - started };
  }
}

describe("ensure-system-deps (pretest / prestart)", () => {
  it("passes silently when everything is there", async () => {
    const { dir, chromium } = await fakeBin([...ALL, "chromium"]);
    const result = await run("test", { PATH: dir, CHROMIUM_PATH: chromium });
    expect(result).toMatchObject({ code: 0, stdout: "", stderr: "" });
  });

  it("stops at once with the exact install command for what is missing", async () => {
    const { dir, chromium } = await fakeBin(["redis-server", "redis-cli", "strace"]);
    const result = await run("test", { PATH: dir, CHROMIUM_PATH: chromium });
    expect(result.code).toBe(1);
    expect(result.ms).toBeLessThan(5_000);
    expect(result.stderr).toContain("`npm test` needs programs that are not installed");
    expect(result.stderr).toContain(`chromium (no executable at ${chromium})`);
    expect(result.stderr).toMatch(/- bubblewrap: .*sandbox/);
    expect(result.stderr).not.toMatch(/- redis-server|- strace/);
    expect(result.stderr).toMatch(
      /apt-get install -y --no-install-recommends chromium bubblewrap socat attr user-mode-linux\n/,
    );
  });

  it("npm start needs only redis-server, and nothing when REDIS_URL names a Redis", async () => {
    const { dir } = await fakeBin([]);
    const without = await run("start", { PATH: dir });
    expect(without.code).toBe(1);
    expect(without.stderr).toMatch(/- redis-server: npm start runs its own/);
    expect(without.stderr).toMatch(/apt-get install -y --no-install-recommends redis-server\n/);
    expect(without.stderr).toContain("Or set REDIS_URL");
    expect(await run("start", { PATH: dir, REDIS_URL: "redis://127.0.0.1:6379" })).toMatchObject({ code: 0 });
  });

  it("npm start warns, without stopping, when the sandbox exec host's programs are missing and cannot be installed", async () => {
    const { dir } = await fakeBin(["redis-server"]);
    const result = await run("start", { PATH: dir });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("exec, execute_code and process are not ready");
    expect(result.stderr).toContain("tools.exec.host: local");
    const present = await fakeBin(["redis-server", "bwrap", "socat"]);
    expect(await run("start", { PATH: present.dir })).toMatchObject({ code: 0, stderr: "" });
  });

  it("runs before npm test and npm start, and .ci/run installs through it before npm test", async () => {
    const pkg = JSON.parse(await readFile(resolve(REPO_ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.pretest).toContain("scripts/ensure-system-deps.sh test");
    expect(pkg.scripts.prestart).toContain("scripts/ensure-system-deps.sh start");
    const ci = await readFile(resolve(REPO_ROOT, ".ci/run"), "utf8");
    const installs = ci.indexOf("scripts/ensure-system-deps.sh test");
    expect(installs).toBeGreaterThan(0);
    expect(ci.indexOf("\nnpm test\n")).toBeGreaterThan(installs);
  });
});
