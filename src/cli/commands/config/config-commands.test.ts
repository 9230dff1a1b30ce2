import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bufferIo } from "../../buffer-io.fixture.js";
import { runCli } from "../../run-cli.js";

async function projectFile(text: string): Promise<{ dir: string; path: string }> {
  const dir = await mkdtemp(join(tmpdir(), "echo-cli-config-"));
  const path = join(dir, "echo.yaml");
  await writeFile(path, text);
  return { dir, path };
}

/** HOME points at an empty temp dir so a developer's own user config never leaks into tests. */
function envWith(dir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { HOME: dir, ...extra };
}

describe("echo-runner config check", () => {
  it("exits 0 for a valid file and names the sources it read", async () => {
    const { dir, path } = await projectFile("security:\n  profile: daemon\n");
    const out = bufferIo("", envWith(dir), dir);
    expect(await runCli(["config", "check", "--config", path], out.io)).toBe(0);
    expect(out.stdout()).toContain("config is valid");
    expect(out.stdout()).toContain(path);
  });

  it("exits 2 and lists every problem with its path and allowed values", async () => {
    const { dir, path } = await projectFile("security:\n  profile: open\ntools:\n  dney: [exec]\n");
    const out = bufferIo("", envWith(dir), dir);
    expect(await runCli(["config", "check", "--config", path], out.io)).toBe(2);
    expect(out.stderr()).toContain("security.profile");
    expect(out.stderr()).toContain("personal_cli, daemon, public_gateway");
    expect(out.stderr()).toContain("tools.dney");
  });

  it("reports problems as JSON with --json", async () => {
    const { dir, path } = await projectFile("logging:\n  level: loud\n");
    const out = bufferIo("", envWith(dir), dir);
    expect(await runCli(["config", "check", "--config", path, "--json"], out.io)).toBe(2);
    const report = JSON.parse(out.stdout());
    expect(report.valid).toBe(false);
    expect(report.problems[0].path).toBe("logging.level");
  });

  it("exits 2 naming agents.<name>.model for a model that is not in models, and every other broken reference", async () => {
    const { dir, path } = await projectFile(
      `models:
  main: { provider: scripted, script: ./main.yaml }
agents:
  nightly: { model: mian, task: "run the tests", workspace: ./ws, allowed_tools: [exce] }
tools:
  exec:
    safe_bins:
      awk: {}
`,
    );
    const out = bufferIo("", envWith(dir), dir);
    expect(await runCli(["config", "check", "--config", path], out.io)).toBe(2);
    expect(out.stderr()).toContain("the configuration has 3 problems");
    expect(out.stderr()).toContain('agents.nightly.model: "mian" is not a model in models (defined: main)');
    expect(out.stderr()).toContain(
      'agents.nightly.allowed_tools.0: "exce" is not a tool in the catalog (did you mean exec?)',
    );
    expect(out.stderr()).toContain(
      "tools.exec.safe_bins.awk: awk runs code or writes files and can never be a safe bin",
    );
    expect(out.stderr()).toContain(`(from ${path})`);
  });

  it("doctor fails its config check on the same model typo, naming agents.<name>.model", async () => {
    const { dir, path } = await projectFile(
      "models:\n  main: { provider: scripted, script: ./main.yaml }\nagents:\n  nightly: { model: mian, task: t, workspace: ./ws }\n",
    );
    const out = bufferIo("", envWith(dir), dir);
    expect(await runCli(["doctor", "--config", path, "--timeout", "1"], out.io)).not.toBe(0);
    expect(out.stdout() + out.stderr()).toContain(
      'agents.nightly.model: "mian" is not a model in models (defined: main)',
    );
  });

  it("treats an unknown option as a usage error", async () => {
    const out = bufferIo();
    expect(await runCli(["config", "check", "--bogus"], out.io)).toBe(2);
    expect(out.stderr()).toContain("usage:");
  });
});

describe("echo-runner config show", () => {
  it("masks credentials in URLs and never prints secret values, only whether they are set", async () => {
    const { dir, path } = await projectFile(
      "redis:\n  url: redis://admin:s3cret-pass@127.0.0.1:6380\nsmtp:\n  host: mail.example.test\n  password_env: MY_SMTP_PASS\n",
    );
    const env = envWith(dir, { MY_SMTP_PASS: "smtp-secret-value", ECHO_RUNNER_API_TOKEN: "api-token-value" });
    for (const args of [[], ["--json"]]) {
      const out = bufferIo("", env, dir);
      expect(await runCli(["config", "show", "--config", path, ...args], out.io)).toBe(0);
      const text = out.stdout();
      expect(text).not.toContain("s3cret-pass");
      expect(text).not.toContain("smtp-secret-value");
      expect(text).not.toContain("api-token-value");
      expect(text).toContain("127.0.0.1:6380");
      expect(text).toContain("MY_SMTP_PASS");
    }
    const out = bufferIo("", env, dir);
    await runCli(["config", "show", "--config", path], out.io);
    expect(out.stdout()).toMatch(/smtp\.password_env = "MY_SMTP_PASS" \[variable set\]/);
    expect(out.stdout()).toMatch(/redis\.url = .*\(.*echo\.yaml\)/);
  });

  it("shows where each value came from", async () => {
    const { dir, path } = await projectFile("tools:\n  deny: [exec]\n");
    const out = bufferIo("", envWith(dir, { ECHO_RUNNER_TOOLS__DENY: "[process]" }), dir);
    await runCli(["config", "show", "--config", path, "--json"], out.io);
    const shown = JSON.parse(out.stdout());
    const deny = shown.values.find((v: { path: string }) => v.path === "tools.deny");
    expect(deny.value).toEqual(["exec", "process"]);
    expect(deny.origins).toContain("environment");
    expect(deny.origins).toContain(path);
  });
});
