import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bufferIo } from "../../buffer-io.fixture.js";
import { runCli } from "../../run-cli.js";
import { DEMO_CONFIG_PATH } from "./demo-config.js";

const emptyDir = () => mkdtemp(join(tmpdir(), "echo-cli-config-"));

/**
 * Without a configuration of one's own, `start` runs the demo; every other command judges and
 * reaches that same demo (and says so), not the built-in defaults nobody runs.
 */
describe("CLI commands find the config `start` runs", () => {
  it("config check without a file of one's own checks the demo and says so on stderr", async () => {
    const dir = await emptyDir();
    const out = bufferIo("", { HOME: dir }, dir);
    expect(await runCli(["config", "check"], out.io)).toBe(0);
    // Once: the demo's workspace override is a second source from the same file.
    expect(out.stdout().split(`project: ${DEMO_CONFIG_PATH}`)).toHaveLength(2);
    expect(out.stderr()).toContain("using the demo configuration config/demo.yaml");
  });

  it("policy explain judges the demo's policy: exec is available there, removed by the defaults", async () => {
    const dir = await emptyDir();
    const demo = bufferIo("", { HOME: dir }, dir);
    // The demo sets security.profile personal_cli; the built-in default (daemon) removes exec.
    expect(await runCli(["policy", "explain", "exec"], demo.io)).toBe(0);
    await writeFile(join(dir, "empty.yaml"), "{}\n");
    const defaults = bufferIo("", { HOME: dir }, dir);
    expect(
      await runCli(["policy", "explain", "exec", "--config", join(dir, "empty.yaml")], defaults.io),
    ).toBe(1);
    expect(defaults.stderr()).not.toContain("demo configuration");
  });

  it("config show moves the demo workspace under the data dir, as start does", async () => {
    const dir = await emptyDir();
    const out = bufferIo("", { HOME: dir, ECHO_RUNNER_DATA_DIR: "state" }, dir);
    expect(await runCli(["config", "show"], out.io)).toBe(0);
    expect(out.stdout()).toContain(`agents.demo.workspace = "${join(dir, "state", "demo-workspace")}"`);
  });

  it("config/echo-runner.yaml in the folder is the config, with no note", async () => {
    const dir = await emptyDir();
    await mkdir(join(dir, "config"));
    await writeFile(join(dir, "config", "echo-runner.yaml"), "logging:\n  level: warn\n");
    const out = bufferIo("", { HOME: dir }, dir);
    expect(await runCli(["config", "check"], out.io)).toBe(0);
    expect(out.stdout()).toContain(join(dir, "config", "echo-runner.yaml"));
    expect(out.stdout()).not.toContain(DEMO_CONFIG_PATH);
    expect(out.stderr()).toBe("");
  });

  it("ECHO_RUNNER_CONFIG names the config, with no note", async () => {
    const dir = await emptyDir();
    await writeFile(join(dir, "mine.yaml"), "logging:\n  level: warn\n");
    const out = bufferIo("", { HOME: dir, ECHO_RUNNER_CONFIG: join(dir, "mine.yaml") }, dir);
    expect(await runCli(["config", "check"], out.io)).toBe(0);
    expect(out.stdout()).toContain(join(dir, "mine.yaml"));
    expect(out.stdout()).not.toContain(DEMO_CONFIG_PATH);
    expect(out.stderr()).toBe("");
  });

  it("--config names the config, with no note", async () => {
    const dir = await emptyDir();
    await writeFile(join(dir, "mine.yaml"), "logging:\n  level: warn\n");
    const out = bufferIo("", { HOME: dir }, dir);
    expect(await runCli(["config", "check", "--config", join(dir, "mine.yaml")], out.io)).toBe(0);
    expect(out.stdout()).toContain(join(dir, "mine.yaml"));
    expect(out.stderr()).toBe("");
  });
});
